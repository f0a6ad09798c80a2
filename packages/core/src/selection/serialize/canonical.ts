/**
 * Canonical form (see `BlockSelection`) of the union of a block list read from a file: the same
 * result as `normalizeBoxes` of boxes.ts, with a sweep tuned for what decoders meet — hundreds
 * of blocks, few of them active at a time — using typed index arrays and no per-band closures.
 * @module
 */

import { SelectionError } from '../../errors.js';

/** Largest number of (active box, band) visits a normalisation may take. */
export const CANONICAL_WORK_LIMIT = 50_000_000;

/** Largest number of numbers a canonical result may hold. */
const OUTPUT_LIMIT = 1 << 26;

/** Work counter shared by one normalisation. */
interface Budget {
  left: number;
}

/** Numbers of the canonical boxes, built flat. */
class Flat {
  buf: Float64Array;
  n = 0;
  constructor(capacity: number) {
    this.buf = new Float64Array(Math.max(16, capacity));
  }
  push(v: number): void {
    if (this.n === this.buf.length) this.ensure(1);
    this.buf[this.n++] = v;
  }
  /** Makes room for `k` more numbers. */
  ensure(k: number): void {
    if (this.n + k <= this.buf.length) return;
    if (this.n + k > OUTPUT_LIMIT) throw new SelectionError(`block list normalises to more than ${OUTPUT_LIMIT / 2} intervals`);
    const next = new Float64Array(Math.max(this.buf.length * 2, this.n + k));
    next.set(this.buf.subarray(0, this.n));
    this.buf = next;
  }
}

/**
 * A band's cross-section (boxes of dimensions d+1…): `count` boxes of `stride` numbers in `src`
 * from number `at` on — the tails of consecutive input boxes as listed (no copy), or a {@link Flat}.
 */
interface CrossSection {
  src: Float64Array;
  at: number;
  count: number;
  stride: number;
}

/** True when two cross-sections of `cw` numbers per box are equal. */
function sameCross(a: CrossSection, b: CrossSection, cw: number): boolean {
  if (a.count !== b.count) return false;
  for (let i = 0; i < a.count; i++) {
    const x = a.at + i * a.stride;
    const y = b.at + i * b.stride;
    for (let q = 0; q < cw; q++) if (a.src[x + q] !== b.src[y + q]) return false;
  }
  return true;
}

/** Appends the boxes `[glo, ghi) × cross` (`cw` numbers per cross-section box). */
function emitGroup(out: Flat, glo: number, ghi: number, cross: CrossSection, cw: number): void {
  const { src, at, count, stride } = cross;
  if (count === 0) return;
  out.ensure(count * (cw + 2));
  const o = out.buf;
  let k = out.n;
  if (stride === cw + 2 && src[at - 2] === glo && src[at - 1] === ghi && src[at + (count - 1) * stride - 2] === glo) {
    // whole input boxes whose interval is the group's: one copy
    o.set(src.subarray(at - 2, at - 2 + count * stride), k);
    out.n = k + count * stride;
    return;
  }
  for (let i = 0; i < count; i++) {
    o[k++] = glo;
    o[k++] = ghi;
    const x = at + i * stride;
    for (let q = 0; q < cw; q++) o[k++] = src[x + q]!;
  }
  out.n = k;
}

function sortByStart(boxes: Float64Array, idx: Int32Array, m: number, off: number, w: number): void {
  if (m < 24) {
    for (let i = 1; i < m; i++) {
      const x = idx[i]!;
      const key = boxes[x * w + off]!;
      let j = i - 1;
      while (j >= 0 && boxes[idx[j]! * w + off]! > key) {
        idx[j + 1] = idx[j]!;
        j--;
      }
      idx[j + 1] = x;
    }
    return;
  }
  let sorted = true;
  for (let i = 1; i < m && sorted; i++) sorted = boxes[idx[i - 1]! * w + off]! <= boxes[idx[i]! * w + off]!;
  if (sorted) return;
  if (m <= PACK_MAX_BOXES) {
    // keys below 2^32 and indices below 2^21 pack exactly into one float: a native typed-array sort
    const packed = new Float64Array(m);
    let small = true;
    for (let i = 0; i < m && small; i++) {
      const key = boxes[idx[i]! * w + off]!;
      small = key >= 0 && key < PACK_KEY_LIMIT;
      packed[i] = key * PACK_MAX_BOXES + i;
    }
    if (small) {
      packed.sort();
      const was = idx.slice(0, m);
      for (let i = 0; i < m; i++) idx[i] = was[packed[i]! % PACK_MAX_BOXES]!;
      return;
    }
  }
  const sub = Array.from(idx.subarray(0, m));
  sub.sort((a, b) => boxes[a * w + off]! - boxes[b * w + off]!);
  idx.set(sub);
}

