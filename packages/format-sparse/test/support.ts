/** Shared helpers of the format-sparse tests: contexts, requests from selections, random selections. */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { SparseChunk } from '../src/sparse-chunk.js';
import {
  parseDtype,
  selectBlocks,
  selectHyperslab,
  selectPoints,
  selectionRuns,
  type ChunkFormatContext,
  type ChunkRequest,
  type FilterPipeline,
  type Selection,
} from '@chunkform/core';

export function volume(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

export function unravel(i: number, dims: readonly number[]): number[] {
  const c = new Array<number>(dims.length);
  for (let d = dims.length - 1; d >= 0; d--) {
    c[d] = i % dims[d]!;
    i = Math.floor(i / dims[d]!);
  }
  return c;
}

/** A chunk format context for tests. */
export function makeContext(
  chunkDims: number[],
  elementSize: number,
  opts: Partial<ChunkFormatContext> & { sectionPipelines?: FilterPipeline[] } = {},
): ChunkFormatContext {
  const dtype = elementSize === 1 ? '<u1' : elementSize === 2 ? '<u2' : elementSize === 4 ? '<u4' : '<u8';
  return {
    datasetPath: '/sparse',
    datatype: parseDtype(dtype),
    elementSize,
    chunkDims,
    dims: () => chunkDims,
    fillValue: null,
    pipeline: { filters: [] },
    resolveFilter: () => undefined,
    dontFilterPartialChunks: false,
    ...opts,
  };
}

/** The chunk request of a chunk-relative selection: buffer order = the selection's iteration order. */
export function requestOf(sel: Selection, dims: readonly number[], coords: number[] = dims.map(() => 0)): ChunkRequest {
  const pairs = selectionRuns(sel, dims);
  const runs = new Float64Array((pairs.length / 2) * 3);
  let b = 0;
  for (let i = 0, k = 0; i < pairs.length; i += 2, k += 3) {
    runs[k] = pairs[i]!;
    runs[k + 1] = b;
    runs[k + 2] = pairs[i + 1]!;
    b += pairs[i + 1]!;
  }
  return { coords, runs, count: b, full: b === volume(dims) };
}

/** Linear offsets of a selection's elements in iteration order (duplicates kept for points). */
export function offsetsOf(sel: Selection, dims: readonly number[]): number[] {
  const pairs = selectionRuns(sel, dims);
  const out: number[] = [];
  for (let i = 0; i < pairs.length; i += 2) for (let k = 0; k < pairs[i + 1]!; k++) out.push(pairs[i]! + k);
  return out;
}

/** Random chunk dims, rank 1–4, small. */
export const dimsArb = fc.integer({ min: 1, max: 4 }).chain((r) => fc.array(fc.integer({ min: 1, max: r > 2 ? 4 : 7 }), { minLength: r, maxLength: r }));

/** A random selection inside `dims`: union of boxes, a regular hyperslab, or points (duplicates allowed). */
export function selectionArb(dims: readonly number[]): fc.Arbitrary<Selection> {
  const r = dims.length;
  const box = fc.tuple(...dims.map((n) => fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 1, max: n })))).map((iv) => ({
    start: iv.map(([s]) => s),
    end: iv.map(([s, l], d) => Math.min(dims[d]!, s + l)),
  }));
  const blocks = fc.array(box, { minLength: 1, maxLength: 4 }).map((bs) => selectBlocks(bs));
  const points = fc
    .array(fc.tuple(...dims.map((n) => fc.integer({ min: 0, max: n - 1 }))), { minLength: 1, maxLength: 12 })
    .map((ps) => selectPoints(ps, r));
  const hyper = fc
    .tuple(...dims.map((n) => fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }))))
    .map((iv) => {
      const start = iv.map(([s]) => s);
      const stride = iv.map(([, st]) => st);
      const block = iv.map(([s, st, b], d) => Math.min(b, st, dims[d]! - s));
      const count = iv.map(([s, st], d) => Math.floor((dims[d]! - s - block[d]!) / st) + 1);
      return selectHyperslab({ start, stride, count, block });
    });
  return fc.oneof(blocks, points, hyper) as fc.Arbitrary<Selection>;
}

/** Two chunks are equal: runs, values and (canonical) selection. */
export function sameMem(a: SparseChunk, b: SparseChunk): void {
  expect(Array.from(a.runs)).toEqual(Array.from(b.runs));
  expect(Array.from(a.values)).toEqual(Array.from(b.values));
  expect(a.selection).toEqual(b.selection);
}
