/**
 * The WebAssembly LZ4 codec (`@chunkform/bitshuffle-wasm/lz4`, both builds) against the TypeScript
 * codec (../src/lz4/block.ts): identical compressed bytes for random, detector-like and repetitive
 * inputs of many sizes (< 13, around 64 KiB + 11 where the hash table layout switches, > 64 KiB) and
 * accelerations; the same rejections of malformed blocks (Lz4BlockError, never a WebAssembly trap);
 * the fused bitshuffle+LZ4 chunk path equal to the per-block TypeScript path byte for byte; and
 * chunks above 64 KiB (liblz4's byU32 / 5-byte-hash path) equal to Debian's libh5lz4.so output.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FilterError } from '@chunkform/core/plugin';
import { setLz4Parallel, wasmLz4Codec, type WasmLz4Codec } from '@chunkform/bitshuffle-wasm/lz4';
import { bitshuffleDecode, bitshuffleEncode, jsLz4Codec, lz4CompressBound, lz4Decode, lz4Encode } from '../src/index.js';
import { defaultLz4Codec } from '../src/lz4/index.js';
import { lz4CompressBlock, lz4DecompressBlock, Lz4BlockError, lz4Scratch } from '../src/lz4/block.js';
import { MALFORMED_LZ4_BLOCKS } from './support/lz4-malformed.js';

const builds = (['simd', 'wasm'] as const).map((b) => [b, wasmLz4Codec(b)] as const).filter((x): x is readonly ['simd' | 'wasm', WasmLz4Codec] => x[1] !== null);
const JS_CODECS = { lz4: jsLz4Codec };

function xorshift(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
}

/** kind 0 random, 1 detector-like uint16 (mostly small counts), 2 periodic, 3 self-referencing runs, 4 zeros. */
function sample(n: number, kind: number, seed: number): Uint8Array {
  const r = xorshift(seed);
  const a = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const x = r();
    if (kind === 0) a[i] = x & 0xff;
    else if (kind === 1) a[i] = i & 1 ? ((x & 63) === 0 ? x >>> 28 : 0) : (x & 15) < 9 ? x >>> 30 : 8 + ((x >>> 8) & 3);
    else if (kind === 2) a[i] = (i % 13) * 7;
    else if (kind === 3) a[i] = x & 1 && i > 0 ? a[i - 1 - ((x >>> 1) % Math.min(i, 70))]! : (x >>> 8) & 0xff;
  }
  return a;
}

function jsCompress(a: Uint8Array, accel: number): Uint8Array {
  const dst = new Uint8Array(lz4CompressBound(a.length));
  return dst.subarray(0, lz4CompressBlock(a, 0, a.length, dst, 0, lz4Scratch(), accel));
}

function wasmCompress(c: WasmLz4Codec, a: Uint8Array, accel: number, pad = 0): Uint8Array {
  const dst = new Uint8Array(lz4CompressBound(a.length) + pad);
  return dst.subarray(pad, c.compress(a, 0, a.length, dst, pad, accel));
}

const eq = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));

