import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { referenceBitshuffle } from './reference.js';
import { randomBytes } from './random.js';

type Mod = typeof import('../src/index.js');
let m: Mod;

beforeAll(async () => {
  // Build the WASM (and src/binaries.ts) from assembly/index.ts when it is missing.
  const root = fileURLToPath(new URL('..', import.meta.url));
  if (!existsSync(`${root}/src/binaries.ts`)) execFileSync(process.execPath, [`${root}/scripts/build.mjs`], { stdio: 'inherit' });
  m = await import('../src/index.js');
});

/** Fast byte equality (vitest's deep toEqual is slow on large typed arrays). */
function same(a: Uint8Array, b: Uint8Array, what: string): void {
  if (!Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length))) expect.fail(`${what}: bytes differ`);
}


describe('bitshuffle-wasm', () => {
  it('matches the reference layout on a hand-checked case', () => {
    // 8 uint8 elements, only element 0 has bit 0 set and element 7 has bit 7 set.
    const x = new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0x80]);
    for (const b of m.availableBackends()) {
      expect(Array.from(m.bitshuffle(x, 1, 0, b))).toEqual([1, 0, 0, 0, 0, 0, 0, 0x80]);
    }
    // uint16 [1, 0, ..., 0] (8 elements): bit row 0 of byte 0 = 0b00000001
    const y = new Uint8Array(16);
    y[0] = 1;
    y[15] = 0x80; // element 7, byte 1, bit 7 → row 15
    expect(Array.from(m.bitshuffle(y, 2, 0, 'js'))).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80]);
  });

  it('default block size follows bshuf_default_block_size', () => {
    expect(m.defaultBlockSize(1)).toBe(8192);
    expect(m.defaultBlockSize(2)).toBe(4096);
    expect(m.defaultBlockSize(4)).toBe(2048);
    expect(m.defaultBlockSize(3)).toBe(2728);
    expect(m.defaultBlockSize(100)).toBe(128);
  });

  it('has the SIMD build on this runtime', () => {
    expect(m.simdSupported()).toBe(true);
    expect(m.availableBackends()).toEqual(['simd', 'wasm', 'js']);
  });

  const cases: [number, number, number][] = [];
  for (const es of [1, 2, 3, 4, 8, 16]) {
    for (const bs of [0, 8, 16, 24, 128, 136, 1024]) {
      for (const n of [0, 1, 7, 8, 9, 15, 16, 17, 63, 127, 128, 129, 255, 1000, 3001]) cases.push([es, bs, n]);
    }
  }

  it('equals the reference for element sizes 1/2/3/4/8/16, block sizes and odd lengths, every backend', () => {
    let seed = 7;
    for (const [es, bs, n] of cases) {
      const x = randomBytes(n * es, seed++);
      const ref = referenceBitshuffle(x, es, bs, false);
      for (const b of m.availableBackends()) {
        const y = m.bitshuffle(x, es, bs, b);
        same(y, ref, `shuffle es=${es} bs=${bs} n=${n} ${b}`);
        same(m.bitunshuffle(y, es, bs, b), x, `unshuffle es=${es} bs=${bs} n=${n} ${b}`);
      }
      same(referenceBitshuffle(ref, es, bs, true), x, `reference inverse es=${es} bs=${bs} n=${n}`);
    }
  });

  it('SIMD and scalar agree on large default-block buffers (detector-like and random)', () => {
    for (const es of [1, 2, 4, 8, 16]) {
      for (const sparse of [false, true]) {
        const x = randomBytes(es * 40_003, 99 + es, sparse);
        const a = m.bitshuffle(x, es, 0, 'simd');
        same(m.bitshuffle(x, es, 0, 'wasm'), a, `wasm es=${es}`);
        same(m.bitshuffle(x, es, 0, 'js'), a, `js es=${es}`);
        for (const b of ['simd', 'wasm', 'js'] as const) same(m.bitunshuffle(a, es, 0, b), x, `unshuffle ${b} es=${es}`);
        const out = new Uint8Array(x.length);
        expect(m.bitshuffle(x, es, 0, 'simd', out)).toBe(out);
        same(out, a, `out= es=${es}`);
      }
    }
  });

  it('works on unaligned subarray inputs', () => {
    const big = randomBytes(4099, 5);
    const x = big.subarray(3, 3 + 2 * 2000);
    expect(m.bitshuffle(x, 2, 64)).toEqual(referenceBitshuffle(x.slice(), 2, 64, false));
  });

  it('rejects bad arguments', () => {
    expect(() => m.bitshuffle(new Uint8Array(5), 2)).toThrow(/whole number/);
    expect(() => m.bitshuffle(new Uint8Array(8), 2, 12)).toThrow(/multiple of 8/);
    expect(() => m.bitshuffle(new Uint8Array(8), 0)).toThrow(/element size/);
    const buf = new Uint8Array(16);
    expect(() => m.bitshuffle(buf.subarray(0, 8), 1, 0, undefined, buf.subarray(4, 12))).toThrow(/overlap/);
  });
});
