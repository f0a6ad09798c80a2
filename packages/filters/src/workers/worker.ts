/**
 * A filter worker thread (started by ./threads-node.ts): runs whole chunk pipelines with this
 * package's filters through core's pure pipeline (the same code the calling thread runs, so the
 * bytes are the same) and sends the result back, its buffer transferred, or decodes a chunk
 * straight into a shared result (zstd from its WebAssembly heap: ../zstd/into-wasm.ts) — reading
 * its stored bytes from the local file itself when the job gives their place instead of the bytes
 * (./stored-read.ts). It reports ready once it has loaded
 * the codecs the pool asked it to warm (./warm.ts). Task jobs call a chunk format's own exported
 * function (imported by URL once per worker) and send its value back.
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { decodeChunk, decodeChunkInto, encodeChunk, type Filter, type FilterPipeline, type OffloadContext } from '@chunkform/core/plugin';
import { ALL_FILTERS } from '../builtin.js';
import { shuffle, shuffleElementSize, shuffleFilter } from '../shuffle/index.js';
import { lz4EncodeInto, lz4Filter } from '../lz4/index.js';
import { bitshuffleEncode, bitshuffleFilter } from '../bitshuffle/index.js';
import { zstdFilter } from '../zstd/index.js';
import { zstdDecodeInto } from '../zstd/into-wasm.js';
import { deflateFilter } from '../deflate/index.js';
import { releasingFilters } from './inflate-release.js';
import { CLAIM_STARTED, READY_ID, type FilterJob, type FilterReply, type FilterWorkerData, type SectionsJob, type TaskJob } from './protocol.js';
import { warmFilters } from './warm.js';
import { beginRead, endRead } from './stored-read.js';
import { carriesShared, jobEnded, jobStarted } from './release-shared.js';

// zstd decodes a chunk read whole straight into its place from the WebAssembly heap (../zstd/into-wasm.ts);
// an inflated chunk is freed once copied or unshuffled into its place (./inflate-release.ts)
const released = releasingFilters(deflateFilter, shuffleFilter);
const byId = new Map<number, Filter>(ALL_FILTERS.map((f) => [f.id, f === zstdFilter ? { ...f, decodeInto: zstdDecodeInto } : f === deflateFilter ? released.deflate : f === shuffleFilter ? released.shuffle : f]));
const resolve = (id: number) => byId.get(id);

/** Buffers a shuffle that more filters follow writes into (its output never leaves the worker): no fresh chunk-sized array per chunk. */
const scratch: ArrayBuffer[] = [];
const SCRATCH_KEPT = 2;
const SCRATCH_MIN_BYTES = 64 << 10;

/**
 * Core's forward pipeline (the calling thread's bytes); a leading shuffle followed by other filters
 * writes into a kept buffer (the page faults and garbage of a new one per chunk slowed two workers),
 * and a trailing LZ4 (or bitshuffle + LZ4) builds its result in `out` (the pool's shared memory)
 * when it fits there.
 */
