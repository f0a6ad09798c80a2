/**
 * Issue #11 dense rows measured side by side with h5py (bench/h5py_side.py as a server process, as in
 * bench/sixth-wave.ts), part of `pnpm bench` (alone: `BENCH_ONLY=tiles pnpm bench`, or
 * `node --import tsx bench/seventh-wave.ts`; rows chosen with `BENCH_W7_ROWS=tiles-write,tiles-read,frames-write,windows`).
 *
 * Data: BENCH_W7_FRAMES (default 50) detector-like frames of 1024² uint16 (bench/run.ts's generator).
 * - `tiles-write` / `tiles-read`: chunks 1×256×256 unfiltered; ours `createDataset` + one `write` of
 *   everything, then `readInto` a reused array (h5py: `ds[...] = data`, `read_direct`). Create, open and
 *   close are timed on both sides.
 * - `frames-write`: chunks 1×1024×1024 unfiltered, written whole.
 * - `windows`: 1,000 random 64×64 windows (seeded; any alignment, so most cross tile edges) out of the
 *   first BENCH_W7_WINDOW_FRAMES (default 4) frames, stored in 256×256 gzip-1 tiles by h5py (both sides
 *   read the same file, opened once per run; each side sums every window, and the sums must agree).
 *
 * Repetitions, warm-up and the reported median of paired ratios are those of bench/sixth-wave.ts. The tile
 * rows add the CPU time of both processes (medians over all runs, warm-up included; ours counts the thread pool
 * too) and same-run floors (`tileFloors`).
 * @module
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createFile, openFile, selectHyperslab, type Dataset } from '../packages/core/src/index.js';
import { registerEverything } from '../packages/cli/src/registrations.js';
import { H5py, median, paired, row } from './sixth-wave.js';
import { xorshift32 } from './xorshift.js';
import { detectorFrames } from './detector-frames.js';

const FRAMES = Number(process.env.BENCH_W7_FRAMES ?? 50);
const WINDOW_FRAMES = Number(process.env.BENCH_W7_WINDOW_FRAMES ?? 4);
const WINDOWS = 1000;
const WIN = 64;
const H = 1024;
const W = 1024;

/** Detector-like frames (bench/detector-frames.ts). */
function frames(): Uint16Array {
  return detectorFrames(FRAMES, H, W);
}

/** CPU seconds of this process (all threads: the thread pool's system calls count too) since `from`. */
function cpuSince(from: NodeJS.CpuUsage): number {
  const c = process.cpuUsage(from);
  return (c.user + c.system) / 1e6;
}

async function oursWrite(path: string, data: Uint16Array, chunks: number[], cpu?: number[]): Promise<number> {
  rmSync(path, { force: true });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const f = await createFile(path);
  await f.createDataset('frames', { dtype: 'uint16', shape: [FRAMES, H, W], chunks, data });
  await f.close();
  const s = (performance.now() - t0) / 1000;
  cpu?.push(cpuSince(c0));
  return s;
}

async function oursReadInto(path: string, into: Uint16Array, data: Uint16Array, cpu?: number[]): Promise<number> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const f = await openFile(path);
  await ((await f.get('frames')) as Dataset).readInto(into);
  await f.close();
  const s = (performance.now() - t0) / 1000;
  cpu?.push(cpuSince(c0));
  for (const i of [0, 12345, data.length >> 1, data.length - 1]) if (into[i] !== data[i]) throw new Error(`bench tiles: readInto element ${i}: ${into[i]} ≠ ${data[i]}`);
  return s;
}

async function oursWindows(path: string, wins: Uint32Array): Promise<{ s: number; sum: number }> {
  let sum = 0;
  const t0 = performance.now();
  const f = await openFile(path);
  const ds = (await f.get('frames')) as Dataset;
  for (let i = 0; i < wins.length; i += 3) {
    const v = (await ds.read(selectHyperslab({ start: [wins[i]!, wins[i + 1]!, wins[i + 2]!], block: [1, WIN, WIN] }))) as Uint16Array;
    for (let k = 0; k < v.length; k++) sum += v[k]!;
  }
  await f.close();
  return { s: (performance.now() - t0) / 1000, sum };
}

/**
 * Same-run floors of the tile rows, each on its own (warm buffers, best of 5): `memcpy` of the whole array, the
 * copy of its 204,800 tile rows of 512 B between frame order and tile order (one `set` per row from views made
 * once: no HDF5, no I/O), and the system calls alone: writing the array into a new file in 1 MiB pieces,
 * reading it back in 512 KiB pieces into a reused buffer (both synchronous, one thread).
 */
function tileFloors(dir: string, data: Uint16Array): void {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const out = new Uint8Array(bytes.length);
  const row = 512;
  const band = 4 * 256 * row;
  const scratch = new Uint8Array(band);
  const views = Array.from({ length: band / row }, (_, k) => scratch.subarray(k * row, (k + 1) * row));
  const best = (fn: () => void): number => {
    let b = Infinity;
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      fn();
      b = Math.min(b, performance.now() - t0);
    }
    return b;
  };
  const memcpy = best(() => out.set(bytes));
  const rows = best(() => {
    for (let b = 0; b < bytes.length; b += band) {
      for (let y = 0; y < 256; y++) for (let c = 0; c < 4; c++) out.set(views[c * 256 + y]!, (b + y * 4 * row + c * row) | 0);
    }
  });
  const path = join(dir, 'floor.bin');
  const write = best(() => {
    rmSync(path, { force: true });
    const fd = openSync(path, 'wx');
    for (let o = 0; o < bytes.length; o += 1 << 20) writeSync(fd, bytes, o, Math.min(1 << 20, bytes.length - o), o);
    closeSync(fd);
  });
  const fd = openSync(path, 'r');
  const read = best(() => {
    for (let o = 0; o < bytes.length; o += band) readSync(fd, scratch, 0, Math.min(band, bytes.length - o), o);
  });
  closeSync(fd);
  rmSync(path, { force: true });
  const f = (ms: number): string => `${ms.toFixed(1)} ms`;
  console.log(`  floors (best of 5, alone): memcpy ${f(memcpy)}, 204,800 row copies ${f(rows)}, write() of the file ${f(write)}, read() of it ${f(read)}`);
}

