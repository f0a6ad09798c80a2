/**
 * zlib backend for Node (selected by the `#zlib` import condition `node`): Node's built-in zlib,
 * which is native and much faster than any JavaScript inflate. Produces and reads the zlib format
 * (RFC 1950) that HDF5's deflate filter (H5Zdeflate.c, compress2/inflate) uses.
 * @module
 */
import { constants, deflate, deflateSync, inflate, inflateSync, type ZlibOptions } from 'node:zlib';
import { isMainThread } from 'node:worker_threads';
import { FilterError } from '@chunkform/core/plugin';
import { CopyPool } from '../util/copy-pool.js';

/** Which implementation this module is. */
export const ZLIB_BACKEND: 'node' | 'fflate' = 'node';

const INFO = { filterId: 1, filterName: 'deflate' };
/** Output slice when the output size is unknown. */
const MIN_CHUNK = 64 * 1024;
/**
 * Smallest output slice when the size is known: a 64 KiB slice per call doubled the cost of
 * (de)compressing the 1–2 KB sections of sparse point-group chunks (allocating it dominated).
 */
const SMALL_CHUNK = 256;
/** Cap on one output slice (larger outputs are assembled from several). */
const MAX_CHUNK = 64 * 1024 * 1024;
/**
 * From this many bytes on, (de)compression runs on libuv's thread pool (the promise-returning
 * zlib calls): several chunks then inflate in parallel when the caller awaits them together, and
 * even one at a time it measured no slower than the synchronous calls. Smaller chunks stay
 * synchronous (the thread hop would cost more than the work). On a worker thread (the filter pool of
 * ../workers) everything is synchronous: that thread is already off the main one.
 */
export const ASYNC_MIN_BYTES = 64 * 1024;
/**
 * From this many bytes on, a decode whose result is not awaited right away (`background`: a chunk
 * decoded ahead of a reader) runs on libuv's thread pool too, leaving the main thread to the caller.
 */
export const BACKGROUND_MIN_BYTES = 16 * 1024;
/** Large inputs go to libuv's pool only from the main thread. */
const ASYNC_LIMIT = isMainThread ? ASYNC_MIN_BYTES : Infinity;
/** Background decodes go to libuv's pool only from the main thread. */
const BACKGROUND_LIMIT = isMainThread ? BACKGROUND_MIN_BYTES : Infinity;

/** Private input copies of thread-pool calls, made in reused buffers (up to 8, each of 64 KiB–16 MiB): new ones cost page faults and garbage collections. */
const inputPool = new CopyPool({ buffers: () => 8, maxBytes: Infinity, maxBufferBytes: 16 << 20, minBufferBytes: ASYNC_MIN_BYTES });

function view(b: Buffer): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function compressError(e: unknown): FilterError {
  return new FilterError(`zlib compression failed: ${message(e)}`, { ...INFO, cause: e });
}

function decompressError(e: unknown, limit: number): FilterError {
  const code = (e as { code?: string }).code;
  const why = code === 'ERR_BUFFER_TOO_LARGE' ? `the data inflates to more than ${limit} bytes` : message(e);
  return new FilterError(`corrupt deflate stream (${why})`, { ...INFO, cause: e });
}

/**
 * Spec IV.A.2.l, filter 1: compresses `data` into a zlib stream at `level` (0–9); on the thread pool for large inputs
 * (a private copy of the input is taken first, so the caller may reuse its buffer at once).
 */
export function zlibCompress(data: Uint8Array, level: number): Uint8Array | Promise<Uint8Array> {
  const opts: ZlibOptions = { level, chunkSize: outputSlice(data.length) };
  if (data.length >= ASYNC_LIMIT) {
    const input = inputPool.copy(data);
    return new Promise((resolve, reject) =>
      deflate(input, opts, (e, out) => {
        inputPool.keep(input.buffer as ArrayBuffer); // the thread pool is done with it
        if (e) reject(compressError(e));
        else resolve(view(compressed(data.length, out)));
      }),
    );
  }
  try {
    return view(compressed(data.length, deflateSync(data, opts)));
  } catch (e) {
    throw compressError(e);
  }
}

/** Compressed ÷ raw size of the last large chunk compressed on this thread (sizes the next output slice). */
let lastRatio = 1;

/**
 * The output slice for compressing `n` bytes: zlib's worst case (deflateBound plus slack) for small
 * inputs; for large ones 1.25× what the last large chunk compressed to, plus 4 KiB (the output is the
 * same bytes whatever the slices; a larger one is assembled from several). Worst-case slices cost a
 * chunk-sized buffer per chunk that dies once the result is stored: detector frames deflate to ≈ 0.3 of
 * their size, and every thread's heap lets ≈ 32 MiB of such dead buffers pile up before collecting them.
 */
function outputSlice(n: number): number {
  const bound = n + (n >>> 8) + 64;
  const guess = n >= ASYNC_MIN_BYTES ? Math.ceil(n * lastRatio * 1.25) + 4096 : bound;
  return Math.min(MAX_CHUNK, Math.max(SMALL_CHUNK, Math.min(bound, guess)));
}

/** `out`, after noting its size for {@link outputSlice}. */
function compressed(n: number, out: Buffer): Buffer {
  if (n >= ASYNC_MIN_BYTES) lastRatio = Math.min(1, out.length / n);
  return out;
}

/** A decompressed stream; with `whole`, an error when zlib stopped before the end of its `n` input bytes. */
function inflated(r: Buffer | { buffer: Buffer; engine: { bytesWritten: number } }, n: number, whole: boolean): Uint8Array {
  if (!whole) return view(r as Buffer);
  const { buffer, engine } = r as { buffer: Buffer; engine: { bytesWritten: number } };
  const rest = n - engine.bytesWritten;
  if (rest !== 0) throw new FilterError(`corrupt deflate stream (${rest} bytes follow the end of the stream)`, INFO);
  return view(buffer);
}

/**
 * Spec IV.A.2.l, filter 1: decompresses a zlib stream. `expected` is the likely output size (used to size the output
 * buffer; 0 if unknown); more than `limit` bytes of output is an error (decompression bombs). With `whole`, bytes after
 * the stream's end are an error (zlib reports how much input it consumed; it checks the Adler-32 trailer itself).
 * `background`: the result is not awaited right away, so streams from {@link BACKGROUND_MIN_BYTES} inflate on the
 * thread pool too.
 */
export function zlibDecompress(data: Uint8Array, expected: number, limit: number, whole = false, background = false): Uint8Array | Promise<Uint8Array> {
  const chunkSize = Math.min(MAX_CHUNK, expected > 0 ? Math.max(SMALL_CHUNK, expected + 1) : MIN_CHUNK);
  const opts: ZlibOptions & { info?: boolean } = { chunkSize, finishFlush: constants.Z_FINISH, ...(limit > 0 ? { maxOutputLength: limit } : {}), ...(whole ? { info: true } : {}) };
  const n = data.length;
  if (Math.max(expected, n) >= (background ? BACKGROUND_LIMIT : ASYNC_LIMIT)) {
    const input = inputPool.copy(data);
    return new Promise((resolve, reject) =>
      inflate(input, opts, (e, out) => {
        inputPool.keep(input.buffer as ArrayBuffer); // the thread pool is done with it
        if (e) reject(decompressError(e, limit));
        else {
          try {
            resolve(inflated(out, n, whole));
          } catch (err) {
            reject(err);
          }
        }
      }),
    );
  }
  let out: Buffer;
  try {
    out = inflateSync(data, opts);
  } catch (e) {
    throw decompressError(e, limit);
  }
  return inflated(out, n, whole);
}
