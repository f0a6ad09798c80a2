/**
 * Selection algebra: union, intersection, difference, translation, counting, bounding boxes and
 * set equality. Operands are hyperslab-like selections (`all`, `none`, `hyperslab`, `blocks`);
 * a point selection is accepted as the *set* of its points (order and duplicates are dropped).
 * Results are `all`, `none`, `hyperslab` (when an operand is returned unchanged) or canonical
 * `blocks`. `all` has no extent of its own: operations that must materialise it need `dims`.
 * @module
 */
import { SelectionError } from '../errors.js';
import { boxesBounds, boxesCount, boxesOp, normalizeBoxes, type BoxOp } from './boxes.js';
import { hyperslabExtent, hyperslabIsEmpty, productIntervals, productToBoxes } from './hyperslab.js';
import { pointsToBoxes } from './points.js';
import {
  blocksFromCanonical,
  selectAll,
  selectNone,
  type BlockSelection,
  type HyperslabSelection,
  type NoneSelection,
  type Selection,
} from './selection.js';

/** Re-exported for callers that import checks from the algebra module; defined in selection.ts. */
export { validateSelection } from './selection.js';

function rankOf(sel: Selection): number | null {
  return sel.kind === 'all' || sel.kind === 'none' ? null : sel.rank;
}

function isEmpty(sel: Selection): boolean {
  return sel.kind === 'none' || (sel.kind === 'hyperslab' && hyperslabIsEmpty(sel)) || (sel.kind === 'points' && sel.pointCount === 0);
}

function commonRank(a: Selection, b: Selection, what: string, dims?: readonly number[]): number | null {
  const ra = rankOf(a);
  const rb = rankOf(b);
  if (ra !== null && rb !== null && ra !== rb) throw new SelectionError(`${what}: selections of rank ${ra} and ${rb}`);
  const r = ra ?? rb;
  if (dims && r !== null && dims.length !== r) {
    throw new SelectionError(`${what}: selections of rank ${r} in a dataspace of rank ${dims.length}`);
  }
  return r;
}

/**
 * The canonical boxes of a selection (rank ≥ 1). `all` needs `dims`.
 * @internal shared with the chunk mapping and sparse storage
 */
export function selectionBoxes(sel: Selection, dims: readonly number[] | undefined, what: string): Float64Array {
  switch (sel.kind) {
    case 'none':
      return new Float64Array(0);
    case 'blocks':
      return sel.boxes;
    case 'points':
      return normalizeBoxes(pointsToBoxes(sel.coords, sel.rank), sel.rank);
    case 'hyperslab':
      return productToBoxes(productIntervals(sel, [])!);
    case 'all':
      if (!dims) throw new SelectionError(`${what}: an 'all' selection needs the dataspace dims`);
      return productToBoxes(productIntervals(sel, dims)!);
  }
}

/** Converts a selection to canonical blocks (`none` when empty; `all` needs `dims`). */
export function toBlocks(sel: Selection, dims?: readonly number[]): BlockSelection | NoneSelection {
  if (isEmpty(sel)) return selectNone();
  const rank = rankOf(sel) ?? dims?.length;
  if (rank === undefined) throw new SelectionError("toBlocks: an 'all' selection needs the dataspace dims");
  if (rank === 0) throw new SelectionError('toBlocks: a scalar dataspace has no blocks');
  return blocksFromCanonical(selectionBoxes(sel, dims, 'toBlocks'), rank);
}

function scalarResult(op: BoxOp, a: Selection, b: Selection): Selection {
  const inA = !isEmpty(a);
  const inB = !isEmpty(b);
  const r = op === 'union' ? inA || inB : op === 'intersect' ? inA && inB : inA && !inB;
  return r ? selectAll() : selectNone();
}