async function encode(bytes: Uint8Array, pipeline: FilterPipeline, ctx: OffloadContext, out?: SharedArrayBuffer): Promise<{ bytes: Uint8Array; filterMask: number }> {
  const where = { path: '', chunk: [] };
  const fs = pipeline.filters;
  let last = resolve;
  const lastId = fs.length > 0 ? fs[fs.length - 1]!.id : -1;
  if (out && (lastId === lz4Filter.id || lastId === bitshuffleFilter.id)) {
    // (only the last filter: an earlier one's output is the next filter's input, not the result)
    let calls = fs.filter((f) => f.id === lastId).length;
    const into = (cap: number): Uint8Array | undefined => (out.byteLength >= cap ? new Uint8Array(out, 0, cap) : undefined);
    const viaOut: Filter =
      lastId === lz4Filter.id
        ? { ...lz4Filter, encode: (d, c) => lz4EncodeInto(d, c, into) }
        : { ...bitshuffleFilter, encode: (d, c) => bitshuffleEncode(d, c.clientData, undefined, into) };
    last = (id) => (id === lastId && --calls === 0 ? viaOut : resolve(id));
  }
  if (fs.length < 2 || fs[0]!.id !== shuffleFilter.id || bytes.length < SCRATCH_MIN_BYTES) return encodeChunk(bytes, pipeline, last, ctx, where);
  let buf = scratch.pop();
  if (!buf || buf.byteLength < bytes.length) buf = new ArrayBuffer(bytes.length);
  const into = new Uint8Array(buf);
  let first = true; // (only the first filter: a later shuffle may read the scratch)
  const viaScratch: Filter = { ...shuffleFilter, encode: (d, c) => (first ? ((first = false), shuffle(d, shuffleElementSize(c), into)) : shuffleFilter.encode(d, c)) };
  try {
    const r = await encodeChunk(bytes, pipeline, (id) => (id === shuffleFilter.id ? viaScratch : last(id)), ctx, where);
    // (an optional filter that failed after it leaves the shuffled bytes as the result: a copy of them goes back)
    return r.bytes.buffer === buf ? { bytes: r.bytes.slice(), filterMask: r.filterMask } : r;
  } finally {
    if (scratch.length < SCRATCH_KEPT) scratch.push(buf);
  }
}

async function run(job: FilterJob): Promise<{ bytes: Uint8Array; filterMask: number } | null> {
  const where = { path: '', chunk: [] };
  if (job.stored && job.target) {
    // the stored bytes read from the file here, then decoded straight into the shared result
    const bytes = beginRead(job.stored);
    try {
      await decodeChunkInto(bytes, job.pipeline, job.filterMask, resolve, job.ctx, where, job.target);
    } finally {
      endRead(bytes);
    }
    return null;
  }
  if (!job.bytes) throw new Error('filters: a job without bytes');
  if (job.direction === 'encode') return encode(job.bytes, job.pipeline, job.ctx, job.out);
  if (job.target) {
    // decoded straight into the shared result: nothing goes back but the input buffer
    await decodeChunkInto(job.bytes, job.pipeline, job.filterMask, resolve, job.ctx, where, job.target);
    return null;
  }
  return { bytes: await decodeChunk(job.bytes, job.pipeline, job.filterMask, resolve, job.ctx, where), filterMask: job.filterMask };
}

/** The sections of a structured chunk, each through its pipeline (core's, as on the calling thread), joined into one new buffer. */
async function runSections(job: SectionsJob): Promise<{ bytes: Uint8Array; sizes: number[]; masks: number[] }> {
  const out = [];
  for (const s of job.sections) out.push(await encode(s.bytes, s.pipeline, s.ctx));
  const bytes = new Uint8Array(out.reduce((n, e) => n + e.bytes.length, 0));
  let at = 0;
  for (const e of out) (bytes.set(e.bytes, at), (at += e.bytes.length));
  return { bytes, sizes: out.map((e) => e.bytes.length), masks: out.map((e) => e.filterMask) };
}

/** Modules of the task jobs run so far (imported once). */
const modules = new Map<string, Promise<Record<string, unknown>>>();

/** A chunk format's own function (core's `OffloadTask`): imported from its module once, called, its value and the buffers to move. */
async function runTask(job: TaskJob): Promise<{ value: unknown; transfer: ArrayBuffer[] }> {
  let mod = modules.get(job.module);
  if (!mod) modules.set(job.module, (mod = import(job.module) as Promise<Record<string, unknown>>));
  const fn = (await mod)[job.fn];
  if (typeof fn !== 'function') throw new Error(`filters: the task module ${job.module} has no function ${job.fn}`);
  const r = (await (fn as (args: unknown) => unknown)(job.args)) as { value: unknown; transfer?: ArrayBuffer[] };
  return { value: r.value, transfer: r.transfer ?? [] };
}

/** Claims of the jobs the pool may take back before they start (protocol.ts). */
const claims = (workerData as FilterWorkerData | null)?.claims;

