/**
 * Serialised point selections (`H5S_SEL_POINTS` = 1), versions 1 (4-byte coordinates with a
 * length field) and 2 (coordinates of an encoded width). Decoding checks counts against the
 * bytes present before allocating and every coordinate against the extent.
 * @module
 */
import type { ByteReader, ByteWriter } from '../../format/bytes.js';
import type { PointSelection } from '../selection.js';
import type { SelectionExtent } from './extent.js';
import { isWidth, readUint, readUints, writeUint, writeUints, type UintWidth } from './uint.js';

/** Selection type code of point selections. */
export const SEL_POINTS = 1;

/** Size in bytes of a point selection of `n` points of rank `rank` (version 1, or 2 with `width`). */
export function pointsSize(version: 1 | 2, rank: number, n: number, width: UintWidth = 4): number {
  return version === 1 ? 24 + 4 * rank * n : 13 + width + width * rank * n;
}

/** Throws unless the selection's rank matches a simple extent. */
export function checkRank(r: ByteReader, what: string, rank: number, extent: SelectionExtent): void {
  if (extent.kind !== 'simple') throw r.error(`${what} in a ${extent.kind} dataspace`);
  if (rank !== extent.rank) throw r.error(`${what} has rank ${rank} but the extent has rank ${extent.rank}`);
}

/**
 * Decodes a point selection; the reader stands after the selection type field.
 */
// Point selection v1/v2 (docs/structured-chunk-format.md §7.3; HDF5 H5Spoint.c H5S__point_deserialize; spec: selection encoding of region references).
export function decodePoints(r: ByteReader, extent: SelectionExtent): PointSelection {
  const version = r.u32();
  let width: UintWidth;
  let length = -1;
  if (version === 1) {
    r.skip(4); // reserved
    length = r.u32();
    width = 4;
  } else if (version === 2) {
    const w = r.u8();
    if (!isWidth(w)) throw r.error(`point selection: unsupported coordinate width ${w}`);
    width = w;
  } else {
    throw r.error(`point selection: unknown version ${version}`);
  }
  const rank = r.u32();
  checkRank(r, 'point selection', rank, extent);
  const n = readUint(r, width, 'point count');
  if (n === 0) throw r.error('point selection with no points');
  if (length >= 0 && length !== 8 + 4 * rank * n) {
    throw r.error(`point selection: length field ${length} does not match ${n} points of rank ${rank} (${8 + 4 * rank * n})`);
  }
  if (n * rank * width > r.remaining) {
    throw r.error(`point selection: ${n} points of rank ${rank} need ${n * rank * width} bytes but only ${r.remaining} remain`);
  }
  const at = r.pos;
  const coords = readUints(r, n * rank, width, 'point coordinates');
  const dims = extent.dims;
  for (let i = 0; i < coords.length; i++) {
    const d = i % rank;
    if (coords[i]! >= dims[d]!) {
      const p = Math.floor(i / rank);
      const c = Array.from(coords.subarray(p * rank, p * rank + rank));
      throw r.error(`point ${p} [${c.join(', ')}] (at offset ${at + p * rank * width}) is outside the extent [${dims.join(', ')}]`);
    }
  }
  return { kind: 'points', rank, pointCount: n, coords };
}

/** Writes a point selection (type field included), version 1 or 2 with `width`. */
// Point selection v1/v2 (docs/structured-chunk-format.md §7.3; HDF5 H5Spoint.c H5S__point_serialize).
export function encodePoints(w: ByteWriter, coords: Float64Array, rank: number, version: 1 | 2, width: UintWidth): void {
  const n = coords.length / rank;
  w.u32(SEL_POINTS).u32(version);
  if (version === 1) {
    w.u32(0).u32(8 + 4 * rank * n).u32(rank).u32(n);
    writeUints(w, coords, 4);
  } else {
    w.u8(width).u32(rank);
    writeUint(w, n, width);
    writeUints(w, coords, width);
  }
}