describe.each(builds)('WebAssembly LZ4 codec (%s build)', (_name, codec) => {
  it('writes the same bytes as the TypeScript codec for every size class and acceleration', () => {
    const sizes = [0, 1, 4, 11, 12, 13, 14, 15, 31, 100, 1000, 8192, 65535, 65546, 65547, 65548, 70000, 300000];
    let seed = 1;
    for (const n of sizes) {
      for (let kind = 0; kind < 5; kind++) {
        for (const accel of [1, 3, 17]) {
          const a = sample(n, kind, seed++);
          const ours = wasmCompress(codec, a, accel, seed % 7);
          expect(eq(ours, jsCompress(a, accel)), `n=${n} kind=${kind} accel=${accel}`).toBe(true);
          const back = new Uint8Array(n);
          codec.decompress(ours, 0, ours.length, back, 0, n);
          expect(eq(back, a)).toBe(true);
        }
      }
    }
  });

  it('property: random inputs give identical blocks and round-trip', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 5000 }),
          fc.tuple(fc.integer({ min: 0, max: 70000 }), fc.integer({ min: 0, max: 4 }), fc.integer()).map(([n, k, s]) => sample(n, k, s)),
          fc.array(fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 400 })), { maxLength: 60 }).map((runs) => Uint8Array.from(runs.flatMap(([v, n]) => Array<number>(n).fill(v)))),
        ),
        fc.integer({ min: 1, max: 9 }),
        (a, accel) => {
          const ours = wasmCompress(codec, a, accel);
          expect(eq(ours, jsCompress(a, accel))).toBe(true);
          const back = new Uint8Array(a.length);
          codec.decompress(ours, 0, ours.length, back, 0, a.length);
          expect(eq(back, a)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('decodes into the middle of a larger output, from the middle of a larger input', () => {
    const a = sample(20000, 3, 5);
    const blk = jsCompress(a, 1);
    const src = new Uint8Array(blk.length + 30).fill(0xee);
    src.set(blk, 10);
    const out = new Uint8Array(a.length + 40).fill(0x55);
    codec.decompress(src, 10, 10 + blk.length, out, 20, 20 + a.length);
    expect(eq(out.subarray(20, 20 + a.length), a)).toBe(true);
    expect(out.subarray(0, 20).every((x) => x === 0x55) && out.subarray(20 + a.length).every((x) => x === 0x55)).toBe(true);
  });

  it('decodes overlapping matches of every short period', () => {
    for (let period = 1; period <= 20; period++) {
      for (const ml of [4, 5, 8, 15, 18, 19, 40, 300]) {
        // `period` literals, then a match at offset `period` of `ml` bytes, then 5 literals
        const lits = Array.from({ length: period }, (_, i) => 65 + i);
        const blk: number[] = [];
        const m = ml - 4;
        blk.push(((period >= 15 ? 15 : period) << 4) | (m >= 15 ? 15 : m));
        if (period >= 15) blk.push(period - 15);
        blk.push(...lits, period, 0);
        if (m >= 15) {
          let r = m - 15;
          for (; r >= 255; r -= 255) blk.push(255);
          blk.push(r);
        }
        blk.push(0x50, 1, 2, 3, 4, 5);
        const want = new Uint8Array(period + ml + 5);
        lz4DecompressBlock(Uint8Array.from(blk), 0, blk.length, want, 0, want.length);
        const got = new Uint8Array(want.length);
        codec.decompress(Uint8Array.from(blk), 0, blk.length, got, 0, got.length);
        expect(eq(got, want), `period ${period} ml ${ml}`).toBe(true);
      }
    }
  });

  it('rejects malformed blocks with Lz4BlockError, like the TypeScript codec', () => {
    const out = new Uint8Array(64);
    for (const [b, n] of MALFORMED_LZ4_BLOCKS) {
      const blk = Uint8Array.from(b);
      expect(() => lz4DecompressBlock(blk, 0, b.length, out, 0, n), `js ${JSON.stringify(b)}`).toThrow(Lz4BlockError);
      expect(() => codec.decompress(blk, 0, b.length, out, 0, n), `wasm ${JSON.stringify(b)}`).toThrow(Lz4BlockError);
    }
  });

  it('random corruption gives the same verdict as the TypeScript codec and never traps', () => {
    const a = sample(6000, 1, 77);
    const good = jsCompress(a, 1);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: good.length - 1 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: good.length }), fc.integer({ min: -20, max: 20 }), (at, val, cut, dn) => {
        const b = good.slice(0, cut);
        if (at < b.length) b[at] = val;
        const n = Math.max(0, a.length + dn);
        const o1 = new Uint8Array(n);
        const o2 = new Uint8Array(n);
        let e1: unknown = null;
        let e2: unknown = null;
        try {
          lz4DecompressBlock(b, 0, b.length, o1, 0, n);
        } catch (e) {
          e1 = e;
        }
        try {
          codec.decompress(b, 0, b.length, o2, 0, n);
        } catch (e) {
          e2 = e;
        }
        if (e2 !== null) expect(e2).toBeInstanceOf(Lz4BlockError);
        expect(e2 === null).toBe(e1 === null);
        if (e1 === null) expect(eq(o1, o2)).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });
});

