/**
 * `pnpm bench`: throughput of chunkform against h5wasm (HDF5 2.0 compiled to WebAssembly) and a
 * memory-copy baseline, measured in one run and reported as ratios. Not a test: numbers vary by machine.
 *
 * Workload (issue #2, contiguous storage): a stack of 1024×1024 uint16 frames written as one
 * contiguous dataset, then read back whole.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import h5wasm from 'h5wasm/node';
import { createFile, openFile, type Dataset } from '../packages/core/src/index.js';

const FRAMES = Number(process.env.BENCH_FRAMES ?? 64);
const H = 1024;
const W = 1024;
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);

function frames(): Uint16Array {
  const a = new Uint16Array(FRAMES * H * W);
  for (let i = 0; i < a.length; i++) a[i] = (i * 2654435761) >>> 20;
  return a;
}

async function best(fn: () => Promise<void> | void): Promise<number> {
  let t = Infinity;
  for (let r = 0; r < REPEAT; r++) {
    const t0 = performance.now();
    await fn();
    t = Math.min(t, performance.now() - t0);
  }
  return t / 1000;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chunkform-bench-'));
  const data = frames();
  const mb = data.byteLength / 1e6;
  const rows: { name: string; seconds: number }[] = [];

  const sink = new Uint16Array(data.length);
  rows.push({ name: 'TypedArray.set (memory copy baseline)', seconds: await best(() => sink.set(data)) });

  const ours = join(dir, 'ours.h5');
  rows.push({
    name: 'chunkform write contiguous',
    seconds: await best(async () => {
      const f = await createFile(ours);
      await f.createDataset('frames', { dtype: 'uint16', shape: [FRAMES, H, W], data });
      await f.close();
    }),
  });
  rows.push({
    name: 'chunkform read contiguous',
    seconds: await best(async () => {
      const f = await openFile(ours);
      const v = (await (await f.get('frames') as Dataset).read()) as Uint16Array;
      if (v[12345] !== data[12345]) throw new Error('bench: chunkform read back wrong values');
      await f.close();
    }),
  });

  const { FS } = await h5wasm.ready;
  void FS;
  const theirs = join(dir, 'h5wasm.h5');
  rows.push({
    name: 'h5wasm write contiguous',
    seconds: await best(() => {
      const f = new h5wasm.File(theirs, 'w');
      f.create_dataset({ name: 'frames', data, shape: [FRAMES, H, W], dtype: '<H' });
      f.close();
    }),
  });
  rows.push({
    name: 'h5wasm read contiguous',
    seconds: await best(() => {
      const f = new h5wasm.File(theirs, 'r');
      const v = (f.get('frames') as InstanceType<typeof h5wasm.Dataset>).value as Uint16Array;
      if (v[12345] !== data[12345]) throw new Error('bench: h5wasm read back wrong values');
      f.close();
    }),
  });

  const rate = (name: string) => mb / rows.find((r) => r.name === name)!.seconds;
  console.log(`workload: ${FRAMES} frames of ${H}×${W} uint16 (${mb.toFixed(0)} MB), best of ${REPEAT}`);
  console.log(`files: chunkform ${statSync(ours).size} B, h5wasm ${statSync(theirs).size} B`);
  for (const r of rows) console.log(`${r.name.padEnd(40)} ${(mb / r.seconds).toFixed(0).padStart(7)} MB/s`);
  console.log(`ratio write chunkform/h5wasm: ${(rate('chunkform write contiguous') / rate('h5wasm write contiguous')).toFixed(2)}×`);
  console.log(`ratio read  chunkform/h5wasm: ${(rate('chunkform read contiguous') / rate('h5wasm read contiguous')).toFixed(2)}×`);
  console.log(`ratio read  chunkform/memcpy: ${(rate('chunkform read contiguous') / rate('TypedArray.set (memory copy baseline)')).toFixed(2)}×`);
  rmSync(dir, { recursive: true, force: true });
}

await main();
