/**
 * The bound on what one read may allocate (issue 10, "hostile sizes"): a read's result is sized by
 * the dataspace, a number from the file, so it is checked against a limit before anything is
 * allocated, and an allocation the platform refuses becomes a typed error instead of a RangeError.
 * @module
 */
import { ResourceLimitError, ValueError } from '../errors.js';

/** Default `maxReadBytes`: 1 GiB per read (raise it per file or per call for larger reads). */
export const DEFAULT_MAX_READ_BYTES = 2 ** 30;

/** Largest typed array (bytes) the JavaScript engines allocate (V8: 2^32 − 1). */
export const MAX_ARRAY_BYTES = 2 ** 32 - 1;

/** Checks a `maxReadBytes` option: a positive integer or `Infinity`. */
export function validReadLimit(limit: number, what: string): number {
  if (limit === Infinity || (Number.isSafeInteger(limit) && limit > 0)) return limit;
  throw new ValueError(`${what}: maxReadBytes must be a positive integer or Infinity, got ${String(limit)}`);
}

/** Throws {@link ResourceLimitError} when `count` elements of `es` bytes exceed `limit` or the platform's array limit. */
export function checkReadSize(count: number, es: number, limit: number, path: string): void {
  const bytes = count * es;
  if (bytes > limit) {
    throw new ResourceLimitError(
      `the read needs ${bytes} bytes (${count} elements of ${es} bytes), more than maxReadBytes = ${limit}; ` +
        'pass a larger maxReadBytes to openFile() or to read() to allow it',
      bytes,
      limit,
      { path },
    );
  }
  if (bytes > MAX_ARRAY_BYTES) {
    throw new ResourceLimitError(`the read needs ${bytes} bytes (${count} elements of ${es} bytes), more than one array can hold (${MAX_ARRAY_BYTES})`, bytes, MAX_ARRAY_BYTES, { path });
  }
}

/**
 * `new Uint8Array(n)` (`shared`: over a new `SharedArrayBuffer`), with a refused allocation reported as
 * {@link ResourceLimitError} naming `path`.
 */
export function allocBytes(n: number, path: string, shared?: boolean): Uint8Array {
  try {
    return new Uint8Array(shared ? new SharedArrayBuffer(n) : new ArrayBuffer(n));
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new ResourceLimitError(`cannot allocate ${n} bytes: ${e.message}`, n, MAX_ARRAY_BYTES, { path });
  }
}