describe('LZ4 filter with the WebAssembly default', () => {
  it('defaults to the WebAssembly codec and frames exactly as with the TypeScript codec', () => {
    expect(defaultLz4Codec.name).toMatch(/^chunkform-wasm/);
    for (const [n, bs, p] of [
      [0, 0, 0],
      [100, 0, 0],
      [70000, 0, 0],
      [200000, 65536, 0],
      [200000, 1000, -4],
    ] as const) {
      const a = sample(n, 1, n + bs);
      const w = lz4Encode(a, { blockSize: bs, encoderParam: p });
      expect(eq(w, lz4Encode(a, { blockSize: bs, encoderParam: p, codec: jsLz4Codec }))).toBe(true);
      expect(eq(lz4Decode(w), a)).toBe(true);
      expect(eq(lz4Decode(w, 0, jsLz4Codec), a)).toBe(true);
    }
  });

  it('a corrupt block is a FilterError', () => {
    const good = lz4Encode(sample(5000, 2, 1), { blockSize: 2048 });
    const b = good.slice();
    b.fill(0xff, 16, 30);
    expect(() => lz4Decode(b)).toThrow(FilterError);
    expect(() => lz4Decode(b)).toThrow(/corrupt block 0/);
  });
});

describe('fused bitshuffle+LZ4 (one WebAssembly call per chunk)', () => {
  it('equals the per-block TypeScript path byte for byte (element sizes, block sizes, odd lengths)', async () => {
    let seed = 3;
    for (const es of [1, 2, 3, 4, 8, 16]) {
      for (const bs of [0, 8, 64, 4096]) {
        for (const n of [0, 3, 8, 13, 1001, 4099, 20000]) {
          const x = sample(n * es, seed % 5, seed++);
          const cd = [0, 4, es, bs, 2];
          const fused = (await bitshuffleEncode(x, cd)) as Uint8Array;
          const ref = (await bitshuffleEncode(x, cd, JS_CODECS)) as Uint8Array;
          expect(eq(fused, ref), `es=${es} bs=${bs} n=${n}`).toBe(true);
          expect(eq((await bitshuffleDecode(fused, cd)) as Uint8Array, x)).toBe(true);
          expect(eq((await bitshuffleDecode(fused, cd, 0, JS_CODECS)) as Uint8Array, x)).toBe(true);
        }
      }
    }
  });

  it('chunks of several input slices (≥ 1 MiB, blocks of any size) frame as the TypeScript path', async () => {
    for (const [es, bs, n] of [
      [2, 0, (5 << 20) / 2 + 3], // many default blocks, several slices, leftover
      [8, 1 << 17, (1 << 17) * 2 + 5000 + 3], // 1 MiB blocks: one block per slice, a partial block, leftover
    ] as const) {
      const x = sample(n * es, 1, n);
      const cd = [0, 4, es, bs, 2];
      const fused = (await bitshuffleEncode(x, cd)) as Uint8Array;
      expect(eq(fused, (await bitshuffleEncode(x, cd, JS_CODECS)) as Uint8Array), `es=${es} bs=${bs}`).toBe(true);
      expect(eq((await bitshuffleDecode(fused, cd)) as Uint8Array, x)).toBe(true);
    }
  });

  it('corrupt chunks give FilterErrors with the same messages as the TypeScript path', async () => {
    const x = sample(4000 * 2, 1, 9);
    const cd = [0, 4, 2, 0, 2];
    const y = (await bitshuffleEncode(x, cd)) as Uint8Array;
    const msg = async (b: Uint8Array, codecs?: typeof JS_CODECS): Promise<string> => {
      const e = await Promise.resolve()
        .then(() => bitshuffleDecode(b, cd, 0, codecs))
        .then(() => null, (err: unknown) => err);
      expect(e).toBeInstanceOf(FilterError);
      expect((e as FilterError).filterId).toBe(32008);
      return (e as Error).message;
    };
    const garbage = y.slice();
    garbage.fill(0xff, 16, 40);
    const huge = y.slice();
    new DataView(huge.buffer).setUint32(12, 0x7fffffff);
    const cases = [y.subarray(0, y.length - 3), y.subarray(0, 14), y.subarray(0, 20), garbage, huge];
    for (const b of cases) {
      const ours = await msg(b);
      expect(ours).toMatch(/block|leftover/);
      const theirs = await msg(b, JS_CODECS);
      expect(ours.replace(/: .*/, '')).toBe(theirs.replace(/: .*/, ''));
    }
  });

  it('large chunks split with a worker thread (opt-in) give the same bytes as one thread and as the TypeScript path', async () => {
    const c = wasmLz4Codec()!;
    for (const [es, n] of [
      [2, (3 << 20) / 2 + 4096 * 3 + 517], // full blocks, a partial last block and leftover elements
      [4, (1 << 20) / 4 + 2048 * 2], // an even number of full blocks only
    ] as const) {
      const x = sample(n * es, 1, n);
      setLz4Parallel(true);
      let r = c.bitshuffleCompress(x, es, 0, 12);
      // the worker starts on first use; until it runs, chunks are compressed on this thread
      for (let i = 0; i < 250 && !(r instanceof Promise); i++) {
        await new Promise((res) => setTimeout(res, 20));
        r = c.bitshuffleCompress(x, es, 0, 12);
      }
      expect(r).toBeInstanceOf(Promise);
      const par = await r!;
      const cd = [0, 4, es, 0, 2];
      const viaFilter = (await bitshuffleEncode(x, cd)) as Uint8Array; // parallel too
      setLz4Parallel(false);
      const seq = c.bitshuffleCompress(x, es, 0, 12);
      expect(seq).toBeInstanceOf(Uint8Array);
      expect(eq(par, seq as Uint8Array)).toBe(true);
      expect(eq(viaFilter, (await bitshuffleEncode(x, cd, JS_CODECS)) as Uint8Array)).toBe(true);
      expect(eq((await bitshuffleDecode(viaFilter, cd)) as Uint8Array, x)).toBe(true);
    }
  });

  it('random corruption never escapes as anything but FilterError', async () => {
    const x = sample(3000 * 4, 3, 11);
    const cd = [0, 4, 4, 256, 2];
    const y = (await bitshuffleEncode(x, cd)) as Uint8Array;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 12, max: y.length - 1 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 12, max: y.length }), async (at, val, cut) => {
        const b = y.slice(0, cut);
        if (at < b.length) b[at] = val;
        try {
          await bitshuffleDecode(b, cd);
        } catch (e) {
          expect(e).toBeInstanceOf(FilterError);
        }
      }),
      { numRuns: 500 },
    );
  });
});