/** Runs the dense issue #11 rows (`rows`: tiles-write, tiles-read, frames-write, windows); `dir` is a scratch directory. */
export async function runSeventhWave(dir: string, rows: ReadonlySet<string> = new Set(['tiles-write', 'tiles-read', 'frames-write', 'windows'])): Promise<void> {
  registerEverything();
  const data = frames();
  const raw = join(dir, 'frames.u16');
  writeFileSync(raw, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  const py = new H5py();
  const hello = await py.next();
  await py.call({ cmd: 'load_frames', path: raw, frames: FRAMES, h: H, w: W });
  rmSync(raw, { force: true });
  console.log(`\nIssue #11 dense rows vs h5py ${String(hello.h5py)} (HDF5 ${String(hello.hdf5)}), ${FRAMES} frames of ${H}² uint16 (${(data.byteLength / 1e6).toFixed(0)} MB); median of paired ratios (h5py time ÷ ours)`);
  console.log(`  ${'workload'.padEnd(58)} ${'ours'.padStart(9)} ${'h5py'.padStart(9)}        ratio`);
  const theirs = join(dir, 'h5py-dense.h5');
  const pyWrite = async (chunks: number[], gzip = false, cpu?: number[]): Promise<number> => {
    rmSync(theirs, { force: true });
    const out = await py.call({ cmd: 'dense_write', path: theirs, chunks, gzip });
    cpu?.push(out.cpu as number);
    return out.s as number;
  };
  // CPU time of the tile rows (both sides single processes; ours includes the thread pool's system calls).
  const cpuRow = (what: string, ours: number[], theirs: number[]): void =>
    console.log(`  ${`  CPU time, ${what}`.padEnd(58)} ${(median(ours) * 1000).toFixed(1).padStart(9)} ${(median(theirs) * 1000).toFixed(1).padStart(9)} ms     ${(median(theirs) / median(ours)).toFixed(2).padStart(6)}×`);
  try {
    if (rows.has('tiles-write') || rows.has('tiles-read')) {
      const ours = join(dir, 'ours-tiles.h5');
      const cpu = { ow: [] as number[], tw: [] as number[], or: [] as number[], tr: [] as number[] };
      const w = await paired(
        () => oursWrite(ours, data, [1, 256, 256], cpu.ow),
        () => pyWrite([1, 256, 256], false, cpu.tw),
      );
      if (rows.has('tiles-write')) {
        row('256×256 tiles unfiltered: write', w);
        cpuRow('write', cpu.ow, cpu.tw);
      }
      if (rows.has('tiles-read')) {
        const into = new Uint16Array(data.length);
        const r = await paired(
          () => oursReadInto(ours, into, data, cpu.or),
          async () => {
            const out = await py.call({ cmd: 'dense_read_into', path: theirs });
            if (!out.ok) throw new Error('bench tiles: h5py read_direct returned other values');
            cpu.tr.push(out.cpu as number);
            return out.s as number;
          },
        );
        row('256×256 tiles unfiltered: readInto (h5py read_direct)', r);
        cpuRow('readInto', cpu.or, cpu.tr);
      }
      rmSync(ours, { force: true });
      tileFloors(dir, data);
    }
    if (rows.has('frames-write')) {
      const ours = join(dir, 'ours-frames.h5');
      row('1024² frames unfiltered: write', await paired(() => oursWrite(ours, data, [1, H, W]), () => pyWrite([1, H, W])));
      rmSync(ours, { force: true });
    }
    if (rows.has('windows')) {
      await pyWrite([1, 256, 256], true);
      const rnd = xorshift32(0x77aa);
      const wins = new Uint32Array(3 * WINDOWS);
      for (let i = 0; i < wins.length; i += 3) {
        wins[i] = rnd() % Math.min(WINDOW_FRAMES, FRAMES);
        wins[i + 1] = rnd() % (H - WIN + 1);
        wins[i + 2] = rnd() % (W - WIN + 1);
      }
      const winPath = join(dir, 'windows.u32');
      writeFileSync(winPath, new Uint8Array(wins.buffer));
      let expected = -1;
      const agree = (sum: number, who: string): void => {
        if (expected < 0) expected = sum;
        else if (sum !== expected) throw new Error(`bench windows: ${who} summed ${sum}, expected ${expected}`);
      };
      const r = await paired(
        async () => {
          const o = await oursWindows(theirs, wins);
          agree(o.sum, 'ours');
          return o.s;
        },
        async () => {
          const o = await py.call({ cmd: 'windows', path: theirs, windows: winPath, size: WIN });
          agree(o.sum as number, 'h5py');
          return o.s as number;
        },
      );
      row(`${WINDOWS} random ${WIN}×${WIN} windows, 256² gzip-1 tiles (h5py's file)`, r);
    }
  } finally {
    py.close();
    rmSync(theirs, { force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = mkdtempSync(join(tmpdir(), 'chunkform-w7-'));
  try {
    await runSeventhWave(dir, new Set((process.env.BENCH_W7_ROWS ?? 'tiles-write,tiles-read,frames-write,windows').split(',')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
