/**
 * Run-set algebra of sparse chunks. A chunk's defined elements are kept as *defined runs*: flat
 * triples `[chunkOffset, length, valueIndex]` of C-order element offsets within the chunk, sorted,
 * disjoint and merged (two runs never touch), where `valueIndex` is the position of the run's first
 * value in the chunk's value array (the running sum of the lengths before it). Requests arrive as
 * the chunk engine's triples `[chunkOffset, bufferOffset, length]`. Everything here is linear in
 * the number of runs (plus a typed-array sort for unsorted point requests), never in elements.
 * @module
 */

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