function binary(op: BoxOp, a: Selection, b: Selection, dims: readonly number[] | undefined): Selection {
  const rank = commonRank(a, b, op, dims);
  const r = rank ?? dims?.length;
  if (r === 0) return scalarResult(op, a, b);
  if (r === undefined) throw new SelectionError(`${op}: cannot combine 'all'/'none' selections without the dataspace dims`);
  return blocksFromCanonical(boxesOp(selectionBoxes(a, dims, op), selectionBoxes(b, dims, op), r, op), r);
}

/** Elements in `a` or `b`. `dims` is needed only to materialise `all`. */
export function union(a: Selection, b: Selection, dims?: readonly number[]): Selection {
  commonRank(a, b, 'union', dims);
  if (a.kind === 'all' || b.kind === 'all') return selectAll();
  if (isEmpty(a) && b.kind !== 'points') return isEmpty(b) ? selectNone() : b;
  if (isEmpty(b) && a.kind !== 'points') return a;
  return binary('union', a, b, dims);
}

/** Intersection of two products: per-dimension interval intersections. */
function intersectLists(a: Float64Array, b: Float64Array): Float64Array {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const s = Math.max(a[i]!, b[j]!);
    const e = Math.min(a[i + 1]!, b[j + 1]!);
    if (s < e) out.push(s, e);
    if (a[i + 1]! < b[j + 1]!) i += 2;
    else j += 2;
  }
  return Float64Array.from(out);
}

/** True when the product `lists` is one box (one interval per dimension) containing every box of `boxes`. */
function boxContains(lists: readonly Float64Array[], boxes: Float64Array, rank: number): boolean {
  for (let d = 0; d < rank; d++) if (lists[d]!.length !== 2) return false;
  const w = 2 * rank;
  for (let d = 0; d < rank; d++) {
    const lo = lists[d]![0]!;
    const hi = lists[d]![1]!;
    for (let i = 2 * d; i < boxes.length; i += w) if (boxes[i]! < lo || boxes[i + 1]! > hi) return false;
  }
  return true;
}

/** Elements in both `a` and `b`. `dims` is needed only to materialise `all`. */
export function intersect(a: Selection, b: Selection, dims?: readonly number[]): Selection {
  const rank = commonRank(a, b, 'intersect', dims);
  if (isEmpty(a) || isEmpty(b)) return selectNone();
  if (a.kind === 'all' && b.kind !== 'points') return b;
  if (b.kind === 'all' && a.kind !== 'points') return a;
  if (rank !== null && rank > 0) {
    // product ∩ product stays a product: no expansion of either operand
    const pa = a.kind === 'all' ? null : productIntervals(a, []);
    const pb = b.kind === 'all' ? null : productIntervals(b, []);
    if (pa && pb) return blocksFromCanonical(productToBoxes(pa.map((l, d) => intersectLists(l, pb[d]!))), rank);
    // blocks inside one box (e.g. a chunk's defined elements ∩ the whole chunk): the blocks
    if (a.kind === 'blocks' && pb && boxContains(pb, a.boxes, rank)) return a;
    if (b.kind === 'blocks' && pa && boxContains(pa, b.boxes, rank)) return b;
  }
  return binary('intersect', a, b, dims);
}

/** Elements in `a` but not in `b`. `dims` is needed when `a` is `all`. */
export function subtract(a: Selection, b: Selection, dims?: readonly number[]): Selection {
  commonRank(a, b, 'subtract', dims);
  if (isEmpty(a) || b.kind === 'all') return selectNone();
  if (isEmpty(b) && a.kind !== 'points') return a;
  return binary('subtract', a, b, dims);
}

/**
 * The selection translated by `delta` (one entry per dimension; may be negative — the result is
 * checked against a dataspace only by {@link validateSelection}). `all` can only move by zero.
 */