const PY = '/usr/bin/python3';
const PLUGIN_DIR = '/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins';
const haveLz4Plugin = existsSync(PY) && existsSync(join(PLUGIN_DIR, 'libh5lz4.so'));

describe.runIf(haveLz4Plugin)('chunks above 64 KiB equal libh5lz4.so (h5py) byte for byte', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cf-lz4big-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('8 MiB, 256 KiB and 66,000-byte chunks of detector-like uint16 data', () => {
    const plain = sample(2048 * 2048 * 2, 1, 42);
    writeFileSync(join(dir, 'frame.bin'), plain);
    const py = [
      'import h5py, numpy as np, sys',
      'd = sys.argv[1]',
      "a = np.fromfile(d + '/frame.bin', dtype='<u2').reshape(2048, 2048)",
      "for name, chunks in [('big', (2048, 2048)), ('mid', (256, 512)), ('edge', (33, 1000))]:",
      "    with h5py.File(d + '/x.h5', 'w') as h:",
      "        h.create_dataset('x', data=a, chunks=chunks, compression=32004)",
      "    with h5py.File(d + '/x.h5', 'r') as h:",
      "        open(d + '/chunk-' + name + '.bin', 'wb').write(h['x'].id.read_direct_chunk((0, 0))[1])",
      "    a[:chunks[0], :chunks[1]].copy().tofile(d + '/plain-' + name + '.bin')",
    ].join('\n');
    execFileSync(PY, ['-c', py, dir], { env: { ...process.env, HDF5_PLUGIN_PATH: PLUGIN_DIR }, stdio: ['ignore', 'ignore', 'inherit'] });
    for (const name of ['big', 'mid', 'edge']) {
      const chunk = new Uint8Array(readFileSync(join(dir, `plain-${name}.bin`)));
      const theirs = new Uint8Array(readFileSync(join(dir, `chunk-${name}.bin`)));
      expect(chunk.length).toBeGreaterThan(65547);
      expect(eq(lz4Encode(chunk), theirs), `${name}: WebAssembly codec`).toBe(true);
      expect(eq(lz4Encode(chunk, { codec: jsLz4Codec }), theirs), `${name}: TypeScript codec`).toBe(true);
      expect(eq(lz4Decode(theirs), chunk)).toBe(true);
    }
  });
});
