/**
 * Selections: which elements of a dataspace an I/O operation touches (HDF5's `H5S` selections:
 * all, none, point lists, hyperslabs and unions of blocks). This module holds the types, the
 * constructors, validation against a dataspace and the shape of the buffer a read returns.
 *
 * Representation (no per-element objects):
 * - `hyperslab`: ONE regular hyperslab (start/stride/count/block per dimension), kept compact;
 * - `blocks`: a union of boxes kept as a *canonical* flat `Float64Array` of disjoint boxes
 *   (see {@link BlockSelection}); union/intersection/subtraction produce this form;
 * - `points`: a flat `Float64Array` of coordinates, in the user's order (duplicates allowed).
 *
 * Element order: `all`, `hyperslab` and `blocks` iterate their elements in C order of the
 * coordinates (HDF5's order); `points` iterate in the order given.
 * @module
 */
import { SelectionError } from '../errors.js';
import { normalizeBoxes } from './boxes.js';
import { checkHyperslabParams, hyperslabExtent } from './hyperslab.js';
import { checkPointCoords } from './points.js';

/** Every element of the dataspace (HDF5 `H5S_SEL_ALL`). */
export interface AllSelection {
  readonly kind: 'all';
}

/** No element (HDF5 `H5S_SEL_NONE`). */
export interface NoneSelection {
  readonly kind: 'none';
}

/** A list of single elements, in the user's order (HDF5 `H5S_SEL_POINTS`). */
export interface PointSelection {
  readonly kind: 'points';
  /** Rank of the dataspace the points address. */
  readonly rank: number;
  /** Number of points. */
  readonly pointCount: number;
  /** Coordinates, point-major: point `i` is `coords[i*rank .. i*rank+rank)`. */
  readonly coords: Float64Array;
}

/** One regular hyperslab (HDF5 `H5Sselect_hyperslab` with `H5S_SELECT_SET`). */
export interface HyperslabSelection {
  readonly kind: 'hyperslab';
  readonly rank: number;
  /** First element of the first block, per dimension. */
  readonly start: readonly number[];
  /** Distance between block starts (≥ 1; ≥ block when count > 1). */
  readonly stride: readonly number[];
  /** Number of blocks (≥ 0). */
  readonly count: readonly number[];
  /** Block size (≥ 0; a zero count or block selects nothing). */
  readonly block: readonly number[];
}

/**
 * A union of boxes in canonical form: disjoint, non-empty boxes, box `i` stored as
 * `boxes[i*2*rank ..]` = `[start0, end0, start1, end1, ...]` (end exclusive). Canonical means:
 * along dimension 0 the selection is cut into maximal intervals over which its cross-section is
 * constant; each interval is followed by the canonical boxes of that cross-section (recursively).
 * Boxes therefore come sorted in C order, boxes sharing an interval of dimension `d` are adjacent,
 * and two equal sets have identical arrays.
 */
export interface BlockSelection {
  readonly kind: 'blocks';
  readonly rank: number;
  /** Number of boxes (≥ 1: an empty union is a {@link NoneSelection}). */
  readonly boxCount: number;
  /** Canonical boxes (see above). */
  readonly boxes: Float64Array;
}

/** A selection in a dataspace. */
export type Selection = AllSelection | NoneSelection | PointSelection | HyperslabSelection | BlockSelection;

/** The arguments of {@link selectHyperslab} (HDF5 semantics). */
export interface HyperslabSpec {
  start: readonly number[];
  /** Default 1 per dimension. */
  stride?: readonly number[];
  /** Default 1 per dimension. */
  count?: readonly number[];
  /** Default 1 per dimension. */
  block?: readonly number[];
}

/** A box `[start, end)` per dimension (end exclusive). */
export interface Box {
  start: readonly number[];
  end: readonly number[];
}

const ALL: AllSelection = Object.freeze({ kind: 'all' });
const NONE: NoneSelection = Object.freeze({ kind: 'none' });

/** Selects every element. */
export function selectAll(): AllSelection {
  return ALL;
}

/** Selects nothing. */
export function selectNone(): NoneSelection {
  return NONE;
}

/**
 * Selects single elements, kept in the given order (duplicates allowed, as in HDF5).
 * @param coords one coordinate array per point, or a flat point-major `Float64Array` (then `rank` is required)
 * @param rank the dataspace rank (defaults to the length of the first point)
 * @returns a point selection, or `none` for an empty list without a rank
 */
