/**
 * Shapes of a selection that the encoder can choose between: the regular form of a hyperslab or
 * of canonical boxes, a smaller (non-canonical) block cover, the C-ordered element list. All
 * linear in the number of boxes; nothing is expanded per element unless asked.
 * @module
 */
import { pointOffsets } from '../points.js';
import { cStrides } from '../runs.js';
import type { HyperslabSelection, Selection } from '../selection.js';
import type { RegularParams } from './hyperslab.js';

/**
 * A hyperslab's parameters as HDF5 stores them after `H5Sselect_hyperslab` ("optimised"
 * diminfo): touching blocks (stride = block) become one block, and a single block has stride 1.
 * Null when the hyperslab is empty.
 */
export function normalizeRegular(h: HyperslabSelection): RegularParams | null {
  const p: RegularParams = { start: [], stride: [], count: [], block: [] };
  for (let d = 0; d < h.rank; d++) {
    let c = h.count[d]!;
    let b = h.block[d]!;
    let st = h.stride[d]!;
    if (c === 0 || b === 0) return null;
    if (st === b) {
      b *= c;
      c = 1;
    }
    if (c === 1) st = 1;
    p.start.push(h.start[d]!);
    p.stride.push(st);
    p.count.push(c);
    p.block.push(b);
  }
  return p;
}

/** Number of blocks of regular parameters. */
export function regularBlockCount(p: RegularParams): number {
  let n = 1;
  for (const c of p.count) n *= c;
  return n;
}

/** Number of elements of regular parameters. */
export function regularElementCount(p: RegularParams): number {
  let n = 1;
  for (let d = 0; d < p.count.length; d++) n *= p.count[d]! * p.block[d]!;
  return n;
}

/** Inclusive upper corner of regular parameters. */
export function regularHigh(p: RegularParams): number[] {
  return p.start.map((s, d) => s + (p.count[d]! - 1) * p.stride[d]! + p.block[d]! - 1);
}

/**
 * The regular hyperslab whose blocks are exactly the canonical `boxes` (HDF5's
 * `H5S__hyper_rebuild`), or null when they are not one regular pattern.
 */
export function regularFromBoxes(boxes: Float64Array, rank: number): RegularParams | null {
  const w = 2 * rank;
  const n = boxes.length / w;
  if (n === 0) return null;
  // Every block of a regular pattern has the same extents: most irregular lists fail here at once.
  for (let i = w; i < boxes.length; i += w) {
    for (let d = 0; d < w; d += 2) if (boxes[i + d + 1]! - boxes[i + d]! !== boxes[d + 1]! - boxes[d]!) return null;
  }
  const count = new Array<number>(rank);
  const stride = new Array<number>(rank);
  const start = new Array<number>(rank);
  const block = new Array<number>(rank);
  for (let d = 0; d < rank; d++) {
    start[d] = boxes[2 * d]!;
    block[d] = boxes[2 * d + 1]! - boxes[2 * d]!;
  }
  // Canonical boxes of a regular pattern enumerate it in C order: find the count of each
  // dimension from the back as the run of groups sharing the slower dimensions with box 0.
  let period = 1;
  for (let d = rank - 1; d >= 0; d--) {
    let k = 1;
    while (k * period < n && samePrefix(boxes, 0, k * period * w, d)) k++;
    count[d] = k;
    stride[d] = k > 1 ? boxes[period * w + 2 * d]! - start[d]! : 1;
    period *= k;
  }
  if (period !== n) return null;
  const idx = new Array<number>(rank).fill(0);
  for (let i = 0; i < n; i++) {
    const base = i * w;
    for (let d = 0; d < rank; d++) {
      const s = start[d]! + idx[d]! * stride[d]!;
      if (boxes[base + 2 * d] !== s || boxes[base + 2 * d + 1] !== s + block[d]!) return null;
    }
    for (let d = rank - 1; d >= 0; d--) {
      if (++idx[d]! < count[d]!) break;
      idx[d] = 0;
    }
  }
  for (let d = 0; d < rank; d++) if (count[d]! > 1 && stride[d]! < block[d]!) return null;
  return { start, stride, count, block };
}

/** True when boxes at offsets `a` and `b` share their intervals in dimensions 0..d-1. */
function samePrefix(boxes: Float64Array, a: number, b: number, d: number): boolean {
  for (let k = 0; k < 2 * d; k++) if (boxes[a + k] !== boxes[b + k]) return false;
  return true;
}

