/**
 * A block cover for scattered small groups of elements (e.g. photon hits on a detector frame):
 * the canonical boxes are split into 4-connected components over the last two dimensions, and a
 * component whose column runs are fewer than its canonical boxes is written as column runs. The
 * blocks are then listed in two segments — the components kept as canonical (row-oriented) boxes,
 * then the column-run components — so that within each segment one end coordinate mostly repeats
 * its start coordinate. That layout is what a shuffle of the selection section by block record
 * exposes to the compressor (see the `'compact'` selection filter preset).
 *
 * Order and overlap of blocks do not change what a block list means: HDF5 ORs every block into
 * a span tree (H5Shyper.c, H5S__hyper_deserialize) and our decoder canonicalises, so the selection
 * and the C order of its values are unchanged.
 *
 * Runs once per encoded sparse chunk (the hot path of point-hit writes): every array is module
 * scratch reused between calls (the function is synchronous), the only allocation is the result.
 * @module
 */

/** Components larger than this (elements) keep their canonical boxes (bounds the expansion). */
const MAX_COMPONENT_ELEMENTS = 4096;
/** Box lists longer than this are left alone (bounds the work of one encode). */
const MAX_BOXES = 1 << 16;
/** Up to this many elements a component's keys are insertion-sorted (else `TypedArray.sort`). */
const INSERTION_SORT_MAX = 48;

/** Scratch arrays reused between calls, grown on demand. */
let cap = 0;
let parentBuf = new Int32Array(0);
let nextBuf = new Int32Array(0);
let countBuf = new Int32Array(0);
let adjBuf = new Float64Array(0);
let elemBuf = new Float64Array(0);
let flagBuf = new Uint8Array(0);
/** Per component root: smallest Y and X of its elements (column-run components only). */
let yMinBuf = new Float64Array(0);
let xMinBuf = new Float64Array(0);
/** Element keys of one component: (x − xmin) · span + (y − ymin). */
const keyBuf = new Float64Array(MAX_COMPONENT_ELEMENTS);

function scratch(n: number): void {
  if (n <= cap) return;
  cap = Math.max(n, 2 * cap, 256);
  parentBuf = new Int32Array(cap);
  nextBuf = new Int32Array(cap);
  countBuf = new Int32Array(cap);
  adjBuf = new Float64Array(cap);
  elemBuf = new Float64Array(cap);
  flagBuf = new Uint8Array(cap);
  yMinBuf = new Float64Array(cap);
  xMinBuf = new Float64Array(cap);
}

function find(parent: Int32Array, i: number): number {
  while (parent[i] !== i) {
    parent[i] = parent[parent[i]!]!;
    i = parent[i]!;
  }
  return i;
}

/** Sorts `a[0..m)` ascending in place: insertion sort for the few elements of a typical group. */
function sortKeys(a: Float64Array, m: number): void {
  if (m > INSERTION_SORT_MAX) {
    a.subarray(0, m).sort();
    return;
  }
  for (let i = 1; i < m; i++) {
    const v = a[i]!;
    let j = i - 1;
    while (j >= 0 && a[j]! > v) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = v;
  }
}

/** True when boxes `a` and `b` have the same intervals in dimensions 0 .. lead-1. */
function sameLead(boxes: Float64Array, a: number, b: number, w: number, lead: number): boolean {
  for (let k = 0; k < 2 * lead; k++) if (boxes[a * w + k] !== boxes[b * w + k]) return false;
  return true;
}

/**
 * The component cover of canonical `boxes` (rank ≥ 2, see `BlockSelection`), or null when no
 * component gets fewer blocks as column runs (then the canonical boxes are at least as good).
 * The result is disjoint and has fewer blocks than `boxes`. Linear in the boxes plus
 * n log n in the elements of the components written as column runs; returns null without
 * further work when no two boxes touch vertically (every component is then a single box, which
 * never has fewer column runs than boxes).
 */
