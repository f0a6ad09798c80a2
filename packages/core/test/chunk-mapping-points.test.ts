/**
 * Point selections mapped onto chunks (chunk/mapping.ts `mapPoints`): the division-free paths —
 * one chunk along a dimension, chunks of one element along it, and the frame-per-chunk
 * `[frame, y, x]` layout of chunks 1 × Y × X — must give what the plain per-point arithmetic gives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapToChunks } from '../src/chunk/mapping.js';
import { selectPoints } from '../src/selection/selection.js';

/** Per point: chunk coordinates and the C-order offset in a whole chunk (the reference). */
function reference(coords: number[][], chunk: number[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  coords.forEach((p, i) => {
    const q = p.map((x, d) => Math.floor(x / chunk[d]!));
    let off = 0;
    p.forEach((x, d) => (off = off * chunk[d]! + (x - q[d]! * chunk[d]!)));
    const key = q.join(',');
    if (!out.has(key)) out.set(key, []);
    out.get(key)!.push(off, i);
  });
  return out;
}

/** The mapped pieces as the same map (runs expanded to single elements). */
function mapped(coords: number[][], dims: number[], chunk: number[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const piece of mapToChunks(selectPoints(coords), dims, chunk)) {
    const list: number[] = [];
    for (let k = 0; k < piece.runs.length; k += 3) for (let u = 0; u < piece.runs[k + 2]!; u++) list.push(piece.runs[k]! + u, piece.runs[k + 1]! + u);
    out.set(piece.coords.join(','), list);
  }
  return out;
}

describe('mapPoints', () => {
  it('matches per-point arithmetic for any mix of whole, unit and divided chunk dimensions', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 9 }), fc.constantFrom('whole', 'unit', 'divided', 'larger')), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 1 << 30 }),
        (spec, n, seed) => {
          const dims = spec.map(([d]) => d);
          const chunk = spec.map(([d, kind]) => (kind === 'whole' ? d : kind === 'unit' ? 1 : kind === 'larger' ? d + 3 : Math.max(1, Math.ceil(d / 3))));
          let x = seed;
          const rnd = (): number => ((x = (x * 1103515245 + 12345) & 0x7fffffff), x);
          const coords = Array.from({ length: n }, () => dims.map((d) => rnd() % d));
          expect(mapped(coords, dims, chunk)).toEqual(reference(coords, chunk));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('maps [frame, y, x] points in chunks of 1 × Y × X (one chunk per frame) without division', () => {
    const dims = [4, 6, 5];
    const chunk = [1, 6, 5];
    const coords = [[2, 5, 4], [0, 0, 0], [2, 1, 3], [3, 2, 2], [2, 1, 4]];
    expect(mapped(coords, dims, chunk)).toEqual(reference(coords, chunk));
    const one = mapToChunks(selectPoints([[3, 1, 1], [3, 1, 2], [3, 0, 4]]), dims, chunk);
    expect(one.map((p) => p.coords)).toEqual([[3, 0, 0]]);
    // adjacent in the chunk and in the buffer: one run
    expect(Array.from(one[0]!.runs)).toEqual([6, 0, 2, 4, 2, 1]);
  });
});
