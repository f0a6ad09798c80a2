/**
 * Shuffle filter (HDF5 filter id 2, H5Zshuffle.c; spec IV.A.2.l): regroups the bytes of a chunk by
 * their position inside the element (all first bytes, then all second bytes ...) so compressors
 * see runs of similar bytes. Client data: `[elementSize]`, set at dataset creation.
 * @module
 */
import { FilterError, type Filter, type FilterContext } from '@chunkform/core/plugin';

const ID = 2;
const NAME = 'shuffle';
/** Typed-array views below assume a little-endian host (every platform Node and browsers run on). */
const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * 2-byte elements, four at a time: two input words (e0 e1 | e2 e3) become one word of low bytes
 * (at word k) and one of high bytes (at word q + k, q = words per plane).
 */
function shuffle2x4(src: Uint32Array, dst: Uint32Array, q: number): void {
  for (let k = 0; k < q; k++) {
    const w0 = src[2 * k]!;
    const w1 = src[2 * k + 1]!;
    dst[k] = (w0 & 0xff) | ((w0 >>> 8) & 0xff00) | ((w1 & 0xff) << 16) | ((w1 << 8) & 0xff000000);
    dst[q + k] = ((w0 >>> 8) & 0xff) | ((w0 >>> 16) & 0xff00) | ((w1 & 0xff00) << 8) | (w1 & 0xff000000);
  }
}

/** Inverse of {@link shuffle2x4}. */
function unshuffle2x4(src: Uint32Array, dst: Uint32Array, q: number): void {
  for (let k = 0; k < q; k++) {
    const a = src[k]!;
    const b = src[q + k]!;
    dst[2 * k] = (a & 0xff) | ((b & 0xff) << 8) | ((a & 0xff00) << 8) | ((b & 0xff00) << 16);
    dst[2 * k + 1] = ((a >>> 16) & 0xff) | ((b >>> 8) & 0xff00) | ((a >>> 8) & 0xff0000) | (b & 0xff000000);
  }
}

/**
 * Spec IV.A.2.l, filter 2. Byte-shuffles `data` for elements of `size` bytes (H5Z_filter_shuffle, forward). Trailing bytes
 * that do not fill an element are copied unchanged to the end, as HDF5 does; sizes ≤ 1 or fewer
 * than two whole elements return the input itself. `into` (at least `data.length` bytes): where
 * to write the result (its first `data.length` bytes are returned) instead of a new array.
 */
export function shuffle(data: Uint8Array, size: number, into?: Uint8Array): Uint8Array {
  const n = Math.floor(data.length / size);
  if (size <= 1 || n <= 1) return data;
  const out = into ? into.subarray(0, data.length) : new Uint8Array(data.length);
  const body = n * size;
  if (size === 2 && LITTLE_ENDIAN_HOST && data.byteOffset % 4 === 0 && out.byteOffset % 4 === 0 && n % 4 === 0) {
    shuffle2x4(new Uint32Array(data.buffer, data.byteOffset, n >>> 1), new Uint32Array(out.buffer, out.byteOffset, n >>> 1), n >>> 2);
  } else if (size === 2 && LITTLE_ENDIAN_HOST && data.byteOffset % 2 === 0) {
    const src = new Uint16Array(data.buffer, data.byteOffset, n);
    for (let i = 0; i < n; i++) {
      const v = src[i]!;
      out[i] = v;
      out[n + i] = v >>> 8;
    }
  } else if (size === 2) {
    for (let i = 0, s = 0; i < n; i++, s += 2) {
      out[i] = data[s]!;
      out[n + i] = data[s + 1]!;
    }
  } else if (size === 4 && LITTLE_ENDIAN_HOST && data.byteOffset % 4 === 0) {
    const src = new Uint32Array(data.buffer, data.byteOffset, n);
    const n2 = 2 * n;
    const n3 = 3 * n;
    for (let i = 0; i < n; i++) {
      const v = src[i]!;
      out[i] = v;
      out[n + i] = v >>> 8;
      out[n2 + i] = v >>> 16;
      out[n3 + i] = v >>> 24;
    }
  } else if (size === 4) {
    const n2 = 2 * n;
    const n3 = 3 * n;
    for (let i = 0, s = 0; i < n; i++, s += 4) {
      out[i] = data[s]!;
      out[n + i] = data[s + 1]!;
      out[n2 + i] = data[s + 2]!;
      out[n3 + i] = data[s + 3]!;
    }
  } else if (size === 8) {
    for (let i = 0, s = 0; i < n; i++, s += 8) {
      out[i] = data[s]!;
      out[n + i] = data[s + 1]!;
      out[2 * n + i] = data[s + 2]!;
      out[3 * n + i] = data[s + 3]!;
      out[4 * n + i] = data[s + 4]!;
      out[5 * n + i] = data[s + 5]!;
      out[6 * n + i] = data[s + 6]!;
      out[7 * n + i] = data[s + 7]!;
    }
  } else {
    for (let b = 0; b < size; b++) {
      const base = b * n;
      for (let i = 0, s = b; i < n; i++, s += size) out[base + i] = data[s]!;
    }
  }
  if (body < data.length) out.set(data.subarray(body), body);
  return out;
}

