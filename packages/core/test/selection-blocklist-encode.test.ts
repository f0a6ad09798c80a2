/**
 * Block list encoding (hyperslab v1 / v3 irregular, selection/serialize/hyperslab.ts): the bulk
 * writer that fills 2- and 4-byte fields straight into the output must give the bytes of the
 * field-by-field little-endian encoding, for every width, and decode back to the same blocks.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteWriter, DEFAULT_SIZES } from '../src/format/bytes.js';
import { encodeBlockList } from '../src/selection/serialize/hyperslab.js';

/** The block list written field by field (reference). */
function reference(boxes: number[], rank: number, version: 1 | 3, width: 2 | 4 | 8): Uint8Array {
  const w = new ByteWriter(DEFAULT_SIZES, 64);
  const n = boxes.length / (2 * rank);
  w.u32(2).u32(version);
  if (version === 1) w.u32(0).u32(8 + 8 * rank * n).u32(rank).u32(n);
  else w.u8(0).u8(width).u32(rank).uN(n, width);
  const wd = version === 1 ? 4 : width;
  for (let i = 0; i < boxes.length; i += 2 * rank) {
    for (let d = 0; d < rank; d++) w.uN(boxes[i + 2 * d]!, wd);
    for (let d = 0; d < rank; d++) w.uN(boxes[i + 2 * d + 1]! - 1, wd);
  }
  return w.finish();
}

describe('encodeBlockList', () => {
  it('writes the field-by-field bytes for widths 2, 4 and 8 and version 1', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom<[1 | 3, 2 | 4 | 8]>([1, 4], [3, 2], [3, 4], [3, 8]),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 1 << 30 }),
        (rank, [version, width], n, seed) => {
          const max = width === 2 ? 0xffff : width === 4 ? 0xffffffff : 2 ** 40;
          let x = seed;
          const rnd = (m: number): number => ((x = (x * 1103515245 + 12345) & 0x7fffffff), Math.floor((x / 0x80000000) * m));
          const boxes: number[] = [];
          for (let i = 0; i < n; i++) {
            for (let d = 0; d < rank; d++) {
              const s = rnd(max - 1);
              boxes.push(s, s + 1 + rnd(Math.min(8, max - s - 1)));
            }
          }
          const w = new ByteWriter(DEFAULT_SIZES, 16);
          encodeBlockList(w, Float64Array.from(boxes), rank, version, width);
          expect(Array.from(w.finish())).toEqual(Array.from(reference(boxes, rank, version, width)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('writes after bytes already in the writer and grows it', () => {
    const w = new ByteWriter(DEFAULT_SIZES, 4);
    w.u8(0xab);
    encodeBlockList(w, Float64Array.of(0, 1, 65534, 65536), 2, 3, 4);
    const ref = reference([0, 1, 65534, 65536], 2, 3, 4);
    const out = w.finish();
    expect(out[0]).toBe(0xab);
    expect(Array.from(out.subarray(1))).toEqual(Array.from(ref));
  });
});
