/** The canonical-form check that lets decoders skip normalising block lists already in canonical form. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeBoxes } from '../src/selection/boxes.js';
import { canonicalBoxes, isCanonicalBoxes } from '../src/selection/serialize/canonical.js';

const boxListArb = fc.integer({ min: 1, max: 4 }).chain((rank) =>
  fc.tuple(
    fc.constant(rank),
    fc.array(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 4 })), { minLength: rank, maxLength: rank }),
      { minLength: 1, maxLength: 8 },
    ),
  ),
);

describe('isCanonicalBoxes', () => {
  it('is true exactly for lists equal to their normalisation', () => {
    fc.assert(
      fc.property(boxListArb, ([rank, boxes]) => {
        const flat = Float64Array.from(boxes.flatMap((b) => b.flatMap(([s, l]) => [s, s + l])));
        const norm = normalizeBoxes(flat, rank);
        expect(isCanonicalBoxes(norm, rank)).toBe(true);
        const same = norm.length === flat.length && norm.every((v, i) => v === flat[i]);
        expect(isCanonicalBoxes(flat, rank)).toBe(same);
        expect(Array.from(canonicalBoxes(flat, rank))).toEqual(Array.from(norm));
      }),
      { numRuns: 3000 },
    );
  });

  it('rejects touching equal neighbours, overlaps, disorder and empty boxes', () => {
    expect(isCanonicalBoxes(Float64Array.of(0, 1, 0, 2, 1, 2, 0, 2), 2)).toBe(false); // rows 0 and 1 equal: one box
    expect(isCanonicalBoxes(Float64Array.of(0, 1, 0, 2, 1, 2, 0, 3), 2)).toBe(true);
    expect(isCanonicalBoxes(Float64Array.of(0, 2, 0, 2, 1, 3, 0, 3), 2)).toBe(false);
    expect(isCanonicalBoxes(Float64Array.of(2, 3, 0, 1, 0, 1, 0, 1), 2)).toBe(false);
    expect(isCanonicalBoxes(Float64Array.of(0, 1, 3, 5, 0, 1, 5, 6), 2)).toBe(false); // touching in the last dimension
    expect(isCanonicalBoxes(Float64Array.of(0, 1, 3, 3), 2)).toBe(false);
  });
});
