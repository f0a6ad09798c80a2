import { describe, expect, it } from 'vitest';
import { lookup3, lookup3Pair } from '../src/format/checksum/lookup3.js';

describe('lookup3 (HDF5 spec Appendix C)', () => {
  it('matches the reference vectors', () => {
    expect(lookup3(new Uint8Array(0))).toBe(0xdeadbeef);
    expect(lookup3(new TextEncoder().encode('Four score and seven years ago'))).toBe(0x17770551);
    expect(lookup3(Uint8Array.from({ length: 12 }, (_, i) => i))).toBe(0x5e4aa593);
    expect(lookup3(Uint8Array.from({ length: 13 }, (_, i) => i))).toBe(0xbc9d6816);
  });
});

describe('lookup3 word-at-a-time path', () => {
  /** The byte-at-a-time result: the same bytes at an odd offset (never 4-byte aligned). */
  const unaligned = (b: Uint8Array, init = 0): number => {
    const buf = new Uint8Array(b.length + 1);
    buf.set(b, 1);
    return lookup3(buf.subarray(1), init);
  };
  it('gives the same checksum for aligned and unaligned inputs of every length up to 100 and at offsets 0, 4, 8', () => {
    const src = Uint8Array.from({ length: 112 }, (_, i) => (i * 151 + 7) & 0xff);
    for (let n = 0; n <= 100; n++) {
      for (const at of [0, 4, 8]) {
        const b = src.subarray(at, at + n);
        expect(lookup3(b)).toBe(unaligned(b));
        expect(lookup3(b, 3)).toBe(unaligned(b, 3));
      }
    }
  });
});

describe('lookup3Pair', () => {
  it('gives the two lookup3 checksums for every pair of lengths 0–40 (aligned at 0/4/8 or not), either one longer', () => {
    const src = Uint8Array.from({ length: 200 }, (_, i) => (i * 151 + 7) & 0xff);
    const out = new Uint32Array(2);
    for (let n = 0; n <= 40; n++) {
      for (let m = 0; m <= 40; m++) {
        for (const [at, bt] of [[0, 100], [4, 108], [8, 104], [1, 100], [0, 103]] as const) {
          const x = src.subarray(at, at + n);
          const y = src.subarray(bt, bt + m);
          out.fill(0);
          lookup3Pair(x, y, out);
          expect([out[0], out[1]]).toEqual([lookup3(x), lookup3(y)]);
        }
      }
    }
  });
  it('matches lookup3 on sections of a chunk image (131 KB entries beside a 266 KB heap)', () => {
    const img = Uint8Array.from({ length: 131_076 + 266_013 }, (_, i) => (i * 2654435761) >>> 24);
    const x = img.subarray(0, 131_072);
    const y = img.subarray(131_076, 131_076 + 266_009);
    const out = new Uint32Array(2);
    lookup3Pair(x, y, out);
    expect([out[0], out[1]]).toEqual([lookup3(x), lookup3(y)]);
    lookup3Pair(y, x, out);
    expect([out[0], out[1]]).toEqual([lookup3(y), lookup3(x)]);
  });
});
