/**
 * Copying elements between a dense chunk buffer and a request buffer by runs (whole subarray
 * copies, never per element).
 * @module
 */
import type { ChunkRequest } from '@chunkform/core';

/** Copies the requested runs from `chunk` into `out`. */
export function copyRunsOut(chunk: Uint8Array, req: ChunkRequest, out: Uint8Array, es: number): void {
  const r = req.runs;
  for (let i = 0; i < r.length; i += 3) {
    const c = r[i]! * es;
    out.set(chunk.subarray(c, c + r[i + 2]! * es), r[i + 1]! * es);
  }
}

/** Copies the requested runs from `src` into `chunk`. */
export function copyRunsIn(chunk: Uint8Array, req: ChunkRequest, src: Uint8Array, es: number): void {
  const r = req.runs;
  for (let i = 0; i < r.length; i += 3) {
    const b = r[i + 1]! * es;
    chunk.set(src.subarray(b, b + r[i + 2]! * es), r[i]! * es);
  }
}

/** Byte range [start, end) of the chunk that the runs touch. */
export function runsByteRange(req: ChunkRequest, es: number): [number, number] {
  const r = req.runs;
  let lo = Infinity;
  let hi = 0;
  for (let i = 0; i < r.length; i += 3) {
    lo = Math.min(lo, r[i]!);
    hi = Math.max(hi, r[i]! + r[i + 2]!);
  }
  return [lo * es, hi * es];
}

/** A buffer of `count` elements, each `value` (zeros when `value` is null or all zero). */
export function filledBuffer(count: number, value: Uint8Array | null): Uint8Array {
  const es = value?.length ?? 0;
  const out = new Uint8Array(count * (es || 1));
  if (!value || !value.some((b) => b !== 0)) return out;
  out.set(value, 0);
  for (let filled = es; filled < out.length; filled *= 2) out.copyWithin(filled, 0, Math.min(filled, out.length - filled));
  return out;
}
