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

describe('canonicalBoxes of longer lists', () => {
  it('equals the sweep normalisation for lists of 24–90 boxes (packed sort, bands listed canonically)', () => {
    // frames of a few small boxes (sorted per frame, as a file lists them), some boxes spanning
    // two frames (a cover merged them), some lists shuffled, some with overlaps
    const arb = fc.tuple(
      fc.integer({ min: 2, max: 3 }),
      fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 }), fc.integer({ min: 1, max: 2 }), fc.integer({ min: 1, max: 3 })), { minLength: 24, maxLength: 90 }),
      fc.boolean(),
      fc.integer({ min: 0, max: 1 << 20 }),
    );
    fc.assert(
      fc.property(arb, ([rank, raw, shuffle, seed]) => {
        const boxes = raw.map(([f, y, x, df, s]) => (rank === 3 ? [f, f + df, y, y + s, x, x + s] : [f, f + df, x, x + s]));
        boxes.sort((a, b) => a[0]! - b[0]! || a[2]! - b[2]! || a[a.length - 2]! - b[b.length - 2]!);
        if (shuffle) {
          let r = seed || 1;
          for (let i = boxes.length - 1; i > 0; i--) {
            r = (r * 1103515245 + 12345) & 0x7fffffff;
            const j = r % (i + 1);
            [boxes[i], boxes[j]] = [boxes[j]!, boxes[i]!];
          }
        }
        const flat = Float64Array.from(boxes.flat());
        expect(Array.from(canonicalBoxes(flat, rank))).toEqual(Array.from(normalizeBoxes(flat, rank)));
      }),
      { numRuns: 1500 },
    );
  });

  it('frames of groups in distinct cells (bands taken as listed), groups over several frames, equal frames', () => {
    // per frame: groups in distinct 4×4 cells, listed in C order as an encoder writes them; a group
    // may span 1–3 frames (listed in its first), and a frame may repeat the one before exactly
    const arb = fc.tuple(
      fc.integer({ min: 2, max: 4 }),
      fc.array(fc.tuple(fc.array(fc.tuple(fc.integer({ min: 0, max: 15 }), fc.integer({ min: 1, max: 3 })), { maxLength: 6 }), fc.boolean()), { minLength: 1, maxLength: 12 }),
    );
    fc.assert(
      fc.property(arb, ([rank, frames]) => {
        const boxes: number[][] = [];
        let prev: number[][] = [];
        frames.forEach(([groups, repeat], f) => {
          const cells = [...new Map(groups.map(([c, h]) => [c, h])).entries()].sort((a, b) => a[0] - b[0]);
          const mine = repeat && prev.length > 0 ? prev.map((b) => [f, f + 1, ...b.slice(2)]) : cells.map(([c, h]) => {
            const y = 4 * (c >> 2);
            const x = 4 * (c & 3);
            const tail = rank === 2 ? [x, x + 3] : rank === 3 ? [y, y + 2, x, x + 3] : [0, 2, y, y + 2, x, x + 3];
            return [f, f + h, ...tail];
          });
          boxes.push(...mine);
          prev = mine;
        });
        const flat = Float64Array.from(boxes.flat());
        expect(Array.from(canonicalBoxes(flat, rank))).toEqual(Array.from(normalizeBoxes(flat, rank)));
      }),
      { numRuns: 1500 },
    );
  });
});
