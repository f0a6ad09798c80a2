/**
 * Copies between a flat (C-order) element buffer and a selection's buffer by runs: the shared
 * inner loop of compact and contiguous storage.
 * @module
 */
import { ValueError } from '../errors.js';
import type { Selection } from '../selection/selection.js';

/** Checks that a caller's output buffer holds exactly `count` elements of `es` bytes. */
export function checkInto(into: Uint8Array, count: number, es: number, path: string): void {
  if (into.length !== count * es) {
    throw new ValueError(`output buffer has ${into.length} bytes, the selection needs ${count * es} (${count} elements of ${es} bytes)`, { path });
  }
}

/** True for the "everything" selection. */
export function isAll(sel: Selection): boolean {
  return sel.kind === 'all';
}

/** First and one-past-last linear element of a run list (`[start, length, ...]`). */
export function runsExtent(runs: Float64Array): [number, number] {
  let lo = Infinity;
  let hi = 0;
  for (let i = 0; i < runs.length; i += 2) {
    lo = Math.min(lo, runs[i]!);
    hi = Math.max(hi, runs[i]! + runs[i + 1]!);
  }
  return runs.length === 0 ? [0, 0] : [lo, hi];
}

/** Copies runs out of `flat` (whose element 0 is linear element `base`) into consecutive `out`. */
export function copyRunsFromFlat(flat: Uint8Array, base: number, runs: Float64Array, out: Uint8Array, es: number): void {
  let o = 0;
  for (let i = 0; i < runs.length; i += 2) {
    const s = (runs[i]! - base) * es;
    const n = runs[i + 1]! * es;
    out.set(flat.subarray(s, s + n), o);
    o += n;
  }
}

/** Copies consecutive `src` elements into the runs of `flat` (whose element 0 is linear element `base`). */
export function copyRunsToFlat(flat: Uint8Array, base: number, runs: Float64Array, src: Uint8Array, es: number): void {
  let o = 0;
  for (let i = 0; i < runs.length; i += 2) {
    const n = runs[i + 1]! * es;
    flat.set(src.subarray(o, o + n), (runs[i]! - base) * es);
    o += n;
  }
}

/** `count` elements of `es` bytes, each the fill value (zeros when none). */
export function filledBytes(count: number, es: number, fill: Uint8Array | null): Uint8Array {
  const out = new Uint8Array(count * es);
  if (!fill || fill.length !== es || !fill.some((b) => b !== 0) || out.length === 0) return out;
  out.set(fill, 0);
  repeatFirst(out, es);
  return out;
}

/** Repeats the first `es` bytes of `out` (one element) over all of `out`, doubling the copied span each step. */
export function repeatFirst(out: Uint8Array, es: number): void {
  for (let filled = es; filled < out.length; filled *= 2) out.copyWithin(filled, 0, Math.min(filled, out.length - filled));
}
