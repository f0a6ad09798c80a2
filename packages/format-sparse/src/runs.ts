/**
 * Run-set algebra of sparse chunks. A chunk's defined elements are kept as *defined runs*: flat
 * triples `[chunkOffset, length, valueIndex]` of C-order element offsets within the chunk, sorted,
 * disjoint and merged (two runs never touch), where `valueIndex` is the position of the run's first
 * value in the chunk's value array (the running sum of the lengths before it). Requests arrive as
 * the chunk engine's triples `[chunkOffset, bufferOffset, length]`. Everything here is linear in
 * the number of runs (plus a typed-array sort for unsorted point requests), never in elements.
 * @module
 */
import { OWNED_MIN_BYTES, ownedValues } from './owned-values.js';

/** Copies `n` bytes; short copies byte by byte (cheaper than a subarray view + set). */
export function copyBytes(dst: Uint8Array, at: number, src: Uint8Array, from: number, n: number): void {
  if (n <= 16) {
    for (let q = 0; q < n; q++) dst[at + q] = src[from + q]!;
  } else {
    dst.set(src.subarray(from, from + n), at);
  }
}

/** Numbers per defined run. */
export const DEF = 3;

/**
 * Bytes kept free in front of a value array made by {@link allocValues}: an unfiltered chunk image
 * puts its section 0 there, right before the values, so the image needs no copy of the values.
 */
export const HEADROOM = 256;

/** Value arrays made by {@link allocValues} and their free bytes in front (scratch). */
const headroomed = new WeakMap<Uint8Array, number>();

/**
 * A zeroed value array of `n` bytes with `room` free bytes before it in its buffer (and
 * `capacity - n` spare bytes after it, for appends: see ./append.ts).
 */
export function allocValues(n: number, room = HEADROOM, capacity = n): Uint8Array {
  const v = new Uint8Array(room + Math.max(n, capacity)).subarray(room, room + n);
  headroomed.set(v, room);
  return v;
}

/** Free bytes in front of a value array (0 unless it came from {@link allocValues}). */
export function headroomOf(v: Uint8Array): number {
  return headroomed.get(v) ?? 0;
}

const EMPTY = new Float64Array(0);

/** True when request triples are sorted by chunk offset and do not overlap (hyperslab requests). */
export function requestSorted(req: Float64Array): boolean {
  let end = -1;
  for (let i = 0; i < req.length; i += 3) {
    if (req[i]! < end) return false;
    end = req[i]! + req[i + 2]!;
  }
  return true;
}

/**
 * The chunk elements a request touches, as sorted merged pairs `[start, length]`. Requests whose
 * runs start in order (hyperslabs, sorted points, duplicates allowed) merge in one pass; others
 * (point selections in any order) by a sweep over their sorted starts and ends.
 */
export function requestSet(req: Float64Array): Float64Array {
  const n = req.length / 3;
  if (n === 0) return EMPTY;
  let inOrder = true;
  let maxEnd = 0;
  for (let i = 0; i < req.length; i += 3) {
    if (i > 0 && req[i]! < req[i - 3]!) inOrder = false;
    const e = req[i]! + req[i + 2]!;
    if (e > maxEnd) maxEnd = e;
  }
  const out = new Float64Array(2 * n);
  let k = 0;
  if (inOrder) {
    for (let i = 0; i < req.length; i += 3) {
      const s = req[i]!;
      const len = req[i + 2]!;
      if (len <= 0) continue;
      if (k > 0 && out[k - 2]! + out[k - 1]! >= s) out[k - 1] = Math.max(out[k - 2]! + out[k - 1]!, s + len) - out[k - 2]!;
      else {
        out[k++] = s;
        out[k++] = len;
      }
    }
    return out.slice(0, k);
  }
  // Uint32Array sorts several times faster than Float64Array; chunk offsets fit unless a chunk
  // has more than 2^32 elements.
  const starts = maxEnd <= 0xffffffff ? new Uint32Array(n) : new Float64Array(n);
  const ends = maxEnd <= 0xffffffff ? new Uint32Array(n) : new Float64Array(n);
  let m = 0;
  for (let i = 0; i < req.length; i += 3) {
    if (req[i + 2]! <= 0) continue;
    starts[m] = req[i]!;
    ends[m++] = req[i]! + req[i + 2]!;
  }
  const s = starts.subarray(0, m).sort();
  const e = ends.subarray(0, m).sort();
  // Sweep: coverage depth rises at starts, falls at ends; starts first at equal positions so
  // touching intervals merge.
  let i = 0;
  let j = 0;
  let depth = 0;
  let open = 0;
  while (j < m) {
    if (i < m && s[i]! <= e[j]!) {
      if (depth++ === 0) open = s[i]!;
      i++;
    } else {
      if (--depth === 0) {
        out[k++] = open;
        out[k++] = e[j]! - open;
      }
      j++;
    }
  }
  return out.slice(0, k);
}

