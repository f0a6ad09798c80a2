/**
 * Variable-length strings in VL chunks (`@chunkform/format-vl`, issue #13) side by side with h5py
 * (HDF5 1.10, global-heap vlen strings), part of `pnpm bench` (`BENCH_ONLY=vl`); standalone:
 * `node --import tsx bench/vl.ts`.
 *
 * Workload: BENCH_VL_N (default 1,000,000) log-line / event-label strings of 5–60 bytes (ASCII, from a
 * fixed seed), written as one 1-D dataset with one `write` and read back whole (`read()`: a `string[]`),
 * and as columns (`VLStrings`: one byte buffer + offsets, written with `write(column)` and read with
 * `readColumnar()`, no JS string per value; the column is built from the `string[]` before the
 * timing, `VLStrings.from` timed apart), then BENCH_VL_RANDOM (default 1,000) single-string reads at random indices (after reopening the file).
 * chunkform: dense VL chunks of BENCH_VL_CHUNK (default 1,024) and of 8× as many strings (heap sections
 * of ≈ 260 KB: deflated on the filter worker pool, in parallel across chunks, behind the caller), with
 * deflate level 1 on the heap section, plus shuffle + deflate on the entries, and without filters.
 * Each chunkform row runs in a process of its own per repetition (bench/vl_side.ts), as each of
 * h5py's steps does: its input is loaded before the timing (a `VLStrings` for the columnar rows, a
 * `string[]` otherwise) and the process holds nothing else, so no row pays for collecting the
 * bench's own million strings. BENCH_VL_ROWS (comma-separated row numbers) runs some rows only.
 * h5py: `create_dataset(data=…, dtype=string_dtype())` (contiguous, one global-heap object per
 * string), read with `.asstr()[()]` and `d[i]`. Each side's time covers file create/open to close.
 *
 * BENCH_REPEAT (default 5) interleaved repetitions: each runs h5py's three steps and every row's,
 * h5py first in even repetitions and last in odd ones, so load from other processes hits both
 * sides alike; ratios are medians of the per-repetition ratios (h5py ÷ ours: > 1 means chunkform is
 * faster), times are medians. CPU time (process-wide, all threads) is reported beside wall time, and
 * the main thread's CPU per write (Linux). The last two rows are the same run's comparison for the
 * columnar rows of 8× chunks: no worker pool (every chunk built and checksummed on the main thread),
 * and a pool of 3 threads; with a pool of 3 or more (MIN_POOL_THREADS in
 * packages/format-vl/src/vl-image-offload.ts) `format-vl` builds the chunks of a column in reused
 * shared memory and a worker computes their checksums (one job reading a shared ring of sections),
 * the main thread sealing those no worker took.
 * The same run measures ceilings that bound any implementation on this machine: zlib level 1 on the
 * same heap bytes on 1 and 2 threads, turning bytes into one JS string per value, and building and
 * checksumming the stored bytes of the unfiltered chunks (no file).
 * @module
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { deflate, deflateSync, inflate } from 'node:zlib';
import { workerPoolSize } from '../packages/filters/src/index.js';
import { VLStrings, type VlDatasetOptions } from '../packages/format-vl/src/index.js';
import { lookup3 } from '../packages/core/src/index.js';
import { median } from './timing.js';
import { hashRanges } from './vl_hash.js';
import { logStrings } from './vl-strings.js';
import { xorshift32 } from './xorshift.js';

const N = Number(process.env.BENCH_VL_N ?? 1_000_000);
const RANDOM = Number(process.env.BENCH_VL_RANDOM ?? 1000);
const CHUNK = Number(process.env.BENCH_VL_CHUNK ?? 1024);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);
/** Rows to run (indices into the configurations below, comma-separated; default all). */
const ROWS = process.env.BENCH_VL_ROWS?.split(',').map(Number);
const PY = fileURLToPath(new URL('./vl_h5py.py', import.meta.url));
const SIDE = fileURLToPath(new URL('./vl_side.ts', import.meta.url));

