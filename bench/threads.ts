/**
 * Issue #11, "every filter on every core" and "streaming writes": thread scaling of filtered reads and
 * writes with the filter worker pool (`configureWorkers({ threads })` of `@chunkform/filters`) at 1 and
 * 2 worker threads (this machine has 2 cores; by default the pool takes `os.availableParallelism()`),
 * LZ4 against h5py with Debian's native LZ4 plugin (hdf5-filter-plugin) in the same run, and the peak
 * RSS of a 400-frame streaming write and of reading it back (each in a child process, with its
 * baseline). Alone: `BENCH_ONLY=threads pnpm bench` or `node --import tsx bench/threads.ts`.
 *
 * Rows: whole-dataset write (create + write + close) and read (open + read + close) of F frames of
 * 1024² uint16 (chunks 1×1024×1024) with gzip 1, shuffle + gzip 1, LZ4, bitshuffle + LZ4 and zstd 3;
 * frame-by-frame streaming writes, each `write()` awaited as a detector loop does (dense gzip 1, and a
 * sparse ROI of 25 % of each frame with shuffle + deflate 1 on the values section). Repetitions are
 * interleaved (1 and 2 threads alternate which goes first); medians of times and of paired ratios.
 * The ceiling of the machine is measured in the same run: two independent zlib level-1 streams on two
 * threads vs one thread doing both; each row's ratio is also given as a fraction of the same
 * repetition's ceiling, and against the same run's 2-core bound (below). Other processes on the machine (Linux /proc/stat: its busy
 * CPU less this process's) are measured during every timed run: the table gives their median load
 * and the median ratio over the quiet pairs alone (both runs with fewer than BENCH_QUIET_CORES,
 * default 0.25, cores busy elsewhere) — on a shared machine a pair during which another process
 * took a core measures that process, not the pool.
 * Environment: BENCH_THREADS_REPEAT (default 5), BENCH_QUIET_CORES (default 0.25), BENCH_THREADS_FRAMES (default 16), BENCH_RSS_FRAMES (400),
 * BENCH_BG_BYTES (`backgroundWrites.maxBytes` of the streaming rows; default the library's),
 * BENCH_THREADS_ROWS (comma-separated parts of row names, e.g. `write zstd,stream` or `read`: only the
 * rows whose name contains one; default all but the `write … from shared memory` rows, which run when
 * a part contains `from shared`), BENCH_MIN_MS (default 75, below), BENCH_THREADS_RSS=0 (skip the
 * peak-RSS children).
 * Each filter has three read rows: `read` (`read()`, a new result each time: in shared memory that the
 * filter workers decode each chunk straight into), `read ordinary` (`read()` with `allowShared: false`:
 * an ordinary `ArrayBuffer`, the chunks staged through shared memory and copied by the main thread) and
 * `readInto shared` (`readInto` an array over a `SharedArrayBuffer` allocated once, a frame buffer
 * reused across reads: no result pages to touch for the first time). The write's garbage is collected
 * (untimed) before the read rows, so that the first read that allocates does not pay for it.
 * Steadiness: after each change of the pool's size a short untimed write and read warm the new
 * worker (its first chunks cost it 20–30 ms more CPU), garbage is collected before every timed
 * write, and a timed run shorter than BENCH_MIN_MS (default 75) is repeated back to back (1, 3 or
 * 5 runs; the median run is the sample).
 * The same run's 2-core bound. Every timed run is accounted per thread (Linux
 * /proc/self/task/<tid>/schedstat, bench/thread-cpu.ts, as bench/threads-cpu.ts): the main thread, the
 * filter workers (the threads started after the bench began) and the rest (libuv's pool — pwrites of
 * chunks, file reads —, V8's helper threads — collections, freeing buffers). CPU time barely changes
 * with other processes on the machine, so the bound means something even when wall times do not. The
 * model (`bound2` in bench/thread-cpu.ts): the 1-thread run lasts at least its one worker's CPU W₁ and
 * at least half the process's CPU C₁; the 2-thread run at least C₂ / 2 (two cores for everything), so
 * 2 ÷ 1 ≤ max(W₁, C₁ / 2) ÷ (C₂ / 2), capped at 2 — with the same work at both thread counts, 2 (1 − s)
 * for a share s of the CPU outside the workers. Assumptions: the 1-thread run keeps its worker busy
 * (the column "workers busy" shows how far it does: W ÷ (threads × wall)), the work outside the workers
 * overlaps with it on the other core, and the 2-thread run shares both cores without a gap; serial
 * parts (open, create, close, the first chunk's copy) lengthen both runs, so a measured ratio can land
 * a few % above the bound (its 1-thread run lasted longer than W₁). The column "minor page faults per
 * run" counts first touches of new memory (the process's, all threads), whose cost the machine decides. A row at ≈ 100 % of its bound is
 * limited by the work outside the workers, not by the pool; a row well below it (on a quiet machine:
 * other processes' cores near 0) has headroom — idle workers, waits. On a machine with a core free for
 * the main thread and the rest, the 2-thread run needs only W₂ / 2 and the bound is the worker count.
 * @module
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { createFile, openFile, selectBlocks, type CreateDatasetOptions, type Dataset } from '../packages/core/src/index.js';
import { registerIndexes } from '../packages/indexes/src/index.js';
import { registerDenseFormats } from '../packages/format-dense/src/index.js';
import { registerSparseFormat } from '../packages/format-sparse/src/index.js';
import { configureWorkers, registerFilters, startWorkers, stopWorkers } from '../packages/filters/src/index.js';
import { FRAME, H, makeFrames, W } from './thread-frames.js';
import { bound2, cpuSplit, threadCpu, workerThreads, type CpuSplit } from './thread-cpu.js';

const PYTHON = '/usr/bin/python3';
const PLUGINS = '/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins';
const REPEAT = Number(process.env.BENCH_THREADS_REPEAT ?? 5);
const FRAMES = Number(process.env.BENCH_THREADS_FRAMES ?? 16);
const RSS_FRAMES = Number(process.env.BENCH_RSS_FRAMES ?? 400);
/** `backgroundWrites.maxBytes` of the streaming rows (default: the library's). */
const BG_BYTES = Number(process.env.BENCH_BG_BYTES ?? 0);
/** Rows to run (parts of their names); empty: all. */
const PICK = (process.env.BENCH_THREADS_ROWS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
/** (The `from shared memory` rows only when a part names them: `from shared`, `LZ4 from shared`, …) */
const picked = (row: string): boolean =>
  row.includes(' from shared memory') ? PICK.some((p) => p.includes('from shared') && row.includes(p)) : PICK.length === 0 || PICK.some((p) => row.includes(p));

let registered = false;
function register(): void {
  if (registered) return;
  registered = true;
  registerIndexes();
  registerDenseFormats();
  registerSparseFormat();
  registerFilters();
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

type Filters = Pick<CreateDatasetOptions, 'compression' | 'compressionOpts' | 'shuffle' | 'filters'>;
/**
 * `fromShared`: the filter also has the row `write <name> from shared memory`, the same frames in an
 * array over a `SharedArrayBuffer` — the workers read each chunk where it is and the main thread
 * copies nothing (from an ordinary `ArrayBuffer` it copies every chunk: no other thread can read it).
 * Run only when BENCH_THREADS_ROWS names them (a part containing `from shared`, e.g. `from shared`).
 */
const FILTERS: { name: string; opts: Filters; fromShared?: boolean }[] = [
  { name: 'gzip 1', opts: { compression: 'gzip', compressionOpts: 1 } },
  { name: 'shuffle + gzip 1', opts: { shuffle: true, compression: 'gzip', compressionOpts: 1 } },
  { name: 'LZ4', opts: { filters: [{ id: 32004 }] }, fromShared: true },
  { name: 'bitshuffle + LZ4', opts: { filters: [{ id: 32008, clientData: [0, 2] }] }, fromShared: true },
  { name: 'zstd 3', opts: { filters: [{ id: 32015, clientData: [3] }] } },
];

/** Busy CPU seconds of the whole machine so far, every process (Linux: /proc/stat; NaN elsewhere). */
function machineCpu(): number {
  try {
    const f = readFileSync('/proc/stat', 'utf8').slice(0, 200).split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return (f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + f[7]!) / 100; // user nice system irq softirq steal (USER_HZ = 100)
  } catch {
    return NaN;
  }
}
/** CPU seconds of this process so far (every thread). */
function ownCpu(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1e6;
}
/** Where the timed run began: the machine's and this process's CPU seconds, every thread's CPU, and the time. */
let started = { machine: 0, own: 0, t: 0, threads: new Map<string, number>(), faults: 0 };
/** Tells the filter workers' threads from the others ({@link workerThreads}; set by {@link runThreads}). */
let isWorker: (tid: string) => boolean = () => false;
/** Starts a timed run: notes the machine's and every thread's CPU (for {@link busySince}). */
function runStart(): void {
  started = { machine: machineCpu(), own: ownCpu(), t: performance.now(), threads: threadCpu(), faults: process.resourceUsage().minorPageFault };
}
/**
 * Cores that other processes kept busy during the last timed run (the machine's busy CPU less this
 * process's, ÷ wall time; 10 ms ticks, so ± 0.1 on short runs): other agents sharing the machine.
 */
let lastForeign = 0;
/** CPU seconds of this whole process (every thread: main, filter workers, libuv's pool, V8's helpers) in the last timed run. */
let lastOwn = 0;
/** CPU milliseconds of the last timed run by kind of thread: main, filter workers, the rest. */
let lastSplit: CpuSplit = { main: NaN, workers: NaN, other: NaN };
/**
 * Minor page faults of the whole process in the last timed run: first touches of new memory (a `read()`
 * result: 8,192 per 32 MiB; per-chunk buffers that the allocator got fresh from the kernel). Their cost
 * depends on the machine: ≈ 1 µs each on a warm one, 13–30 µs in a virtual machine that hands freed
 * memory back to its host (free page reporting), where they can outweigh the decoding (rdlz4).
 */
let lastFaults = 0;
function busySince(): void {
  lastFaults = process.resourceUsage().minorPageFault - started.faults;
  lastSplit = cpuSplit(started.threads, threadCpu(), isWorker);
  const wall = (performance.now() - started.t) / 1000;
  lastOwn = ownCpu() - started.own;
  lastForeign = Math.max(0, (machineCpu() - started.machine - lastOwn) / wall);
}

/**
 * Timed runs shorter than this (seconds) are repeated back to back, and the median run is the
 * repetition's sample (its CPU accounting too): 1, 3 or 5 runs. A read of 34 MB takes 20–40 ms,
 * a bitshuffle + LZ4 write ~40 ms: single runs that short measured the scheduler's hiccups and
 * other processes' bursts more than the pool (single pairs spread 0.8–2.9×).
 */
const MIN_SAMPLE_S = Number(process.env.BENCH_MIN_MS ?? 75) / 1000;
const MAX_RUNS = 5;
async function sample(run: () => Promise<number>): Promise<number> {
  const runs: { s: number; foreign: number; own: number; split: CpuSplit; faults: number }[] = [];
  let total = 0;
  while (runs.length < MAX_RUNS && (total < MIN_SAMPLE_S || runs.length % 2 === 0)) {
    const s = await run();
    runs.push({ s, foreign: lastForeign, own: lastOwn, split: lastSplit, faults: lastFaults });
    total += s;
  }
  const mid = [...runs].sort((a, b) => a.s - b.s)[runs.length >> 1]!;
  ({ foreign: lastForeign, own: lastOwn, split: lastSplit, faults: lastFaults } = mid);
  return mid.s;
}
/** A pair of runs counts as quiet when other processes kept fewer cores than this busy in each. */
const QUIET_CORES = Number(process.env.BENCH_QUIET_CORES ?? 0.25);

/** This thread's collector (taken from a new context with `--expose-gc` set for that moment only). */
const collectGarbage: () => void = (() => {
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
})();
/**
 * Collects the write's garbage before the read rows are timed (untimed, like deleting the file before
 * the write): otherwise the first read that allocates (`read`; `readInto` allocates nothing) runs the
 * collection the write's buffers made due — 4–14 ms on the main thread and 10–30 ms on V8's helper
 * threads, which at 2 worker threads take the cores from the workers — and measures the write.
 */
async function settleGarbage(): Promise<void> {
  await new Promise((r) => setTimeout(r, 5)); // (the filter workers drop their objects over shared results once idle 2 ms: release-shared.ts)
  collectGarbage();
  await new Promise((r) => setTimeout(r, 20)); // (V8's helper threads finish sweeping)
}

/** Frames of the untimed run after each change of the pool's size ({@link poolOf}). */
const WARM_FRAMES = 2;

/**
 * Sizes the pool to `threads` and runs `warm` untimed. Shrinking the pool stops a worker and growing
 * it starts a new one, whose first chunks (after `startWorkers()` says it is ready) still cost it
 * 20–30 ms more CPU (its heap, buffers and code warming up): without the warm-up the 2-thread run
 * after every 1-thread run paid that, and only it.
 */
async function poolOf(threads: number, warm: () => Promise<unknown>): Promise<void> {
  configureWorkers({ threads });
  await startWorkers();
  await warm();
}

/** The untimed warm-up of a filter's rows: {@link WARM_FRAMES} frames written and read back (`read()` and `readInto` shared memory). */
async function warmUp(path: string, data: Uint16Array, opts: Filters, into: Uint16Array): Promise<void> {
  const warm = `${path}.warm`;
  rmSync(warm, { force: true });
  const f = await createFile(warm);
  const ds = (await f.createDataset('d', { dtype: 'uint16', shape: [WARM_FRAMES, H, W], chunks: [1, H, W], ...opts })) as Dataset;
  await ds.write(data.subarray(0, WARM_FRAMES * FRAME));
  await ds.read();
  await ds.readInto(into.subarray(0, WARM_FRAMES * FRAME));
  await f.close();
  rmSync(warm, { force: true });
}

/** Create + write every frame at once + close. */
async function writeWhole(path: string, data: Uint16Array, frames: number, opts: Filters): Promise<number> {
  runStart();
  const t = performance.now();
  const f = await createFile(path);
  const ds = (await f.createDataset('d', { dtype: 'uint16', shape: [frames, H, W], chunks: [1, H, W], ...opts })) as Dataset;
  await ds.write(data.subarray(0, frames * FRAME));
  await f.close();
  busySince();
  return (performance.now() - t) / 1000;
}

/** Open + read whole (into `into` when given; `'ordinary'`: `read()` with `allowShared: false`) + close; checks the last frame's sum. */
async function readWhole(path: string, expect: number, into?: Uint16Array | 'ordinary'): Promise<number> {
  runStart();
  const t = performance.now();
  const f = await openFile(path);
  const ds = (await f.get('d')) as Dataset;
  const v = into === 'ordinary' ? ((await ds.read(undefined, { allowShared: false })) as Uint16Array) : into ? await ds.readInto(into) : ((await ds.read()) as Uint16Array);
  await f.close();
  const s = (performance.now() - t) / 1000;
  busySince();
  let sum = 0;
  for (let i = v.length - FRAME; i < v.length; i++) sum += v[i]!;
  if (sum !== expect) throw new Error(`read back a wrong last frame (sum ${sum}, expected ${expect})`);
  return s;
}

const frameSel = (i: number) => selectBlocks([{ start: [i, 0, 0], end: [i + 1, H, W] }]);
const roiSel = (i: number) => selectBlocks([{ start: [i, H / 4, W / 4], end: [i + 1, (3 * H) / 4, (3 * W) / 4] }]);

/** Frame-by-frame streaming write, each write awaited: dense (whole frames) or sparse (a ROI of each). */
async function stream(path: string, data: Uint16Array, frames: number, kind: 'dense' | 'sparse'): Promise<number> {
  runStart();
  const t = performance.now();
  const f = await createFile(path, { superblockVersion: 3, ...(BG_BYTES ? { backgroundWrites: { maxBytes: BG_BYTES } } : {}) });
  const ds = (await f.createDataset(
    'd',
    kind === 'dense'
      ? { dtype: 'uint16', shape: [0, H, W], maxShape: [null, H, W], chunks: [1, H, W], compression: 'gzip', compressionOpts: 1 }
      : {
          layout: 'sparse',
          dtype: 'uint16',
          shape: [0, H, W],
          maxShape: [null, H, W],
          chunks: [1, H, W],
          filters: { selection: [{ id: 1, clientData: [1] }], values: [{ id: 2 }, { id: 1, clientData: [1] }] },
        },
  )) as Dataset;
  const roi = new Uint16Array(FRAME / 4);
  for (let i = 0; i < frames; i++) {
    await ds.resize([i + 1, H, W]);
    const src = data.subarray((i % FRAMES) * FRAME, ((i % FRAMES) + 1) * FRAME);
    if (kind === 'dense') await ds.write(src, frameSel(i));
    else {
      for (let y = 0; y < H / 2; y++) roi.set(src.subarray((y + H / 4) * W + W / 4, (y + H / 4) * W + (3 * W) / 4), y * (W / 2));
      await ds.write(roi, roiSel(i));
    }
  }
  await f.close();
  busySince();
  return (performance.now() - t) / 1000;
}

/** Seconds for `threads` worker threads to deflate (level 1) `parts` independent 8 MiB buffers, split between them. */
async function zlibStreams(threads: number, parts: number): Promise<number> {
  const src = `
    const { parentPort } = require('node:worker_threads');
    const { deflateSync } = require('node:zlib');
    parentPort.on('message', ({ n, buf }) => { for (let i = 0; i < n; i++) deflateSync(buf, { level: 1 }); parentPort.postMessage(0); });`;
  const buf = new Uint8Array(makeFrames(4, 3).buffer);
  const ws = Array.from({ length: threads }, () => new Worker(src, { eval: true }));
  // warm up each worker once
  await Promise.all(ws.map((w) => new Promise((r) => (w.once('message', r), w.postMessage({ n: 1, buf })))));
  const t = performance.now();
  await Promise.all(ws.map((w) => new Promise((r) => (w.once('message', r), w.postMessage({ n: parts / threads, buf })))));
  const s = (performance.now() - t) / 1000;
  await Promise.all(ws.map((w) => w.terminate()));
  return s;
}

/** Peak RSS child: `write` streams RSS_FRAMES frames (dense gzip 1), `read` reads them back frame by frame. */
async function rssChild(mode: string, path: string): Promise<void> {
  register();
  if (process.env.BENCH_RSS_THREADS) configureWorkers({ threads: Number(process.env.BENCH_RSS_THREADS) });
  await startWorkers();
  const data = makeFrames(FRAMES);
  if (mode === 'read') {
    const f = await openFile(path);
    const ds = (await f.get('d')) as Dataset;
    await ds.read(frameSel(0));
    const base = process.memoryUsage().rss;
    const into = new Uint16Array(FRAME);
    const n = ds.shape[0]!;
    for (let i = 0; i < n; i++) await ds.readInto(into, frameSel(i));
    await f.close();
    console.log(JSON.stringify({ base, peak: process.resourceUsage().maxRSS * 1024, frames: n }));
    return;
  }
  await stream(join(path + '.warm'), data, 2, 'dense');
  rmSync(path + '.warm', { force: true });
  const base = process.memoryUsage().rss;
  const t = performance.now();
  await stream(path, data, RSS_FRAMES, 'dense');
  const s = (performance.now() - t) / 1000;
  console.log(JSON.stringify({ base, peak: process.resourceUsage().maxRSS * 1024, frames: RSS_FRAMES, seconds: s }));
}

function h5py(args: string[]): string {
  return execFileSync(PYTHON, [fileURLToPath(new URL('./threads_h5py.py', import.meta.url)), ...args], {
    encoding: 'utf8',
    env: { ...process.env, HDF5_PLUGIN_PATH: PLUGINS },
  }).trim();
}

/** The thread-scaling, LZ4-vs-h5py and RSS rows. */
export async function runThreads(dir: string): Promise<void> {
  register();
  // the threads before any filter worker (libuv's pool started by a file call): every later one is a worker
  stopWorkers();
  await stat(dir);
  await new Promise((r) => setTimeout(r, 50));
  isWorker = workerThreads(threadCpu());
  const data = makeFrames(FRAMES);
  const mb = (FRAMES * FRAME * 2) / 1e6;
  let lastSum = 0;
  for (let i = data.length - FRAME; i < data.length; i++) lastSum += data[i]!;
  const raw = join(dir, 'frames.u16');
  writeFileSync(raw, new Uint8Array(data.buffer));
  const lz4Ref = existsSync(join(PLUGINS, 'libh5lz4.so'));

  const times = new Map<string, number[]>(); // `${row}|${threads}` -> seconds
  const ratios = new Map<string, number[]>(); // row -> t(1 thread) / t(2 threads)
  const ofCeiling = new Map<string, number[]>(); // row -> its ratio ÷ the same repetition's ceiling ratio
  const add = (row: string, threads: number | string, s: number) => {
    const k = `${row}|${threads}`;
    times.set(k, [...(times.get(k) ?? []), s]);
  };
  // `${row}|${threads}` -> each repetition's CPU split (ms by kind of thread) and wall seconds
  const splits = new Map<string, { split: CpuSplit; wall: number; faults: number }[]>();
  // `${row}|${rep}` -> the most cores other processes kept busy during either run of the pair
  const foreign = new Map<string, number>();
  const note = (row: string, rep: number, th: number, wall: number) => {
    if (!Number.isNaN(wall)) splits.set(`${row}|${th}`, Object.assign(splits.get(`${row}|${th}`) ?? [], { [rep]: { split: lastSplit, wall, faults: lastFaults } }));
    if (!Number.isNaN(wall)) foreign.set(`${row}|${rep}`, Math.max(foreign.get(`${row}|${rep}`) ?? 0, lastForeign));
  };
  const rows: string[] = [];
  const fromShared = (name: string) => `write ${name} from shared memory`;
  for (const fl of FILTERS) rows.push(`write ${fl.name}`, ...(fl.fromShared ? [fromShared(fl.name)] : []), `read ${fl.name}`, `read ordinary ${fl.name}`, `readInto shared ${fl.name}`);
  rows.push('stream dense gzip 1', 'stream sparse ROI shuffle + deflate 1');
  rows.splice(0, rows.length, ...rows.filter(picked), 'ceiling: 2 zlib streams');
  // the reused destination of the readInto rows (shared memory: the workers write it)
  const shared = new Uint16Array(new SharedArrayBuffer(FRAMES * FRAME * 2));
  // the frames in shared memory (the `from shared memory` rows)
  const sharedData = new Uint16Array(new SharedArrayBuffer(FRAMES * FRAME * 2));
  sharedData.set(data);

  for (let rep = 0; rep < REPEAT; rep++) {
    const order = rep % 2 === 0 ? [1, 2] : [2, 1];
    for (const fl of FILTERS) {
      if (![`write ${fl.name}`, fromShared(fl.name), `read ${fl.name}`, `read ordinary ${fl.name}`, `readInto shared ${fl.name}`].some(picked)) continue;
      const path = join(dir, `t-${fl.name.replace(/\W+/g, '_')}.h5`);
      const rt: Record<number, [number, number, number, number, number]> = {};
      for (const th of order) {
        await poolOf(th, () => warmUp(path, data, fl.opts, shared));
        const write = async (source: Uint16Array) => {
          rmSync(path, { force: true }); // a new file: truncating the last one (kernel time on the main thread) is no part of the write
          await settleGarbage();
          return writeWhole(path, source, FRAMES, fl.opts);
        };
        const ws = fl.fromShared && picked(fromShared(fl.name)) ? await sample(() => write(sharedData)) : NaN;
        note(fromShared(fl.name), rep, th, ws);
        add(fromShared(fl.name), th, ws);
        // (the file the read rows read: written once when the write row is not picked)
        const w = picked(`write ${fl.name}`) ? await sample(() => write(data)) : (await write(data), NaN);
        note(`write ${fl.name}`, rep, th, w);
        if (picked(`read ${fl.name}`) || picked(`readInto shared ${fl.name}`) || picked(`read ordinary ${fl.name}`)) await settleGarbage();
        const r = picked(`read ${fl.name}`) ? await sample(() => readWhole(path, lastSum)) : NaN;
        note(`read ${fl.name}`, rep, th, r);
        // (the `read` row's dead results are freed now, untimed: else V8's helper threads free them during the next row's runs)
        if (picked(`read ${fl.name}`)) await settleGarbage();
        const ri = picked(`readInto shared ${fl.name}`) ? await sample(() => readWhole(path, lastSum, shared)) : NaN;
        note(`readInto shared ${fl.name}`, rep, th, ri);
        if (picked(`read ordinary ${fl.name}`) && picked(`read ${fl.name}`)) await settleGarbage();
        const ro = picked(`read ordinary ${fl.name}`) ? await sample(() => readWhole(path, lastSum, 'ordinary')) : NaN;
        note(`read ordinary ${fl.name}`, rep, th, ro);
        rt[th] = [w, r, ri, ro, ws];
        add(`write ${fl.name}`, th, w);
        add(`read ${fl.name}`, th, r);
        add(`readInto shared ${fl.name}`, th, ri);
        add(`read ordinary ${fl.name}`, th, ro);
      }
      ratios.set(`write ${fl.name}`, [...(ratios.get(`write ${fl.name}`) ?? []), rt[1]![0] / rt[2]![0]]);
      ratios.set(`read ${fl.name}`, [...(ratios.get(`read ${fl.name}`) ?? []), rt[1]![1] / rt[2]![1]]);
      ratios.set(`readInto shared ${fl.name}`, [...(ratios.get(`readInto shared ${fl.name}`) ?? []), rt[1]![2] / rt[2]![2]]);
      ratios.set(`read ordinary ${fl.name}`, [...(ratios.get(`read ordinary ${fl.name}`) ?? []), rt[1]![3] / rt[2]![3]]);
      if (fl.fromShared) ratios.set(fromShared(fl.name), [...(ratios.get(fromShared(fl.name)) ?? []), rt[1]![4] / rt[2]![4]]);
      if (fl.name === 'LZ4' && lz4Ref && picked('write LZ4') && picked('read LZ4')) {
        const ref = join(dir, 'h5py-lz4.h5');
        const hw = Number(h5py(['write', raw, ref, String(FRAMES), String(H), String(W)]));
        const [hr, hsum] = h5py(['read', ref]).split(' ').map(Number);
        if (hsum !== lastSum) throw new Error('h5py read back a wrong last frame');
        add('write LZ4', 'h5py', hw);
        add('read LZ4', 'h5py', hr!);
        // ours at the machine's default pool (2 threads here) against the native plugin
        ratios.set('h5py write LZ4', [...(ratios.get('h5py write LZ4') ?? []), hw / rt[2]![0]]);
        ratios.set('h5py read LZ4', [...(ratios.get('h5py read LZ4') ?? []), hr! / rt[2]![1]]);
        ratios.set('h5py write LZ4 1t', [...(ratios.get('h5py write LZ4 1t') ?? []), hw / rt[1]![0]]);
        ratios.set('h5py read LZ4 1t', [...(ratios.get('h5py read LZ4 1t') ?? []), hr! / rt[1]![1]]);
        rmSync(ref, { force: true });
      }
      rmSync(path, { force: true });
    }
    for (const kind of ['dense', 'sparse'] as const) {
      const row = kind === 'dense' ? 'stream dense gzip 1' : 'stream sparse ROI shuffle + deflate 1';
      if (!picked(row)) continue;
      const path = join(dir, `s-${kind}.h5`);
      const st: Record<number, number> = {};
      for (const th of order) {
        await poolOf(th, async () => (await stream(path, data, WARM_FRAMES, kind), rmSync(path, { force: true })));
        st[th] = await stream(path, data, FRAMES * 2, kind);
        note(row, rep, th, st[th]);
        add(row, th, st[th]);
        rmSync(path, { force: true });
      }
      ratios.set(row, [...(ratios.get(row) ?? []), st[1]! / st[2]!]);
    }
    const z: Record<number, number> = {};
    for (const th of order) {
      runStart();
      z[th] = await zlibStreams(th, 8);
      busySince();
      foreign.set(`ceiling: 2 zlib streams|${rep}`, Math.max(foreign.get(`ceiling: 2 zlib streams|${rep}`) ?? 0, lastForeign));
      add('ceiling: 2 zlib streams', th, z[th]);
    }
    ratios.set('ceiling: 2 zlib streams', [...(ratios.get('ceiling: 2 zlib streams') ?? []), z[1]! / z[2]!]);
    // each row's scaling as a fraction of this repetition's ceiling (paired)
    const ceiling = z[1]! / z[2]!;
    for (const row of rows) {
      const r = ratios.get(row)?.[rep];
      if (r !== undefined) ofCeiling.set(row, [...(ofCeiling.get(row) ?? []), r / ceiling]);
    }
    process.stderr.write(`threads bench: repetition ${rep + 1}/${REPEAT} done\n`);
  }
  configureWorkers();

  const mbOf = (row: string) => (row.startsWith('stream') ? 2 * mb : row.startsWith('ceiling') ? 8 * 8 : mb);
  console.log(`\n## Thread scaling (bench/threads.ts): ${FRAMES} frames of ${H}×${W} uint16 (${mb.toFixed(0)} MB), ${REPEAT} interleaved repetitions, medians\n`);
  console.log(
    `| row | 1 thread MB/s | 2 threads MB/s | 2 ÷ 1 (median of paired ratios) | same-run 2-core bound (median of pairs) | 2 ÷ 1 ÷ bound | ÷ zlib ceiling (paired by repetition) | CPU ms main / workers / rest (libuv's pool, V8's helpers), 1 thread | same, 2 threads | workers busy, 1 / 2 threads | minor page faults per run, 1 / 2 threads | other processes' cores (median) | 2 ÷ 1, quiet pairs (< ${QUIET_CORES} cores elsewhere) |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    if (!times.has(`${row}|1`)) continue;
    const a = median(times.get(`${row}|1`)!);
    const b = median(times.get(`${row}|2`)!);
    const all = ratios.get(row)!.map((r) => r.toFixed(2)).join(' ');
    const frac = `${(100 * median(ofCeiling.get(row)!)).toFixed(0)} %`;
    // the same run's accounting: per repetition, the pair's bound ({@link bound2}) and the measured ratio ÷ it
    const one = splits.get(`${row}|1`) ?? [];
    const two = splits.get(`${row}|2`) ?? [];
    const reps = ratios.get(row)!.map((r, rep) => ({ r, a: one[rep], b: two[rep] })).filter((x) => x.a && x.b && !Number.isNaN(x.a.split.main));
    const bounds = reps.map((x) => bound2(x.a!.split, x.b!.split));
    const bound = bounds.length > 0 ? median(bounds).toFixed(2) : '—';
    const atBound = bounds.length > 0 ? `${(100 * median(reps.map((x, i) => x.r / bounds[i]!))).toFixed(0)} %` : '—';
    const ms = (xs: { split: CpuSplit }[]) =>
      xs.length > 0 ? (['main', 'workers', 'other'] as const).map((k) => median(xs.map((x) => x.split[k])).toFixed(1)).join(' / ') : '—';
    const busyPct = (xs: { split: CpuSplit; wall: number }[], n: number) => (xs.length > 0 ? `${(100 * median(xs.map((x) => x.split.workers / (1000 * n * x.wall)))).toFixed(0)} %` : '—');
    const live = (xs: ({ split: CpuSplit; wall: number; faults: number } | undefined)[]) =>
      xs.filter((x): x is { split: CpuSplit; wall: number; faults: number } => x !== undefined && !Number.isNaN(x.split.main));
    const faults = (xs: { faults: number }[]) => (xs.length > 0 ? median(xs.map((x) => x.faults)).toFixed(0) : '—');
    const load = ratios.get(row)!.map((_, rep) => foreign.get(`${row}|${rep}`) ?? NaN);
    const quiet = ratios.get(row)!.filter((_, rep) => load[rep]! < QUIET_CORES);
    const calm = quiet.length > 0 ? `${median(quiet).toFixed(2)}× (${quiet.length} of ${load.length})` : `— (0 of ${load.length})`;
    console.log(
      `| ${row} | ${(mbOf(row) / a).toFixed(0)} | ${(mbOf(row) / b).toFixed(0)} | ${median(ratios.get(row)!).toFixed(2)}× (${all}) | ${bound} | ${atBound} | ${frac} | ${ms(live(one))} | ${ms(live(two))} | ${busyPct(live(one), 1)} / ${busyPct(live(two), 2)} | ${faults(live(one))} / ${faults(live(two))} | ${median(load).toFixed(2)} | ${calm} |`,
    );
  }
  if (lz4Ref && times.has('write LZ4|h5py')) {
    console.log('\n| LZ4 vs h5py (native plugin) | h5py MB/s | ours 1 thread | ours 2 threads | ours ÷ h5py at 1 / 2 threads |');
    console.log('|---|---:|---:|---:|---:|');
    for (const dirn of ['write', 'read']) {
      const h = median(times.get(`${dirn} LZ4|h5py`)!);
      const r1 = median(ratios.get(`h5py ${dirn} LZ4 1t`)!);
      const r2 = median(ratios.get(`h5py ${dirn} LZ4`)!);
      console.log(`| ${dirn} | ${(mb / h).toFixed(0)} | ${(mb / median(times.get(`${dirn} LZ4|1`)!)).toFixed(0)} | ${(mb / median(times.get(`${dirn} LZ4|2`)!)).toFixed(0)} | ${r1.toFixed(2)}× / ${r2.toFixed(2)}× |`);
    }
  } else if (!lz4Ref) console.log(`\n(h5py LZ4 rows skipped: no ${join(PLUGINS, 'libh5lz4.so')}; apt-get install hdf5-filter-plugin)`);

  if (process.env.BENCH_THREADS_RSS === '0') return;
  // peak RSS, each in a fresh process
  const self = fileURLToPath(import.meta.url);
  const rssPath = join(dir, 'rss.h5');
  const child = (mode: string) => {
    const r = spawnSync(process.execPath, [...process.execArgv, self, '--rss-child', mode, rssPath], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (r.status !== 0) throw new Error(`rss child ${mode} failed: ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').pop()!) as { base: number; peak: number; frames: number; seconds?: number };
  };
  const w = child('write');
  const r = child('read');
  rmSync(rssPath, { force: true });
  const MiB = (b: number) => (b / (1 << 20)).toFixed(0);
  console.log(`\n| ${RSS_FRAMES}-frame stream (${H}×${W} uint16, gzip 1) | baseline RSS MiB | peak RSS MiB | peak − baseline |`);
  console.log('|---|---:|---:|---:|');
  console.log(`| write, frame by frame (${w.seconds!.toFixed(1)} s) | ${MiB(w.base)} | ${MiB(w.peak)} | ${MiB(w.peak - w.base)} |`);
  console.log(`| read, frame by frame (readInto) | ${MiB(r.base)} | ${MiB(r.peak)} | ${MiB(r.peak - r.base)} |`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--rss-child') await rssChild(process.argv[3]!, process.argv[4]!);
  else {
    const dir = mkdtempSync(join(tmpdir(), 'chunkform-threads-'));
    try {
      await runThreads(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
