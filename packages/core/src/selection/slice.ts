/**
 * A numpy/h5py-like slice helper: `slice(dims, 2, [null, null, 3], '...')` ≈ h5py's
 * `dset[2, ::3, ...]`. It returns the hyperslab selection (same rank as the dataspace) and the
 * shape h5py would give the result (integer indices drop their dimension).
 * @module
 */
import { SelectionError } from '../errors.js';
import { checkDims, selectAll, selectHyperslab, type Selection } from './selection.js';

/**
 * One entry of a slice:
 * - a number: a single index (negative counts from the end); the dimension is dropped from the shape;
 * - `[start, stop, step?]` with `null`/`undefined` for defaults (Python slice semantics, step ≥ 1);
 * - `null` or `':'`: the whole dimension;
 * - `'...'`: as many whole dimensions as needed (at most one).
 */
export type SliceSpec =
  | number
  | null
  | ':'
  | '...'
  | readonly [start?: number | null, stop?: number | null, step?: number | null];

/** What {@link slice} returns. */
export interface SliceResult {
  /** The selection, with the dataspace's rank. */
  selection: Selection;
  /** Shape of the result as h5py returns it (dimensions indexed by an integer removed). */
  shape: number[];
}

function isInt(x: unknown): x is number {
  return typeof x === 'number' && Number.isSafeInteger(x);
}

/**
 * Builds a selection from numpy-style indices over a dataspace of shape `dims`. Missing trailing
 * entries select whole dimensions. Errors (index out of range, step < 1, too many indices, two
 * ellipses, malformed entries) throw a {@link SelectionError}.
 */
export function slice(dims: readonly number[], ...spec: SliceSpec[]): SliceResult {
  checkDims(dims);
  const r = dims.length;
  const ellipses = spec.filter((s) => s === '...').length;
  if (ellipses > 1) throw new SelectionError('slice: at most one ellipsis (...) is allowed');
  const explicit = spec.length - ellipses;
  if (explicit > r) throw new SelectionError(`slice: ${explicit} indices for a dataspace of rank ${r}`);
  const expanded: Exclude<SliceSpec, '...'>[] = [];
  for (const s of spec) {
    if (s === '...') for (let k = 0; k < r - explicit; k++) expanded.push(null);
    else expanded.push(s);
  }
  while (expanded.length < r) expanded.push(null);

  const start: number[] = [];
  const stride: number[] = [];
  const count: number[] = [];
  const block: number[] = [];
  const shape: number[] = [];
  let whole = true;
  for (let d = 0; d < r; d++) {
    const n = dims[d]!;
    const s = expanded[d];
    if (s === null || s === ':') {
      start.push(0);
      stride.push(1);
      count.push(n > 0 ? 1 : 0);
      block.push(n > 0 ? n : 1);
      shape.push(n);
      continue;
    }
    whole = false;
    if (typeof s === 'number') {
      if (!isInt(s)) throw new SelectionError(`slice: index ${s} in dimension ${d} is not an integer`);
      const i = s < 0 ? s + n : s;
      if (i < 0 || i >= n) throw new SelectionError(`slice: index ${s} is out of range for dimension ${d} of size ${n}`);
      start.push(i);
      stride.push(1);
      count.push(1);
      block.push(1);
      continue;
    }
    if (!Array.isArray(s) || s.length > 3) throw new SelectionError(`slice: entry ${d} is not an index, a slice or ':'`);
    const [a, b, c] = s as readonly (number | null | undefined)[];
    for (const v of [a, b, c]) {
      if (v !== null && v !== undefined && !isInt(v)) throw new SelectionError(`slice: ${v} in dimension ${d} is not an integer`);
    }
    const step = c ?? 1;
    if (step < 1) throw new SelectionError(`slice: step must be ≥ 1 (got ${step}) in dimension ${d}`);
    const clamp = (v: number): number => Math.min(Math.max(v < 0 ? v + n : v, 0), n);
    const lo = a === null || a === undefined ? 0 : clamp(a);
    const hi = b === null || b === undefined ? n : clamp(b);
    const len = hi > lo ? Math.ceil((hi - lo) / step) : 0;
    shape.push(len);
    start.push(len > 0 ? lo : 0);
    if (step === 1) {
      stride.push(1);
      count.push(len > 0 ? 1 : 0);
      block.push(len > 0 ? len : 1);
    } else {
      stride.push(step);
      count.push(len);
      block.push(1);
    }
  }
  if (whole) return { selection: selectAll(), shape };
  return { selection: selectHyperslab({ start, stride, count, block }), shape };
}