/** Boxes and key bound of the packed sort in {@link sortByStart} (2^21 · 2^32 = 2^53: exact in a float). */
const PACK_MAX_BOXES = 1 << 21;
const PACK_KEY_LIMIT = 2 ** 32;

/**
 * Copies the tails (numbers from `off` on, `rank` dimensions) of boxes `order[0..n)` into the empty
 * `out` and keeps them when they are canonical as they stand; else empties `out` again and returns false.
 */
function tailsAsListed(boxes: Float64Array, order: Int32Array, n: number, off: number, rank: number, out: Flat): boolean {
  const w = off + 2 * rank;
  for (let i = 0; i < n; i++) {
    const b = order[i]! * w;
    for (let k = off; k < w; k++) out.push(boxes[b + k]!);
  }
  if (isCanonicalBoxes(out.buf.subarray(0, out.n), rank)) return true;
  out.n = 0;
  return false;
}

/** Lexicographic order of the tails (numbers from `off` to `w`) of boxes `a` and `b`. */
function compareTails(boxes: Float64Array, a: number, b: number, off: number, w: number): number {
  for (let k = off; k < w; k++) {
    const d = boxes[a * w + k]! - boxes[b * w + k]!;
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The canonical cross-section of a band when the file lists it canonically — as it stands, or once
 * the few boxes reaching in from an earlier band (listed after the band's own) are put in place by
 * an insertion sort of at most `4n` moves — written to the empty `out`; false (and `out` empty) when
 * it needs the full normalisation. `scratch` holds at least `n` entries.
 */
function canonicalTails(boxes: Float64Array, active: Int32Array, n: number, off: number, rank: number, out: Flat, scratch: Int32Array): boolean {
  if (tailsAsListed(boxes, active, n, off, rank, out)) return true;
  const w = off + 2 * rank;
  let moves = 4 * n;
  for (let i = 0; i < n; i++) {
    const x = active[i]!;
    let j = i - 1;
    while (j >= 0 && compareTails(boxes, scratch[j]!, x, off, w) > 0) {
      if (--moves < 0) return false;
      scratch[j + 1] = scratch[j]!;
      j--;
    }
    scratch[j + 1] = x;
  }
  return tailsAsListed(boxes, scratch, n, off, rank, out);
}

/**
 * Pushes the union of the intervals `[start, end]` at offset `off` of the boxes `idx[0..m)` (sorted by
 * start) onto `out`, merging each interval whose start is at most the current end.
 */
function pushMerged(boxes: Float64Array, idx: Int32Array, m: number, w: number, off: number, out: Flat): void {
  let s = boxes[idx[0]! * w + off]!;
  let e = boxes[idx[0]! * w + off + 1]!;
  for (let i = 1; i < m; i++) {
    const b = idx[i]! * w + off;
    if (boxes[b]! <= e) {
      if (boxes[b + 1]! > e) e = boxes[b + 1]!;
    } else {
      out.push(s);
      out.push(e);
      s = boxes[b]!;
      e = boxes[b + 1]!;
    }
  }
  out.push(s);
  out.push(e);
}

/**
 * Canonical boxes of dimensions d.. of the union of boxes `idx[0..m)`, appended to `out`: a sweep
 * over the bands of dimension d (between consecutive starts and ends of boxes), each band's
 * cross-section normalised one level down, and touching bands with equal cross-sections merged.
 * A band whose boxes are consecutive input boxes that all start and end with it and list a
 * canonical cross-section (a frame of a point-group chunk, as encoders write it) is taken where it
 * stands: checked, compared and copied, never re-sorted.
 */
function level(boxes: Float64Array, idx: Int32Array, m: number, d: number, rank: number, out: Flat, budget: Budget): void {
  const w = 2 * rank;
  const off = 2 * d;
  sortByStart(boxes, idx, m, off, w);
  if (d === rank - 1) {
    pushMerged(boxes, idx, m, w, off, out);
    return;
  }
  // boxes in input order (idx is 0, 1, …): a band's new boxes are a range of the input
  let inOrder = true;
  for (let i = 0; i < m && inOrder; i++) inOrder = idx[i] === idx[0]! + i;
  const active = new Int32Array(m);
  const scratch = new Int32Array(m);
  let na = 0;
  let next = 0;
  const cw = w - off - 2; // numbers per child box
  const lastButOne = d === rank - 2;
  const coff = off + 2; // offset of the child dimension in a box
  // Current group: [glo, ghi) × `group`; a band's cross-section is computed into `child` unless it
  // is a range of the input (`direct`); `prev` holds the group's when it was computed.
  let child = new Flat(cw * 4);
  let prev = new Flat(cw * 4);
  const direct: CrossSection = { src: boxes, at: 0, count: 0, stride: w };
  const computed: CrossSection = { src: child.buf, at: 0, count: 0, stride: cw };
  const group: CrossSection = { src: boxes, at: 0, count: 0, stride: w };
  let glo = NaN;
  let ghi = NaN;
  let lo = boxes[idx[0]! * w + off]!;
  for (;;) {
    // the band starts at lo: drop boxes ending there, add those starting there
    let keep = 0;
    let minEnd = Infinity;
    for (let i = 0; i < na; i++) {
      const e = boxes[active[i]! * w + off + 1]!;
      if (e > lo) {
        active[keep++] = active[i]!;
        if (e < minEnd) minEnd = e;
      }
    }
    na = keep;
    const carried = keep;
    const first = next;
    let maxEnd = -Infinity;
    while (next < m && boxes[idx[next]! * w + off]! <= lo) {
      const b = idx[next++]!;
      const e = boxes[b * w + off + 1]!;
      if (!(e > lo)) continue;
      if (e < minEnd) minEnd = e;
      if (e > maxEnd) maxEnd = e;
      if (lastButOne) {
        // keep `active` sorted by the child dimension's start: the child is a plain merge
        const key = boxes[b * w + coff]!;
        let j = na - 1;
        while (j >= 0 && boxes[active[j]! * w + coff]! > key) {
          active[j + 1] = active[j]!;
          j--;
        }
        active[j + 1] = b;
        na++;
      } else active[na++] = b;
    }
    if (na === 0) {
      // a gap: the group cannot touch what follows
      if (next >= m) break;
      lo = boxes[idx[next]! * w + off]!;
      continue;
    }
    const hi = next < m && boxes[idx[next]! * w + off]! < minEnd ? boxes[idx[next]! * w + off]! : minEnd;
    budget.left -= na;
    if (budget.left < 0) {
      throw new SelectionError(`block list too complex to normalise (more than ${CANONICAL_WORK_LIMIT} steps)`);
    }
    let cross: CrossSection;
    const from = inOrder ? idx[first]! : -1;
    if (inOrder && carried === 0 && next - first === na && maxEnd === hi && canonicalLevel(boxes, from, from + na, d + 1, rank, w)) {
      direct.at = from * w + coff;
      direct.count = na;
      cross = direct;
    } else {
      child.n = 0;
      if (lastButOne) {
        pushMerged(boxes, active, na, w, coff, child);
      } else if (!canonicalTails(boxes, active, na, coff, rank - d - 1, child, scratch)) {
        for (let i = 0; i < na; i++) scratch[i] = active[i]!;
        level(boxes, scratch, na, d + 1, rank, child, budget);
      }
      computed.src = child.buf;
      computed.count = child.n / cw;
      cross = computed;
    }
    if (ghi === lo && sameCross(group, cross, cw)) ghi = hi;
    else {
      if (ghi > glo) emitGroup(out, glo, ghi, group, cw);
      glo = lo;
      ghi = hi;
      group.src = cross.src;
      group.at = cross.at;
      group.count = cross.count;
      group.stride = cross.stride;
      if (cross === computed) {
        // the group keeps this band's boxes: the next band computes into the other buffer
        const t = prev;
        prev = child;
        child = t;
      }
    }
    lo = hi;
  }
  if (ghi > glo) emitGroup(out, glo, ghi, group, cw);
}

/**
 * The canonical boxes of the union of `boxes` (flat `[s0, e0, s1, e1, ...]` per box, end
 * exclusive, every box non-empty; any order, overlaps allowed). Rank ≥ 1. Linear-ish for
 * disjoint lists; adversarial overlapping lists (quadratic) stop with a {@link SelectionError}
 * after {@link CANONICAL_WORK_LIMIT} steps instead of hanging.
 */
export function canonicalBoxes(boxes: Float64Array, rank: number): Float64Array {
  const n = boxes.length / (2 * rank);
  if (n <= 1) return boxes;
  // What our encoder writes (and HDF5 for a union of blocks) is usually canonical already.
  if (isCanonicalBoxes(boxes, rank)) return boxes;
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  // room for a few boxes split at band edges (a group repeated over two frames) without regrowing
  const out = new Flat(boxes.length + (boxes.length >> 4) + 8 * rank);
  level(boxes, idx, n, 0, rank, out, { left: CANONICAL_WORK_LIMIT });
  // a view when little of the buffer is spare (a copy costs more than the spare bytes)
  return out.n >= out.buf.length - (out.buf.length >> 3) ? out.buf.subarray(0, out.n) : out.buf.slice(0, out.n);
}

/** True when boxes `[af, at)` and `[bf, bt)` agree in every number from offset `off` of a box on. */
function sameTails(b: Float64Array, af: number, at: number, bf: number, bt: number, off: number, w: number): boolean {
  if (at - af !== bt - bf) return false;
  for (let i = 0; i < at - af; i++) {
    const x = (af + i) * w;
    const y = (bf + i) * w;
    for (let k = off; k < w; k++) if (b[x + k] !== b[y + k]) return false;
  }
  return true;
}

/** {@link canonicalLevel} of the last two dimensions, d and d + 1, in one loop. */
function canonicalLastTwo(b: Float64Array, from: number, to: number, off: number, w: number): boolean {
  let prevE = -Infinity;
  let prevFrom = -1;
  let prevTo = -1;
  let i = from;
  while (i < to) {
    const s = b[i * w + off]!;
    const e = b[i * w + off + 1]!;
    if (!(e > s) || s < prevE) return false; // empty, unsorted or overlapping
    // the group's intervals in the last dimension: sorted, disjoint and not touching
    let lastEnd = -Infinity;
    let j = i;
    do {
      const ls = b[j * w + off + 2]!;
      const le = b[j * w + off + 3]!;
      if (!(le > ls) || ls <= lastEnd) return false;
      lastEnd = le;
      j++;
    } while (j < to && b[j * w + off] === s && b[j * w + off + 1] === e);
    // touching groups with equal cross-sections would have been merged
    if (s === prevE && sameTails(b, prevFrom, prevTo, i, j, off + 2, w)) return false;
    prevE = e;
    prevFrom = i;
    prevTo = j;
    i = j;
  }
  return true;
}

/** Canonical-form check of boxes `[from, to)` in dimensions d… (see {@link isCanonicalBoxes}). */
function canonicalLevel(b: Float64Array, from: number, to: number, d: number, rank: number, w: number): boolean {
  if (d === rank - 2) return canonicalLastTwo(b, from, to, 2 * d, w);
  const off = 2 * d;
  let prevE = -Infinity;
  let prevFrom = -1;
  let prevTo = -1;
  let i = from;
  while (i < to) {
    const s = b[i * w + off]!;
    const e = b[i * w + off + 1]!;
    if (!(e > s) || s < prevE) return false; // empty, unsorted or overlapping
    let j = i + 1;
    while (j < to && b[j * w + off] === s && b[j * w + off + 1] === e) j++;
    if (d === rank - 1) {
      // last dimension: one interval per group, touching intervals would have been merged
      if (j - i !== 1 || s === prevE) return false;
    } else {
      if (!canonicalLevel(b, i, j, d + 1, rank, w)) return false;
      // touching groups with equal cross-sections would have been merged
      if (s === prevE && sameTails(b, prevFrom, prevTo, i, j, off + 2, w)) return false;
    }
    prevE = e;
    prevFrom = i;
    prevTo = j;
    i = j;
  }
  return true;
}

/**
 * True when `boxes` (flat, rank ≥ 1) are already canonical (see `BlockSelection`): along each
 * dimension, groups of equal intervals are sorted, disjoint and hold canonical cross-sections, and
 * touching groups differ — so normalising would return them unchanged. Linear in the boxes.
 */
export function isCanonicalBoxes(boxes: Float64Array, rank: number): boolean {
  const w = 2 * rank;
  return canonicalLevel(boxes, 0, boxes.length / w, 0, rank, w);
}
