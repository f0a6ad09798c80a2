/**
 * Whole dense VL chunks of a column built on the filter worker pool (docs/format-vl.md §5.1): the
 * calling thread only copies each chunk's runs of string bytes and their offsets (rebased) into
 * shared memory when the write call gives them ({@link stageColumn}, inside the call: the caller's
 * column is its own again when the call returns); the stored image — entries from the offsets, the
 * heap bytes copied in, a lookup3 of each section — is built on a worker by the same function as on
 * the calling thread ({@link columnImage} of ./vl-image-task.ts, over {@link columnChunk}), when the
 * chunk is encoded ({@link unstage}), so chunks are built on every core while the calling thread
 * stores the finished ones. Without a worker pool of {@link MIN_POOL_THREADS} threads or more
 * (browsers, small machines, chunks below the pool's size threshold, no `SharedArrayBuffer`) chunks
 * are built on the calling thread as before; a chunk whose job fails there, or that is used before
 * it is encoded, is built from the staged copy here.
 * @module
 */
import type { ChunkImage } from '@chunkform/core';
import { pipelineOffload } from '@chunkform/core/plugin';
import { HEAP_HEADER, type VlChunk } from './vl-chunk.js';
import { ENTRY_SIZE, LITTLE_ENDIAN } from './vl-sections.js';
import { adoptImage, columnChunk, type ColumnBytes } from './vl-image.js';
import type { VLOffsets } from './vl-strings.js';

/** A chunk's strings copied into shared memory: the run's bytes and offsets as they are in the column (`origin`: the offset of the first byte). */
export interface StagedColumn extends ColumnImageArgs {
  /** The shared memory of both, reused once the chunk no longer needs it. */
  memory: SharedArrayBuffer;
  /** A worker is reading it (it goes back for reuse when that job settles). */
  busy: boolean;
}

/** What a worker is sent for one chunk (./vl-image-task.ts): the chunk's strings (a `ColumnBytes`) in shared memory. */
export interface ColumnImageArgs {
  /** Elements of the chunk. */
  n: number;
  /** Runs `(chunk element, staged value, count)`. */
  runs: Float64Array;
  bytes: Uint8Array;
  offsets: VLOffsets;
  origin: number;
}

/** What a worker is sent for one job of several chunks (./vl-image-task.ts): each chunk's image goes to `out` from `at[i]` to `at[i + 1]`. */
export interface ColumnImagesArgs {
  chunks: ColumnImageArgs[];
  /** A view of shared memory. */
  out: Uint8Array;
  at: Float64Array;
}

/**
 * Pools of fewer threads leave the chunks to the calling thread (see {@link stageColumn}).
 */
export const MIN_POOL_THREADS = 2;

/** Chunks per worker job: one message each way for several chunks. */
export const CHUNKS_PER_JOB = 3;

/**
 * Staged chunks not built yet, per pool thread: past this the calling thread builds the next chunks
 * itself instead of staging them (its share of the work while the workers build theirs).
 */
const STAGED_PER_THREAD = CHUNKS_PER_JOB;

/** The worker's entry (resolved by the worker's own module loader: the sources under tsx, else the built module). */
const TASK_MODULE = new URL(import.meta.url.endsWith('.ts') ? './vl-image-task.ts' : './vl-image-task.js', import.meta.url).href;

/** Shared buffers kept for the next chunks' copies and images (no new memory, no page faults, once a write runs). */
const kept: SharedArrayBuffer[] = [];
const KEPT_MAX = 64;
const KEPT_MAX_BYTES = 64 << 20;
let keptBytes = 0;

/** `n` bytes of shared memory: a kept buffer of `n`–`2n` bytes when there is one. */
function sharedMemory(n: number): SharedArrayBuffer {
  for (let i = kept.length - 1; i >= 0; i--) {
    const b = kept[i]!;
    if (b.byteLength >= n && b.byteLength <= 2 * n) {
      kept.splice(i, 1);
      keptBytes -= b.byteLength;
      return b;
    }
  }
  return new SharedArrayBuffer(Math.max(n, 8));
}

