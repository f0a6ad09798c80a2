/**
 * Sparse chunks that grow at their end and are read by ranges of C-order offsets: the access pattern
 * of a chunk holding several frames `[frame, y, x]` written one frame after the other and read back
 * frame by frame. Appending elements that all come after the last defined one (C order) extends the
 * defined runs and the values in place — their arrays get spare room at their ends, doubled as
 * they fill — so writing a chunk of n frames costs O(n), not O(n²) run merges. A slab of
 * dimension 0 (frames `[a, b)`) is a range of the canonical boxes found by binary search, and its
 * values are one contiguous piece of the value array.
 * @module
 */
import { runsToBoxes } from './canonical.js';
import { DEF, allocValues, copyBytes, definedCount, requestSorted } from './runs.js';

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
 * Per canonical box list: the elements before each box (prefix sums of the box volumes, `n + 1`
 * numbers: the last is the element count), then the number of rows of all boxes (runs along the
 * last dimension, one per box and index of the other dimensions). One pass gives all three: a
 * decoded chunk's count check, its cache size and the slab lookups of its frames read them here.
 */
const boxIndexes = new WeakMap<Float64Array, Float64Array>();

function elementsBefore(boxes: Float64Array, rank: number): Float64Array {
  let before = boxIndexes.get(boxes);
  if (!before) {
    before = new Float64Array(boxes.length / (2 * rank) + 2);
    before[before.length - 1] = runningCounts(boxes, 2 * rank, before);
    boxIndexes.set(boxes, before);
  }
  return before;
}

/** Number of elements in canonical `boxes` (kept for the slab lookups of later reads). */
export function boxesElements(boxes: Float64Array, rank: number): number {
  const before = elementsBefore(boxes, rank);
  return before[before.length - 2]!;
}

/** Number of rows of canonical `boxes`: runs along the last dimension, at most one per row of a box. */
export function boxesRows(boxes: Float64Array, rank: number): number {
  const before = elementsBefore(boxes, rank);
  return before[before.length - 1]!;
}

/**
 * Fills `before` with the elements before each box of `boxes` (`w` numbers per box) and their total;
 * returns the rows of all boxes. A function of its own with nothing but the return after its loop:
 * V8 compiles the loop on the stack (OSR) during a call, and code after such a loop that never ran
 * (e.g. a store) deoptimised it on every chunk decoded.
 */
function runningCounts(boxes: Float64Array, w: number, before: Float64Array): number {
  const n = boxes.length / w;
  let rows = 0;
  for (let i = 0; i < n; i++) {
    const b = i * w;
    let r = 1;
    for (let k = b; k < b + w - 2; k += 2) r *= boxes[k + 1]! - boxes[k]!;
    rows += r;
    before[i + 1] = before[i]! + r * (boxes[b + w - 1]! - boxes[b + w - 2]!);
  }
  return rows;
}

/** First box (of `n`) whose number at `k` (0: dimension-0 start, 1: end) is greater than `v` (`orEqual`: at least `v`). */
function firstAbove(boxes: Float64Array, w: number, n: number, k: number, v: number, orEqual: boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const x = boxes[mid * w + k]!;
    if (x > v || (orEqual && x === v)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The boxes of a canonical box list reaching into the slab `[a, b)` of dimension 0 — boxes
 * `[from, to)`, whole dimension-0 groups, of which the first and last group may reach out of the
 * slab (`clip`: then their dimension-0 intervals are to be cut to `[a, b)`) — and the elements' place in
 * C order: `first` elements of the list come before the slab, `count` lie in it. A group spanning
 * indices `[s, e)` of dimension 0 holds its cross-section once per index, in that order, so a cut
 * group's elements in the slab are one piece too. O(log boxes) after an index built once per list
 * (kept while the list lives: a chunk's boxes are replaced, never changed, when it is written).
 */
export function boxesInSlab(boxes: Float64Array, rank: number, a: number, b: number): { from: number; to: number; first: number; count: number; clip: boolean } {
  const w = 2 * rank;
  const n = boxes.length / w;
  const before = elementsBefore(boxes, rank);
  // dimension-0 groups are disjoint and sorted: ends are sorted like starts
  const from = firstAbove(boxes, w, n, 1, a, false);
  const to = Math.max(from, firstAbove(boxes, w, n, 0, b, true));
  if (from === to) return { from, to, first: before[from]!, count: 0, clip: false };
  let first = before[from]!;
  let last = before[to]!;
  let clip = false;
  const s0 = boxes[from * w]!;
  if (s0 < a) {
    // the first group starts before the slab: skip its cross-sections of indices s0 … a-1
    const e0 = boxes[from * w + 1]!;
    const g = firstAbove(boxes, w, n, 0, s0, false);
    first += ((a - s0) * (before[g]! - before[from]!)) / (e0 - s0);
    clip = true;
  }
  const eL = boxes[(to - 1) * w + 1]!;
  if (eL > b) {
    // the last group ends after it: drop its cross-sections of indices b … eL-1
    const sL = boxes[(to - 1) * w]!;
    const g = firstAbove(boxes, w, n, 0, sL, true);
    last -= ((eL - b) * (before[to]! - before[g]!)) / (eL - sL);
    clip = true;
  }
  return { from, to, first, count: last - first, clip };
}
