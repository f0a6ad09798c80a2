/**
 * Shared memory for filtered reads that return a new array. By default such a read (more than
 * 1 MiB, filter workers running) gets its result in a `SharedArrayBuffer` ({@link useShared}):
 * the filter workers decode each chunk read in full straight into its place, as for `readInto`
 * with shared memory (../filter/decode-into.ts), so the calling thread neither copies the chunks
 * nor first touches the result's pages — both would stay on it, since only the thread that owns an
 * ordinary `ArrayBuffer` can write it. A read asked for an ordinary result (`allowShared: false`)
 * stages its chunks in a reused shared buffer instead ({@link takeStage}) and the calling thread
 * copies each chunk's runs from there into the result as the chunk arrives. Without
 * `SharedArrayBuffer` (a browser page that is not cross-origin isolated) or filter workers able to
 * decode into shared memory (browsers have none), reads go the ordinary way.
 * @module
 */
import { pipelineOffload } from '../filter/offload.js';

/** Reads of fewer bytes go the ordinary way (shared memory and staging gain nothing on a few small chunks). */
const MIN_STAGED_BYTES = 1 << 20;
/** The staging buffer is kept for the next read up to this size (larger ones are dropped after their read). */
const KEPT_STAGE_BYTES = 64 << 20;

let kept: SharedArrayBuffer | null = null;

/**
 * True when a read of `bytes` bytes into a new result should go through shared memory: large enough,
 * and filter workers that decode into it. A read that may return its result in shared memory
 * (`read()` without `allowShared: false`) then allocates it there: the filter workers decode the
 * chunks read in full straight into their places, so the calling thread neither copies them nor
 * first touches the result's pages (with an ordinary result it must do both: only it can write an
 * `ArrayBuffer`). Otherwise it stages the chunks ({@link takeStage}).
 */
export function useShared(bytes: number): boolean {
  const off = pipelineOffload();
  return bytes >= MIN_STAGED_BYTES && typeof SharedArrayBuffer !== 'undefined' && !!off?.decodeInto && off.threads! > 0;
}

/**
 * A shared staging area of `bytes` bytes for a read of `pieces` chunks into a new result, or null when
 * the read should go the ordinary way (small, one chunk, no shared memory, no workers that decode
 * into it). Give it back with {@link releaseStage} once the read has succeeded.
 */
export function takeStage(bytes: number, pieces: number): Uint8Array | null {
  if (pieces < 2 || !useShared(bytes)) return null;
  let buf = kept;
  if (buf && buf.byteLength >= bytes) kept = null;
  else buf = new SharedArrayBuffer(bytes);
  return new Uint8Array(buf, 0, bytes);
}

/**
 * Gives the staging area of a finished read back for the next read (kept when it is the largest so
 * far, up to 64 MiB). Not after a failed read: chunks still in flight may write it.
 */
export function releaseStage(stage: Uint8Array): void {
  const buf = stage.buffer as SharedArrayBuffer;
  if (buf.byteLength <= KEPT_STAGE_BYTES && (!kept || kept.byteLength < buf.byteLength)) kept = buf;
}

/** Copies the result side of runs `[chunkElementOffset, outElementOffset, length]` from `stage` to `out` (same offsets). */
export function copyStaged(stage: Uint8Array, runs: Float64Array, out: Uint8Array, es: number): void {
  for (let i = 0; i < runs.length; i += 3) {
    const b = runs[i + 1]! * es;
    out.set(stage.subarray(b, b + runs[i + 2]! * es), b);
  }
}
