/**
 * Sparse chunks that grow at their end and are read by ranges of C-order offsets: the access pattern
 * of a chunk holding several frames `[frame, y, x]` written one frame after the other and read back
 * frame by frame. Appending elements that all come after the last defined one (C order) extends the
 * defined runs and the values in place — their arrays get spare room at their ends, doubled as
 * they fill — so writing a chunk of n frames costs O(n), not O(n²) run merges. A range of offsets
 * (a slab of dimension 0 in C order) is a range of runs found by binary search, and its values
 * are one contiguous piece of the value array.
 * @module
 */
import { runsToBoxes } from './canonical.js';
import { DEF, allocValues, copyBytes, definedCount, findRun, requestSorted } from './runs.js';

/** True when `req` (sorted request triples) writes only elements after every defined run of `runs`. */
export function appendsAfter(runs: Float64Array, req: Float64Array): boolean {
  const n = runs.length;
  return n > 0 && req.length > 0 && req[0]! >= runs[n - DEF]! + runs[n - DEF + 1]! && requestSorted(req);
}

/** `len` numbers of `a` in an array with room for more (at least doubled), or `a` extended in place when `inPlace` and its buffer has the room. */
function extendFloats(a: Float64Array, len: number, inPlace: boolean): Float64Array {
  if (inPlace && a.byteOffset + 8 * len <= a.buffer.byteLength) return new Float64Array(a.buffer, a.byteOffset, len);
  const out = new Float64Array(Math.max(len, 2 * a.length, 96));
  out.set(a);
  return out.subarray(0, len);
}

function extendValues(v: Uint8Array, len: number, inPlace: boolean): Uint8Array {
  if (inPlace && v.byteOffset + len <= v.buffer.byteLength) return new Uint8Array(v.buffer, v.byteOffset, len);
  const out = allocValues(len, undefined, Math.max(len, 2 * v.length));
  out.set(v);
  return out;
}

/**
 * Defined runs and values after appending the elements of `req` (see {@link appendsAfter}) with
 * their values from `src` (request triples `[chunkOffset, bufferOffset, length]`, `es` bytes per
 * element). `inPlace`: `runs` and `values` are the caller's own and may be extended in their
 * buffers (nothing else views the bytes past their ends); otherwise new arrays are made.
 */
export function appendDefined(
  runs: Float64Array,
  values: Uint8Array,
  req: Float64Array,
  src: Uint8Array,
  es: number,
  inPlace: boolean,
): { runs: Float64Array; values: Uint8Array } {
  let added = 0;
  for (let i = 2; i < req.length; i += 3) added += req[i]!;
  const oldCount = definedCount(runs);
  const outValues = extendValues(values, (oldCount + added) * es, inPlace);
  const wide = extendFloats(runs, runs.length + req.length, inPlace);
  // sorted, non-overlapping request runs: merged as they come (two runs never touch), values in request order
  let k = runs.length;
  let count = oldCount;
  for (let i = 0; i < req.length; i += 3) {
    const c = req[i]!;
    const len = req[i + 2]!;
    if (len <= 0) continue;
    if (wide[k - DEF]! + wide[k - DEF + 1]! === c) wide[k - DEF + 1] = wide[k - DEF + 1]! + len;
    else {
      wide[k] = c;
      wide[k + 1] = len;
      wide[k + 2] = count;
      k += DEF;
    }
    copyBytes(outValues, count * es, src, req[i + 1]! * es, len * es);
    count += len;
  }
  return { runs: wide.subarray(0, k), values: outValues };
}

/**
 * The canonical boxes after an append (./sparse-chunk.ts): `boxes` (canonical, of the runs before) and
 * those of the runs added from `runs[from]` on, concatenated — when the added elements start in a
 * later index of dimension 0 than the last old one and the two lists meet without a merge (touching
 * dimension-0 groups with equal cross-sections). `inPlace`: `boxes` may be extended in its buffer.
 * Null when the union needs a rebuild from the runs.
 */
