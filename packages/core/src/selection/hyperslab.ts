/**
 * Regular hyperslabs: parameter checks and their per-dimension interval lists. A regular
 * hyperslab, `all` and a single box are *products* of one sorted interval list per dimension;
 * iteration, counting and chunk mapping work on that compact form and never expand it.
 * @module
 */
import { SelectionError } from '../errors.js';
import type { HyperslabSelection, Selection } from './selection.js';

/** Throws a {@link SelectionError} when hyperslab parameters are malformed (HDF5's rules). */
export function checkHyperslabParams(h: HyperslabSelection): void {
  const r = h.rank;
  const names = ['stride', 'count', 'block'] as const;
  for (const n of names) {
    if (h[n].length !== r) throw new SelectionError(`hyperslab ${n} has ${h[n].length} entries, start has ${r}`);
  }
  for (let d = 0; d < r; d++) {
    const start = h.start[d]!;
    const stride = h.stride[d]!;
    const count = h.count[d]!;
    const block = h.block[d]!;
    if (!Number.isSafeInteger(start)) throw new SelectionError(`hyperslab start ${start} in dimension ${d} is not an integer`);
    if (!Number.isSafeInteger(stride) || stride < 1) {
      throw new SelectionError(`hyperslab stride ${stride} in dimension ${d} must be an integer ≥ 1`);
    }
    if (!Number.isSafeInteger(count) || count < 0) {
      throw new SelectionError(`hyperslab count ${count} in dimension ${d} must be an integer ≥ 0`);
    }
    if (!Number.isSafeInteger(block) || block < 0) {
      throw new SelectionError(`hyperslab block ${block} in dimension ${d} must be an integer ≥ 0`);
    }
    if (count > 1 && stride < block) {
      throw new SelectionError(`hyperslab blocks overlap in dimension ${d}: stride ${stride} < block ${block}`);
    }
    if (count > 0 && !Number.isSafeInteger(start + (count - 1) * stride + block)) {
      throw new SelectionError(`hyperslab in dimension ${d} extends beyond 2^53`);
    }
  }
}

/** True when the hyperslab selects nothing (a zero count or block). */
export function hyperslabIsEmpty(h: HyperslabSelection): boolean {
  for (let d = 0; d < h.rank; d++) if (h.count[d] === 0 || h.block[d] === 0) return true;
  return false;
}

/** The bounding box `[start, end)` of a hyperslab, or null when it is empty. */
export function hyperslabExtent(h: HyperslabSelection): { start: number[]; end: number[] } | null {
  if (hyperslabIsEmpty(h)) return null;
  const start = [...h.start];
  const end = start.map((s, d) => s + (h.count[d]! - 1) * h.stride[d]! + h.block[d]!);
  return { start, end };
}

/** Largest number of separate (non-touching) blocks a hyperslab may have in one dimension. */
export const MAX_BLOCKS_PER_DIM = 1 << 26;

/** The hyperslab's intervals in dimension `d` as flat `[s, e, s, e, ...]`, sorted; touching blocks merged. */
export function hyperslabIntervals(h: HyperslabSelection, d: number): Float64Array {
  const start = h.start[d]!;
  const stride = h.stride[d]!;
  const count = h.count[d]!;
  const block = h.block[d]!;
  if (count === 0 || block === 0) return new Float64Array(0);
  if (count === 1 || stride === block) return Float64Array.of(start, start + (count - 1) * stride + block);
  if (count > MAX_BLOCKS_PER_DIM) {
    throw new SelectionError(`hyperslab has ${count} separate blocks in dimension ${d} (limit ${MAX_BLOCKS_PER_DIM})`);
  }
  const out = new Float64Array(2 * count);
  for (let i = 0; i < count; i++) {
    out[2 * i] = start + i * stride;
    out[2 * i + 1] = start + i * stride + block;
  }
  return out;
}

/**
 * The selection as a product of per-dimension interval lists (`all`, a hyperslab, a single-box
 * union), or null for other kinds. Lists are sorted, disjoint and non-touching.
 */
export function productIntervals(sel: Selection, dims: readonly number[]): Float64Array[] | null {
  if (sel.kind === 'all') return dims.map((n) => (n > 0 ? Float64Array.of(0, n) : new Float64Array(0)));
  if (sel.kind === 'hyperslab') return Array.from({ length: sel.rank }, (_, d) => hyperslabIntervals(sel, d));
  if (sel.kind === 'blocks' && sel.boxCount === 1) {
    return Array.from({ length: sel.rank }, (_, d) => sel.boxes.slice(2 * d, 2 * d + 2));
  }
  return null;
}

/** Largest number of boxes an algebra operation will expand a product into. */
export const MAX_EXPANDED_BOXES = 1 << 22;

/**
 * Expands a product of interval lists (rank ≥ 1) into the canonical box array of
 * {@link BlockSelection} (empty when some list is empty).
 */
export function productToBoxes(lists: readonly Float64Array[]): Float64Array {
  const r = lists.length;
  let n = 1;
  for (const l of lists) n *= l.length / 2;
  if (n === 0) return new Float64Array(0);
  if (n > MAX_EXPANDED_BOXES) {
    throw new SelectionError(`selection expands to ${n} boxes (limit ${MAX_EXPANDED_BOXES}); use fewer, larger blocks`);
  }
  const w = 2 * r;
  const out = new Float64Array(n * w);
  const idx = new Array<number>(r).fill(0);
  for (let b = 0; b < n; b++) {
    for (let d = 0; d < r; d++) {
      out[b * w + 2 * d] = lists[d]![2 * idx[d]!]!;
      out[b * w + 2 * d + 1] = lists[d]![2 * idx[d]! + 1]!;
    }
    for (let d = r - 1; d >= 0; d--) {
      if (++idx[d]! < lists[d]!.length / 2) break;
      idx[d] = 0;
    }
  }
  return out;
}