export function selectPoints(coords: readonly (readonly number[])[] | Float64Array, rank?: number): PointSelection | NoneSelection {
  if (rank !== undefined && (!Number.isSafeInteger(rank) || rank < 1)) {
    throw new SelectionError(`point selection: rank must be a positive integer, got ${rank}`);
  }
  let flat: Float64Array;
  let r: number;
  if (coords instanceof Float64Array) {
    if (rank === undefined) throw new SelectionError('point selection: a flat coordinate array needs a rank');
    if (coords.length % rank !== 0) {
      throw new SelectionError(`point selection: ${coords.length} coordinates is not a multiple of rank ${rank}`);
    }
    r = rank;
    flat = coords.slice();
  } else {
    if (coords.length === 0 && rank === undefined) return NONE;
    r = rank ?? coords[0]!.length;
    if (r < 1) throw new SelectionError('point selection: points need at least one coordinate');
    flat = new Float64Array(coords.length * r);
    for (let i = 0; i < coords.length; i++) {
      const p = coords[i]!;
      if (!Array.isArray(p) || p.length !== r) {
        throw new SelectionError(`point selection: point ${i} has ${Array.isArray(p) ? p.length : 'no'} coordinates, expected ${r}`);
      }
      for (let d = 0; d < r; d++) flat[i * r + d] = p[d]!;
    }
  }
  checkPointCoords(flat, r);
  return { kind: 'points', rank: r, pointCount: flat.length / r, coords: flat };
}

/**
 * Selects one regular hyperslab: `count[d]` blocks of `block[d]` elements, `stride[d]` apart,
 * from `start[d]` (HDF5 semantics; stride ≥ block is required when count > 1).
 */
export function selectHyperslab(spec: HyperslabSpec): HyperslabSelection {
  const rank = spec.start.length;
  const ones = (): number[] => new Array<number>(rank).fill(1);
  const h: HyperslabSelection = {
    kind: 'hyperslab',
    rank,
    start: [...spec.start],
    stride: spec.stride ? [...spec.stride] : ones(),
    count: spec.count ? [...spec.count] : ones(),
    block: spec.block ? [...spec.block] : ones(),
  };
  checkHyperslabParams(h);
  return h;
}

/**
 * Selects the union of boxes (end exclusive; overlaps and empty boxes allowed). The result is
 * canonical (see {@link BlockSelection}); `none` when every box is empty.
 */
export function selectBlocks(boxes: readonly Box[]): BlockSelection | NoneSelection | AllSelection {
  if (boxes.length === 0) return NONE;
  const rank = boxes[0]!.start.length;
  const flat = new Float64Array(boxes.length * 2 * rank);
  let nonEmpty = 0;
  for (let i = 0; i < boxes.length; i++) {
    const b = boxes[i]!;
    if (b.start.length !== rank || b.end.length !== rank) {
      throw new SelectionError(`block selection: box ${i} has rank ${b.start.length}/${b.end.length}, expected ${rank}`);
    }
    let empty = false;
    for (let d = 0; d < rank; d++) {
      const s = b.start[d]!;
      const e = b.end[d]!;
      if (!Number.isSafeInteger(s) || !Number.isSafeInteger(e) || s < 0) {
        throw new SelectionError(`block selection: box ${i} has an invalid range [${s}, ${e}) in dimension ${d}`);
      }
      if (e <= s) empty = true;
      flat[i * 2 * rank + 2 * d] = s;
      flat[i * 2 * rank + 2 * d + 1] = e;
    }
    if (!empty) nonEmpty++;
  }
  if (nonEmpty === 0) return NONE;
  if (rank === 0) return ALL; // the single element of a scalar dataspace
  return blocksFromCanonical(normalizeBoxes(flat, rank), rank);
}

/** Wraps a canonical box array (internal: no check). `none` when empty. */
export function blocksFromCanonical(boxes: Float64Array, rank: number): BlockSelection | NoneSelection {
  if (boxes.length === 0) return NONE;
  return { kind: 'blocks', rank, boxCount: boxes.length / (2 * rank), boxes };
}

/** Checks that `dims` is a list of non-negative safe integers. */
export function checkDims(dims: readonly number[], what = 'dataspace'): void {
  for (let d = 0; d < dims.length; d++) {
    const n = dims[d]!;
    if (!Number.isSafeInteger(n) || n < 0) throw new SelectionError(`${what} dimension ${d} has invalid size ${n}`);
  }
}

/**
 * Point and block selections already checked, with the dataspace shape they were checked in: a
 * write validates its selection several times (count, chunk mapping), each a pass over every
 * coordinate. Selections are values: their coordinate arrays are not to be changed after use.
 */