/** Lexicographic comparison of the dimension-1.. parts of two boxes. */
function compareTail(boxes: Float64Array, a: number, b: number, w: number): number {
  for (let k = 2; k < w; k++) {
    const x = boxes[a + k]!;
    const y = boxes[b + k]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * A cover of the canonical `boxes` with fewer boxes: a box whose cross-section (dimensions 1..)
 * reappears in the next, touching band of dimension 0 is extended instead of repeated. The
 * result is disjoint but not canonical (a decoder ORs the blocks). Linear time.
 */
export function verticalCover(boxes: Float64Array, rank: number): Float64Array {
  const w = 2 * rank;
  const n = boxes.length / w;
  if (rank < 2 || n < 2) return boxes;
  // One band of dimension 0 (e.g. every chunk of shape 1×…): nothing to extend.
  if (boxes[0] === boxes[(n - 1) * w] && boxes[1] === boxes[(n - 1) * w + 1]) return boxes;
  const out = new Float64Array(boxes.length);
  let nOut = 0;
  // Open boxes of the previous band (input index, output index) and of the current band.
  let prevIn = new Int32Array(n);
  let prevOut = new Int32Array(n);
  let curIn = new Int32Array(n);
  let curOut = new Int32Array(n);
  let nPrev = 0;
  let prevHi = NaN;
  let i = 0;
  while (i < n) {
    const lo = boxes[i * w]!;
    const hi = boxes[i * w + 1]!;
    const touching = lo === prevHi;
    let nCur = 0;
    let p = 0;
    let k = i;
    for (; k < n && boxes[k * w] === lo && boxes[k * w + 1] === hi; k++) {
      let o = -1;
      if (touching) {
        while (p < nPrev) {
          const c = compareTail(boxes, prevIn[p]! * w, k * w, w);
          if (c < 0) p++;
          else {
            if (c === 0) o = prevOut[p++]!;
            break;
          }
        }
      }
      if (o >= 0) {
        out[o * w + 1] = hi;
      } else {
        o = nOut++;
        for (let q = 0; q < w; q++) out[o * w + q] = boxes[k * w + q]!;
      }
      curIn[nCur] = k;
      curOut[nCur++] = o;
    }
    [prevIn, curIn] = [curIn, prevIn];
    [prevOut, curOut] = [curOut, prevOut];
    nPrev = nCur;
    prevHi = hi;
    i = k;
  }
  return nOut === n ? boxes : out.slice(0, nOut * w);
}

/**
 * The disjoint `boxes` ordered by their start corner in C (row-major) order, as HDF5 writes the
 * blocks of a hyperslab (its span tree is walked dimension 0 first). The same array when already in
 * that order (canonical boxes are); else a sorted copy. Disjoint boxes have distinct starts, so the
 * order is total. Linear check, then one numeric sort of packed keys (start offset × n + index).
 */
export function sortBoxesByStart(boxes: Float64Array, rank: number, dims: readonly number[]): Float64Array {
  const w = 2 * rank;
  const n = boxes.length / w;
  if (n < 2) return boxes;
  const strides = cStrides(dims);
  const keys = new Float64Array(n);
  let sorted = true;
  for (let i = 0; i < n; i++) {
    let k = 0;
    for (let d = 0; d < rank; d++) k += boxes[i * w + 2 * d]! * strides[d]!;
    keys[i] = k;
    if (i > 0 && k < keys[i - 1]!) sorted = false;
  }
  if (sorted) return boxes;
  let total = 1;
  for (const s of dims) total *= s;
  let order: ArrayLike<number>;
  if (total * n <= Number.MAX_SAFE_INTEGER) {
    // Keys are below `total`: key × n + index is exact and sorts by key, with the index recoverable.
    const packed = new Float64Array(n);
    for (let i = 0; i < n; i++) packed[i] = keys[i]! * n + i;
    packed.sort();
    const idx = new Uint32Array(n);
    for (let i = 0; i < n; i++) idx[i] = packed[i]! % n;
    order = idx;
  } else {
    order = Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[a]! - keys[b]!);
  }
  const out = new Float64Array(boxes.length);
  for (let i = 0; i < n; i++) out.set(boxes.subarray(order[i]! * w, order[i]! * w + w), i * w);
  return out;
}

/** Largest inclusive coordinate of a non-empty box list, over all dimensions. */
export function boxesMaxHigh(boxes: Float64Array, rank: number): number {
  let m = 0;
  const w = 2 * rank;
  for (let i = 0; i < boxes.length; i += w) for (let d = 1; d < w; d += 2) if (boxes[i + d]! - 1 > m) m = boxes[i + d]! - 1;
  return m;
}

/** True when the points are strictly increasing in C order (sorted, no duplicates). */
export function pointsAreSorted(coords: Float64Array, dims: readonly number[]): boolean {
  const offs = pointOffsets(coords, dims);
  for (let i = 1; i < offs.length; i++) if (!(offs[i]! > offs[i - 1]!)) return false;
  return true;
}

/** Coordinates of the selected elements in C order, from the selection's runs (`count` elements). */
export function elementCoords(runs: Float64Array, dims: readonly number[], count: number): Float64Array {
  const r = dims.length;
  const out = new Float64Array(count * r);
  const st = cStrides(dims);
  const c = new Array<number>(r);
  let o = 0;
  for (let k = 0; k < runs.length; k += 2) {
    let rest = runs[k]!;
    for (let d = 0; d < r; d++) {
      c[d] = Math.floor(rest / st[d]!);
      rest -= c[d]! * st[d]!;
    }
    for (let u = 0; u < runs[k + 1]!; u++) {
      for (let d = 0; d < r; d++) out[o++] = c[d]!;
      for (let d = r - 1; d >= 0; d--) {
        if (++c[d]! < dims[d]!) break;
        c[d] = 0;
      }
    }
  }
  return out;
}

/** True for selections whose iteration order is C order (everything but unsorted point lists). */
export function isSetLike(sel: Selection, dims: readonly number[]): boolean {
  return sel.kind !== 'points' || pointsAreSorted(sel.coords, dims);
}