/** Keeps `b` for later copies or images (nothing reads or writes it any more). */
function keep(b: SharedArrayBuffer): void {
  if (b.byteLength > KEPT_MAX_BYTES) return;
  kept.push(b);
  keptBytes += b.byteLength;
  while (kept.length > KEPT_MAX || keptBytes > KEPT_MAX_BYTES) keptBytes -= kept.shift()!.byteLength;
}

/** Keeps the chunk's staged copy for a later chunk (the chunk is built and no worker reads it). */
function release(st: StagedColumn): void {
  keep(st.memory);
}

/** Staged chunks waiting for their job or in one (in this thread's writes). */
let sentNow = 0;

/**
 * The strings of `col` at the request's run (column positions from `base`) copied into shared
 * memory for a worker, or null when the chunk is built here: a chunk of several runs (a 2-D chunk
 * narrower than the dataset), no worker pool of {@link MIN_POOL_THREADS} threads that runs tasks, a
 * chunk below its size threshold, no `SharedArrayBuffer`, more than 4 GiB of values, or the
 * workers already have {@link STAGED_PER_THREAD} chunks per thread to build (this thread builds its
 * share meanwhile).
 */
export function stageColumn(n: number, runs: Float64Array, col: ColumnBytes, base: number): StagedColumn | null {
  const offload = pipelineOffload();
  const threads = offload?.threads ?? 0;
  if (runs.length !== 3 || !LITTLE_ENDIAN || !offload?.runTask || !(threads >= MIN_POOL_THREADS) || typeof SharedArrayBuffer !== 'function') return null;
  if (sentNow >= threads * STAGED_PER_THREAD) {
    sendPending(); // (the run of staged chunks ends here: the workers get what is waiting)
    return null;
  }
  const { bytes, offsets } = col;
  const values = runs[2]!;
  const b = base + runs[1]!;
  const o0 = offsets[b]!;
  const total = offsets[b + values]! - o0;
  if (total < (offload.minBytes ?? 0) || total > 0xffffffff - HEAP_HEADER - 8 - n * ENTRY_SIZE) return null;
  // (the offsets 8-byte aligned after the bytes, as they are in the column: their type too)
  const wide = offsets instanceof Float64Array;
  const at = Math.ceil(total / 8) * 8;
  const memory = sharedMemory(at + (wide ? 8 : 4) * (values + 1));
  const sb = new Uint8Array(memory, 0, total);
  sb.set(bytes.subarray(o0, o0 + total));
  const so = wide ? new Float64Array(memory, at, values + 1) : new Uint32Array(memory, at, values + 1);
  so.set(offsets.subarray(b, b + values + 1));
  return { n, runs: Float64Array.of(runs[0]!, 0, values), bytes: sb, offsets: so, origin: o0, memory, busy: false };
}

/** The image bytes of a chunk of `st`: entries, and the heap section when a value has bytes. */
function imageSize(st: StagedColumn): number {
  const total = st.bytes.length;
  return st.n * ENTRY_SIZE + 4 + (total > 0 ? HEAP_HEADER + total + 4 : 0);
}

/** Builds the staged chunk `mem` here, now (it is used before it was encoded, or its job failed). */
export function settleStaged(mem: VlChunk): void {
  const st = mem.staged;
  if (!st) return;
  mem.staged = null;
  adoptImage(mem, columnChunk(st.n, st.runs, st, 0)!.image!);
  if (!st.busy) release(st);
}

/**
 * Shared memory holding the images of one job's chunks, given back for reuse once every chunk
 * whose image is in it was written to the file (`ChunkImage.written`) or no longer needs it.
 */
class Slab {
  private users: number;
  constructor(
    readonly memory: SharedArrayBuffer,
    chunks: number,
  ) {
    this.users = chunks;
  }
  /** One chunk is done with it. */
  drop(): void {
    if (--this.users === 0) keep(this.memory);
  }
}

/** Chunks whose image is in a {@link Slab} (until their image is written or copied out). */
const slabOf = new WeakMap<VlChunk, Slab>();

/** A staged chunk waiting for its job to be sent. */
interface Waiting {
  mem: VlChunk;
  st: StagedColumn;
  done: () => void;
  failed: (e: unknown) => void;
}

let waiting: Waiting[] = [];
let sendScheduled = false;

