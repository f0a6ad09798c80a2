/**
 * The box engine behind block selections: boolean operations (union, intersection, difference)
 * on lists of boxes, producing the canonical form described in `BlockSelection` (selection.ts).
 *
 * Algorithm: a recursive sweep. Along dimension `d` the start/end coordinates of the boxes still
 * in play are the breakpoints; between two consecutive breakpoints the set of boxes covering the
 * interval is constant, so the cross-section (dimensions `d+1..`) is computed once per interval,
 * recursively, and adjacent intervals with identical cross-sections are merged. In the last
 * dimension the operation is a 1-D interval merge. Cost grows with the number of boxes and
 * breakpoints, never with the number of elements.
 * @module
 */
import { isCanonicalBoxes } from './serialize/canonical.js';

/** A boolean operation on two box lists. */
export type BoxOp = 'union' | 'intersect' | 'subtract';

const EMPTY = new Float64Array(0);

function keep(op: BoxOp, inA: boolean, inB: boolean): boolean {
  return op === 'union' ? inA || inB : op === 'intersect' ? inA && inB : inA && !inB;
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Sorted unique breakpoints (starts and ends in dimension `d`) of the listed boxes. */
function breakpoints(bufA: Float64Array, ia: number[], bufB: Float64Array, ib: number[], w: number, d: number): Float64Array {
  const pts = new Float64Array(2 * (ia.length + ib.length));
  let k = 0;
  for (const i of ia) {
    pts[k++] = bufA[i * w + 2 * d]!;
    pts[k++] = bufA[i * w + 2 * d + 1]!;
  }
  for (const i of ib) {
    pts[k++] = bufB[i * w + 2 * d]!;
    pts[k++] = bufB[i * w + 2 * d + 1]!;
  }
  pts.sort();
  let u = 0;
  for (let i = 0; i < pts.length; i++) if (i === 0 || pts[i] !== pts[u - 1]) pts[u++] = pts[i]!;
  return pts.subarray(0, u);
}

function byStart(buf: Float64Array, idx: number[], w: number, d: number): number[] {
  return idx.length < 2 ? idx : idx.slice().sort((x, y) => buf[x * w + 2 * d]! - buf[y * w + 2 * d]!);
}

/**
 * Cross-section operation on dimensions `d..r-1` of the boxes `ia` (of `bufA`) and `ib` (of
 * `bufB`). Returns canonical boxes of rank `r-d`, flat `[s_d, e_d, s_{d+1}, e_{d+1}, ...]`.
 */
function sweep(bufA: Float64Array, ia: number[], bufB: Float64Array, ib: number[], w: number, d: number, op: BoxOp): number[] {
  const out: number[] = [];
  const last = 2 * d + 2 === w;
  // Shortcut: a single box on its own is already canonical.
  const onlyA = ia.length === 1 && ib.length === 0 && op !== 'intersect';
  if (onlyA || (ib.length === 1 && ia.length === 0 && op === 'union')) {
    const buf = onlyA ? bufA : bufB;
    const i = onlyA ? ia[0]! : ib[0]!;
    for (let k = i * w + 2 * d; k < (i + 1) * w; k++) out.push(buf[k]!);
    return out;
  }
  const pts = breakpoints(bufA, ia, bufB, ib, w, d);
  const sa = byStart(bufA, ia, w, d);
  const sb = byStart(bufB, ib, w, d);
  let pa = 0;
  let pb = 0;
  let activeA: number[] = [];
  let activeB: number[] = [];
  // Groups: (lo, hi, child boxes) — consecutive groups never have equal children when touching.
  const glo: number[] = [];
  const ghi: number[] = [];
  const gchild: number[][] = [];
  for (let k = 0; k + 1 < pts.length; k++) {
    const lo = pts[k]!;
    const hi = pts[k + 1]!;
    while (pa < sa.length && bufA[sa[pa]! * w + 2 * d]! <= lo) activeA.push(sa[pa++]!);
    while (pb < sb.length && bufB[sb[pb]! * w + 2 * d]! <= lo) activeB.push(sb[pb++]!);
    activeA = activeA.filter((i) => bufA[i * w + 2 * d + 1]! > lo);
    activeB = activeB.filter((i) => bufB[i * w + 2 * d + 1]! > lo);
    let child: number[] | null = null;
    const hasA = activeA.length > 0;
    const hasB = activeB.length > 0;
    if (keep(op, hasA, hasB) || (op === 'subtract' && hasA)) {
      if (last) {
        child = keep(op, hasA, hasB) ? [] : null;
      } else {
        child = sweep(bufA, activeA, bufB, activeB, w, d + 1, op);
        if (child.length === 0) child = null;
      }
    }
    if (child === null) continue;
    const g = glo.length - 1;
    if (g >= 0 && ghi[g] === lo && sameNumbers(gchild[g]!, child)) {
      ghi[g] = hi;
    } else {
      glo.push(lo);
      ghi.push(hi);
      gchild.push(child);
    }
  }
  const cw = w - 2 * d - 2; // numbers per child box
  for (let g = 0; g < glo.length; g++) {
    const child = gchild[g]!;
    if (cw === 0) {
      out.push(glo[g]!, ghi[g]!);
      continue;
    }
    for (let c = 0; c < child.length; c += cw) {
      out.push(glo[g]!, ghi[g]!);
      for (let k = 0; k < cw; k++) out.push(child[c + k]!);
    }
  }
  return out;
}

function nonEmptyIndices(buf: Float64Array, w: number): number[] {
  const n = w === 0 ? 0 : buf.length / w;
  const idx: number[] = [];
  outer: for (let i = 0; i < n; i++) {
    for (let k = i * w; k < (i + 1) * w; k += 2) if (!(buf[k + 1]! > buf[k]!)) continue outer;
    idx.push(i);
  }
  return idx;
}

/**
 * `a op b` for two box lists of rank `rank` ≥ 1 (flat `[s0, e0, s1, e1, ...]` per box; any order,
 * overlaps and empty boxes allowed). Returns the canonical box array of the result.
 */
export function boxesOp(a: Float64Array, b: Float64Array, rank: number, op: BoxOp): Float64Array {
  const w = 2 * rank;
  const ia = nonEmptyIndices(a, w);
  const ib = nonEmptyIndices(b, w);
  if (op === 'intersect' && (ia.length === 0 || ib.length === 0)) return EMPTY;
  if (op === 'subtract' && ia.length === 0) return EMPTY;
  return Float64Array.from(sweep(a, ia, b, ib, w, 0, op));
}

/**
 * The canonical form of the union of the boxes in `a` (rank ≥ 1): `a` itself when it is canonical
 * already (a linear check; e.g. boxes listed in C order, as a detector's group finder emits them).
 */
export function normalizeBoxes(a: Float64Array, rank: number): Float64Array {
  if (isCanonicalBoxes(a, rank)) return a;
  return boxesOp(a, EMPTY, rank, 'union');
}

/** Number of elements covered by a list of *disjoint* boxes. */
export function boxesCount(boxes: Float64Array, rank: number): number {
  const w = 2 * rank;
  let n = 0;
  for (let i = 0; i < boxes.length; i += w) {
    let v = 1;
    for (let k = i; k < i + w; k += 2) v *= boxes[k + 1]! - boxes[k]!;
    n += v;
  }
  return n;
}

/** Bounding box of a non-empty box list. */
export function boxesBounds(boxes: Float64Array, rank: number): { start: number[]; end: number[] } {
  const start = new Array<number>(rank).fill(Infinity);
  const end = new Array<number>(rank).fill(-Infinity);
  const w = 2 * rank;
  for (let i = 0; i < boxes.length; i += w) {
    for (let d = 0; d < rank; d++) {
      if (boxes[i + 2 * d]! < start[d]!) start[d] = boxes[i + 2 * d]!;
      if (boxes[i + 2 * d + 1]! > end[d]!) end[d] = boxes[i + 2 * d + 1]!;
    }
  }
  return { start, end };
}