parentPort!.on('message', (m: (FilterJob | SectionsJob | TaskJob) & { id: number; slot?: number }) => {
  // a job the pool took back (it runs on another worker): not run, no reply
  if (m.slot !== undefined && claims && Atomics.compareExchange(claims, m.slot, m.id, CLAIM_STARTED) !== m.id) return jobEnded(carriesShared(m as FilterJob));
  jobStarted();
  // (after the reply: this job's objects over shared memory are collected once the worker idles, ./release-shared.ts)
  const ended = () => jobEnded(m.direction !== 'task' && carriesShared(m));
  if (m.direction === 'task') {
    runTask(m).then(
      (r) => parentPort!.postMessage({ id: m.id, done: true, value: r.value } satisfies FilterReply, r.transfer),
      (e: unknown) => parentPort!.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) } satisfies FilterReply),
    ).finally(ended);
    return;
  }
  if (m.direction === 'sections') {
    runSections(m).then(
      (r) => parentPort!.postMessage({ id: m.id, ...r } satisfies FilterReply, [r.bytes.buffer as ArrayBuffer]),
      (e: unknown) => parentPort!.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) } satisfies FilterReply),
    ).finally(ended);
    return;
  }
  run(m).then(
    (r) => {
      if (!r) {
        const input = m.bytes && !(m.bytes.buffer instanceof SharedArrayBuffer) && m.bytes.buffer.byteLength > 0 ? m.bytes : undefined;
        const reply: FilterReply = { id: m.id, written: true, filterMask: m.filterMask, ...(input ? { input } : {}) };
        parentPort!.postMessage(reply, input ? [input.buffer as ArrayBuffer] : []);
        return;
      }
      // The result goes back with its buffer transferred (a view keeps its offset and length), however
      // little of it the view covers (zlib's output slice is sized for the worst case, the whole
      // chunk): a copy would leave that buffer as garbage on this thread, and every isolate lets
      // ~32 MiB of dead buffers pile up before it collects them (two workers streaming 2 MiB frames
      // added ~64 MiB to the peak RSS). The caller holds the buffer only until the chunk is stored.
      // Part of the input (whose buffer goes back for reuse) goes as its own copy. Shared memory (an
      // input sent as it is) is never transferred: a result in it goes as a copy.
      const b = r.bytes;
      if (m.direction === 'encode' && m.out && b.buffer === m.out) {
        // built in the pool's shared memory: only its length goes back
        const reply: FilterReply = { id: m.id, outLength: b.length, filterMask: r.filterMask };
        parentPort!.postMessage(reply);
        return;
      }
      const whole = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
      const own = !(b.buffer instanceof SharedArrayBuffer) && (b.buffer === m.bytes?.buffer ? whole : true);
      const bytes = own ? b : b.slice();
      // the input's buffer goes back too, for the next job's copy (unless the result lives in it)
      const input = m.bytes && !(m.bytes.buffer instanceof SharedArrayBuffer) && m.bytes.buffer !== bytes.buffer && m.bytes.buffer.byteLength > 0 ? m.bytes : undefined;
      const reply: FilterReply = { id: m.id, bytes, filterMask: r.filterMask, ...(input ? { input } : {}) };
      parentPort!.postMessage(reply, input ? [bytes.buffer as ArrayBuffer, input.buffer as ArrayBuffer] : [bytes.buffer as ArrayBuffer]);
    },
    (e: unknown) => {
      const reply: FilterReply = { id: m.id, error: e instanceof Error ? e.message : String(e) };
      parentPort!.postMessage(reply);
    },
  ).finally(ended);
});

// Ready once the codecs of the filters the pool has used are loaded (./warm.ts).
const data = workerData as FilterWorkerData | null;
void warmFilters(data?.warm ?? [], data?.warmBytes ?? 0).then(() => parentPort!.postMessage({ id: READY_ID } satisfies FilterReply));
