/**
 * Iteration of a selection as runs of contiguous elements: flat `[linearStart, length, ...]`
 * pairs in the selection's iteration order (C order of coordinates for `all`/hyperslab/blocks,
 * the given order for points). Adjacent runs are merged, so a full-width band of rows — or a
 * whole dataspace — is one run. Work is proportional to the number of runs, not elements.
 * @module
 */
import { productIntervals } from './hyperslab.js';
import { pointOffsets } from './points.js';
import { validateSelection, type BlockSelection, type Selection } from './selection.js';

/** Growable `[start, length]` pair list that merges a run into the previous one when they touch. */
class PairBuilder {
  buf: Float64Array;
  n = 0;
  constructor(capacity: number) {
    this.buf = new Float64Array(Math.max(8, 2 * capacity));
  }
  push(start: number, length: number): void {
    const n = this.n;
    if (n > 0 && this.buf[n - 2]! + this.buf[n - 1]! === start) {
      this.buf[n - 1] = this.buf[n - 1]! + length;
      return;
    }
    if (n + 2 > this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[n] = start;
    this.buf[n + 1] = length;
    this.n = n + 2;
  }
  result(): Float64Array {
    return this.buf.slice(0, this.n);
  }
}

/** C-order strides of a dataspace. */
export function cStrides(dims: readonly number[]): number[] {
  const s = new Array<number>(dims.length);
  let acc = 1;
  for (let d = dims.length - 1; d >= 0; d--) {
    s[d] = acc;
    acc *= dims[d]!;
  }
  return s;
}

function productRuns(lists: Float64Array[], dims: readonly number[], out: PairBuilder): void {
  const r = lists.length;
  if (r === 0) {
    out.push(0, 1);
    return;
  }
  for (const l of lists) if (l.length === 0) return;
  const stride = cStrides(dims);
  // m: the dimension whose intervals become runs; every dimension after it is fully selected.
  let m = r - 1;
  while (m > 0 && lists[m]!.length === 2 && lists[m]![0] === 0 && lists[m]![1] === dims[m]) m--;
  const emit = (d: number, base: number): void => {
    const l = lists[d]!;
    const sd = stride[d]!;
    if (d === m) {
      for (let i = 0; i < l.length; i += 2) out.push(base + l[i]! * sd, (l[i + 1]! - l[i]!) * sd);
      return;
    }
    for (let i = 0; i < l.length; i += 2) {
      for (let x = l[i]!; x < l[i + 1]!; x++) emit(d + 1, base + x * sd);
    }
  };
  emit(0, 0);
}

function blockRuns(sel: BlockSelection, dims: readonly number[], out: PairBuilder): void {
  const r = sel.rank;
  const w = 2 * r;
  const b = sel.boxes;
  const stride = cStrides(dims);
  // A group = consecutive boxes sharing their interval in dimension d (canonical form).
  const emit = (from: number, to: number, d: number, base: number): void => {
    const sd = stride[d]!;
    let i = from;
    while (i < to) {
      const s = b[i * w + 2 * d]!;
      const e = b[i * w + 2 * d + 1]!;
      let j = i + 1;
      while (j < to && b[j * w + 2 * d] === s && b[j * w + 2 * d + 1] === e) j++;
      if (d === r - 1) {
        out.push(base + s, e - s);
      } else {
        let fullTail = j - i === 1;
        for (let k = d + 1; fullTail && k < r; k++) fullTail = b[i * w + 2 * k] === 0 && b[i * w + 2 * k + 1] === dims[k];
        if (fullTail) out.push(base + s * sd, (e - s) * sd);
        else for (let x = s; x < e; x++) emit(i, j, d + 1, base + x * sd);
      }
      i = j;
    }
  };
  emit(0, sel.boxCount, 0, 0);
}

/**
 * The selection's runs in a dataspace of shape `dims`: flat pairs `[linearStart, length, ...]`
 * (C-order linear element offsets) in iteration order, adjacent runs merged. Validates first.
 */
export function selectionRuns(sel: Selection, dims: readonly number[]): Float64Array {
  validateSelection(sel, dims);
  if (sel.kind === 'none') return new Float64Array(0);
  if (sel.kind === 'points') {
    const offs = pointOffsets(sel.coords, dims);
    const out = new PairBuilder(64);
    for (let i = 0; i < offs.length; i++) out.push(offs[i]!, 1);
    return out.result();
  }
  const out = new PairBuilder(64);
  const lists = productIntervals(sel, dims);
  if (lists) productRuns(lists, dims, out);
  else blockRuns(sel as BlockSelection, dims, out);
  return out.result();
}
