/**
 * `pnpm bench`: throughput of chunkform against h5wasm (HDF5 2.0 compiled to WebAssembly) and a
 * memory-copy baseline, measured in one run and reported as ratios. Not a test: numbers vary by machine.
 *
 * Workload: a stack of BENCH_FRAMES (default 100) detector-like 1024×1024 uint16 frames (mostly low
 * values with noise, a few bright spots), written to a local file as one dataset and read back whole:
 * - contiguous storage (issue #2);
 * - chunked storage (issue #3) with chunks of one frame (1×1024×1024) and of 1×256×256, each with no
 *   filter, deflate level 1, and shuffle + deflate level 1.
 * h5wasm 0.10 cannot combine filters (no shuffle), so its shuffle + deflate write is not measured; its
 * read of chunkform's shuffle + deflate file is.
 *
 * Every timed write creates a new file (the previous run's output is removed untimed first): re-creating
 * an existing file pays ext4's truncate-then-rewrite flush on close (2–5× slower here), on both sides.
 *
 * Environment: BENCH_FRAMES (frames, default 100), BENCH_REPEAT (runs per measurement, best kept; default
 * 3 for contiguous and unfiltered, 1 for filtered), BENCH_ONLY (comma-separated subset: contiguous,chunked,lcls,filters,dump,repack,
 * cli-memory,points,groups,tiles,vl,threads; dump: bench/dump.ts, repack: bench/tools-repack.ts, cli-memory:
 * bench/cli-memory.ts (≥ 1 GB), points/groups: bench/sixth-wave.ts, tiles: bench/seventh-wave.ts, vl: bench/vl.ts, threads: bench/threads.ts).
 * `lcls`: the LCLS-II sparse-frame workloads of issue #4, see bench/lcls.ts (its own BENCH_LCLS_* variables).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import h5wasm from 'h5wasm/node';
import { createFile, openFile, type Dataset } from '../packages/core/src/index.js';
import { registerIndexes } from '../packages/indexes/src/index.js';
import { registerDenseFormats } from '../packages/format-dense/src/index.js';
import { registerFilters } from '../packages/filters/src/index.js';
import { runLcls } from './lcls.js';
import { runFilters } from './filters.js';
import { runDump } from './dump.js';
import { runToolsRepack } from './tools-repack.js';
import { runCliMemory } from './cli-memory.js';
import { runSixthWave } from './sixth-wave.js';
import { runSeventhWave } from './seventh-wave.js';
import { runVl } from './vl.js';
import { runThreads } from './threads.js';
import { detectorFrames } from './detector-frames.js';
import { bestSeconds as best } from './timing.js';
import { rowCopyFloor, zlibCeiling } from './zlib-ceiling.js';

const FRAMES = Number(process.env.BENCH_FRAMES ?? 100);
const H = 1024;
const W = 1024;
const REPEAT = process.env.BENCH_REPEAT ? Number(process.env.BENCH_REPEAT) : undefined;
const ONLY = new Set((process.env.BENCH_ONLY ?? 'contiguous,chunked,lcls,filters,dump,repack,cli-memory,points,groups,tiles,vl,threads').split(','));

registerIndexes();
registerDenseFormats();
registerFilters();

/** Detector-like frames (bench/detector-frames.ts). */
function frames(): Uint16Array {
  return detectorFrames(FRAMES, H, W);
}

type Filter = 'none' | 'deflate1' | 'shuffle+deflate1';
interface Config {
  chunks: number[];
  filter: Filter;
}

