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

/**
 * Pools of fewer threads leave the chunks to the calling thread: on 2 cores (a pool of 2) the staging
 * copy, the messages and the collection of the images that come back cost more than the entries and
 * checksums they move (bench/vl.ts, BENCHMARKS.md "VL chunk images on the worker pool": main-thread
 * CPU 60 ms instead of 80 ms per write of a million strings, but process CPU 0.19 s instead of 0.13 s
 * and the wall time up), so the work moves only when the pool has cores to spare beside the caller's.
 */
export const MIN_POOL_THREADS = 3;

/** The worker's entry (resolved by the worker's own module loader: the sources under tsx, else the built module). */
const TASK_MODULE = new URL(import.meta.url.endsWith('.ts') ? './vl-image-task.ts' : './vl-image-task.js', import.meta.url).href;

/** Shared buffers kept for the next chunks' copies (no new memory, no page faults, once a write runs). */
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
  return new SharedArrayBuffer(n);
}

/** Keeps the chunk's shared memory for a later chunk (the chunk is built and no worker reads it). */
function release(st: StagedColumn): void {
  const b = st.memory;
  if (b.byteLength > KEPT_MAX_BYTES) return;
  kept.push(b);
  keptBytes += b.byteLength;
  while (kept.length > KEPT_MAX || keptBytes > KEPT_MAX_BYTES) keptBytes -= kept.shift()!.byteLength;
}

/**
 * The strings of `col` at the request's run (column positions from `base`) copied into shared
 * memory for a worker, or null when the chunk is built here: a chunk of several runs (a 2-D chunk
 * narrower than the dataset), no worker pool of {@link MIN_POOL_THREADS} threads that runs tasks, a
 * chunk below its size threshold, no `SharedArrayBuffer`, or more than 4 GiB of values.
 */
export function stageColumn(n: number, runs: Float64Array, col: ColumnBytes, base: number): StagedColumn | null {
  const offload = pipelineOffload();
  if (runs.length !== 3 || !LITTLE_ENDIAN || !offload?.runTask || !((offload.threads ?? 0) >= MIN_POOL_THREADS) || typeof SharedArrayBuffer !== 'function') return null;
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
 * Builds the staged chunk `mem` on a worker (on this thread when the pool declines the job or it
 * fails there); the chunk then holds its stored image, as one built here does.
 */
export async function unstage(mem: VlChunk): Promise<void> {
  const st = mem.staged;
  if (!st) return;
  const job = pipelineOffload()?.runTask?.({ module: TASK_MODULE, fn: 'columnImage', args: { n: st.n, runs: st.runs, bytes: st.bytes, offsets: st.offsets, origin: st.origin } satisfies ColumnImageArgs, bytes: st.bytes.length });
  let image: unknown = null;
  if (job) {
    st.busy = true;
    try {
      image = await job;
    } finally {
      st.busy = false;
    }
  }
  if (mem.staged !== st) {
    release(st); // built here meanwhile (used while the job ran)
    return;
  }
  if (image instanceof Uint8Array && image.length === imageSize(st)) {
    mem.staged = null;
    adoptImage(mem, image);
    release(st);
    return;
  }
  settleStaged(mem);
}
