/**
 * The filter worker pool: chunks of at least {@link DEFAULT_WORKER_MIN_BYTES} run their whole
 * filter pipeline (deflate, shuffle, fletcher32, n-bit, scale-offset, LZ4, zstd, bitshuffle — this
 * package's filters) on worker threads, so filtered reads and writes of many chunks use every core.
 * Installed into core's pipeline offload hook by `registerFilters()`; sized from the machine
 * (`os.availableParallelism()`) and adjustable with {@link configureWorkers}. In runtimes without
 * `node:worker_threads` (browsers) the `#pool` import resolves to ./pool-none.ts instead (no threads,
 * none of this machinery) and every filter runs on the calling thread. The bytes are the same either way: a worker runs core's
 * own pipeline code; a chunk that fails there is run again on the calling thread, whose error names
 * the dataset and the chunk. A chunk read into shared memory from a local file goes as its place in
 * the file: the worker reads the stored bytes itself. Each worker holds at most its running job and
 * the next; further jobs wait here and go to whichever worker finishes first, and a worker left
 * without work takes back a chunk read from the file that waits, not started, at another. Chunk formats also run
 * functions of their own there (`runTask`: e.g. format-vl builds whole VL chunk images on the
 * workers), above the same size threshold.
 * @module
 */
import { isShared, setPipelineOffload, type DecodeTarget, type OffloadContext, type PipelineOffload } from '@chunkform/core/plugin';
import type { Filter } from '@chunkform/core/plugin';
import { machineThreads, startFilterWorker } from '#workers';
import { ALL_FILTERS } from '../builtin.js';
import { STORED_READ_FAILED, type FilterJob, type FilterResult, type FilterWorker, type SectionsJob, type TaskJob } from './protocol.js';
import { CopyPool } from '../util/copy-pool.js';
import { lz4Filter, lz4FrameBound } from '../lz4/index.js';
import { bitshuffleFilter } from '../bitshuffle/index.js';
import { checkWorkerOptions, DEFAULT_WORKER_MIN_BYTES, type WorkerOptions } from './options.js';

export { DEFAULT_WORKER_MIN_BYTES, type WorkerOptions };

const builtin = new Set<Filter>(ALL_FILTERS);
/** The LZ4 and bitshuffle filters' ids: a pipeline ending in one compresses into shared memory the pool reuses (`outShared`). */
const LZ4_ID = lz4Filter.id;
const BITSHUFFLE_ID = bitshuffleFilter.id;
let threads = -1; // not configured yet
let minBytes = DEFAULT_WORKER_MIN_BYTES;
const workers: FilterWorker[] = [];
/** Set when a worker failed to start: the pool then stays off (filters run here) until reconfigured. */
let broken = false;

function size(): number {
  if (threads < 0) threads = machineThreads();
  return threads;
}

/** The least busy worker, starting one more while the pool is below its size and all are busy. */
function pick(): FilterWorker | null {
  let best: FilterWorker | null = null;
  for (let i = workers.length - 1; i >= 0; i--) {
    const w = workers[i]!;
    if (w.pending === Infinity) workers.splice(i, 1); // died: dropped, a new one starts on demand
    else if (!best || w.pending < best.pending) best = w;
  }
  if ((!best || best.pending > 0) && workers.length < size()) {
    const w = start();
    if (w) return w;
  }
  return best;
}

/**
 * Jobs one worker holds at once: the one it runs and the next, waiting in its port so that it starts
 * at once. Further jobs wait on the calling thread ({@link waiting}) and go to whichever worker
 * finishes first: a worker slowed down (sharing its core, a larger chunk) is not left holding a
 * queue of chunks that another, idle, could decode.
 */
const WORKER_DEPTH = 2;
/** Jobs waiting for a place at a worker, oldest first (each finished job lets one go). */
const waiting: (() => void)[] = [];

/** Ids of the filters the pool has run: a worker started later loads their codecs before it is ready. */
const used = new Set<number>();
/** Bytes of the largest chunk the pool has run: a worker started later runs its codecs over that many first (./warm.ts). */
let largest = 0;

/** Starts a worker and adds it to the pool (null when this runtime has none). */
function start(): FilterWorker | null {
  const w = startFilterWorker([...used], largest);
  if (!w) return null;
  workers.push(w);
  w.ready.catch(() => void (broken = true));
  return w;
}