const fmt = (x: number | undefined, d = 0): string => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(d));

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chunkform-bench-'));
  const t0 = performance.now();
  const data = frames();
  const mb = data.byteLength / 1e6;
  console.log(`workload: ${FRAMES} frames of ${H}×${W} uint16 (${mb.toFixed(0)} MB); frames generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const check = (v: Uint16Array, who: string): void => {
    for (const i of [0, 12345, data.length >> 1, data.length - 1]) {
      if (v[i] !== data[i]) throw new Error(`bench: ${who} read back wrong values (element ${i}: ${v[i]} ≠ ${data[i]})`);
    }
  };
  const { FS } = await h5wasm.ready;
  void FS;

  const sink = new Uint16Array(data.length);
  const memcpy = await best(REPEAT ?? 5, () => sink.set(data));
  console.log(`TypedArray.set (memory copy baseline)     ${fmt(mb / memcpy).padStart(7)} MB/s`);
  // A read that returns a new array pays for first-touching its pages: the ceiling of such reads.
  const freshCopy = await best(REPEAT ?? 5, () => void new Uint16Array(data.length).set(data));
  console.log(`new TypedArray + set (fresh memory)       ${fmt(mb / freshCopy).padStart(7)} MB/s   (${fmt(memcpy / freshCopy, 2)}× memcpy)`);

  if (ONLY.has('contiguous')) {
    const repeat = REPEAT ?? 3;
    const ours = join(dir, 'ours-contiguous.h5');
    const theirs = join(dir, 'h5wasm-contiguous.h5');
    const w1 = await best(
      repeat,
      async () => {
        const f = await createFile(ours);
        await f.createDataset('frames', { dtype: 'uint16', shape: [FRAMES, H, W], data });
        await f.close();
      },
      () => rmSync(ours, { force: true }),
    );
    const r1 = await best(repeat, async () => {
      const f = await openFile(ours);
      check((await ((await f.get('frames')) as Dataset).read()) as Uint16Array, 'chunkform');
      await f.close();
    });
    const w2 = await best(
      repeat,
      () => {
        const f = new h5wasm.File(theirs, 'w');
        f.create_dataset({ name: 'frames', data, shape: [FRAMES, H, W], dtype: '<H' });
        f.close();
      },
      () => rmSync(theirs, { force: true }),
    );
    const r2 = await best(repeat, () => {
      const f = new h5wasm.File(theirs, 'r');
      check((f.get('frames') as InstanceType<typeof h5wasm.Dataset>).value as Uint16Array, 'h5wasm');
      f.close();
    });
    console.log('\ncontiguous (best of %d)          chunkform MB/s   h5wasm MB/s   ratio', repeat);
    console.log(`  write                          ${fmt(mb / w1).padStart(14)} ${fmt(mb / w2).padStart(13)} ${fmt(w2 / w1, 2).padStart(6)}×`);
    console.log(`  read                           ${fmt(mb / r1).padStart(14)} ${fmt(mb / r2).padStart(13)} ${fmt(r2 / r1, 2).padStart(6)}×   (${fmt(memcpy / r1, 2)}× memcpy)`);
    rmSync(ours, { force: true });
    rmSync(theirs, { force: true });
  }

  if (ONLY.has('chunked')) {
    const configs: Config[] = [];
    for (const chunks of [[1, H, W], [1, 256, 256]]) for (const filter of ['none', 'deflate1', 'shuffle+deflate1'] as Filter[]) configs.push({ chunks, filter });
    console.log('\nchunked                                     write MB/s                     read MB/s              file');
    console.log('chunks       filter             chunkform  h5wasm  ratio    chunkform  h5wasm  ratio   vs memcpy   size ratio');
    for (const c of configs) {
      const repeat = REPEAT ?? (c.filter === 'none' ? 3 : 1);
      const ours = join(dir, 'ours-chunked.h5');
      const theirs = join(dir, 'h5wasm-chunked.h5');
      const opts = c.filter === 'none' ? {} : { compression: 'gzip' as const, compressionOpts: 1, ...(c.filter === 'shuffle+deflate1' ? { shuffle: true } : {}) };
      const w1 = await best(
        repeat,
        async () => {
          const f = await createFile(ours);
          await f.createDataset('frames', { dtype: 'uint16', shape: [FRAMES, H, W], chunks: c.chunks, ...opts, data });
          await f.close();
        },
        () => rmSync(ours, { force: true }),
      );
      const r1 = await best(repeat, async () => {
        const f = await openFile(ours);
        check((await ((await f.get('frames')) as Dataset).read()) as Uint16Array, 'chunkform');
        await f.close();
      });
      // Unfiltered: also read into a buffer reused across reads (no first-touch page faults).
      let r1into: number | undefined;
      if (c.filter === 'none') {
        const into = new Uint16Array(data.length);
        r1into = await best(repeat, async () => {
          const f = await openFile(ours);
          const d = (await f.get('frames')) as Dataset;
          check(await d.readInto(into), 'chunkform (readInto)');
          await f.close();
        });
      }
      const size = statSync(ours).size;
      // h5wasm: writes its own file (no shuffle available); reads chunkform's file for shuffle + deflate
      let w2: number | undefined;
      let readPath = ours;
      if (c.filter !== 'shuffle+deflate1') {
        w2 = await best(
          repeat,
          () => {
            const f = new h5wasm.File(theirs, 'w');
            f.create_dataset({ name: 'frames', data, shape: [FRAMES, H, W], dtype: '<H', chunks: c.chunks, ...(c.filter === 'deflate1' ? { compression: 'gzip' as const, compression_opts: 1 } : {}) });
            f.close();
          },
          () => rmSync(theirs, { force: true }),
        );
        readPath = theirs;
      }
      const r2 = await best(repeat, () => {
        const f = new h5wasm.File(readPath, 'r');
        check((f.get('frames') as InstanceType<typeof h5wasm.Dataset>).value as Uint16Array, 'h5wasm');
        f.close();
      });
      const chunkLabel = c.chunks.join('×');
      console.log(
        `${chunkLabel.padEnd(12)} ${c.filter.padEnd(16)} ${fmt(mb / w1).padStart(10)} ${fmt(w2 && mb / w2).padStart(7)} ${(w2 ? fmt(w2 / w1, 2) + '×' : 'n/a').padStart(6)}` +
          `    ${fmt(mb / r1).padStart(9)} ${fmt(mb / r2).padStart(7)} ${fmt(r2 / r1, 2).padStart(5)}×   ${fmt(memcpy / r1, 2).padStart(6)}×  ${fmt(data.byteLength / size, 2).padStart(8)}×` +
          (readPath === ours && c.filter !== 'none' ? '  (h5wasm read: chunkform file)' : ''),
      );
      if (r1into !== undefined) {
        console.log(`${''.padEnd(29)} read into a reused buffer ${fmt(mb / r1into).padStart(6)} MB/s = ${fmt(memcpy / r1into, 2)}× memcpy, ${fmt(r2 / r1into, 2)}× h5wasm`);
        if (c.chunks[1]! < H || c.chunks[2]! < W) {
          const rows = await rowCopyFloor(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), H, W, c.chunks[1]!, c.chunks[2]!, 2, repeat + 2);
          console.log(`${''.padEnd(29)} chunk rows copied into frame order alone (no file) ${fmt(mb / rows).padStart(6)} MB/s = ${fmt(memcpy / rows, 2)}× memcpy`);
        }
      }
      if (c.filter === 'deflate1' && w2 !== undefined) {
        // What native zlib alone does with these bytes on this machine's cores (bench/zlib-ceiling.ts).
        const chunkBytes = c.chunks.reduce((a, b) => a * b, 1) * 2;
        const z = await zlibCeiling(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), chunkBytes, repeat + 1);
        console.log(
          `${''.padEnd(29)} zlib alone (no HDF5, no file): deflate ${fmt(mb / z.deflate).padStart(4)} MB/s = ${fmt(w2 / z.deflate, 2)}× h5wasm write;` +
            ` inflate into a new array ${fmt(mb / z.inflate).padStart(4)} MB/s = ${fmt(r2 / z.inflate, 2)}× h5wasm read`,
        );
      }
      rmSync(ours, { force: true });
      rmSync(theirs, { force: true });
    }
    console.log('\nratios: chunkform / h5wasm throughput; "vs memcpy": chunkform read throughput / TypedArray.set throughput');
    console.log('"read into a reused buffer": Dataset.readInto(out) into a Uint16Array reused across reads (like h5py read_direct)');
    console.log('"chunk rows copied ... alone": one subarray + set per chunk row (512 B for 256×256 tiles), warm buffers: the floor of reading such chunks into frames');
    console.log('"zlib alone": Node\'s zlib level 1 on the same bytes in chunk-sized pieces, 8 calls in flight on the thread pool: the ceiling of a deflate dataset write/read here');
  }
  if (ONLY.has('lcls')) await runLcls(dir);
  if (ONLY.has('filters')) await runFilters(dir); // issue #5: bench/filters.ts
  if (ONLY.has('dump')) await runDump(dir); // issue #12: bench/dump.ts
  if (ONLY.has('repack')) await runToolsRepack(); // issue #12: bench/tools-repack.ts
  if (ONLY.has('cli-memory')) await runCliMemory(dir); // issue #12: bench/cli-memory.ts
  if (ONLY.has('vl')) await runVl(dir); // issue #13: bench/vl.ts
  if (ONLY.has('threads')) await runThreads(dir); // issue #11: thread scaling, LZ4 vs h5py, streaming RSS (bench/threads.ts)
  // issue #11: point groups and group creation vs h5py (bench/sixth-wave.ts)
  const w6 = new Set(['points', 'groups'].filter((p) => ONLY.has(p)));
  if (w6.size > 0) await runSixthWave(dir, w6);
  // issue #11: 256² tiles, 1024² frames and 64×64 windows vs h5py (bench/seventh-wave.ts)
  if (ONLY.has('tiles')) await runSeventhWave(dir);
  rmSync(dir, { recursive: true, force: true });
}

await main();
