/**
 * Point selections: coordinate checks, linear offsets and conversion to unit boxes.
 * @module
 */
import { SelectionError } from '../errors.js';

/** Throws a {@link SelectionError} unless every coordinate is a non-negative safe integer. */
export function checkPointCoords(coords: Float64Array, rank: number): void {
  for (let i = 0; i < coords.length; i++) {
    const x = coords[i]!;
    if (!Number.isSafeInteger(x) || x < 0) {
      throw new SelectionError(`point ${Math.floor(i / rank)} has invalid coordinate ${x} in dimension ${i % rank}`);
    }
  }
}

/** C-order linear offsets of the points in a dataspace of shape `dims` (coordinates must be in range). */
export function pointOffsets(coords: Float64Array, dims: readonly number[]): Float64Array {
  const r = dims.length;
  const n = r === 0 ? 0 : coords.length / r;
  const out = new Float64Array(n);
  if (r === 1) {
    out.set(coords);
    return out;
  }
  if (r === 2) {
    const w = dims[1]!;
    for (let i = 0; i < n; i++) out[i] = coords[2 * i]! * w + coords[2 * i + 1]!;
    return out;
  }
  for (let i = 0; i < n; i++) {
    let off = 0;
    for (let d = 0; d < r; d++) off = off * dims[d]! + coords[i * r + d]!;
    out[i] = off;
  }
  return out;
}

/** The points as unit boxes (`[x, x+1)` per dimension), in point order — not canonical. */
export function pointsToBoxes(coords: Float64Array, rank: number): Float64Array {
  const n = coords.length / rank;
  const out = new Float64Array(n * 2 * rank);
  for (let i = 0, j = 0; i < coords.length; i++, j += 2) {
    out[j] = coords[i]!;
    out[j + 1] = coords[i]! + 1;
  }
  return out;
}
