/**
 * `mapChunksAt` (chunk mapping restricted to given chunks, for reads of mostly absent extents): for
 * product selections it gives exactly the pieces `mapToChunks` gives for those chunks — same runs,
 * same buffer positions, counts and `full` flags — and null for selections that are not products.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapChunksAt, mapToChunks } from '../src/chunk/mapping.js';
import { selectBlocks, selectPoints } from '../src/selection/index.js';
import { dimsArb, modelledArb } from './support/selection-model.js';

const plain = (p: { coords: number[]; runs: Float64Array; count: number; full: boolean }): unknown => ({ ...p, runs: Array.from(p.runs) });

describe('mapChunksAt', () => {
  it('equals mapToChunks filtered to the chunks asked for (all, hyperslabs, single boxes)', () => {
    const arb = dimsArb.chain((dims) =>
      fc.tuple(
        fc.constant(dims),
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: dims.length, maxLength: dims.length }),
        modelledArb(dims, ['all', 'hyperslab', 'blocks']),
        fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 12 }),
      ),
    );
    fc.assert(
      fc.property(arb, ([dims, chunk, m, picks]) => {
        const full = mapToChunks(m.sel, dims, chunk);
        const grid = dims.map((n, d) => Math.ceil(n / chunk[d]!));
        const total = grid.reduce((a, b) => a * b, 1);
        // chunk coordinates picked at random (touched by the selection or not), without duplicates, in C order
        const wanted = [...new Set(picks.map((k) => k % total))].sort((a, b) => a - b).map((k) => {
          const c: number[] = [];
          for (let d = dims.length - 1; d >= 0; d--) {
            c[d] = k % grid[d]!;
            k = Math.floor(k / grid[d]!);
          }
          return c;
        });
        const at = mapChunksAt(m.sel, dims, chunk, wanted);
        if (at === null) {
          // only unions of several boxes are not products
          expect(m.sel.kind).toBe('blocks');
          return;
        }
        const keys = new Set(wanted.map((c) => c.join(',')));
        expect(at.map(plain)).toEqual(full.filter((p) => keys.has(p.coords.join(','))).map(plain));
      }),
      { numRuns: 400 },
    );
  });

  it('is null for points and unions of boxes', () => {
    expect(mapChunksAt(selectPoints([[1, 1]]), [4, 4], [2, 2], [[0, 0]])).toBeNull();
    const two = selectBlocks([
      { start: [0, 0], end: [1, 1] },
      { start: [2, 2], end: [3, 4] },
    ]);
    expect(mapChunksAt(two, [4, 4], [2, 2], [[0, 0]])).toBeNull();
  });
});