export function componentCover(boxes: Float64Array, rank: number): Float64Array | null {
  const w = 2 * rank;
  const n = boxes.length / w;
  if (rank < 2 || n < 2 || n > MAX_BOXES) return null;
  const lead = rank - 2;
  const Y = 2 * lead;
  const X = Y + 2;
  scratch(n);
  const parent = parentBuf;
  // Per box, then per component at its root (the smallest index of the component): vertical
  // adjacencies, elements, canonical boxes, flags (bit 0: not eligible, bit 1: column runs).
  const adj = adjBuf;
  const elems = elemBuf;
  const count = countBuf;
  const flags = flagBuf;
  for (let i = 0, b = 0; i < n; i++, b += w) {
    parent[i] = i;
    adj[i] = (boxes[b + Y + 1]! - boxes[b + Y]! - 1) * (boxes[b + X + 1]! - boxes[b + X]!);
  }
  // Canonical boxes: slices of equal leading intervals are contiguous; inside a slice, bands of
  // equal Y interval are contiguous, disjoint and increasing, each sorted by X.
  let merged = false;
  let prevStart = -1;
  let prevEnd = -1;
  let i = 0;
  while (i < n) {
    let j = i + 1;
    const y0 = boxes[i * w + Y]!;
    const y1 = boxes[i * w + Y + 1]!;
    while (j < n && boxes[j * w + Y] === y0 && boxes[j * w + Y + 1] === y1 && (lead === 0 || sameLead(boxes, i, j, w, lead))) j++;
    if (prevStart >= 0 && boxes[prevStart * w + Y + 1] === y0 && (lead === 0 || sameLead(boxes, prevStart, i, w, lead))) {
      // Band [i, j) touches the band above: union the boxes whose X intervals overlap.
      let p = prevStart;
      let q = i;
      while (p < prevEnd && q < j) {
        const pa = boxes[p * w + X]!;
        const pb = boxes[p * w + X + 1]!;
        const qa = boxes[q * w + X]!;
        const qb = boxes[q * w + X + 1]!;
        const overlap = (pb < qb ? pb : qb) - (pa > qa ? pa : qa);
        if (overlap > 0) {
          const rp = find(parent, p);
          const rq = find(parent, q);
          if (rp < rq) parent[rq] = rp;
          else if (rq < rp) parent[rp] = rq;
          adj[q] += overlap;
          merged = true;
        }
        if (pb <= qb) p++;
        else q++;
      }
    }
    prevStart = i;
    prevEnd = j;
    i = j;
  }
  if (!merged) return null;
  // Fold every box into its root; roots have the smallest index, so a root is set up before any
  // other box of its component is folded into it.
  for (let k = 0, b = 0; k < n; k++, b += w) {
    let e = 1;
    let bad = 0;
    for (let d = 0; d < rank; d++) {
      const len = boxes[b + 2 * d + 1]! - boxes[b + 2 * d]!;
      e *= len;
      if (d < lead && len !== 1) bad = 1;
    }
    const r = find(parent, k);
    parent[k] = r;
    if (r === k) {
      elems[k] = e;
      count[k] = 1;
      flags[k] = bad;
    } else {
      count[r]!++;
      elems[r] += e;
      adj[r] += adj[k]!;
      flags[r] |= bad;
    }
  }
  // Column runs of a component = elements − vertical adjacencies.
  let any = false;
  let total = 0;
  for (let r = 0; r < n; r++) {
    if (parent[r] !== r) continue;
    const runs = elems[r]! - adj[r]!;
    if (flags[r] === 0 && elems[r]! <= MAX_COMPONENT_ELEMENTS && runs < count[r]!) {
      flags[r] = 2;
      any = true;
      total += runs;
    } else total += count[r]!;
  }
  if (!any) return null;
  const out = new Float64Array(total * w);
  let o = 0;
  // Kept boxes in their order; column-run components chained (next member index or −1, `count`
  // holds the chain's tail) with their smallest Y and X at the root.
  const next = nextBuf;
  const tail = count;
  const yMin = yMinBuf;
  const xMin = xMinBuf;
  for (let k = 0, b = 0; k < n; k++, b += w) {
    const r = parent[k]!;
    if (flags[r] !== 2) {
      for (let q = 0; q < w; q++) out[o++] = boxes[b + q]!;
      continue;
    }
    const y = boxes[b + Y]!;
    const x = boxes[b + X]!;
    if (r === k) {
      yMin[r] = y;
      xMin[r] = x;
    } else {
      next[tail[r]!] = k;
      if (y < yMin[r]!) yMin[r] = y;
      if (x < xMin[r]!) xMin[r] = x;
    }
    tail[r] = k;
    next[k] = -1;
  }
  // Column-run components, in the order of their root (first) box; elements sorted by (x, y).
  const keys = keyBuf;
  for (let k = 0; k < n; k++) {
    if (parent[k] !== k || flags[k] !== 2) continue;
    const y0 = yMin[k]!;
    const x0 = xMin[k]!;
    // Keys (x − x0) · span + (y − y0), with span above every y − y0 of the component.
    let span = 0;
    for (let b = k; b >= 0; b = next[b]!) {
      const h = boxes[b * w + Y + 1]! - y0;
      if (h > span) span = h;
    }
    let m = 0;
    for (let b = k; b >= 0; b = next[b]!) {
      const base = b * w;
      const ya = boxes[base + Y]! - y0;
      const yb = boxes[base + Y + 1]! - y0;
      const xa = boxes[base + X]! - x0;
      const xb = boxes[base + X + 1]! - x0;
      for (let y = ya; y < yb; y++) for (let x = xa; x < xb; x++) keys[m++] = x * span + y;
    }
    sortKeys(keys, m);
    for (let s = 0; s < m; ) {
      const first = keys[s]!;
      const x = Math.floor(first / span);
      const y = first - x * span;
      const colEnd = (x + 1) * span;
      let e = s + 1;
      while (e < m && keys[e] === keys[e - 1]! + 1 && keys[e]! < colEnd) e++;
      for (let q = 0; q < Y; q++) out[o + q] = boxes[k * w + q]!;
      out[o + Y] = y0 + y;
      out[o + Y + 1] = y0 + y + (e - s);
      out[o + X] = x0 + x;
      out[o + X + 1] = x0 + x + 1;
      o += w;
      s = e;
    }
  }
  return out;
}
