/**
 * The shared staging area of a filtered read that returns a new array: chunks read in full are
 * decoded by the filter workers straight into a reused `SharedArrayBuffer` (the same path as
 * `readInto` with shared memory, ../filter/decode-into.ts), and the calling thread copies each
 * chunk's runs from there into the result as the chunk arrives. The user's result stays an
 * ordinary `ArrayBuffer`; the workers write no new buffers per chunk, nothing crosses threads but
 * messages, and the calling thread's part per chunk is one copy from memory already in use.
 * Without `SharedArrayBuffer` (a browser page that is not cross-origin isolated) or filter workers
 * able to decode into shared memory, reads go the ordinary way.
 * @module
 */
import { pipelineOffload } from '../filter/offload.js';

/** Reads of fewer bytes go the ordinary way (the staging gains nothing on a few small chunks). */
const MIN_STAGED_BYTES = 1 << 20;
/** The staging buffer is kept for the next read up to this size (larger ones are dropped after their read). */
const KEPT_STAGE_BYTES = 64 << 20;

let kept: SharedArrayBuffer | null = null;

/**
 * A shared staging area of `bytes` bytes for a read of `pieces` chunks into a new result, or null when
 * the read should go the ordinary way (small, one chunk, no shared memory, no workers that decode
 * into it). Give it back with {@link releaseStage} once the read has succeeded.
 */
export function takeStage(bytes: number, pieces: number): Uint8Array | null {
  if (bytes < MIN_STAGED_BYTES || pieces < 2 || typeof SharedArrayBuffer === 'undefined') return null;
  const off = pipelineOffload();
  if (!off?.decodeInto || !(off.threads! > 0)) return null;
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