export function appendBoxes(boxes: Float64Array, runs: Float64Array, from: number, dims: readonly number[], inPlace: boolean): Float64Array | null {
  const rank = dims.length;
  if (rank < 2 || from >= runs.length || from < DEF) return null;
  let inner = 1;
  for (let d = 1; d < rank; d++) inner *= dims[d]!;
  const lastOld = runs[from - DEF]! + runs[from - DEF + 1]! - 1;
  if (Math.floor(runs[from]! / inner) <= Math.floor(lastOld / inner)) return null;
  const add = runsToBoxes(runs.subarray(from), DEF, dims);
  const w = 2 * rank;
  const n = boxes.length;
  if (n > 0 && boxes[n - w + 1] === add[0]) {
    // touching dimension-0 groups: canonical form merges them when their cross-sections are equal
    let a = n - w;
    while (a - w >= 0 && boxes[a - w] === boxes[n - w] && boxes[a - w + 1] === boxes[n - w + 1]) a -= w;
    let b = w;
    while (b < add.length && add[b] === add[0] && add[b + 1] === add[1]) b += w;
    if (n - a === b) {
      let same = true;
      for (let i = 0; i < b && same; i += w) for (let k = 2; k < w && same; k++) same = boxes[a + i + k] === add[i + k];
      if (same) return null;
    }
  }
  const out = extendFloats(boxes, n + add.length, inPlace);
  out.set(add, n);
  return out;
}

/**
 * The defined runs within C-order offsets `[lo, hi)`, as new runs with value indices from 0, and
 * the range of the value array (in elements) holding their values, in O(log runs + runs in range).
 */
export function definedInRange(runs: Float64Array, lo: number, hi: number): { runs: Float64Array; first: number; count: number } {
  const a = findRun(runs, lo);
  const b = findRun(runs, hi);
  // run b holds hi or starts after it: it takes part only when it starts before hi
  const end = b < runs.length / DEF && runs[DEF * b]! < hi ? b + 1 : b;
  const out = new Float64Array(DEF * Math.max(0, end - a));
  if (end <= a) return { runs: out, first: 0, count: 0 };
  const first = runs[DEF * a + 2]! + Math.max(0, lo - runs[DEF * a]!);
  for (let i = a, k = 0; i < end; i++, k += DEF) {
    const s = Math.max(lo, runs[DEF * i]!);
    const e = Math.min(hi, runs[DEF * i]! + runs[DEF * i + 1]!);
    out[k] = s;
    out[k + 1] = e - s;
    out[k + 2] = runs[DEF * i + 2]! + (s - runs[DEF * i]!) - first;
  }
  const last = out.length - DEF;
  return { runs: out, first, count: out[last + 2]! + out[last + 1]! };
}

/** Per canonical box list: running maximum of the boxes' dimension-0 ends, and elements before each box. */
const boxIndexes = new WeakMap<Float64Array, { maxEnd: Float64Array; before: Float64Array }>();

function boxIndex(boxes: Float64Array, rank: number): { maxEnd: Float64Array; before: Float64Array } {
  let ix = boxIndexes.get(boxes);
  if (ix) return ix;
  const w = 2 * rank;
  const n = boxes.length / w;
  const maxEnd = new Float64Array(n);
  const before = new Float64Array(n + 1);
  let m = -Infinity;
  for (let i = 0; i < n; i++) {
    const b = i * w;
    if (boxes[b + 1]! > m) m = boxes[b + 1]!;
    maxEnd[i] = m;
    let v = 1;
    for (let k = b; k < b + w; k += 2) v *= boxes[k + 1]! - boxes[k]!;
    before[i + 1] = before[i]! + v;
  }
  ix = { maxEnd, before };
  boxIndexes.set(boxes, ix);
  return ix;
}

/** First box (of `n`) whose dimension-0 start is at least `v` (boxes sorted by it). */
function firstStartingAt(boxes: Float64Array, w: number, n: number, v: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (boxes[mid * w]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The boxes of a canonical box list lying in the slab `[a, b)` of dimension 0, when no box
 * crosses the slab's edges: boxes `[from, to)` (whole dimension-0 groups of a canonical list, so
 * canonical themselves) and the elements' place in C order — `first` elements of the list come
 * before the slab, `count` lie in it. Null when a box crosses an edge. O(log boxes) after an index
 * built once per list.
 */
export function boxesInSlab(boxes: Float64Array, rank: number, a: number, b: number): { from: number; to: number; first: number; count: number } | null {
  const w = 2 * rank;
  const n = boxes.length / w;
  const { maxEnd, before } = boxIndex(boxes, rank);
  const from = firstStartingAt(boxes, w, n, a);
  const to = firstStartingAt(boxes, w, n, b);
  if ((from > 0 && maxEnd[from - 1]! > a) || (to > 0 && maxEnd[to - 1]! > b)) return null;
  return { from, to, first: before[from]!, count: before[to]! - before[from]! };
}