/** Wall and CPU seconds of one step (main: the main thread alone, where the side measures it). */
interface Sample {
  s: number;
  cpu: number;
  main?: number | null;
}

function python(args: string[]): Sample & Record<string, unknown> {
  const r = spawnSync('/usr/bin/python3', [PY, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`vl_h5py.py ${args[0]} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Sample & Record<string, unknown>;
}

/** Wall and process CPU (all threads: the filter workers too) seconds of `fn`. */
async function timed(fn: () => Promise<void>): Promise<Sample> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const c = process.cpuUsage(c0);
  return { s: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 };
}

/** Runs `fn(k)` for k < n with `inFlight` calls at once. */
async function pool(n: number, inFlight: number, fn: (k: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < n) await fn(next++);
  }));
}

/**
 * Ceilings on this machine, no HDF5 and no file: zlib level 1 deflating (and inflating) the heap
 * bytes of every chunk, on 1 and 2 threads (libuv's pool with 1 or 2 calls in flight; seconds, best
 * of `repeat`); and the JS floor of reading strings: one `latin1` decode per chunk and one
 * `substring` per value into a new `string[]`; and the floor of the unfiltered rows: the stored
 * bytes of each chunk (entries + heap) in a new buffer with the heap bytes copied in, and one
 * lookup3 per section (1 thread: the main thread does this now), and on 2 threads (the main thread
 * and a worker, bench/vl_hash.ts); and the file floor: those bytes written to a new file in `dir`
 * (one write call per chunk, and one call for all), no fsync, as chunkform's write does not sync,
 * and read back with one call into a new buffer.
 */
async function ceilings(
  text: Uint8Array,
  ends: Float64Array,
  chunk: number,
  repeat: number,
  dir: string,
): Promise<{ deflate: number[]; inflate: number[]; strings: number; ratio: number; image: number; checksum: number; checksum2: number; writeChunks: number; writeOne: number; readOne: number; stored: number }> {
  const pieces: Uint8Array[] = [];
  for (let c = 0; c < N; c += chunk) pieces.push(text.subarray(c === 0 ? 0 : ends[c - 1]!, ends[Math.min(N, c + chunk) - 1]!));
  const packed = pieces.map((p) => deflateSync(p, { level: 1 }));
  const best = async (fn: () => Promise<void>): Promise<number> => {
    let t = Infinity;
    for (let r = 0; r < repeat; r++) t = Math.min(t, (await timed(fn)).s);
    return t;
  };
  const zip = (threads: number) =>
    best(() => pool(pieces.length, threads, (k) => new Promise<void>((ok, no) => deflate(pieces[k]!, { level: 1 }, (e) => (e ? no(e) : ok())))));
  const unzip = (threads: number) =>
    best(() => pool(pieces.length, threads, (k) => new Promise<void>((ok, no) => inflate(packed[k]!, { chunkSize: pieces[k]!.length + 1 }, (e) => (e ? no(e) : ok())))));
  const deflates = [await zip(1), await zip(2)];
  const inflates = [await unzip(1), await unzip(2)];
  const dec = new TextDecoder('latin1');
  const strings = await best(async () => {
    const out = new Array<string>(N);
    for (let c = 0, k = 0; c < N; c += chunk, k++) {
      const s = dec.decode(pieces[k]!);
      const base = c === 0 ? 0 : ends[c - 1]!;
      for (let i = c; i < Math.min(N, c + chunk); i++) out[i] = s.substring((i === 0 ? 0 : ends[i - 1]!) - base, ends[i]! - base);
    }
  });
  // the stored bytes of unfiltered chunks (entries + heap): new buffers with the heap bytes copied
  // in, and a lookup3 of each section (what a chunk built in one pass costs, without the file)
  let stored = 0;
  const images: Uint8Array[] = [];
  const image = await best(async () => {
    images.length = 0;
    for (let c = 0, k = 0; c < N; c += chunk, k++) {
      const eb = Math.min(chunk, N - c) * 16 + 4;
      const b = new Uint8Array(eb + pieces[k]!.length + 8);
      b.set(pieces[k]!, eb + 4);
      images.push(b);
    }
  });
  stored = images.reduce((n, b) => n + b.length, 0);
  const checksum = await best(async () => {
    for (let c = 0, k = 0; c < N; c += chunk, k++) {
      const eb = Math.min(chunk, N - c) * 16 + 4;
      lookup3(images[k]!.subarray(0, eb - 4));
      lookup3(images[k]!.subarray(eb, images[k]!.length - 4));
    }
  });
  // the same checksums on 2 threads (the main thread and one worker, half of the sections each,
  // over the images in one SharedArrayBuffer: no copy), and the file floor: the stored bytes
  // written to a new file, with one write call per chunk and with one call for all of them
  const sab = new SharedArrayBuffer(stored);
  const all = new Uint8Array(sab);
  const ranges: number[] = [];
  for (let c = 0, k = 0, at = 0; c < N; c += chunk, k++) {
    const eb = Math.min(chunk, N - c) * 16 + 4;
    all.set(images[k]!, at);
    ranges.push(at, at + eb - 4, at + eb, at + images[k]!.length - 4);
    at += images[k]!.length;
  }
  const mine = Float64Array.from(ranges.filter((_, j) => (j >> 2) % 2 === 0));
  const theirs = Float64Array.from(ranges.filter((_, j) => (j >> 2) % 2 === 1));
  // (the worker registers tsx's loader and then imports the TypeScript source, as the filter pool's does)
  const tsx = join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs');
  const boot = `import { register } from ${JSON.stringify(pathToFileURL(tsx).href)}; register(); await import(${JSON.stringify(new URL('./vl_hash.ts', import.meta.url).href)});`;
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`));
  const hashed = (): Promise<void> =>
    new Promise((ok, no) => {
      worker.once('message', () => ok());
      worker.once('error', no);
      worker.postMessage({ sab, ranges: theirs });
    });
  await hashed(); // (worker started and compiled)
  const checksum2 = await best(async () => {
    const other = hashed();
    hashRanges(all, mine);
    await other;
  });
  worker.postMessage(null);
  await once(worker, 'exit');
  const out = join(dir, 'vl-floor.bin');
  const writeChunks = await best(async () => {
    rmSync(out, { force: true });
    const fd = openSync(out, 'w');
    for (let k = 0, at = 0; k < images.length; at += images[k]!.length, k++) writeSync(fd, images[k]!, 0, images[k]!.length, at);
    closeSync(fd);
  });
  const writeOne = await best(async () => {
    rmSync(out, { force: true });
    const fd = openSync(out, 'w');
    writeSync(fd, all, 0, all.length, 0);
    closeSync(fd);
  });
  const readOne = await best(async () => {
    const fd = openSync(out, 'r');
    readSync(fd, new Uint8Array(stored), 0, stored, 0);
    closeSync(fd);
  });
  rmSync(out, { force: true });
  const zipped = packed.reduce((n, p) => n + p.length, 0);
  return { deflate: deflates, inflate: inflates, strings, ratio: zipped / text.length, image, checksum, checksum2, writeChunks, writeOne, readOne, stored };
}

