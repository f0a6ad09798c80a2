/**
 * zlib backend for browsers and other non-Node runtimes (the `#zlib` import's `default`
 * condition): fflate, pure JavaScript. Produces and reads the zlib format (RFC 1950) that HDF5's
 * deflate filter (H5Zdeflate.c) uses, verifying the Adler-32 trailer as zlib does.
 * @module
 */
import { unzlibSync, zlibSync } from 'fflate';
import { FilterError } from '@chunkform/core/plugin';

/** Which implementation this module is. */
export const ZLIB_BACKEND: 'node' | 'fflate' = 'fflate';

const INFO = { filterId: 1, filterName: 'deflate' };

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Adler-32 (RFC 1950 §9), processed in blocks of 5552 bytes so the sums never overflow. */
export function adler32(data: Uint8Array): number {
  let a = 1;
  let b = 0;
  const n = data.length;
  for (let i = 0; i < n; ) {
    const end = Math.min(n, i + 5552);
    for (; i < end; i++) {
      a += data[i]!;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** Spec IV.A.2.l, filter 1: compresses `data` into a zlib stream at `level` (0–9). */
export function zlibCompress(data: Uint8Array, level: number): Uint8Array {
  try {
    return zlibSync(data, { level: level as 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 });
  } catch (e) {
    throw new FilterError(`zlib compression failed: ${message(e)}`, { ...INFO, cause: e });
  }
}

function inflateInto(data: Uint8Array, size: number): Uint8Array {
  return unzlibSync(data, { out: new Uint8Array(size) });
}

/**
 * Spec IV.A.2.l, filter 1: decompresses a zlib stream. `expected` is the likely output size (0 if unknown); more than
 * `limit` bytes of output (if > 0) is an error (decompression bombs). The Adler-32 trailer is read from
 * the input's last four bytes, so bytes after the stream fail that check whether or not `_whole` asks.
 */
export function zlibDecompress(data: Uint8Array, expected: number, limit: number, _whole?: boolean, _background?: boolean): Uint8Array {
  let out: Uint8Array;
  try {
    if (data.length < 6) throw new Error('stream too short');
    if (limit > 0) {
      // Inflate into a buffer one byte larger than allowed: filling it means "too large".
      const first = expected > 0 && expected < limit ? expected + 1 : limit + 1;
      out = inflateInto(data, first);
      if (out.length === first && first <= limit) out = inflateInto(data, limit + 1);
      if (out.length > limit) throw new Error(`the data inflates to more than ${limit} bytes`);
    } else {
      out = unzlibSync(data);
    }
  } catch (e) {
    throw new FilterError(`corrupt deflate stream (${message(e)})`, { ...INFO, cause: e });
  }
  const t = data.length - 4;
  const stored = ((data[t]! << 24) | (data[t + 1]! << 16) | (data[t + 2]! << 8) | data[t + 3]!) >>> 0;
  const actual = adler32(out);
  if (stored !== actual) {
    throw new FilterError(
      `corrupt deflate stream (Adler-32 0x${stored.toString(16).padStart(8, '0')} stored, 0x${actual.toString(16).padStart(8, '0')} computed)`,
      INFO,
    );
  }
  return out;
}
