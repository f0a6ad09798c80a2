/**
 * Union of selections that lie in disjoint slabs of dimension 0 (e.g. the defined elements of chunks
 * in different chunk rows): the canonical boxes of each, concatenated in dimension-0 order, with the
 * one merge canonical form needs where two slabs touch and have equal cross-sections. Linear in the
 * number of boxes (no sweep): whole typed-array copies plus a check at each seam.
 * @module
 */
import { blocksFromCanonical, type BlockSelection, type NoneSelection } from './selection.js';

/** Number of leading boxes (from `from`) sharing box `from`'s dimension-0 interval. */
function groupLength(b: Float64Array, from: number, end: number, w: number): number {
  const s = b[from]!;
  const e = b[from + 1]!;
  let k = from + w;
  while (k < end && b[k] === s && b[k + 1] === e) k += w;
  return (k - from) / w;
}

/** True when two groups of `n` boxes have the same coordinates outside dimension 0. */
function sameCrossSection(a: Float64Array, ia: number, b: Float64Array, ib: number, n: number, w: number): boolean {
  for (let i = 0; i < n; i++) {
    for (let k = 2; k < w; k++) if (a[ia + i * w + k] !== b[ib + i * w + k]) return false;
  }
  return true;
}

/**
 * The canonical union of canonical box arrays `parts` (rank ≥ 1) given in dimension-0 order, where
 * every box of a part ends (in dimension 0) at or before every box of the next part starts.
 */
export function concatSlabs(parts: readonly Float64Array[], rank: number): BlockSelection | NoneSelection {
  const w = 2 * rank;
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Float64Array(total);
  let len = 0;
  // start of the last dimension-0 group written to `out`
  let lastGroup = 0;
  for (const p of parts) {
    if (p.length === 0) continue;
    let from = 0;
    if (len > 0 && out[len - w + 1] === p[0]) {
      // the slabs touch: merge the seam groups when their cross-sections are equal
      const n = (len - lastGroup) / w;
      if (groupLength(p, 0, p.length, w) === n && sameCrossSection(out, lastGroup, p, 0, n, w)) {
        const e0 = p[1]!;
        for (let k = lastGroup; k < len; k += w) out[k + 1] = e0;
        from = n * w;
      }
    }
    if (from < p.length) {
      out.set(from === 0 ? p : p.subarray(from), len);
      len += p.length - from;
      // the last group of `p` starts where its last box's dimension-0 interval starts
      let k = len - w;
      while (k - w >= 0 && out[k - w] === out[len - w] && out[k - w + 1] === out[len - w + 1]) k -= w;
      lastGroup = k;
    }
  }
  return blocksFromCanonical(len === total ? out : out.slice(0, len), rank);
}