/** Spec IV.A.2.l, filter 2: undoes {@link shuffle} (H5Z_filter_shuffle, reverse). */
export function unshuffle(data: Uint8Array, size: number): Uint8Array {
  const n = Math.floor(data.length / size);
  if (size <= 1 || n <= 1) return data;
  const out = new Uint8Array(data.length);
  unshuffleInto(data, size, out);
  return out;
}

/**
 * {@link unshuffle} into `out` (e.g. the chunk's place in a read's result, ../workers), which must
 * have `data.length` bytes.
 * @throws FilterError when `out` has another length.
 */
export function unshuffleInto(data: Uint8Array, size: number, out: Uint8Array): void {
  if (out.length !== data.length) throw new FilterError(`${data.length} shuffled bytes cannot fill ${out.length}`, { filterId: ID, filterName: NAME });
  const n = Math.floor(data.length / size);
  if (size <= 1 || n <= 1) {
    out.set(data);
    return;
  }
  const body = n * size;
  const at = out.byteOffset;
  if (size === 2 && LITTLE_ENDIAN_HOST && data.byteOffset % 4 === 0 && at % 4 === 0 && n % 4 === 0) {
    unshuffle2x4(new Uint32Array(data.buffer, data.byteOffset, n >>> 1), new Uint32Array(out.buffer, at, n >>> 1), n >>> 2);
  } else if (size === 2 && LITTLE_ENDIAN_HOST && at % 2 === 0) {
    const dst = new Uint16Array(out.buffer, at, n);
    for (let i = 0; i < n; i++) dst[i] = data[i]! | (data[n + i]! << 8);
  } else if (size === 2) {
    for (let i = 0, d = 0; i < n; i++, d += 2) {
      out[d] = data[i]!;
      out[d + 1] = data[n + i]!;
    }
  } else if (size === 4 && LITTLE_ENDIAN_HOST && at % 4 === 0) {
    const dst = new Uint32Array(out.buffer, at, n);
    const n2 = 2 * n;
    const n3 = 3 * n;
    for (let i = 0; i < n; i++) dst[i] = data[i]! | (data[n + i]! << 8) | (data[n2 + i]! << 16) | (data[n3 + i]! << 24);
  } else if (size === 4) {
    const n2 = 2 * n;
    const n3 = 3 * n;
    for (let i = 0, d = 0; i < n; i++, d += 4) {
      out[d] = data[i]!;
      out[d + 1] = data[n + i]!;
      out[d + 2] = data[n2 + i]!;
      out[d + 3] = data[n3 + i]!;
    }
  } else if (size === 8) {
    for (let i = 0, d = 0; i < n; i++, d += 8) {
      out[d] = data[i]!;
      out[d + 1] = data[n + i]!;
      out[d + 2] = data[2 * n + i]!;
      out[d + 3] = data[3 * n + i]!;
      out[d + 4] = data[4 * n + i]!;
      out[d + 5] = data[5 * n + i]!;
      out[d + 6] = data[6 * n + i]!;
      out[d + 7] = data[7 * n + i]!;
    }
  } else {
    for (let b = 0; b < size; b++) {
      const base = b * n;
      for (let i = 0, d = b; i < n; i++, d += size) out[d] = data[base + i]!;
    }
  }
  if (body < data.length) out.set(data.subarray(body), body);
}

/** The element size of the shuffle filter's client data (checked). */
export function shuffleElementSize(ctx: FilterContext): number {
  const cd = ctx.clientData;
  // HDF5 requires exactly one value, non-zero (H5Z_SHUFFLE_TOTAL_NPARMS).
  if (cd.length !== 1 || !(cd[0]! > 0)) {
    throw new FilterError(`invalid shuffle parameters [${cd.join(', ')}] (expected [element size])`, { filterId: ID, filterName: NAME });
  }
  return cd[0]!;
}

/** The shuffle filter (id 2). */
export const shuffleFilter: Filter = {
  id: ID,
  name: NAME,
  encode: (data, ctx) => shuffle(data, shuffleElementSize(ctx)),
  decode: (data, ctx) => unshuffle(data, shuffleElementSize(ctx)),
  decodeInto: (data, ctx, out) => unshuffleInto(data, shuffleElementSize(ctx), out),
  setLocal(_clientData, ctx) {
    if (!(ctx.elementSize > 0)) throw new FilterError('bad datatype size 0', { filterId: ID, filterName: NAME });
    return [ctx.elementSize];
  },
};
