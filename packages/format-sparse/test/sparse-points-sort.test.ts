/**
 * The sort of `definedFromPoints` (issue #4 point-hit writes): packed keys `offset · 2^b + position`
 * in one native sort when offset and request position fit 32 bits together, the stable bucket /
 * radix sorts otherwise. Both must give exactly the chunk of the general merge (`mergeWrite`): C
 * order, the last write of a repeated element wins, values of any element size.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { definedFromPoints } from '../src/runs.js';
import { emptyChunk, mergeWrite } from '../src/sparse-chunk.js';

/** A point request: `n` triples [offset, position, length] of short runs in `span` offsets. */
function request(offsets: number[], lens: number[]): Float64Array {
  const out: number[] = [];
  let pos = 0;
  offsets.forEach((o, i) => {
    out.push(o, pos, lens[i]!);
    pos += lens[i]!;
  });
  return Float64Array.from(out);
}

function general(req: Float64Array, src: Uint8Array, es: number, chunk: number): { runs: number[]; values: number[] } {
  const mem = emptyChunk();
  mergeWrite(mem, { coords: [0], runs: req, count: 0, full: false }, src, es, [chunk]);
  return { runs: Array.from(mem.runs), values: Array.from(mem.values) };
}

function fast(req: Float64Array, src: Uint8Array, es: number): { runs: number[]; values: number[] } {
  const d = definedFromPoints(req, src, es)!;
  expect(d).not.toBeNull();
  return { runs: Array.from(d.runs), values: Array.from(d.values) };
}

describe('definedFromPoints sorts', () => {
  it('equals the general merge for packed keys and for the bucket/radix fallback (any element size, duplicates)', () => {
    fc.assert(
      fc.property(
        // chunk sizes: small (packed), 2^22 (packed for a few hundred elements), ≥ 2^30 (fallback)
        fc.constantFrom(1000, 1 << 22, 2 ** 30, 2 ** 32 - 16),
        fc.integer({ min: 1, max: 600 }),
        fc.constantFrom(1, 2, 4, 8),
        fc.boolean(),
        fc.integer({ min: 1, max: 1 << 30 }),
        (chunk, n, es, clustered, seed) => {
          let x = seed;
          const rnd = (): number => ((x = (x * 1103515245 + 12345) & 0x7fffffff), x);
          const offsets: number[] = [];
          const lens: number[] = [];
          const base = rnd() % (chunk - 64);
          for (let i = 0; i < n; i++) {
            const len = 1 + (rnd() % 3);
            // clustered: a narrow window with many repeats (full buckets → radix sort)
            const o = clustered ? base + (rnd() % Math.min(48, chunk - base - len)) : rnd() % (chunk - len);
            offsets.push(o);
            lens.push(len);
          }
          const req = request(offsets, lens);
          const total = lens.reduce((a, b) => a + b, 0);
          const src = Uint8Array.from({ length: total * es }, () => rnd() & 0xff);
          expect(fast(req, src, es)).toEqual(general(req, src, es, chunk));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('takes 2-byte values from an odd-aligned buffer as well', () => {
    const req = request([9, 3, 9, 100, 4], [1, 1, 1, 2, 1]);
    const buf = new Uint8Array(1 + 12);
    for (let i = 0; i < buf.length; i++) buf[i] = 17 * i + 3;
    const src = buf.subarray(1); // byteOffset 1: no Uint16Array view possible
    expect(fast(req, src, 2)).toEqual(general(req, src, 2, 1000));
  });

  it('keeps the last write of an element whatever the sort path', () => {
    for (const big of [0, 2 ** 31]) {
      const offs = [big + 5, big + 7, big + 5, big + 6, big + 5];
      const req = request(offs, [1, 1, 1, 1, 1]);
      const src = Uint8Array.of(1, 2, 3, 4, 5);
      const d = definedFromPoints(req, src, 1)!;
      expect(Array.from(d.runs)).toEqual([big + 5, 3, 0]);
      expect(Array.from(d.values)).toEqual([5, 4, 2]);
    }
  });
});
