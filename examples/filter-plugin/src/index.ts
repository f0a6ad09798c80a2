/**
 * `@chunkform/example-filter-plugin`: a third-party HDF5 filter for chunkform, as a separate package.
 *
 * The filter is an integer delta filter: each element is replaced by its difference to the previous one
 * (wrapping, little-endian unsigned arithmetic on 1-, 2-, 4- or 8-byte elements), which turns slowly
 * varying counters and timestamps into small numbers that a later compressor (deflate, zstd, ...) packs
 * well. It is exactly reversible for any bytes. Its id, 300, lies in HDF5's 256–511 range "for testing";
 * a published filter registers its own id with The HDF Group.
 *
 * The package registers nothing when imported; an application makes the one call
 * `registerFilter(deltaFilter)` (or {@link registerDeltaFilter}).
 * @module
 */
import { FilterError, registerFilter, type Container, type Filter, type FilterContext } from '@chunkform/core';

/** The filter id (HDF5 reserves 256–511 for testing). */
export const DELTA_FILTER_ID = 300;
/** The name stored in the filter pipeline message. */
export const DELTA_FILTER_NAME = 'chunkform example delta';

const SIZES = new Set([1, 2, 4, 8]);
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/**
 * The element size stored in cd_values[0] (set at dataset creation by {@link DeltaFilter.setLocal}).
 * @throws FilterError cd_values missing or not 1, 2, 4 or 8.
 */
export function deltaElementSize(clientData: readonly number[]): number {
  const n = clientData[0];
  if (n === undefined || !SIZES.has(n)) {
    throw new FilterError(`delta filter: cd_values[0] must be the element size 1, 2, 4 or 8, got ${String(n)}`, {
      filterId: DELTA_FILTER_ID,
      filterName: DELTA_FILTER_NAME,
    });
  }
  return n;
}

/**
 * Forward delta: returns a new buffer where element i holds x[i] − x[i−1] (mod 2^(8·size)); bytes past the
 * last whole element are copied unchanged.
 */
export function deltaEncode(data: Uint8Array, elementSize: number): Uint8Array {
  const out = data.slice(); // own, 8-aligned buffer at offset 0
  const n = Math.floor(out.length / elementSize);
  if (!LITTLE_ENDIAN) return deltaBytes(out, elementSize, n, true);
  switch (elementSize) {
    case 1: {
      for (let i = n - 1; i > 0; i--) out[i] = out[i]! - out[i - 1]!;
      return out;
    }
    case 2: {
      const a = new Uint16Array(out.buffer, 0, n);
      for (let i = n - 1; i > 0; i--) a[i] = a[i]! - a[i - 1]!;
      return out;
    }
    case 4: {
      const a = new Uint32Array(out.buffer, 0, n);
      for (let i = n - 1; i > 0; i--) a[i] = a[i]! - a[i - 1]!;
      return out;
    }
    default: {
      // 64-bit: two 32-bit halves with a borrow
      const a = new Uint32Array(out.buffer, 0, 2 * n);
      for (let i = n - 1; i > 0; i--) {
        const lo = a[2 * i]!;
        const plo = a[2 * i - 2]!;
        a[2 * i] = lo - plo;
        a[2 * i + 1] = a[2 * i + 1]! - a[2 * i - 1]! - (lo < plo ? 1 : 0);
      }
      return out;
    }
  }
}

/** Reverse delta (prefix sum), the inverse of {@link deltaEncode}. */
export function deltaDecode(data: Uint8Array, elementSize: number): Uint8Array {
  const out = data.slice();
  const n = Math.floor(out.length / elementSize);
  if (!LITTLE_ENDIAN) return deltaBytes(out, elementSize, n, false);
  switch (elementSize) {
    case 1: {
      for (let i = 1; i < n; i++) out[i] = out[i]! + out[i - 1]!;
      return out;
    }
    case 2: {
      const a = new Uint16Array(out.buffer, 0, n);
      for (let i = 1; i < n; i++) a[i] = a[i]! + a[i - 1]!;
      return out;
    }
    case 4: {
      const a = new Uint32Array(out.buffer, 0, n);
      for (let i = 1; i < n; i++) a[i] = a[i]! + a[i - 1]!;
      return out;
    }
    default: {
      const a = new Uint32Array(out.buffer, 0, 2 * n);
      for (let i = 1; i < n; i++) {
        const lo = (a[2 * i]! + a[2 * i - 2]!) >>> 0;
        a[2 * i + 1] = a[2 * i + 1]! + a[2 * i - 1]! + (lo < a[2 * i - 2]! ? 1 : 0);
        a[2 * i] = lo;
      }
      return out;
    }
  }
}

/** Byte-wise little-endian delta with carry, for big-endian hosts (same bytes as the typed-array path). */
function deltaBytes(out: Uint8Array, size: number, n: number, forward: boolean): Uint8Array {
  if (forward) {
    for (let i = n - 1; i > 0; i--) {
      let borrow = 0;
      for (let b = 0; b < size; b++) {
        const d = out[i * size + b]! - out[(i - 1) * size + b]! - borrow;
        out[i * size + b] = d & 0xff;
        borrow = d < 0 ? 1 : 0;
      }
    }
  } else {
    for (let i = 1; i < n; i++) {
      let carry = 0;
      for (let b = 0; b < size; b++) {
        const s = out[i * size + b]! + out[(i - 1) * size + b]! + carry;
        out[i * size + b] = s & 0xff;
        carry = s >> 8;
      }
    }
  }
  return out;
}

/** The delta filter: a chunkform {@link Filter}. */
export interface DeltaFilter extends Filter {
  setLocal(clientData: readonly number[], ctx: Omit<FilterContext, 'clientData' | 'flags'>): number[];
}

/** The delta filter object to register. cd_values: `[elementSize]` (filled in at dataset creation). */
export const deltaFilter: DeltaFilter = {
  id: DELTA_FILTER_ID,
  name: DELTA_FILTER_NAME,
  encode(data, ctx) {
    return deltaEncode(data, deltaElementSize(ctx.clientData));
  },
  decode(data, ctx) {
    return deltaDecode(data, deltaElementSize(ctx.clientData));
  },
  setLocal(clientData, ctx) {
    // H5Z "set local": record the element size so readers need nothing else; other sizes → bytes.
    if (clientData.length > 0) return [deltaElementSize(clientData)];
    return [SIZES.has(ctx.elementSize) ? ctx.elementSize : 1];
  },
};

/** The one registration call, in `container` (default: chunkform's own). */
export function registerDeltaFilter(container?: Container): void {
  registerFilter(deltaFilter, container);
}
