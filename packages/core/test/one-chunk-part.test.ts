/**
 * `oneChunkPart` (src/chunk/defined.ts), the frame-read shortcut of `readDefined`: for every box-shaped
 * selection (a one-block hyperslab, a strided hyperslab whose blocks touch, one box, `all`) it gives the
 * part that the general `chunkParts` gives when the selection lies in one chunk, and null otherwise.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allChunks } from './support/chunk-grid.js';
import { chunkParts, oneChunkPart } from '../src/chunk/defined.js';
import { selectAll, selectBlocks, selectHyperslab, selectNone, type Selection } from '../src/selection/index.js';

const caseArb = fc.integer({ min: 1, max: 3 }).chain((rank) =>
  fc.tuple(
    fc.array(fc.integer({ min: 1, max: 9 }), { minLength: rank, maxLength: rank }),
    fc.array(fc.integer({ min: 1, max: 5 }), { minLength: rank, maxLength: rank }),
    fc.array(fc.tuple(fc.nat(8), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 2 })), { minLength: rank, maxLength: rank }),
    fc.constantFrom('hyperslab', 'blocks', 'all'),
  ),
);

describe('oneChunkPart', () => {
  it('equals the one part chunkParts finds, or is null when the selection is not one box in one chunk', () => {
    fc.assert(
      fc.property(caseArb, ([dims, chunk, spec, kind]) => {
        const start = spec.map(([s], d) => Math.min(s, dims[d]! - 1));
        const block = spec.map(([, b], d) => Math.min(b, dims[d]! - start[d]!));
        let sel: Selection;
        if (kind === 'all') sel = selectAll();
        else if (kind === 'blocks') sel = selectBlocks([{ start, end: start.map((s, d) => s + block[d]!) }]);
        else {
          // counts above 1 only where they fit; stride = block (touching blocks: one box) or block + 1 (several)
          const count = spec.map(([, , c], d) => (block[d]! > 0 && start[d]! + c * block[d]! * 2 <= dims[d]! ? c : 1));
          const stride = spec.map(([, b, , st], d) => Math.max(1, b === 0 ? 1 : block[d]! + st - 1));
          sel = selectHyperslab({ start, block, count, stride });
        }
        const got = oneChunkPart(sel, dims, chunk);
        const parts = chunkParts(sel, dims, chunk, allChunks(dims, chunk));
        const oneBox = parts.length === 1 && parts[0]!.chunkSel.kind === 'blocks' && parts[0]!.chunkSel.boxCount === 1;
        if (!oneBox) {
          expect(got).toBeNull();
          return;
        }
        expect(got).not.toBeNull();
        expect(got!.coords).toEqual(parts[0]!.coords);
        expect(got!.start).toEqual(parts[0]!.start);
        expect(got!.chunkSel).toEqual(parts[0]!.chunkSel);
      }),
      { numRuns: 1500 },
    );
  });

  it('a frame of a chunk of several frames: the frame as a box of the chunk', () => {
    const part = oneChunkPart(selectHyperslab({ start: [70, 0, 0], block: [1, 16, 16] }), [200, 16, 16], [64, 16, 16]);
    expect(part).toEqual({ coords: [1, 0, 0], start: [64, 0, 0], chunkSel: selectBlocks([{ start: [6, 0, 0], end: [7, 16, 16] }]) });
    expect(oneChunkPart(selectHyperslab({ start: [63, 0, 0], block: [2, 16, 16] }), [200, 16, 16], [64, 16, 16])).toBeNull();
    expect(oneChunkPart(selectNone(), [200, 16, 16], [64, 16, 16])).toBeNull();
  });
});
