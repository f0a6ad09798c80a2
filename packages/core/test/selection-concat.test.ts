/**
 * Concatenating the per-chunk parts of a selection (chunk/defined.ts `unionAll` → selection/concat.ts)
 * gives exactly the canonical union a box sweep gives, for random selections split by random chunk grids
 * (including parts that touch across chunk rows with equal cross-sections, which must merge).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allChunks } from './support/chunk-grid.js';
import { chunkParts, unionAll } from '../src/chunk/defined.js';
import { concatSlabs } from '../src/selection/concat.js';
import { offsetSelection, selectBlocks, selectHyperslab, selectNone, toBlocks, union, type Box, type Selection } from '../src/selection/index.js';

const caseArb = fc
  .integer({ min: 1, max: 3 })
  .chain((rank) =>
    fc.tuple(
      fc.array(fc.integer({ min: 1, max: 12 }), { minLength: rank, maxLength: rank }),
      fc.array(fc.integer({ min: 1, max: 5 }), { minLength: rank, maxLength: rank }),
      fc.array(fc.array(fc.tuple(fc.nat(11), fc.integer({ min: 1, max: 6 })), { minLength: rank, maxLength: rank }), { maxLength: 8 }),
    ),
  );

const reduce = (parts: Selection[], dims: number[]): Selection => parts.reduce((a, b) => union(a, b, dims), selectNone() as Selection);

describe('unionAll concatenates disjoint per-chunk selections', () => {
  it('equals the merged union (same canonical boxes)', () => {
    fc.assert(
      fc.property(caseArb, ([dims, chunk, raw]) => {
        const boxes: Box[] = raw.map((b) => ({ start: b.map(([s], d) => Math.min(s, dims[d]! - 1)), end: b.map(([s, l], d) => Math.min(Math.min(s, dims[d]! - 1) + l, dims[d]!)) }));
        const sel = boxes.length ? selectBlocks(boxes) : selectNone();
        const parts = chunkParts(sel, dims, chunk, allChunks(dims, chunk)).map((p) => offsetSelection(p.chunkSel, p.start));
        const got = unionAll(parts, dims);
        const want = reduce(parts, dims);
        expect(got.kind === 'blocks' ? Array.from(got.boxes) : got.kind).toEqual(want.kind === 'blocks' ? Array.from(want.boxes) : want.kind);
        // shuffled input order gives the same result
        expect(unionAll([...parts].reverse(), dims)).toEqual(got);
      }),
      { numRuns: 400 },
    );
  });

  it('merges touching slabs with equal cross-sections, keeps different ones apart', () => {
    const a = selectHyperslab({ start: [0, 2], block: [2, 3] });
    const b = selectHyperslab({ start: [2, 2], block: [1, 3] });
    const c = selectHyperslab({ start: [3, 0], block: [1, 3] });
    expect(unionAll([a, b, c], [4, 6])).toEqual(union(union(a, b), c));
    const got = concatSlabs([new Float64Array([0, 2, 2, 5]), new Float64Array([2, 3, 2, 5]), new Float64Array([3, 4, 2, 5])], 2);
    expect(got).toEqual(selectBlocks([{ start: [0, 2], end: [4, 5] }]));
  });

  it('frames of many small boxes: one part per frame, concatenated', () => {
    const dims = [50, 64, 64];
    const parts: Selection[] = [];
    for (let f = 0; f < 50; f++) {
      const boxes: Box[] = [];
      for (let g = 0; g < 20; g++) boxes.push({ start: [f, (g * 7 + f) % 60, (g * 13) % 60], end: [f + 1, ((g * 7 + f) % 60) + 3, ((g * 13) % 60) + 3] });
      parts.push(selectBlocks(boxes));
    }
    // frames 10 and 11 identical: canonical form merges them into one dimension-0 interval
    parts[11] = offsetSelection(parts[10]!, [1, 0, 0]);
    expect(unionAll(parts, dims)).toEqual(reduce(parts, dims));
  });

  it('moves parts by their shifts while concatenating (as if moved before)', () => {
    fc.assert(
      fc.property(caseArb, ([dims, chunk, raw]) => {
        const boxes: Box[] = raw.map((b) => ({ start: b.map(([s], d) => Math.min(s, dims[d]! - 1)), end: b.map(([s, l], d) => Math.min(Math.min(s, dims[d]! - 1) + l, dims[d]!)) }));
        const sel = boxes.length ? selectBlocks(boxes) : selectNone();
        // chunks spanning every dimension but the first: the parts are disjoint slabs of dimension 0
        const slabChunk = dims.map((n, d) => (d === 0 ? chunk[0]! : n));
        const parts = chunkParts(sel, dims, slabChunk, allChunks(dims, slabChunk));
        const local = parts.map((p) => toBlocks(p.chunkSel, slabChunk)).map((b) => (b.kind === 'blocks' ? b.boxes : new Float64Array(0)));
        const moved = parts.map((p) => toBlocks(offsetSelection(p.chunkSel, p.start), dims)).map((b) => (b.kind === 'blocks' ? b.boxes : new Float64Array(0)));
        expect(concatSlabs(local, dims.length, parts.map((p) => p.start))).toEqual(concatSlabs(moved, dims.length));
      }),
      { numRuns: 400 },
    );
  });

  it('moves parts by shifts in any dimension, seams included (each part given minus its shift)', () => {
    fc.assert(
      fc.property(caseArb, fc.array(fc.integer({ min: -20, max: 20 }), { minLength: 12, maxLength: 12 }), ([dims, chunk, raw], offs) => {
        const boxes: Box[] = raw.map((b) => ({ start: b.map(([s], d) => Math.min(s, dims[d]! - 1)), end: b.map(([s, l], d) => Math.min(Math.min(s, dims[d]! - 1) + l, dims[d]!)) }));
        const sel = boxes.length ? selectBlocks(boxes) : selectNone();
        const slabChunk = dims.map((n, d) => (d === 0 ? chunk[0]! : n));
        const parts = chunkParts(sel, dims, slabChunk, allChunks(dims, slabChunk));
        const moved = parts.map((p) => toBlocks(offsetSelection(p.chunkSel, p.start), dims)).map((b) => (b.kind === 'blocks' ? b.boxes : new Float64Array(0)));
        const w = 2 * dims.length;
        const shifts = moved.map((_, j) => dims.map((_, d) => offs[(j * 3 + d) % offs.length]! * ((j + d) % 3 === 0 ? 0 : 1)));
        const local = moved.map((b, j) => b.map((v, i) => v - shifts[j]![(i % w) >> 1]!));
        const before = local.map((b) => b.slice());
        expect(concatSlabs(local, dims.length, shifts)).toEqual(concatSlabs(moved, dims.length));
        expect(local).toEqual(before); // the parts themselves are left as they were
      }),
      { numRuns: 400 },
    );
  });
});
