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

/** True when two groups of `n` boxes have the same coordinates outside dimension 0 (those of `b` moved by `shift`). */
function sameCrossSection(a: Float64Array, ia: number, b: Float64Array, ib: number, n: number, w: number, shift: readonly number[] | undefined): boolean {
  for (let i = 0; i < n; i++) {
    for (let k = 2; k < w; k++) if (a[ia + i * w + k] !== b[ib + i * w + k]! + (shift ? shift[k >> 1]! : 0)) return false;
  }
  return true;
}

/**
 * Copies the boxes `p[from…]` to `out` at `at`, moved by `shift` (one entry per dimension) when given:
 * one bulk copy, then a pass over the boxes only for each dimension moved (chunks that are slabs of
 * dimension 0 move in dimension 0 alone), which is what costs before V8 has optimised the loop.
 */
function copyBoxes(out: Float64Array, at: number, p: Float64Array, from: number, w: number, shift: readonly number[] | undefined): void {
  out.set(from === 0 ? p : p.subarray(from), at);
  if (!shift) return;
  const end = at + p.length - from;
  for (let d = 0; d < w >> 1; d++) {
    const s = shift[d]!;
    if (s === 0) continue;
    for (let k = at + 2 * d; k < end; k += w) {
      out[k] = out[k]! + s;
      out[k + 1] = out[k + 1]! + s;
    }
  }
}

/**
 * The canonical union of canonical box arrays `parts` (rank ≥ 1) given in dimension-0 order, where
 * every box of a part ends (in dimension 0) at or before every box of the next part starts —
 * after moving part i by `shifts[i]` (one entry per dimension; e.g. chunk-relative boxes moved to
 * their chunk's start) when given.
 */
export function concatSlabs(parts: readonly Float64Array[], rank: number, shifts?: readonly (readonly number[])[]): BlockSelection | NoneSelection {
  const w = 2 * rank;
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Float64Array(total);
  let len = 0;
  // start of the last dimension-0 group written to `out`
  let lastGroup = 0;
  for (let j = 0; j < parts.length; j++) {
    const p = parts[j]!;
    const shift = shifts?.[j];
    if (p.length === 0) continue;
    let from = 0;
    if (len > 0 && out[len - w + 1] === p[0]! + (shift ? shift[0]! : 0)) {
      // the slabs touch: merge the seam groups when their cross-sections are equal
      const n = (len - lastGroup) / w;
      if (groupLength(p, 0, p.length, w) === n && sameCrossSection(out, lastGroup, p, 0, n, w, shift)) {
        const e0 = p[1]! + (shift ? shift[0]! : 0);
        for (let k = lastGroup; k < len; k += w) out[k + 1] = e0;
        from = n * w;
      }
    }
    if (from < p.length) {
      copyBoxes(out, len, p, from, w, shift);
      len += p.length - from;
      if (j === parts.length - 1) break; // (no seam follows)
      // the last group of `p` starts where its last box's dimension-0 interval starts
      let k = len - w;
      while (k - w >= 0 && out[k - w] === out[len - w] && out[k - w + 1] === out[len - w + 1]) k -= w;
      lastGroup = k;
    }
  }
  return blocksFromCanonical(len === total ? out : out.slice(0, len), rank);
}