/**
 * Whether the chunk goes to a worker: large enough (its `bytes` or the chunk's raw size, for reads
 * of well-compressed chunks), and every filter to run is one of ours.
 */
function takes(bytes: number, impls: readonly (Filter | undefined)[], skipMask: number, ctx: OffloadContext): boolean {
  if (size() === 0 || broken) return false;
  if (bytes < minBytes && ctx.chunkDims.reduce((a, b) => a * b, ctx.elementSize) < minBytes) return false;
  return ours(impls, skipMask);
}

/** True when the filters to run (bits of `skipMask` clear) are all this package's and there is one at least. */
function ours(impls: readonly (Filter | undefined)[], skipMask = 0): boolean {
  let any = false;
  for (let i = 0; i < impls.length; i++) {
    if ((skipMask >>> i) & 1) continue;
    const f = impls[i];
    if (!f || !builtin.has(f)) return false; // a filter of someone else's (or none): stays here
    any = true;
  }
  return any;
}

/** Chunks the workers finished, chunks that failed there (then run on the calling thread), chunks whose stored bytes a worker read itself, and jobs taken back from a worker before they started (run by another). */
const stats = { done: 0, failed: 0, read: 0, takenBack: 0 };

/**
 * Files (identities) a worker could not read as they are open on the calling thread (replaced at
 * their path, no longer readable): their chunks are sent as bytes from then on. Bounded (emptied
 * when full: a file is tried again at worst).
 */
const unreadable = new Set<string>();
const UNREADABLE_KEPT = 64;

/**
 * Input buffers of decode jobs that the workers sent back, reused for the next copies (no garbage per
 * chunk): about one per chunk in flight, at least 16, and 64 MiB in all (a few large chunks do not pin
 * hundreds of MiB once the work is done). Encode jobs' copies go in shared memory instead (`inShared`).
 */
const INPUTS_MAX_BYTES = 64 << 20;
const inputs = new CopyPool({ buffers: () => Math.max(16, 2 * size() + 2), maxBytes: INPUTS_MAX_BYTES, maxBufferBytes: INPUTS_MAX_BYTES });
/**
 * Shared memory for the encode jobs (reused, never transferred): each chunk's private copy goes to
 * the worker in one (`inShared`), and a pipeline ending in LZ4 (or bitshuffle + LZ4) builds its result in another
 * (`outShared`), written to the file from there (the encode result's `written` gives it back). No
 * buffer moves between the threads per chunk: moved buffers are new objects on the receiving
 * thread, whose external memory set off garbage collections on the calling thread every few chunks.
 * About one per chunk in flight (a write keeps 8 or two per thread plus two, a stream of small
 * chunks as many as its byte bound holds: at least 16), 64 MiB in all.
 */
const sharedLimits = { buffers: () => Math.max(16, 2 * size() + 2), maxBytes: INPUTS_MAX_BYTES, maxBufferBytes: INPUTS_MAX_BYTES, minBufferBytes: 64 << 10 };
const inShared = new CopyPool({ ...sharedLimits, shared: true });
const outShared = new CopyPool({ ...sharedLimits, shared: true });

/** Buffers given out by `inputBuffer` (sent to a worker without a copy when they come back as a chunk's bytes). */
const handed = new WeakSet<ArrayBuffer>();

/** Runs `job` on a worker; null when no worker is available or the work failed there. */
async function dispatch(job: FilterJob | SectionsJob | TaskJob): Promise<FilterResult | null> {
  if (job.direction === 'sections' || job.direction === 'task' || !job.stored) return run(job);
  const file = job.stored.file;
  const r = await run(job, (e) => {
    if (!e.message.startsWith(STORED_READ_FAILED)) return;
    if (unreadable.size >= UNREADABLE_KEPT) unreadable.clear();
    unreadable.add(file.identity);
  });
  if (r) stats.read++;
  return r;
}