/** Number of elements of defined runs. */
export function definedCount(runs: Float64Array): number {
  const n = runs.length;
  return n === 0 ? 0 : runs[n - 3 + 2]! + runs[n - 3 + 1]!;
}

/** Defined runs (with value indices) of sorted merged pairs `[start, length]`. */
export function pairsToDefined(pairs: Float64Array): Float64Array {
  const n = pairs.length / 2;
  const out = new Float64Array(DEF * n);
  let vi = 0;
  for (let i = 0; i < n; i++) {
    out[3 * i] = pairs[2 * i]!;
    out[3 * i + 1] = pairs[2 * i + 1]!;
    out[3 * i + 2] = vi;
    vi += pairs[2 * i + 1]!;
  }
  return out;
}

/** Defined runs ∪ sorted merged pairs → new defined runs (value indices recomputed). */
export function unionDefined(a: Float64Array, b: Float64Array): Float64Array {
  const na = a.length / 3;
  const nb = b.length / 2;
  const out = new Float64Array(DEF * (na + nb));
  let k = 0;
  let i = 0;
  let j = 0;
  while (i < na || j < nb) {
    let s: number;
    let e: number;
    if (j >= nb || (i < na && a[3 * i]! <= b[2 * j]!)) {
      s = a[3 * i]!;
      e = s + a[3 * i + 1]!;
      i++;
    } else {
      s = b[2 * j]!;
      e = s + b[2 * j + 1]!;
      j++;
    }
    if (k > 0 && s <= out[k - 3]! + out[k - 2]!) {
      const end = Math.max(out[k - 3]! + out[k - 2]!, e);
      out[k - 2] = end - out[k - 3]!;
    } else {
      out[k] = s;
      out[k + 1] = e - s;
      out[k + 2] = k > 0 ? out[k - 1]! + out[k - 2]! : 0;
      k += 3;
    }
  }
  return k === out.length ? out : out.slice(0, k);
}

/** Defined runs minus sorted merged pairs → new defined runs (value indices recomputed). */
export function subtractDefined(a: Float64Array, b: Float64Array): Float64Array {
  const na = a.length / 3;
  const nb = b.length / 2;
  // Each run of b splits at most one run of a into one more piece.
  const out = new Float64Array(DEF * (na + nb));
  let k = 0;
  let vi = 0;
  let j = 0;
  for (let i = 0; i < na; i++) {
    const s = a[3 * i]!;
    const e = s + a[3 * i + 1]!;
    let pos = s;
    while (j < nb && b[2 * j]! + b[2 * j + 1]! <= pos) j++;
    let t = j;
    while (t < nb && b[2 * t]! < e) {
      const bs = b[2 * t]!;
      const be = bs + b[2 * t + 1]!;
      if (bs > pos) {
        out[k++] = pos;
        out[k++] = bs - pos;
        out[k++] = vi;
        vi += bs - pos;
      }
      pos = Math.max(pos, be);
      if (be >= e) break;
      t++;
    }
    j = t;
    if (pos < e) {
      out[k++] = pos;
      out[k++] = e - pos;
      out[k++] = vi;
      vi += e - pos;
    }
  }
  return out.slice(0, k);
}

