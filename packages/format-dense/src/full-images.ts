/**
 * The stored images of unfiltered dense chunks written in full (the chunk engine's gathered writes,
 * `DenseUnfilteredFormat.fullImages`). Write path only.
 *
 * `fullImages` runs once per gathered group (about 25 times per 100 MB) and is left to the interpreter and
 * baseline compiler; its loops are the small functions below, optimised on their own (compiled with
 * them inlined it took 15–45 ms of a background thread during the first writes of a process).
 * @module
 */
import type { ChunkRequest } from '@chunkform/core';
import { copyRunsIn, copyRunsMerged, copyRunsStaged, fillBuffer, MAX_MERGE, stagePieces, type StagePiece } from './runs.js';

/** The dense chunk geometry `fullImages` needs. */
export interface DenseChunkShape {
  /** Bytes per element. */
  es: number;
  /** Elements per chunk. */
  chunkElements: number;
  /** The fill value's bytes (edge chunks keep it outside the dataset). */
  fill: Uint8Array;
}

/** True when `runs` are one run covering a whole chunk of `elements` elements. */
export function isWholeRun(runs: Float64Array, elements: number): boolean {
  return runs.length === 3 && runs[0] === 0 && runs[2] === elements;
}

/**
 * The stored images of chunks written in full: views of `src` where it holds a chunk in order,
 * else built in the scratch buffer — through staging copies of the stretches of `src` they come
 * from when their rows are short (`stagePieces`, `copyRunsStaged`), else copying the rows of
 * neighbouring chunks in `src` order.
 */
export function fullImages(shape: DenseChunkShape, reqs: readonly ChunkRequest[], src: Uint8Array, scratch: (extra: number) => Uint8Array): Uint8Array[] {
  const images: Uint8Array[] = new Array(reqs.length);
  const { built, at } = wholeViews(shape, reqs, src, images);
  if (built.length === 0) return images;
  const pieces = stagePieces(built, shape.es);
  const buf = scratch(stagingExtra(pieces));
  const views = builtViews(shape, reqs, at, buf, images);
  buildPieces(shape, pieces, built, at, views, src, buf, reqs.length * shape.chunkElements * shape.es);
  return images;
}

/** Sets `images[i]` to a view of `src` for each chunk `src` holds in order; returns the others and their offsets in the scratch buffer. */
function wholeViews(shape: DenseChunkShape, reqs: readonly ChunkRequest[], src: Uint8Array, images: Uint8Array[]): { built: ChunkRequest[]; at: number[] } {
  const { es, chunkElements } = shape;
  const size = chunkElements * es;
  const built: ChunkRequest[] = [];
  const at: number[] = [];
  for (let i = 0; i < reqs.length; i++) {
    const req = reqs[i]!;
    const p = req.rows;
    // One run covering the whole chunk (as triples or as rows that merge): a view of `src`.
    const whole = p ? p.c === 0 && p.n * p.len === chunkElements && (p.n === 1 || (p.cs === p.len && p.bs === p.len)) : isWholeRun(req.runs, chunkElements);
    if (whole) {
      const b = (p ? p.b : req.runs[1]!) * es;
      images[i] = src.subarray(b, b + size);
      continue;
    }
    built.push(req);
    at.push(i * size);
  }
  return { built, at };
}

/** The staging room the pieces need (the largest stretch staged). */
function stagingExtra(pieces: readonly StagePiece[]): number {
  let extra = 0;
  for (const p of pieces) if (p.staged) extra = Math.max(extra, p.span.hi - p.span.lo);
  return extra;
}

/** The images built in `buf` (at byte offsets `at`), set in `images`; edge chunks filled with the fill value first. */
function builtViews(shape: DenseChunkShape, reqs: readonly ChunkRequest[], at: readonly number[], buf: Uint8Array, images: Uint8Array[]): Uint8Array[] {
  const size = shape.chunkElements * shape.es;
  const views: Uint8Array[] = [];
  for (let k = 0; k < at.length; k++) {
    const i = at[k]! / size;
    const image = (images[i] = buf.subarray(at[k]!, at[k]! + size));
    views.push(image);
    // An edge chunk keeps fill values outside the dataset; an interior one is fully overwritten.
    if (reqs[i]!.count !== shape.chunkElements) fillBuffer(image, shape.fill);
  }
  return views;
}

/** Copies the runs of the built chunks into their views, piece by piece (staged from `stage` on in `buf` where the piece is staged and fits). */
function buildPieces(
  shape: DenseChunkShape,
  pieces: readonly StagePiece[],
  built: readonly ChunkRequest[],
  at: readonly number[],
  views: readonly Uint8Array[],
  src: Uint8Array,
  buf: Uint8Array,
  stage: number,
): void {
  const es = shape.es;
  for (const { from, to, span, staged } of pieces) {
    if (staged && buf.length - stage >= span.hi - span.lo) copyRunsStaged(built.slice(from, to), at.slice(from, to), src, span, buf, stage, es);
    else if (to - from > 1 && to - from <= MAX_MERGE) copyRunsMerged(built.slice(from, to).map((r) => r.runs), views.slice(from, to), new Array<number>(to - from).fill(0), src, es, false);
    else for (let q = from; q < to; q++) copyRunsIn(views[q]!, built[q]!, src, es);
  }
}