export function offsetSelection(sel: Selection, delta: readonly number[]): Selection {
  for (const x of delta) if (!Number.isSafeInteger(x)) throw new SelectionError(`offset ${x} is not an integer`);
  if (sel.kind === 'none') return sel;
  if (sel.kind === 'all') {
    if (delta.some((x) => x !== 0)) throw new SelectionError("an 'all' selection cannot be offset");
    return sel;
  }
  const r = sel.rank;
  if (delta.length !== r) throw new SelectionError(`offset has ${delta.length} entries for a selection of rank ${r}`);
  switch (sel.kind) {
    case 'hyperslab': {
      const h: HyperslabSelection = { ...sel, start: sel.start.map((s, d) => s + delta[d]!) };
      return h;
    }
    case 'blocks': {
      const b = sel.boxes.slice();
      for (let i = 0; i < b.length; i++) b[i] = b[i]! + delta[(i >> 1) % r]!;
      return { ...sel, boxes: b };
    }
    case 'points': {
      const c = sel.coords.slice();
      for (let i = 0; i < c.length; i++) c[i] = c[i]! + delta[i % r]!;
      return { ...sel, coords: c };
    }
  }
}

/** Number of elements selected in a dataspace of shape `dims` (points count duplicates). */
export function selectionCount(sel: Selection, dims: readonly number[]): number {
  switch (sel.kind) {
    case 'none':
      return 0;
    case 'points':
      return sel.pointCount;
    case 'blocks':
      return boxesCount(sel.boxes, sel.rank);
    case 'all': {
      let n = 1;
      for (const d of dims) n *= d;
      return n;
    }
    case 'hyperslab': {
      // blocks never overlap (stride ≥ block when count > 1): count × block elements per dimension
      let n = 1;
      for (let d = 0; d < sel.rank; d++) n *= sel.count[d]! * sel.block[d]!;
      return n;
    }
  }
}

/** Smallest box `[start, end)` holding every selected element, or null when nothing is selected. */
export function boundingBox(sel: Selection, dims: readonly number[]): { start: number[]; end: number[] } | null {
  switch (sel.kind) {
    case 'none':
      return null;
    case 'all':
      return dims.some((n) => n === 0) ? null : { start: dims.map(() => 0), end: [...dims] };
    case 'hyperslab':
      return hyperslabExtent(sel);
    case 'blocks':
      return boxesBounds(sel.boxes, sel.rank);
    case 'points': {
      if (sel.pointCount === 0) return null;
      const r = sel.rank;
      const start = new Array<number>(r).fill(Infinity);
      const end = new Array<number>(r).fill(-Infinity);
      const c = sel.coords;
      for (let i = 0; i < c.length; i++) {
        const d = i % r;
        if (c[i]! < start[d]!) start[d] = c[i]!;
        if (c[i]! + 1 > end[d]!) end[d] = c[i]! + 1;
      }
      return { start, end };
    }
  }
}

/**
 * True when `a` and `b` select the same elements. Two point selections must also list the same
 * points in the same order (order defines the buffer layout). `dims` is needed to compare `all`
 * with another kind.
 */
export function selectionEquals(a: Selection, b: Selection, dims?: readonly number[]): boolean {
  if (a.kind === 'points' && b.kind === 'points') {
    if (a.rank !== b.rank || a.pointCount !== b.pointCount) return false;
    for (let i = 0; i < a.coords.length; i++) if (a.coords[i] !== b.coords[i]) return false;
    return true;
  }
  if (a.kind === 'all' && b.kind === 'all') return true;
  const ea = isEmpty(a);
  const eb = isEmpty(b);
  if (ea || eb) return ea === eb;
  const ra = rankOf(a);
  const rb = rankOf(b);
  if (ra !== null && rb !== null && ra !== rb) return false;
  const r = ra ?? rb ?? dims?.length;
  if (r === 0) return true;
  const ba = selectionBoxes(a, dims, 'selectionEquals');
  const bb = selectionBoxes(b, dims, 'selectionEquals');
  if (ba.length !== bb.length) return false;
  for (let i = 0; i < ba.length; i++) if (ba[i] !== bb[i]) return false;
  return true;
}