/** {@link dispatch}: `failed` sees the worker's error. */
async function run(job: FilterJob | SectionsJob | TaskJob, failed?: (e: Error) => void): Promise<FilterResult | null> {
  if (job.direction !== 'task') for (const p of job.direction === 'sections' ? job.sections.map((x) => x.pipeline) : [job.pipeline]) for (const f of p.filters) used.add(f.id);
  if (job.direction === 'encode' || job.direction === 'decode') largest = Math.max(largest, job.ctx.chunkDims.reduce((a, b) => a * b, job.ctx.elementSize));
  let w = pick();
  // every worker holds its next job already (or earlier calls wait): this one waits here for the
  // first worker to finish one, so no worker is left with a queue while another has nothing
  if (w && (w.pending >= WORKER_DEPTH || waiting.length > 0)) {
    do {
      await new Promise<void>((resolve) => waiting.push(resolve));
      w = pick();
    } while (w && w.pending >= WORKER_DEPTH);
  }
  if (!w) {
    // (no worker, e.g. the pool was shrunk to none while jobs waited: the next waiting job is woken to find that out too)
    waiting.shift()?.();
    return null;
  }
  try {
    let r = await w.run(job);
    // taken back before it started (below): to the worker that asked for work, or any
    while (r.takenBack) {
      stats.takenBack++;
      w = pick();
      if (!w) return null;
      r = await w.run(job);
    }
    stats.done++;
    const back = r.input?.buffer as ArrayBuffer | undefined;
    if (back) inputs.keep(back);
    return r;
  } catch (e) {
    stats.failed++;
    if (e instanceof Error) failed?.(e);
    return null; // the calling thread runs the chunk again and throws its error with the chunk named
  } finally {
    // a place is free: the longest waiting job takes it; none waits (the end of a read): a worker
    // left without work takes a job that waits, not started, at another (one slowed down or not
    // yet woken), rather than idle while it does
    const next = waiting.shift();
    if (next) next();
    else if (w?.pending === 0) for (const o of workers) if (o !== w && o.pending > 0 && o.takeBack()) break;
  }
}

/** {@link dispatch} for a job whose result comes back: its bytes and mask. */
async function send(job: FilterJob): Promise<{ bytes: Uint8Array; filterMask: number } | null> {
  const r = await dispatch(job);
  return r?.bytes ? { bytes: r.bytes, filterMask: r.filterMask } : null;
}

/**
 * Counts since the process started: chunks run on workers, chunks that failed there (run again on
 * the calling thread), and chunks among the done ones whose stored bytes a worker read from the
 * file itself (reads of a local file into shared memory), and jobs a worker left without work took
 * back from another before they started there (at the end of a read).
 */
export function workerStats(): { done: number; failed: number; read: number; takenBack: number } {
  return { ...stats };
}

/** `target` with a run list of its own (a view of a larger one would send all of it). */
function ownRuns(target: DecodeTarget): DecodeTarget {
  const runs = target.runs;
  return runs.byteLength === runs.buffer.byteLength ? target : { ...target, runs: runs.slice() };
}