const fmt = (x: number, d = 2) => x.toFixed(d);

/** One chunkform configuration. */
interface Config {
  chunk: number;
  label: string;
  opts: Partial<VlDatasetOptions>;
  /** Written from a `VLStrings` and read with `readColumnar` (no random reads: the same as the `string[]` row's). */
  columnar?: boolean;
  /** Filter worker pool size (default: the machine's); 0 builds every chunk on the main thread. */
  threads?: number;
}

/** Runs the VL comparison in `dir` and prints the tables. */
export async function runVl(dir: string): Promise<void> {
  const data = logStrings(N);
  const text = Buffer.from(data.join(''), 'latin1');
  const ends = new Float64Array(N);
  for (let i = 0, at = 0; i < N; i++) ends[i] = at += data[i]!.length;
  const rnd = xorshift32(77);
  const idx = Array.from({ length: RANDOM }, () => rnd() % N);

  // the same strings and indices for h5py
  const dataFile = join(dir, 'vl-strings.bin');
  const head = new Uint32Array(1 + N);
  head[0] = N;
  data.forEach((s, i) => (head[1 + i] = s.length));
  writeFileSync(dataFile, Buffer.concat([Buffer.from(head.buffer), text]));
  const idxFile = join(dir, 'vl-idx.bin');
  writeFileSync(idxFile, Buffer.from(Uint32Array.from([RANDOM, ...idx]).buffer));

  const heapDeflate = { heap: [{ id: 1, clientData: [1] }] };
  const configs: Config[] = [
    { chunk: CHUNK, label: 'deflate 1 on the heap', opts: { filters: heapDeflate } },
    { chunk: 8 * CHUNK, label: 'deflate 1 on the heap', opts: { filters: heapDeflate } },
    { chunk: CHUNK, label: 'deflate 1 on the heap, shuffle + deflate 1 on the entries', opts: { filters: { ...heapDeflate, entries: [{ id: 2 }, { id: 1, clientData: [1] }] } } },
    { chunk: CHUNK, label: 'no filters', opts: {} },
    { chunk: CHUNK, label: 'deflate 1 on the heap', opts: { filters: heapDeflate }, columnar: true },
    { chunk: CHUNK, label: 'no filters', opts: {}, columnar: true },
    { chunk: 8 * CHUNK, label: 'deflate 1 on the heap', opts: { filters: heapDeflate }, columnar: true },
    { chunk: 8 * CHUNK, label: 'no filters', opts: {}, columnar: true },
    { chunk: 8 * CHUNK, label: 'no filters, no worker pool (chunks built on the main thread)', opts: {}, columnar: true, threads: 0 },
    { chunk: 8 * CHUNK, label: 'no filters, worker pool of 3 threads', opts: {}, columnar: true, threads: 3 },
  ];
  if (ROWS) configs.splice(0, configs.length, ...configs.filter((_, k) => ROWS.includes(k)));
  const column = VLStrings.from(data);
  const fromTimes: Sample[] = [];

  const h5 = join(dir, 'vl-h5py.h5');
  const py = { w: [] as Sample[], r: [] as Sample[], rand: [] as Sample[], size: 0 };
  const h5py = (): void => {
    rmSync(h5, { force: true });
    py.w.push(python(['write', h5, dataFile]));
    const pr = python(['read', h5]);
    if (pr['n'] !== N || pr['first'] !== data[0] || pr['last'] !== data[N - 1]) throw new Error('bench: h5py read back other strings');
    py.r.push(pr);
    const prand = python(['random', h5, idxFile]);
    if (prand['first'] !== data[idx[0]!]) throw new Error('bench: h5py random read returned another string');
    py.rand.push(prand);
    py.size = statSync(h5).size;
  };
  const ours = configs.map(() => ({ w: [] as Sample[], r: [] as Sample[], rand: [] as Sample[], size: 0 }));
  const file = join(dir, 'vl-chunkform.h5');
  const offloaded = { done: 0, failed: 0, threads: 0 };
  // each row and repetition in a process of its own, as h5py's steps are (bench/vl_side.ts)
  const run = (k: number): void => {
    const { chunk, opts, columnar, threads } = configs[k]!;
    const o = ours[k]!;
    rmSync(file, { force: true });
    const r = spawnSync(process.execPath, [...process.execArgv, '--expose-gc', SIDE, file, dataFile, idxFile, JSON.stringify({ chunk, opts, columnar, threads })], { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status !== 0) throw new Error(`vl_side.ts failed: ${r.stderr}`);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { w: Sample; r: Sample; rand: Sample | null; size: number; pool: { done: number; failed: number }; threads: number };
    o.w.push(out.w);
    o.r.push(out.r);
    if (out.rand) o.rand.push(out.rand);
    o.size = out.size;
    offloaded.done += out.pool.done;
    offloaded.failed += out.pool.failed;
    offloaded.threads = Math.max(offloaded.threads, out.threads);
  };
  for (let r = 0; r < REPEAT; r++) {
    fromTimes.push(await timed(async () => void VLStrings.from(data)));
    if (r % 2 === 0) h5py();
    for (let k = 0; k < configs.length; k++) run(r % 2 === 0 ? k : configs.length - 1 - k);
    if (r % 2 === 1) h5py();
  }

  const med = (xs: Sample[], f: (x: Sample) => number = (x) => x.s) => median(xs.map(f));
  /** Median over repetitions of h5py's time ÷ ours. */
  const ratio = (theirs: Sample[], mine: Sample[], f: (x: Sample) => number = (x) => x.s) => median(mine.map((m, i) => f(theirs[i]!) / f(m)));
  const cpu = (x: Sample) => x.cpu;

  console.log(
    `\n## variable-length strings (issue #13): ${N.toLocaleString('en')} strings of 5–60 bytes (${fmt(text.length / 1e6, 1)} MB of text), ` +
      `${REPEAT} interleaved repetitions, medians; ratios = h5py ÷ ours (> 1: chunkform faster); filter worker pool: ${offloaded.threads} of ${workerPoolSize()} threads (per process)\n`,
  );
  console.log('| | write | read whole | 1000 random reads | file | write vs h5py (wall / CPU) | read vs h5py (wall / CPU) | random vs h5py | size vs h5py |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  console.log(`| h5py 1.10 (global heap) | ${fmt(med(py.w))} s | ${fmt(med(py.r))} s | ${fmt(med(py.rand) * 1000, 1)} ms | ${fmt(py.size / 1e6, 1)} MB | | | | |`);
  configs.forEach((c, k) => {
    const o = ours[k]!;
    const how = c.columnar ? 'columnar write / columnar read (`VLStrings`)' : '`string[]` write / read';
    const rand = c.columnar ? '—' : `${fmt(med(o.rand) * 1000, 1)} ms`;
    console.log(
      `| chunkform, VL chunks of ${c.chunk}, ${c.label}, ${how} | ${fmt(med(o.w))} s | ${fmt(med(o.r))} s | ${rand} | ${fmt(o.size / 1e6, 1)} MB | ` +
        `${fmt(ratio(py.w, o.w))}× / ${fmt(ratio(py.w, o.w, cpu))}× | ${fmt(ratio(py.r, o.r))}× / ${fmt(ratio(py.r, o.r, cpu))}× | ${c.columnar ? '—' : `${fmt(ratio(py.rand, o.rand))}×`} | ${fmt(o.size / py.size, 2)}× |`,
    );
  });
  console.log(`\nBuilding the column from the \`string[]\` (\`VLStrings.from\`, not in the columnar write rows): ${fmt(med(fromTimes))} s (CPU ${fmt(med(fromTimes, cpu))} s).`);
  console.log(`\nFilter pipelines run on the worker pool during the repetitions: ${offloaded.done} (${offloaded.failed} failed there and ran on the main thread).`);
  console.log(
    `Main-thread CPU of the writes (medians, ms; Linux /proc, 10 ms ticks): ` +
      configs.map((c, k) => `${c.chunk}/${c.label}${c.columnar ? ' (columnar)' : ''}: ${ours[k]!.w.some((x) => x.main === null) ? '—' : fmt(median(ours[k]!.w.map((x) => x.main!)) * 1000, 0)}`).join('; '),
  );
  console.log(`CPU seconds (medians): h5py write ${fmt(med(py.w, cpu))}, read ${fmt(med(py.r, cpu))}; ` + configs.map((c, k) => `${c.chunk}/${c.label}${c.columnar ? ' (columnar)' : ''}: write ${fmt(med(ours[k]!.w, cpu))}, read ${fmt(med(ours[k]!.r, cpu))}`).join('; '));

  // ceilings, same run: what the deflate rows and the string[] reads cannot go below on this machine
  const cl = await ceilings(text, ends, 8 * CHUNK, 3, dir);
  const pw = med(py.w);
  const pr = med(py.r);
  const need = (t1: number, target: number) => Math.ceil(t1 / target);
  console.log(`\nCeilings on this machine (no HDF5, no file; best of 3), the heap bytes of chunks of ${8 * CHUNK} strings (${fmt(text.length / 1e6, 1)} MB, deflated to ${fmt(cl.ratio, 2)}×):`);
  console.log('| | 1 thread | 2 threads | h5py\'s whole step ÷ it (2 threads) | threads needed for the target alone |');
  console.log('|---|---|---|---|---|');
  console.log(`| zlib level 1 deflate of the heap | ${fmt(cl.deflate[0]!)} s (${fmt(text.length / 1e6 / cl.deflate[0]!, 0)} MB/s) | ${fmt(cl.deflate[1]!)} s | ${fmt(pw / cl.deflate[1]!)}× (write) | ${need(cl.deflate[0]!, pw / 10)} for write ≥ 10× |`);
  console.log(`| zlib inflate of the heap | ${fmt(cl.inflate[0]!)} s (${fmt(text.length / 1e6 / cl.inflate[0]!, 0)} MB/s) | ${fmt(cl.inflate[1]!)} s | ${fmt(pr / cl.inflate[1]!)}× (read) | ${need(cl.inflate[0]!, pr / 5)} for read ≥ 5× |`);
  console.log(`| one JS string per value (latin1 decode per chunk + substring) | ${fmt(cl.strings)} s | — | ${fmt(pr / cl.strings)}× (read) | — (main thread) |`);
  console.log(`| stored bytes of the unfiltered chunks (${fmt(cl.stored / 1e6, 1)} MB): new buffers + heap bytes copied in | ${fmt(cl.image * 1000, 1)} ms | — | ${fmt(pw / cl.image)}× (write) | — |`);
  console.log(`| lookup3 of both sections of every chunk (written and verified alike) | ${fmt(cl.checksum * 1000, 1)} ms (${fmt(cl.stored / 1e6 / cl.checksum, 0)} MB/s) | ${fmt(cl.checksum2 * 1000, 1)} ms | ${fmt(pw / cl.checksum2)}× (write), ${fmt(pr / cl.checksum2)}× (read) | ${need(cl.checksum + cl.image, pw / 10)} for the copy + checksums of a write ≥ 10× |`);
  console.log(`| the stored bytes written to a new file (no fsync): one call per chunk / one call | ${fmt(cl.writeChunks * 1000, 1)} ms / ${fmt(cl.writeOne * 1000, 1)} ms | — | ${fmt(pw / cl.writeChunks)}× / ${fmt(pw / cl.writeOne)}× (write) | — |`);
  console.log(`| that file read back into a new buffer (one call) | ${fmt(cl.readOne * 1000, 1)} ms | — | ${fmt(pr / cl.readOne)}× (read) | — |`);
  const floor1 = cl.image + cl.checksum + cl.writeOne;
  const floor2 = Math.max(cl.image + cl.writeOne, cl.checksum2);
  console.log(
    `\nWrite floor of the unfiltered rows (build the stored bytes + checksums + one file write, nothing else): 1 thread ${fmt(floor1 * 1000, 1)} ms = ${fmt(pw / floor1)}× h5py; ` +
      `checksums on 2 threads beside the copy and write ${fmt(floor2 * 1000, 1)} ms = ${fmt(pw / floor2)}× h5py (target 10×: ${fmt((pw / 10) * 1000, 1)} ms). ` +
      `Read floor of the columnar unfiltered rows (one file read, checksums, one copy of the heaps into the result, taken as the image build's time): 1 thread ${fmt((cl.readOne + cl.checksum + cl.image) * 1000, 1)} ms = ${fmt(pr / (cl.readOne + cl.checksum + cl.image))}× h5py, ` +
      `checksums on 2 threads ${fmt(Math.max(cl.readOne + cl.image, cl.checksum2) * 1000, 1)} ms = ${fmt(pr / Math.max(cl.readOne + cl.image, cl.checksum2))}× (target 5×).`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = mkdtempSync(join(tmpdir(), 'chunkform-bench-vl-'));
  try {
    await runVl(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
