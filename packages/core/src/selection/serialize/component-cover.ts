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
 * @module
 */

/** Components larger than this (elements) keep their canonical boxes (bounds the expansion). */
const MAX_COMPONENT_ELEMENTS = 4096;
/** Box lists longer than this are left alone (bounds the work of one encode). */
const MAX_BOXES = 1 << 16;

/** Scratch arrays reused between calls (the function is synchronous). */
let parentBuf = new Int32Array(256);
let adjBuf = new Float64Array(256);
let elemBuf = new Float64Array(256);
let countBuf = new Int32Array(256);
let flagBuf = new Uint8Array(256);
let keyBuf = new Float64Array(64);

function find(parent: Int32Array, i: number): number {
  while (parent[i] !== i) {
    parent[i] = parent[parent[i]!]!;
    i = parent[i]!;
  }
  return i;
}

/** Sorts ascending in place: insertion sort for the few elements of a typical group. */
function sortSmall(a: Float64Array): Float64Array {
  if (a.length > 48) return a.sort();
  for (let i = 1; i < a.length; i++) {
    const v = a[i]!;
    let j = i - 1;
    while (j >= 0 && a[j]! > v) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = v;
  }
  return a;
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
 * n log n in the elements of the components written as column runs.
 */
export function componentCover(boxes: Float64Array, rank: number): Float64Array | null {
  const w = 2 * rank;
  const n = boxes.length / w;
  if (rank < 2 || n < 2 || n > MAX_BOXES) return null;
  const lead = rank - 2;
  const Y = 2 * lead;
  const X = Y + 2;
  if (parentBuf.length < n) {
    const size = Math.max(n, 2 * parentBuf.length);
    parentBuf = new Int32Array(size);
    adjBuf = new Float64Array(size);
    elemBuf = new Float64Array(size);
    countBuf = new Int32Array(size);
    flagBuf = new Uint8Array(size);
  }
  const parent = parentBuf;
  // Per box, then per component at its root (the smallest index of the component): vertical
  // adjacencies, elements, canonical boxes, flags (bit 0: not eligible, bit 1: column runs).
  const adj = adjBuf;
  const elems = elemBuf;
  const count = countBuf;
  const flags = flagBuf;
  for (let i = 0; i < n; i++) {
    const b = i * w;
    let a = 1;
    let bad = 0;
    for (let d = 0; d < rank; d++) {
      const e = boxes[b + 2 * d + 1]! - boxes[b + 2 * d]!;
      a *= e;
      if (d < lead && e !== 1) bad = 1;
    }
    parent[i] = i;
    elems[i] = a;
    adj[i] = (boxes[b + Y + 1]! - boxes[b + Y]! - 1) * (boxes[b + X + 1]! - boxes[b + X]!);
    count[i] = 1;
    flags[i] = bad;
  }
  // Canonical boxes: slices of equal leading intervals are contiguous; inside a slice, bands of
  // equal Y interval are contiguous, disjoint and increasing, each sorted by X.
  let prevStart = -1;
  let prevEnd = -1;
  let i = 0;
  while (i < n) {
    let j = i + 1;
    const y0 = boxes[i * w + Y]!;
    const y1 = boxes[i * w + Y + 1]!;
    while (j < n && boxes[j * w + Y] === y0 && boxes[j * w + Y + 1] === y1 && sameLead(boxes, i, j, w, lead)) j++;
    if (prevStart >= 0 && sameLead(boxes, prevStart, i, w, lead) && boxes[prevStart * w + Y + 1] === y0) {
      // Band [i, j) touches the band above: union the boxes whose X intervals overlap.
      let p = prevStart;
      let q = i;
      while (p < prevEnd && q < j) {
        const pa = boxes[p * w + X]!;
        const pb = boxes[p * w + X + 1]!;
        const qa = boxes[q * w + X]!;
        const qb = boxes[q * w + X + 1]!;
        const overlap = Math.min(pb, qb) - Math.max(pa, qa);
        if (overlap > 0) {
          const rp = find(parent, p);
          const rq = find(parent, q);
          if (rp < rq) parent[rq] = rp;
          else if (rq < rp) parent[rp] = rq;
          adj[q] += overlap;
        }
        if (pb <= qb) p++;
        else q++;
      }
    }
    prevStart = i;
    prevEnd = j;
    i = j;
  }
  // Fold every box into its root; roots have the smallest index, so a root is final when reached.
  for (let k = 0; k < n; k++) {
    const r = find(parent, k);
    parent[k] = r;
    if (r === k) continue;
    count[r]++;
    elems[r] += elems[k]!;
    adj[r] += adj[k]!;
    flags[r] |= flags[k]!;
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
  for (let k = 0; k < n; k++) {
    if (flags[parent[k]!] === 2) continue;
    for (let q = 0; q < w; q++) out[o++] = boxes[k * w + q]!;
  }
  // Column-run components, in the order of their root (first) box; elements sorted by (x, y).
  // Members are chained in `adj` (no longer needed): next member index, or -1; `count` holds tails.
  const next = adj;
  const tail = count;
  for (let k = 0; k < n; k++) {
    const r = parent[k]!;
    if (flags[r] !== 2) continue;
    if (r !== k) next[tail[r]!] = k;
    tail[r] = k;
    next[k] = -1;
  }
  let keys = keyBuf;
  for (let k = 0; k < n; k++) {
    if (parent[k] !== k || flags[k] !== 2) continue;
    let m = 0;
    if (keys.length < elems[k]!) keys = keyBuf = new Float64Array(MAX_COMPONENT_ELEMENTS);
    // Keys x · span + y, with span above every y of the component.
    let span = 0;
    for (let b = k; b >= 0; b = next[b]!) span = Math.max(span, boxes[b * w + Y + 1]!);
    for (let b = k; b >= 0; b = next[b]!) {
      const base = b * w;
      for (let y = boxes[base + Y]!; y < boxes[base + Y + 1]!; y++) {
        for (let x = boxes[base + X]!; x < boxes[base + X + 1]!; x++) keys[m++] = x * span + y;
      }
    }
    const sorted = sortSmall(keys.subarray(0, m));
    for (let s = 0; s < m; ) {
      let e = s + 1;
      while (e < m && sorted[e] === sorted[e - 1]! + 1 && Math.floor(sorted[e]! / span) === Math.floor(sorted[s]! / span)) e++;
      const x = Math.floor(sorted[s]! / span);
      const y = sorted[s]! - x * span;
      for (let q = 0; q < 2 * lead; q++) out[o + q] = boxes[k * w + q]!;
      out[o + Y] = y;
      out[o + Y + 1] = y + (e - s);
      out[o + X] = x;
      out[o + X + 1] = x + 1;
      o += w;
      s = e;
    }
  }
  return out;
}