const offload: PipelineOffload = {
  get threads() {
    return broken ? 0 : size();
  },
  get minBytes() {
    return minBytes;
  },
  runTask(task) {
    if (size() === 0 || broken || task.bytes < minBytes) return null;
    return dispatch({ direction: 'task', module: task.module, fn: task.fn, args: task.args }).then((r) => (r && 'value' in r ? r.value : null));
  },
  encode(bytes, pipeline, impls, ctx) {
    if (!takes(bytes.length, impls, 0, ctx)) return null;
    // shared memory (the copy a streamed write owns) goes to the worker as it is: no second copy;
    // else a copy in reused shared memory, kept again once the worker is done with it
    const copy = isShared(bytes) ? null : inShared.copy(bytes);
    const fs = pipeline.filters;
    const lastId = fs[fs.length - 1]?.id;
    // (bitshuffle + LZ4: room for 20 bytes of block framing per KiB, more than blocks of the default 8 KiB need)
    const out = lastId === LZ4_ID ? outShared.sharedBuffer(lz4FrameBound(bytes.length)) : lastId === BITSHUFFLE_ID ? outShared.sharedBuffer(lz4FrameBound(bytes.length) + 20 * Math.ceil(bytes.length / 1024)) : undefined;
    const job: FilterJob = { direction: 'encode', bytes: copy ?? bytes, pipeline, filterMask: 0, ctx, ...(out ? { out } : {}) };
    return dispatch(job).then((r) => {
      // (the work failed there, or the worker was stopped, perhaps while still running the job: its memory is not reused)
      if (!r) return null;
      if (copy) inShared.keep(copy.buffer);
      if (out && r.outLength !== undefined) return { bytes: new Uint8Array(out, 0, r.outLength), filterMask: r.filterMask, written: () => outShared.keep(out) };
      if (out) outShared.keep(out); // (not used: the frame did not fit there)
      return r.bytes ? { bytes: r.bytes, filterMask: r.filterMask } : null;
    });
  },
  encodeSections(sections) {
    // one job for the whole chunk when it is large enough and every section's filters are ours
    if (size() === 0 || broken || sections.reduce((n, x) => n + x.bytes.length, 0) < minBytes) return null;
    if (!sections.some((x) => x.impls.length > 0) || !sections.every((x) => x.impls.length === 0 || ours(x.impls))) return null;
    const job: SectionsJob = { direction: 'sections', sections: sections.map(({ bytes, pipeline, ctx }) => ({ bytes, pipeline, ctx })) };
    return dispatch(job).then((r) => (r?.bytes && r.sizes && r.masks ? { bytes: r.bytes, sizes: r.sizes, filterMasks: r.masks } : null));
  },
  decode(bytes, pipeline, filterMask, impls, ctx) {
    if (!takes(bytes.length, impls, filterMask, ctx)) return null;
    return send({ direction: 'decode', bytes: inputs.copy(bytes), pipeline, filterMask, ctx }).then((r) => r && r.bytes);
  },
  decodeInto(bytes, pipeline, filterMask, impls, ctx, target) {
    // the worker writes the result itself: only into shared memory
    if (!isShared(target.out) || !takes(bytes.length, impls, filterMask, ctx)) return null;
    // a buffer from inputBuffer goes as it is (it comes back for reuse like a copy's)
    const input = handed.delete(bytes.buffer as ArrayBuffer) && bytes.byteOffset === 0 ? bytes : inputs.copy(bytes);
    return dispatch({ direction: 'decode', bytes: input, pipeline, filterMask, ctx, target: ownRuns(target) }).then((r) => r !== null);
  },
  decodeStoredInto(stored, pipeline, filterMask, impls, ctx, target) {
    // the worker reads the chunk from the file (./stored-read.ts) and writes the result itself
    if (!isShared(target.out) || unreadable.has(stored.file.identity) || !takes(stored.length, impls, filterMask, ctx)) return null;
    return dispatch({ direction: 'decode', stored, pipeline, filterMask, ctx, target: ownRuns(target) }).then((r) => r !== null);
  },
  inputBuffer(size) {
    const b = inputs.take(size);
    handed.add(b.buffer as ArrayBuffer);
    return b;
  },
};

/**
 * Sizes the filter worker pool (and enables it if `registerFilters()` has not). Workers start on
 * first use and do not keep the process alive while idle; shrinking stops the surplus ones.
 * @throws RangeError for a negative or fractional thread count or byte threshold.
 */
export function configureWorkers(opts: WorkerOptions = {}): void {
  checkWorkerOptions(opts);
  threads = opts.threads ?? machineThreads();
  broken = false;
  if (opts.minBytes !== undefined) minBytes = opts.minBytes;
  while (workers.length > threads) workers.pop()!.terminate();
  setPipelineOffload(offload);
}

/** Worker threads the pool uses (0: filters run on the calling thread). */
export function workerPoolSize(): number {
  return size();
}

/**
 * Starts every worker of the pool now and resolves, with the number of workers ready, once they
 * are (a worker loads the filters first, which takes a moment, and a worker started after the pool
 * ran chunks also loads the codecs of the filters it ran: ./warm.ts): call it at start-up so the
 * first chunks do not wait for that. 0 when this runtime has no worker threads or they failed to start
 * (filters then run on the calling thread).
 */
export async function startWorkers(): Promise<number> {
  while (workers.length < size() && !broken) if (!start()) break;
  const ok = await Promise.all(workers.map((w) => w.ready.then(() => true, () => false)));
  return ok.filter(Boolean).length;
}

/** Stops every worker now (pending chunks run on the calling thread) and drops the buffers kept for them; they start again on demand. */
export function stopWorkers(): void {
  while (workers.length > 0) workers.pop()!.terminate();
  inputs.clear();
  inShared.clear();
  outShared.clear();
}

/** Enables the pool in core's pipeline (what `registerFilters()` does). */
export function installWorkerPool(): void {
  setPipelineOffload(offload);
}
