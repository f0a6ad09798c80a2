/**
 * The head of an `H5Sencode` buffer: the 7-byte header (object id, encode version, "size of
 * sizes", extent length) and the dataspace ("extent") message that follows it, versions 1 and 2.
 * The selection itself follows (see points.ts / hyperslab.ts).
 * @module
 */
import { FormatError, SelectionError } from '../../errors.js';
import { MAX_RANK } from '../../format/messages/dataspace.js';
import { ByteReader, ByteWriter } from '../../format/bytes.js';
import { writeUint } from './uint.js';

/** Unlimited maximum size of a dimension (as in the dataspace message model). */
export const UNLIMITED_DIM = -1;

/** The dataspace an encoded selection lives in. */
export interface SelectionExtent {
  /** `simple` (an N-d array), `scalar` (one element, rank 0) or `null` (no element, rank 0). */
  kind: 'simple' | 'scalar' | 'null';
  /** Number of dimensions. */
  rank: number;
  /** Current dimension sizes. */
  dims: number[];
  /** Maximum sizes ({@link UNLIMITED_DIM} = unlimited), or null when the buffer stores none. */
  maxDims: number[] | null;
}

/** How the extent part of a buffer is written. */
export interface ExtentStyle {
  /** Dataspace message version (1: 8-byte prefix, 2: 4-byte prefix). */
  version: 1 | 2;
  /** Width of each size field ("size of sizes" of the header): 2, 4 or 8. */
  sizeOfSize: 2 | 4 | 8;
  /** Whether maximum sizes are stored. */
  withMax: boolean;
}

/** H5S_encode's object id (the dataspace message id) and its encode version. */
const OBJECT_ID = 1;
const ENCODE_VERSION = 0;
/** Bytes of the buffer header before the extent message. */
export const HEADER_SIZE = 7;

/** Size in bytes of the extent message for `rank` dimensions written with `style`. */
export function extentSize(rank: number, style: ExtentStyle): number {
  return (style.version === 1 ? 8 : 4) + style.sizeOfSize * rank * (style.withMax && rank > 0 ? 2 : 1);
}

/**
 * Reads the buffer header and the extent message. Leaves the reader on the first byte of the
 * selection.
 */
// H5Sencode buffer header + dataspace message v1/v2 (docs/structured-chunk-format.md §7.1, §7.2; HDF5 spec IV.A.2.b).
export function decodeExtent(r: ByteReader): { extent: SelectionExtent; style: ExtentStyle } {
  r.need(HEADER_SIZE, 'header');
  const id = r.u8();
  if (id !== OBJECT_ID) throw r.error(`not an encoded dataspace (object id ${id}, expected ${OBJECT_ID})`);
  const encVersion = r.u8();
  if (encVersion !== ENCODE_VERSION) throw r.error(`unknown encode version ${encVersion}`);
  const sizeOfSize = r.u8();
  if (sizeOfSize !== 2 && sizeOfSize !== 4 && sizeOfSize !== 8) throw r.error(`unsupported size of sizes ${sizeOfSize}`);
  const extentLength = r.u32();
  r.need(extentLength, 'extent message');
  const start = r.pos;
  const version = r.u8();
  if (version !== 1 && version !== 2) throw r.error(`unknown dataspace message version ${version}`);
  const rank = r.u8();
  const flags = r.u8();
  if (rank > MAX_RANK) throw r.error(`rank ${rank} exceeds the maximum of ${MAX_RANK}`);
  if (flags & ~1) throw r.error(`unknown dataspace flags 0x${flags.toString(16)}`);
  let kind: SelectionExtent['kind'];
  if (version === 1) {
    r.skip(5);
    kind = rank > 0 ? 'simple' : 'scalar';
  } else {
    const type = r.u8();
    if (type > 2) throw r.error(`unknown dataspace type ${type}`);
    kind = type === 0 ? 'scalar' : type === 1 ? 'simple' : 'null';
    if (kind !== 'simple' && rank !== 0) throw r.error(`${kind} dataspace with rank ${rank}`);
  }
  const withMax = (flags & 1) !== 0 && rank > 0;
  r.need(sizeOfSize * rank * (withMax ? 2 : 1), 'dimension sizes');
  const dims: number[] = [];
  let count = 1;
  for (let d = 0; d < rank; d++) {
    // (Only the 8-byte all-ones value means "undefined"; uN rejects it as > 2^53. Narrower
    // all-ones values are ordinary sizes, as HDF5 reads them.)
    const n = r.uN(sizeOfSize);
    dims.push(n);
    count *= n;
  }
  if (!Number.isSafeInteger(count)) throw r.error(`element count of dims [${dims.join(', ')}] exceeds 2^53`);
  let maxDims: number[] | null = null;
  if (withMax) {
    maxDims = [];
    for (let d = 0; d < rank; d++) {
      let m: number;
      if (sizeOfSize === 8 && isAllOnes(r.bytes, r.pos, 8)) {
        r.skip(8);
        m = UNLIMITED_DIM;
      } else {
        m = r.uN(sizeOfSize);
        if (m < dims[d]!) throw r.error(`dimension ${d}: maximum size ${m} is smaller than the size ${dims[d]}`);
      }
      maxDims.push(m);
    }
  }
  if (r.pos - start !== extentLength) {
    throw r.error(`extent length field says ${extentLength} bytes but the dataspace message has ${r.pos - start}`);
  }
  return { extent: { kind, rank, dims, maxDims }, style: { version: version as 1 | 2, sizeOfSize, withMax } };
}

