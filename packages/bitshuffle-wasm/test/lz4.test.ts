/**
 * `@chunkform/bitshuffle-wasm/lz4`: the WebAssembly LZ4 block codec (both builds) round-trips,
 * grows its memory for large inputs, reports malformed blocks as Lz4BlockError (never a
 * WebAssembly RuntimeError), and the fused bitshuffle+LZ4 path inverts itself and frames as
 * bshuf_compress_lz4 (u32 BE block sizes, raw leftover). Byte equality with liblz4's parsing is
 * tested in packages/filters/test/lz4-wasm.test.ts against the TypeScript codec.
 */
import { describe, expect, it } from 'vitest';
import { Lz4BlockError, wasmLz4Codec, type WasmLz4Codec } from '../src/lz4.js';
import { bitshuffle } from '../src/index.js';
import { randomBytes } from './random.js';

/** Detector-like bytes: two in three are 0, the rest 0–7. */
const noisyBytes = (n: number, seed: number): Uint8Array => randomBytes(n, seed, 'thirds');

const builds = (['simd', 'wasm'] as const).map((b) => [b, wasmLz4Codec(b)] as const).filter((x): x is readonly ['simd' | 'wasm', WasmLz4Codec] => x[1] !== null);


describe.each(builds)('LZ4 in WebAssembly (%s build)', (_name, c) => {
  it('round-trips small and large inputs (memory grows as needed)', () => {
    for (const n of [0, 1, 12, 13, 100, 65547, 1 << 20, 5 << 20]) {
      const x = noisyBytes(n, n + 1);
      const dst = new Uint8Array(n + Math.floor(n / 255) + 16);
      const end = c.compress(x, 0, n, dst, 0, 1);
      const back = new Uint8Array(n);
      c.decompress(dst, 0, end, back, 0, n);
      expect(Buffer.from(back).equals(Buffer.from(x))).toBe(true);
    }
  });

  it('malformed blocks throw Lz4BlockError, not a trap', () => {
    const out = new Uint8Array(100);
    for (const b of [[0x10], [0x00, 0x05, 0x00, 0x00], [0x10, 0x61, 0x00, 0x00], [0xf0, 0xff], [0x1f, 0x61, 0x01, 0x00, 0xff, 0xff, 0xff], []]) {
      expect(() => c.decompress(Uint8Array.from(b), 0, b.length, out, 0, 50), JSON.stringify(b)).toThrow(Lz4BlockError);
    }
  });

  it('fused bitshuffle+LZ4 frames as bshuf_compress_lz4 and inverts', () => {
    for (const [es, n, bs] of [
      [2, 10007, 0],
      [4, 999, 64],
      [1, 5, 0],
      [8, 4096, 128],
    ] as const) {
      const x = noisyBytes(n * es, es * n);
      const enc = c.bitshuffleCompress(x, es, bs, 3) as Uint8Array;
      expect(enc).toBeInstanceOf(Uint8Array); // small chunks stay on this thread
      const block = bs || Math.max(Math.floor(8192 / es / 8) * 8, 128);
      // walk the blocks: u32 BE size + LZ4 block of the bitshuffled elements; leftover raw
      const shuffled = bitshuffle(x, es, block);
      let s = 3;
      let off = 0;
      const full = Math.floor(n / block);
      const last = (n % block) - ((n % block) % 8);
      for (const m of [...Array<number>(full).fill(block), ...(last ? [last] : [])]) {
        const size = new DataView(enc.buffer, enc.byteOffset).getUint32(s);
        const out = new Uint8Array(m * es);
        c.decompress(enc, s + 4, s + 4 + size, out, 0, out.length);
        expect(Buffer.from(out).equals(Buffer.from(shuffled.subarray(off, off + m * es)))).toBe(true);
        s += 4 + size;
        off += m * es;
      }
      expect(Buffer.from(enc.subarray(s)).equals(Buffer.from(x.subarray(off)))).toBe(true);
      const back = c.bitshuffleDecompress(enc, 3, x.length, es, block)!;
      expect(Buffer.from(back).equals(Buffer.from(x))).toBe(true);
      if (full + (last ? 1 : 0) > 0) {
        const bad = enc.slice();
        bad[3] = 0x7f;
        expect(() => c.bitshuffleDecompress(bad, 3, x.length, es, block)).toThrow(/block 0 claims/);
      } else expect(() => c.bitshuffleDecompress(enc.subarray(0, enc.length - 1), 3, x.length, es, block)).toThrow(/leftover/);
    }
  });
});
