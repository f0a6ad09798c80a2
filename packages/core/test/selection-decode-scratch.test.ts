/**
 * Block-list decoding reads corners into a reused scratch buffer: every decoded selection must own
 * its boxes. And the `smallest` encoding keeps a canonical list when a cover would save little.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toBlocks } from '../src/selection/algebra.js';
import { normalizeBoxes } from '../src/selection/boxes.js';
import { selectBlocks, type Box } from '../src/selection/selection.js';
import { isCanonicalBoxes } from '../src/selection/serialize/canonical.js';
import { smallestBody } from '../src/selection/serialize/choose.js';
import { decodeSelection, encodeSelection } from '../src/selection/serialize/index.js';

const DIMS = [12, 40, 40];

const boxArb = fc
  .tuple(fc.integer({ min: 0, max: 11 }), fc.integer({ min: 0, max: 36 }), fc.integer({ min: 0, max: 36 }), fc.integer({ min: 1, max: 3 }))
  .map(([f, y, x, h]): Box => ({ start: [f, y, x], end: [Math.min(12, f + h), y + 3, x + 3] }));

describe('decoded block lists own their boxes', () => {
  it('selections decoded one after another keep their own blocks (canonical or normalised)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(boxArb, { minLength: 1, maxLength: 30 }), { minLength: 2, maxLength: 5 }), fc.boolean(), (lists, proto) => {
        const sels = lists.map((l) => selectBlocks(l));
        const bufs = sels.map((s) => encodeSelection(s, { dims: DIMS }, proto ? { encoding: 'prototype' } : {}));
        const decoded = bufs.map((b) => decodeSelection(b).selection);
        decoded.push(decodeSelection(bufs[0]!).selection); // the scratch buffer overwritten once more
        sels.push(sels[0]!);
        decoded.forEach((sel, i) => {
          const s = sels[i]!;
          // (a regular list may be encoded as a regular hyperslab: compared as its blocks)
          const d = sel.kind === 'hyperslab' ? toBlocks(sel, DIMS) : sel;
          if (s.kind !== 'blocks' || d.kind !== 'blocks') {
            expect(d.kind).toBe(s.kind);
            return;
          }
          expect(Array.from(d.boxes)).toEqual(Array.from(normalizeBoxes(s.boxes, 3)));
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('smallest encoding of nearly canonical block lists', () => {
  const frames = (n: number, repeatAt: number): Box[] => {
    const boxes: Box[] = [];
    for (let f = 0; f < n; f++) for (let i = 0; i < 10; i++) boxes.push({ start: [f, 4 * i, 4 * ((i * 3 + f * 7) % 10)], end: [f + 1, 4 * i + 3, 4 * ((i * 3 + f * 7) % 10) + 3] });
    // the same box in two consecutive frames: a vertical cover would merge the pair
    boxes.push({ start: [repeatAt, 1, 1], end: [repeatAt + 2, 3, 3] });
    return boxes;
  };

  it('keeps the canonical list when a cover saves under 1/16 of the blocks', () => {
    const sel = selectBlocks(frames(8, 3));
    if (sel.kind !== 'blocks') throw new Error('blocks expected');
    const body = smallestBody(sel, DIMS);
    expect(body.kind).toBe('blocks');
    if (body.kind !== 'blocks') return;
    expect(body.boxes.length).toBe(sel.boxes.length);
    expect(isCanonicalBoxes(body.boxes, 3)).toBe(true);
  });

  it('still writes a cover that saves more', () => {
    // one box over all 12 frames of different cross-sections: 12 canonical blocks, one in the cover
    const sel = selectBlocks([...frames(12, 5), { start: [0, 38, 38], end: [12, 40, 40] }]);
    if (sel.kind !== 'blocks') throw new Error('blocks expected');
    const body = smallestBody(sel, DIMS);
    if (body.kind !== 'blocks') throw new Error(`blocks expected, got ${body.kind}`);
    expect(body.boxes.length).toBeLessThanOrEqual(sel.boxes.length - (sel.boxes.length >> 4));
    const back = decodeSelection(encodeSelection(sel, { dims: DIMS })).selection;
    if (back.kind !== 'blocks') throw new Error(`blocks expected, got ${back.kind}`);
    expect(Array.from(back.boxes)).toEqual(Array.from(sel.boxes));
  });
});
