/**
 * Chunk mapping with row patterns (`mapToChunks(…, { piece: rowPieces })`, used by gathered full-chunk
 * writes): every piece has exactly the runs, counts and `full` flags of the plain mapping, and a piece
 * that carries `rows` expands to its runs; whole tiles of a larger box come out as row patterns.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapToChunks } from '../src/chunk/mapping.js';
import { rowPieces, rowTriples } from '../src/chunk/row-pieces.js';
import { selectAll, selectBlocks } from '../src/selection/index.js';
import { dimsArb, modelledArb } from './support/selection-model.js';

const plain = (p: { coords: number[]; runs: Float64Array; count: number; full: boolean }): unknown => ({ coords: p.coords, runs: Array.from(p.runs), count: p.count, full: p.full });

describe('mapToChunks with row patterns', () => {
  it('gives the pieces of the plain mapping (all, hyperslabs, blocks)', () => {
    const arb = dimsArb.chain((dims) =>
      fc.tuple(fc.constant(dims), fc.array(fc.integer({ min: 1, max: 6 }), { minLength: dims.length, maxLength: dims.length }), modelledArb(dims, ['all', 'hyperslab', 'blocks'])),
    );
    fc.assert(
      fc.property(arb, ([dims, chunk, m]) => {
        const want = mapToChunks(m.sel, dims, chunk);
        const got = mapToChunks(m.sel, dims, chunk, { piece: rowPieces });
        for (const p of got) if (p.rows) expect(Array.from(rowTriples(p.rows))).toEqual(Array.from(p.runs));
        expect(got.map(plain)).toEqual(want.map(plain));
      }),
      { numRuns: 300 },
    );
  });

  it('maps whole tiles of a frame stack to row patterns (no run lists), edge tiles and partial boxes too', () => {
    const dims = [3, 10, 12];
    const pieces = mapToChunks(selectAll(), dims, [1, 4, 4], { piece: rowPieces });
    expect(pieces).toHaveLength(3 * 3 * 3);
    expect(pieces.every((p) => p.rows !== undefined)).toBe(true);
    // chunk [1, 1, 2]: rows 4–7 of frame 1, elements 8–11 of each
    const p = pieces.find((q) => q.coords.join() === '1,1,2')!;
    expect(p.rows).toEqual({ n: 4, len: 4, c: 0, cs: 4, b: 120 + 4 * 12 + 8, bs: 12 });
    expect(p.full).toBe(true);
    // an edge tile (rows 8–9 only)
    const e = pieces.find((q) => q.coords.join() === '0,2,0')!;
    expect(e.rows).toEqual({ n: 2, len: 4, c: 0, cs: 4, b: 8 * 12, bs: 12 });
    expect(e.count).toBe(8);
    // a box starting inside a chunk: buffer offsets relative to the box
    const box = mapToChunks(selectBlocks([{ start: [1, 1, 2], end: [2, 6, 10] }]), dims, [1, 4, 4], { piece: rowPieces });
    const first = box[0]!;
    expect(first.coords).toEqual([1, 0, 0]);
    expect(first.rows).toEqual({ n: 3, len: 2, c: 4 + 2, cs: 4, b: 0, bs: 8 });
    expect(Array.from(first.runs)).toEqual([6, 0, 2, 10, 8, 2, 14, 16, 2]);
  });
});