/**
 * Builds the staged chunk `mem` on a worker — together with the chunks staged next to it, one job
 * for {@link CHUNKS_PER_JOB} of them, the images written into one shared {@link Slab} — or on this
 * thread when the pool declines the job or it fails there; the chunk then holds its stored image,
 * as one built here does.
 */
export function unstage(mem: VlChunk): Promise<void> {
  const st = mem.staged;
  if (!st) return Promise.resolve();
  return new Promise<void>((done, failed) => {
    st.busy = true; // (the job's from now on: its memory goes back when the job settled)
    sentNow++;
    waiting.push({ mem, st, done, failed });
    if (waiting.length >= CHUNKS_PER_JOB) sendPending();
    else if (!sendScheduled) {
      // (the rest goes once the calling thread waits for anything: a file write, the queue)
      sendScheduled = true;
      (typeof setImmediate === 'function' ? setImmediate : setTimeout)(sendPending);
    }
  });
}

/** Sends the chunks waiting as one job. */
function sendPending(): void {
  sendScheduled = false;
  const items = waiting;
  if (items.length === 0) return;
  waiting = [];
  const at = new Float64Array(items.length + 1);
  // (each image 8-byte aligned: its entries are read as 32-bit words)
  for (let i = 0; i < items.length; i++) at[i + 1] = at[i]! + Math.ceil(imageSize(items[i]!.st) / 8) * 8;
  const total = at[items.length]!;
  const memory = sharedMemory(total);
  const args: ColumnImagesArgs = { chunks: items.map(({ st }) => ({ n: st.n, runs: st.runs, bytes: st.bytes, offsets: st.offsets, origin: st.origin })), out: new Uint8Array(memory, 0, total), at };
  const job = pipelineOffload()?.runTask?.({ module: TASK_MODULE, fn: 'columnImages', args, bytes: items.reduce((s, x) => s + x.st.bytes.length, 0) });
  (job ?? Promise.resolve(null)).then(
    (sizes) => receive(items, sizes instanceof Float64Array && sizes.length === items.length ? memory : null, at, sizes as Float64Array),
    () => receive(items, null, at, null),
  );
}

/**
 * The job of `items` settled: images in `memory` at `at`, of `sizes` bytes (null: the job failed;
 * a chunk whose image is missing or of the wrong size is built here).
 */
function receive(items: readonly Waiting[], memory: SharedArrayBuffer | null, at: Float64Array, sizes: Float64Array | null): void {
  sentNow -= items.length;
  const slab = memory ? new Slab(memory, items.length) : null;
  for (let i = 0; i < items.length; i++) {
    const { mem, st, done, failed } = items[i]!;
    st.busy = false;
    try {
      if (mem.staged === st && slab && sizes![i] === imageSize(st)) {
        mem.staged = null;
        adoptImage(mem, new Uint8Array(slab.memory, at[i]!, imageSize(st)));
        slabOf.set(mem, slab);
        release(st);
      } else {
        slab?.drop();
        if (mem.staged === st) settleStaged(mem);
        else release(st); // (built here meanwhile: used while the job ran)
      }
      done();
    } catch (e) {
      failed(e);
    }
  }
}

/**
 * Once `mem` (just built from its staged copy) is encoded as `image`: a chunk whose image is in a
 * shared {@link Slab} lets it go when the image is written (`ChunkImage.written`), or at once when
 * the stored bytes are a copy (filters). `encode` runs with the chunk's image in the slab only when
 * the engine drops the chunk afterwards (`last`); else the chunk first gets an image of its own.
 */
export async function encodeOwned(mem: VlChunk, last: boolean, encode: () => Promise<ChunkImage>): Promise<ChunkImage> {
  const slab = slabOf.get(mem);
  if (!slab) return encode();
  slabOf.delete(mem);
  if (!last) {
    adoptImage(mem, mem.image!.slice());
    slab.drop();
    return encode();
  }
  let image: ChunkImage;
  try {
    image = await encode();
  } catch (e) {
    slab.drop();
    throw e;
  }
  if (image.bytes.buffer !== slab.memory) {
    slab.drop();
    return image;
  }
  return { ...image, written: () => slab.drop() };
}