function isAllOnes(b: Uint8Array, at: number, n: number): boolean {
  for (let i = 0; i < n; i++) if (b[at + i] !== 0xff) return false;
  return true;
}

/** Checks caller-supplied dims / max dims and returns max dims with unlimited as {@link UNLIMITED_DIM}. */
export function checkExtentInput(
  dims: readonly number[],
  maxDims: readonly (number | null)[] | null | undefined,
): number[] | null {
  if (dims.length > MAX_RANK) throw new SelectionError(`rank ${dims.length} exceeds the maximum of ${MAX_RANK}`);
  let count = 1;
  for (let d = 0; d < dims.length; d++) {
    const n = dims[d]!;
    if (!Number.isSafeInteger(n) || n < 0) throw new SelectionError(`extent dimension ${d} has invalid size ${n}`);
    count *= n;
  }
  if (!Number.isSafeInteger(count)) throw new SelectionError(`extent [${dims.join(', ')}] has more than 2^53 elements`);
  if (maxDims === undefined || maxDims === null) return null;
  if (maxDims.length !== dims.length) {
    throw new SelectionError(`extent maxDims has ${maxDims.length} entries for rank ${dims.length}`);
  }
  return maxDims.map((m, d) => {
    if (m === null || m === UNLIMITED_DIM) return UNLIMITED_DIM;
    if (!Number.isSafeInteger(m) || m < dims[d]!) {
      throw new SelectionError(`extent dimension ${d}: maximum size ${m} is not an integer ≥ the size ${dims[d]}`);
    }
    return m;
  });
}

/**
 * The extent style of each encoding mode. `prototype`: what `H5Screate_simple` dataspaces give
 * (version 1, 8-byte sizes, max sizes always stored — equal to the sizes when none are given;
 * a scalar stores none). `smallest`: version 2, max sizes only when they differ from the sizes,
 * the narrowest size width that holds every value (8 when a dimension is unlimited).
 */
export function extentStyle(mode: 'smallest' | 'prototype', dims: readonly number[], maxDims: readonly number[] | null): ExtentStyle {
  if (mode === 'prototype') return { version: 1, sizeOfSize: 8, withMax: dims.length > 0 };
  const withMax = maxDims !== null && maxDims.some((m, d) => m !== dims[d]);
  let big = 0;
  let unlimited = false;
  for (const n of dims) if (n > big) big = n;
  if (withMax) {
    for (const m of maxDims!) {
      if (m === UNLIMITED_DIM) unlimited = true;
      else if (m > big) big = m;
    }
  }
  // Strictly below the all-ones value so no reader can mistake a size for "undefined".
  const sizeOfSize = unlimited || big >= 0xffffffff ? 8 : big >= 0xffff ? 4 : 2;
  return { version: 2, sizeOfSize, withMax };
}

/** Writes the buffer header and the extent message. */
// H5Sencode buffer header + dataspace message v1/v2 (docs/structured-chunk-format.md §7.1, §7.2; HDF5 spec IV.A.2.b).
export function encodeExtent(w: ByteWriter, dims: readonly number[], maxDims: readonly number[] | null, style: ExtentStyle): void {
  const rank = dims.length;
  const s = style.sizeOfSize;
  w.u8(OBJECT_ID).u8(ENCODE_VERSION).u8(s).u32(extentSize(rank, style));
  const withMax = style.withMax && rank > 0;
  w.u8(style.version).u8(rank).u8(withMax ? 1 : 0);
  if (style.version === 1) w.zeros(5);
  else w.u8(rank > 0 ? 1 : 0);
  for (const n of dims) writeUint(w, n, s);
  if (withMax) {
    for (let d = 0; d < rank; d++) {
      const m = maxDims ? maxDims[d]! : dims[d]!;
      if (m === UNLIMITED_DIM) {
        if (s !== 8) throw new FormatError('an unlimited dimension needs 8-byte sizes', { structure: 'encoded selection' });
        w.u32(0xffffffff).u32(0xffffffff);
      } else writeUint(w, m, s);
    }
  }
}