/** True when two run arrays hold the same numbers. */
export function runsEqual(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Index of the defined run containing chunk offset `c`, or of the first run after it (binary
 * search from run `from`; `runs.length / 3` when every run ends at or before `c`).
 */
export function findRun(runs: Float64Array, c: number, from = 0): number {
  let lo = from;
  let hi = runs.length / 3;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (runs[3 * mid]! + runs[3 * mid + 1]! <= c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Position (number index, multiple of 3) of the first defined run ending after `c`, searching
 * forward from position `k` (which must not be past it): a few linear steps, then a binary search.
 */
export function seekRun(runs: Float64Array, k: number, c: number): number {
  const n = runs.length;
  for (let t = 0; t < 4; t++, k += 3) {
    if (k >= n || runs[k]! + runs[k + 1]! > c) return k;
  }
  return 3 * findRun(runs, c, k / 3);
}

/**
 * Moves values from the layout of defined runs `from` to the layout of `to`, where every run of
 * `from` lies inside one run of `to` (growth: a write added elements) — or, with `shrink`, every
 * run of `to` lies inside one run of `from` (an erase removed elements).
 */
export function moveValues(
  from: Float64Array,
  fromValues: Uint8Array,
  to: Float64Array,
  toValues: Uint8Array,
  es: number,
  shrink: boolean,
): void {
  const inner = shrink ? to : from;
  const outer = shrink ? from : to;
  let k = 0;
  const no = outer.length;
  for (let i = 0; i < inner.length; i += 3) {
    const s = inner[i]!;
    while (k < no && outer[k]! + outer[k + 1]! <= s) k += 3;
    const outerIndex = outer[k + 2]! + (s - outer[k]!);
    const n = inner[i + 1]! * es;
    if (shrink) {
      const src = outerIndex * es;
      copyBytes(toValues, inner[i + 2]! * es, fromValues, src, n);
    } else {
      const src = inner[i + 2]! * es;
      copyBytes(toValues, outerIndex * es, fromValues, src, n);
    }
  }
}

/** Scratch of {@link definedFromPoints} (keys, positions and their sort buffers), grown on demand. */
let sortCap = 0;
let sortScratch: Uint32Array[] = [];

/** Counts of one radix pass. */
const radixCount = new Uint32Array(256);

/**
 * Stable LSD radix sort (8-bit digits, as many passes as `max` needs) of `keys[0..n)` carrying
 * `vals` along; `tk`/`tv` are scratch of the same length. Returns the arrays holding the result.
 * Several times faster than `TypedArray.sort` for the few hundred to few thousand keys of a frame.
 */
function radixSort(keys: Uint32Array, vals: Uint32Array, tk: Uint32Array, tv: Uint32Array, n: number, max: number): [Uint32Array, Uint32Array] {
  const cnt = radixCount;
  for (let shift = 0; shift < 32 && max >>> shift > 0; shift += 8) {
    cnt.fill(0);
    for (let i = 0; i < n; i++) cnt[(keys[i]! >>> shift) & 0xff]!++;
    let sum = 0;
    for (let d = 0; d < 256; d++) {
      const c = cnt[d]!;
      cnt[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const k = keys[i]!;
      const at = cnt[(k >>> shift) & 0xff]!++;
      tk[at] = k;
      tv[at] = vals[i]!;
    }
    [keys, tk] = [tk, keys];
    [vals, tv] = [tv, vals];
  }
  return [keys, vals];
}

/** Bucket counts of {@link bucketSort} (up to 2^12 buckets + 1). */
const bucketCount = new Uint32Array((1 << 12) + 1);

/**
 * Stable sort of `keys[0..n)` (all ≤ `max`) carrying `vals`, into `tk`/`tv`: one counting pass on
 * the top bits into about `n` buckets, then an insertion pass that only moves keys within their
 * bucket — for scattered offsets (point hits) cheaper than the radix passes. Null (nothing
 * written) when a bucket holds more than 32 keys (clustered keys: use {@link radixSort}).
 */
function bucketSort(keys: Uint32Array, vals: Uint32Array, tk: Uint32Array, tv: Uint32Array, n: number, max: number): boolean {
  let bits = 1;
  while (bits < 12 && 1 << bits < n) bits++;
  const B = 1 << bits;
  const shift = Math.max(0, 32 - Math.clz32(max) - bits);
  const cnt = bucketCount;
  cnt.fill(0, 0, B + 1);
  for (let i = 0; i < n; i++) cnt[(keys[i]! >>> shift) + 1]!++;
  for (let d = 0; d < B; d++) {
    if (cnt[d + 1]! > 32) return false;
    cnt[d + 1] = cnt[d + 1]! + cnt[d]!;
  }
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    const at = cnt[k >>> shift]!++;
    tk[at] = k;
    tv[at] = vals[i]!;
  }
  for (let i = 1; i < n; i++) {
    const k = tk[i]!;
    if (tk[i - 1]! <= k) continue;
    const v = tv[i]!;
    let j = i - 1;
    while (j >= 0 && tk[j]! > k) {
      tk[j + 1] = tk[j]!;
      tv[j + 1] = tv[j]!;
      j--;
    }
    tk[j + 1] = k;
    tv[j + 1] = v;
  }
  return true;
}

/** Scratch of {@link definedFromPoints}: runs and values built before their exact-size copies. */
let outCap = 0;
let runScratch = new Float64Array(0);
let valScratch = new Uint8Array(0);
let valScratch16 = new Uint16Array(0);

/**
 * The defined runs and values of an empty chunk written by a point-like request — short runs in
 * any order, overlaps and duplicates allowed (a point selection's request): the elements sorted
 * into C order, where the later of two request runs writing one element wins (as in a general
 * write). When chunk offset and request position fit 32 bits together (e.g. a 2048² chunk and up
 * to 1,024 elements), one native sort of packed keys `offset · 2^b + position`; otherwise a stable
 * bucket or radix sort of the offsets (ties keep request order). Then one pass.
 * Null when the request writes more than 8 elements per run on average (long runs are better
 * merged than expanded) or the chunk has more than 2^32 elements.
 */
export function definedFromPoints(req: Float64Array, src: Uint8Array, es: number): { runs: Float64Array; values: Uint8Array } | null {
  const nReq = req.length / 3;
  let E = 0;
  let maxEnd = 0;
  let maxPos = 0;
  for (let i = 0; i < req.length; i += 3) {
    const len = req[i + 2]!;
    const e = req[i]! + len;
    const p = req[i + 1]! + len;
    E += len;
    if (e > maxEnd) maxEnd = e;
    if (p > maxPos) maxPos = p;
  }
  if (E === 0 || E > 8 * nReq || maxEnd > 0xffffffff || maxPos > 0xffffffff) return null;
  if (E > sortCap) {
    sortCap = Math.max(E, 2 * sortCap, 1024);
    sortScratch = [new Uint32Array(sortCap), new Uint32Array(sortCap), new Uint32Array(sortCap), new Uint32Array(sortCap)];
  }
  const [keys, pos, tk, tv] = sortScratch as [Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  // pos: buffer element of each written element, in request order
  if (3 * E > outCap) {
    outCap = Math.max(3 * E, 2 * outCap, 3072);
    runScratch = new Float64Array(outCap);
    valScratch = new Uint8Array(outCap * 8);
    valScratch16 = new Uint16Array(valScratch.buffer);
  }
  const runs = runScratch;
  const vals = es * E <= valScratch.length ? valScratch : new Uint8Array(es * E);
  const src16 = es === 2 && (src.byteOffset & 1) === 0 && vals === valScratch ? new Uint16Array(src.buffer, src.byteOffset, src.length >> 1) : null;
  const seqBits = 32 - Math.clz32(E - 1);
  const offBits = 32 - Math.clz32(maxEnd - 1);
  const packed = seqBits + offBits <= 32 && seqBits < 32;
  // Packed keys `offset · 2^seqBits + position in request order`: the position breaks ties, so the
  // native (unstable) sort still leaves the last write of an element last. Plain keys: offsets.
  const scale = packed ? 2 ** seqBits : 1;
  const tie = packed ? 1 : 0;
  let seq = 0;
  for (let i = 0; i < req.length; i += 3) {
    const c = req[i]!;
    const b = req[i + 1]!;
    const len = req[i + 2]!;
    for (let u = 0; u < len; u++, seq++) {
      keys[seq] = (c + u) * scale + seq * tie;
      pos[seq] = b + u;
    }
  }
  // off[j], from[j]: chunk offset and buffer element of the j-th element in C order (stable).
  let off = tk;
  let from = tv;
  if (packed) {
    keys.subarray(0, E).sort();
    const mask = scale - 1;
    for (let j = 0; j < E; j++) {
      const key = keys[j]!;
      off[j] = key >>> seqBits;
      from[j] = pos[key & mask]!;
    }
  } else if (!bucketSort(keys, pos, tk, tv, E, maxEnd - 1)) [off, from] = radixSort(keys, pos, tk, tv, E, maxEnd - 1);
  // One pass: distinct offsets into runs, the values of each (the last write of an element wins).
  let k = -DEF;
  let m = 0;
  let prev = -2;
  for (let j = 0; j < E; j++) {
    const o = off[j]!;
    if (j + 1 < E && off[j + 1] === o) continue;
    const f = from[j]!;
    if (src16) valScratch16[m] = src16[f]!;
    else for (let q = 0, bi = f * es; q < es; q++) vals[m * es + q] = src[bi + q]!;
    if (o === prev + 1) runs[k + 1] = runs[k + 1]! + 1;
    else {
      k += DEF;
      runs[k] = o;
      runs[k + 1] = 1;
      runs[k + 2] = m;
    }
    prev = o;
    m++;
  }
  const nRuns = (k + DEF) / DEF;
  // Room for section 0 of scattered elements: at most 16 bytes per run as blocks or 8 per element
  // as points (rank ≤ 4, 2-byte coordinates).
  const values = allocValues(m * es, HEADROOM + Math.min(8 * m, 16 * nRuns, 1 << 16));
  values.set(vals.subarray(0, m * es));
  return { runs: runs.slice(0, DEF * nRuns), values };
}

/**
 * The defined runs and values of an empty chunk written by a request whose runs are sorted and do
 * not overlap (every hyperslab or block request): values keep the request order, copied with one
 * `set` when the request reads its buffer contiguously — with `owned` (values that go through
 * filters), into a kept buffer when large (./owned-values.ts). Null for other requests. `known`: the
 * runs the same request defined before (./encode-plan.ts).
 */
export function definedFromSorted(req: Float64Array, src: Uint8Array, es: number, owned = false, known?: Float64Array): { runs: Float64Array; values: Uint8Array } | null {
  if (req.length === 0 || !requestSorted(req)) return null;
  const runs = known ?? pairsToDefined(requestSet(req));
  const count = definedCount(runs);
  let contiguous = true;
  for (let i = 3; i < req.length && contiguous; i += 3) contiguous = req[i + 1]! === req[i - 2]! + req[i - 1]!;
  const b = req[1]! * es;
  if (contiguous && owned && count * es >= OWNED_MIN_BYTES) return { runs, values: ownedValues(src.subarray(b, b + count * es)) };
  const values = allocValues(count * es);
  if (contiguous) {
    values.set(src.subarray(b, b + count * es));
  } else {
    let vi = 0;
    for (let i = 0; i < req.length; i += 3) {
      const len = req[i + 2]! * es;
      copyBytes(values, vi, src, req[i + 1]! * es, len);
      vi += len;
    }
  }
  return { runs, values };
}