const validatedIn = new WeakMap<PointSelection | BlockSelection, readonly number[]>();

/** Fewer coordinates than this are checked again rather than looked up. */
const MEMO_MIN = 64;

/** True when a selection valid in `was` is valid in `dims` (same rank, no dimension smaller). */
function fitsWithin(was: readonly number[], dims: readonly number[]): boolean {
  if (was.length !== dims.length) return false;
  for (let d = 0; d < dims.length; d++) if (dims[d]! < was[d]!) return false;
  return true;
}

/**
 * Throws a {@link SelectionError} naming the problem when `sel` does not fit a dataspace of
 * shape `dims` (rank mismatch, element out of range, malformed hyperslab parameters).
 */
export function validateSelection(sel: Selection, dims: readonly number[]): void {
  if (sel.kind === 'points' || sel.kind === 'blocks') {
    const was = validatedIn.get(sel);
    if (was && fitsWithin(was, dims)) {
      checkDims(dims);
      return;
    }
    checkSelection(sel, dims);
    if ((sel.kind === 'points' ? sel.coords : sel.boxes).length >= MEMO_MIN) validatedIn.set(sel, dims.slice());
    return;
  }
  checkSelection(sel, dims);
}

/**
 * Records that `sel` is valid in a dataspace of shape `dims` without checking it — for selections
 * a caller built inside that dataspace itself (e.g. a sparse chunk's defined elements from its
 * runs), so later validations of them cost nothing.
 */
export function trustSelection(sel: Selection, dims: readonly number[]): void {
  if (sel.kind === 'points' || sel.kind === 'blocks') validatedIn.set(sel, dims.slice());
}

function checkSelection(sel: Selection, dims: readonly number[]): void {
  checkDims(dims);
  if (sel.kind === 'all' || sel.kind === 'none') return;
  const r = dims.length;
  if (sel.rank !== r) {
    throw new SelectionError(`${sel.kind} selection has rank ${sel.rank} but the dataspace [${dims.join(', ')}] has rank ${r}`);
  }
  if (sel.kind === 'hyperslab') {
    checkHyperslabParams(sel);
    const ext = hyperslabExtent(sel);
    if (ext === null) return;
    for (let d = 0; d < r; d++) {
      if (ext.start[d]! < 0 || ext.end[d]! > dims[d]!) {
        throw new SelectionError(
          `hyperslab covers [${ext.start[d]}, ${ext.end[d]}) in dimension ${d}, outside the dataspace size ${dims[d]}`,
        );
      }
    }
  } else if (sel.kind === 'blocks') {
    const b = sel.boxes;
    const w = 2 * r;
    for (let i = 0; i < sel.boxCount; i++) {
      for (let d = 0; d < r; d++) {
        const s = b[i * w + 2 * d]!;
        const e = b[i * w + 2 * d + 1]!;
        if (s < 0 || e > dims[d]!) {
          throw new SelectionError(`block ${i} covers [${s}, ${e}) in dimension ${d}, outside the dataspace size ${dims[d]}`);
        }
      }
    }
  } else {
    const c = sel.coords;
    for (let i = 0; i < sel.pointCount; i++) {
      for (let d = 0; d < r; d++) {
        const x = c[i * r + d]!;
        if (!(x >= 0 && x < dims[d]!)) {
          const p = Array.from(c.subarray(i * r, i * r + r));
          throw new SelectionError(`point ${i} [${p.join(', ')}] is outside the dataspace [${dims.join(', ')}]`);
        }
      }
    }
  }
}

/**
 * The shape of the buffer a read of `sel` returns: `dims` for `all`; `count[d]*block[d]` per
 * dimension for one regular hyperslab (or a union that is a single box); `[n]` otherwise (like
 * h5py flattening point and irregular selections).
 */
export function selectionShape(sel: Selection, dims: readonly number[]): number[] {
  switch (sel.kind) {
    case 'all':
      return [...dims];
    case 'none':
      return [0];
    case 'hyperslab':
      return sel.count.map((c, d) => c * sel.block[d]!);
    case 'points':
      return [sel.pointCount];
    case 'blocks': {
      const r = sel.rank;
      const b = sel.boxes;
      if (sel.boxCount === 1) return Array.from({ length: r }, (_, d) => b[2 * d + 1]! - b[2 * d]!);
      let n = 0;
      for (let i = 0; i < sel.boxCount; i++) {
        let v = 1;
        for (let d = 0; d < r; d++) v *= b[i * 2 * r + 2 * d + 1]! - b[i * 2 * r + 2 * d]!;
        n += v;
      }
      return [n];
    }
  }
}
