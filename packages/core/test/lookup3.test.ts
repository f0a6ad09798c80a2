import { describe, expect, it } from 'vitest';
import { lookup3, lookup3Pair } from '../src/format/checksum/lookup3.js';

/** The spec's `mix` and `final` steps as (target, source, rotation): state indices 0 = a, 1 = b, 2 = c. */
const MIX: readonly (readonly [number, number, number])[] = [[0, 2, 4], [1, 0, 6], [2, 1, 8], [0, 2, 16], [1, 0, 19], [2, 1, 4]];
const FINAL: readonly (readonly [number, number, number])[] = [[2, 1, 14], [0, 2, 11], [1, 0, 25], [2, 1, 16], [0, 2, 4], [1, 0, 14], [2, 1, 24]];

/**
 * `hashlittle` of the HDF5 spec's Appendix C, byte by byte and table-driven: the oracle for the word
 * reads and the interleaved chains of ../src/format/checksum/lookup3.ts.
 */
function reference(k: Uint8Array, initval = 0): number {
  const rot = (x: number, r: number): number => (x << r) | (x >>> (32 - r));
  const v = new Int32Array(3).fill((0xdeadbeef + k.length + initval) | 0);
  let at = 0;
  let length = k.length;
  const add = (n: number): void => {
    // the next n bytes (≤ 12) as little-endian words added to a, b, c (absent bytes are 0)
    for (let i = 0; i < n; i++) v[i >> 2] = (v[i >> 2]! + (k[at + i]! << (8 * (i & 3)))) | 0;
  };
  for (; length > 12; length -= 12, at += 12) {
    add(12);
    // mix: x -= y; x ^= rot(y, r); y += (the third)
    for (const [x, y, r] of MIX) {
      v[x] = (v[x]! - v[y]!) ^ rot(v[y]!, r);
      v[y] = (v[y]! + v[3 - x - y]!) | 0;
    }
  }
  if (length === 0) return v[2]! >>> 0;
  add(length);
  // final: x ^= y; x -= rot(y, r)
  for (const [x, y, r] of FINAL) v[x] = (v[x]! ^ v[y]!) - rot(v[y]!, r);
  return v[2]! >>> 0;
}

/** `n` pseudo-random bytes (xorshift32 from `seed`). */
function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed | 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    out[i] = s & 0xff;
  }
  return out;
}

/** `src` copied to byte offset `at` of a buffer of its own (`at` 0–3: every alignment). */
function at(src: Uint8Array, offset: number, shared = false): Uint8Array {
  const buf = shared ? new SharedArrayBuffer(src.length + 8) : new ArrayBuffer(src.length + 8);
  const view = new Uint8Array(buf, offset, src.length);
  view.set(src);
  return view;
}

describe('lookup3 (HDF5 spec Appendix C)', () => {
  it('matches the vectors of lookup3.c (hashlittle)', () => {
    const four = new TextEncoder().encode('Four score and seven years ago');
    expect(lookup3(new Uint8Array(0))).toBe(0xdeadbeef);
    expect(lookup3(four)).toBe(0x17770551);
    expect(lookup3(four, 1)).toBe(0xcd628161);
    expect(lookup3(Uint8Array.from({ length: 12 }, (_, i) => i))).toBe(0x5e4aa593);
    expect(lookup3(Uint8Array.from({ length: 13 }, (_, i) => i))).toBe(0xbc9d6816);
    for (const f of [reference, (b: Uint8Array, i?: number) => lookup3(at(b, 3), i)]) {
      expect(f(new Uint8Array(0))).toBe(0xdeadbeef);
      expect(f(four)).toBe(0x17770551);
      expect(f(four, 1)).toBe(0xcd628161);
    }
  });

  it('matches the byte-by-byte reference for every length 0–100 at byte offsets 0–3, with initval 0, 1 and 0xdeadbeef', () => {
    for (let n = 0; n <= 100; n++) {
      const src = bytes(n, n + 1);
      for (let o = 0; o < 4; o++) {
        const b = at(src, o);
        for (const init of [0, 1, 0xdeadbeef]) expect(lookup3(b, init)).toBe(reference(src, init));
      }
    }
  });

  it('matches the reference on large random inputs at every alignment, in ordinary and shared memory', () => {
    for (let t = 0; t < 12; t++) {
      const n = [266_009, 131_072, 1 << 20, 999_983][t % 4]! + t;
      const src = bytes(n, 77 + t);
      const want = reference(src);
      expect(lookup3(at(src, t % 4, t % 3 === 0))).toBe(want);
    }
  });
});

describe('lookup3Pair', () => {
  const out = new Uint32Array(2);
  const pair = (x: Uint8Array, y: Uint8Array): number[] => {
    out.fill(0);
    lookup3Pair(x, y, out);
    return [out[0]!, out[1]!];
  };

  it('gives the reference checksums of both inputs for every pair of lengths 0–100 at byte offsets 0–3', () => {
    const srcs = Array.from({ length: 101 }, (_, n) => bytes(n, 1000 + n));
    const sums = srcs.map((s) => reference(s));
    for (let n = 0; n <= 100; n++) {
      for (let m = 0; m <= 100; m++) {
        for (const [o, p] of [[0, 0], [1, 2], [3, 0], [2, 3], [0, 1]] as const) {
          expect(pair(at(srcs[n]!, o), at(srcs[m]!, p))).toEqual([sums[n], sums[m]]);
        }
      }
    }
  });

  it('gives the reference checksums around the turns of two long blocks and one short (blocks long = 2 × short ± 1, = short + 1)', () => {
    // non-last blocks: bs of the short, bl of the long; lengths 12·blocks + tail (1–12)
    const cases: [number, number][] = [];
    for (const bs of [1, 2, 3, 7, 100]) {
      for (const bl of [bs, bs + 1, 2 * bs - 1, 2 * bs, 2 * bs + 1, 3 * bs + 2]) {
        if (bl < bs) continue;
        for (const [ts, tl] of [[1, 12], [12, 1], [5, 8]] as const) cases.push([12 * bs + ts, 12 * bl + tl]);
      }
    }
    for (const [s, l] of cases) {
      const x = bytes(s, s);
      const y = bytes(l, l + 7);
      for (const o of [0, 1, 2, 3]) {
        expect(pair(at(x, o), at(y, (o * 3) & 3))).toEqual([reference(x), reference(y)]);
        expect(pair(at(y, o), at(x, 3 - o))).toEqual([reference(y), reference(x)]);
      }
    }
  });

  it('gives the reference checksums of the sections of chunk images and of random large inputs, either one longer, in ordinary and shared memory', () => {
    const img = bytes(131_076 + 266_013, 5);
    const x = img.subarray(0, 131_072);
    const y = img.subarray(131_076, 131_076 + 266_009);
    expect(pair(x, y)).toEqual([reference(x), reference(y)]);
    expect(pair(y, x)).toEqual([reference(y), reference(x)]);
    for (let t = 0; t < 8; t++) {
      const a = bytes(50_000 + 37_003 * t, 100 + t);
      const b = bytes(400_000 - 41_011 * t, 200 + t);
      expect(pair(at(a, t & 3, t % 2 === 0), at(b, (t >> 1) & 3, t % 3 === 0))).toEqual([reference(a), reference(b)]);
    }
  });
});
