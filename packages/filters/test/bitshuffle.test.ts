/**
 * Bitshuffle filter (32008): plain mode against a literal transcription of bitshuffle_core.c,
 * LZ4/zstd sub-mode framing and round trips, corrupt input, and interop with h5wasm +
 * h5wasm-plugins (kiyo-masui/bitshuffle's bshuf_h5filter.c compiled to WebAssembly) both ways.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilterError, UnsupportedError, decodeChunk, type FilterContext } from '@chunkform/core/plugin';
import { ALL_FILTERS, bitshuffleDecode, bitshuffleEncode, bitshuffleFilter, bitshuffleSetLocal, createBitshuffleFilter, jsLz4Codec } from '../src/index.js';
import { referenceBitshuffle } from '../../bitshuffle-wasm/test/reference.js';
import { loadH5wasmWithPlugins } from './support/h5wasm-plugins-loader.js';

const PY = '/usr/bin/python3';
const SUPPORT = join(dirname(fileURLToPath(import.meta.url)), 'support');
const dir = mkdtempSync(join(tmpdir(), 'cf-bshuf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function rand(n: number, seed: number, sparse = false): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = sparse ? ((s >>> 0) % 5 === 0 ? s & 0x1f : 0) : s & 0xff;
  }
  return out;
}
const ctx = (es: number, n: number, clientData: number[]): FilterContext => ({
  clientData,
  datatype: { class: 'opaque', size: es, tag: '' },
  elementSize: es,
  chunkDims: [n],
  flags: 0,
});

describe('bitshuffle filter', () => {
  it('is registered as 32008 and setLocal follows bshuf_h5_set_local', () => {
    expect(ALL_FILTERS).toContain(bitshuffleFilter);
    expect(bitshuffleFilter.id).toBe(32008);
    expect(bitshuffleSetLocal([], 2)).toEqual([0, 4, 2]);
    expect(bitshuffleSetLocal([0, 2], 4)).toEqual([0, 4, 4, 0, 2]);
    expect(bitshuffleSetLocal([256, 3, 5], 8)).toEqual([0, 4, 8, 256, 3, 5]);
    expect(() => bitshuffleSetLocal([12], 2)).toThrow(FilterError);
    expect(() => bitshuffleSetLocal([0, 1], 2)).toThrow(FilterError);
  });

  it('plain mode equals the reference for element sizes 1/2/4/8/16, block sizes, odd lengths', async () => {
    let seed = 1;
    for (const es of [1, 2, 4, 8, 16]) {
      for (const bs of [0, 8, 64, 136]) {
        for (const n of [1, 7, 8, 13, 100, 2049, 5003]) {
          const x = rand(n * es, seed++);
          const cd = bs === 0 ? [0, 4, es] : [0, 4, es, bs];
          const y = (await bitshuffleEncode(x, cd)) as Uint8Array;
          expect(y, `es=${es} bs=${bs} n=${n}`).toEqual(referenceBitshuffle(x, es, bs, false));
          expect(await bitshuffleDecode(y, cd)).toEqual(x);
        }
      }
    }
  });

  it('LZ4 and zstd sub-modes round-trip and frame as bitshuffle.c', async () => {
    let seed = 100;
    for (const comp of [2, 3]) {
      for (const es of [1, 2, 4, 8, 16]) {
        for (const bs of [0, 64]) {
          for (const n of [0, 5, 8, 1001, 4099, 9000]) {
            const x = rand(n * es, seed++, seed % 2 === 0);
            const cd = [0, 4, es, bs, comp];
            const y = await bitshuffleEncode(x, cd);
            const v = new DataView(y.buffer, y.byteOffset, y.length);
            expect(v.getUint32(0) * 2 ** 32 + v.getUint32(4)).toBe(x.length);
            const block = bs || Math.max(Math.floor(8192 / es / 8) * 8, 128);
            expect(v.getUint32(8)).toBe(block * es);
            // the leftover elements are the raw tail
            const left = (n % 8) * es;
            expect(y.subarray(y.length - left)).toEqual(x.subarray(x.length - left));
            expect(await bitshuffleDecode(y, cd), `comp=${comp} es=${es} bs=${bs} n=${n}`).toEqual(x);
          }
        }
      }
    }
  });

  it('the fused LZ4 sub-mode builds its result in the memory `into` gives (a view of it, same bytes), else in its own', async () => {
    const data = new Uint8Array(new Uint16Array(Array.from({ length: 40_000 }, (_, i) => 100 + ((i * 2654435761) >>> 30))).buffer);
    const cd = bitshuffleSetLocal([0, 2], 2);
    const plain = await bitshuffleEncode(data, cd);
    const mem = new SharedArrayBuffer(2 * data.length);
    const asked: number[] = [];
    const inMem = await bitshuffleEncode(data, cd, undefined, (cap) => (asked.push(cap), new Uint8Array(mem)));
    expect(asked.length).toBe(1);
    expect(asked[0]).toBeGreaterThanOrEqual(plain.length);
    expect(inMem.buffer).toBe(mem);
    expect(Buffer.compare(inMem, plain)).toBe(0);
    const small = await bitshuffleEncode(data, cd, undefined, () => new Uint8Array(8));
    expect(small.buffer).not.toBe(mem);
    expect(Buffer.compare(small, plain)).toBe(0);
  });

  it('corrupt framing and blocks give FilterErrors naming the filter', async () => {
    const x = rand(4000 * 2, 9, true);
    const cd = [0, 4, 2, 0, 2];
    const y = (await bitshuffleEncode(x, cd)) as Uint8Array;
    const bad = async (b: Uint8Array, limit = 0) => {
      const e = await Promise.resolve()
        .then(() => bitshuffleDecode(b, cd, limit))
        .then(() => null, (err: unknown) => err);
      expect(e).toBeInstanceOf(FilterError);
      expect((e as FilterError).filterId).toBe(32008);
      return (e as Error).message;
    };
    expect(await bad(y.subarray(0, 7))).toMatch(/12-byte header/);
    expect(await bad(y.subarray(0, y.length - 3))).toMatch(/truncated|remain|corrupt/);
    const big = y.slice();
    big[2] = 0xff;
    expect(await bad(big)).toMatch(/uncompressed bytes/);
    expect(await bad(y, 100)).toMatch(/limit/);
    const odd = y.slice();
    odd[7] = odd[7]! ^ 1;
    expect(await bad(odd)).toMatch(/whole number/);
    const blk = y.slice();
    blk[11] = 12; // 4096 + 12 bytes / 2 = 2054 elements, not a multiple of 8
    expect(await bad(blk)).toMatch(/multiple of 8/);
    const garbage = y.slice();
    for (let i = 16; i < 40; i++) garbage[i] = 0xff;
    expect(await bad(garbage)).toMatch(/block 0/);
    const huge = y.slice();
    new DataView(huge.buffer).setUint32(12, 0x7fffffff);
    expect(await bad(huge)).toMatch(/claims/);
    expect(() => bitshuffleDecode(new Uint8Array(5), [0, 4, 2])).toThrow(FilterError);
    expect(() => bitshuffleDecode(new Uint8Array(8), [0, 4])).toThrow(/fewer than/);
    expect(() => bitshuffleDecode(new Uint8Array(8), [0, 4, 2, 12])).toThrow(/block size/);
  });

  it('a filter without a codec rejects that sub-mode with UnsupportedError', () => {
    const f = createBitshuffleFilter({ lz4: jsLz4Codec });
    expect(() => f.encode(new Uint8Array(16), ctx(2, 8, [0, 4, 2, 0, 3]))).toThrow(UnsupportedError);
    expect(() => f.decode(new Uint8Array(16), ctx(2, 8, [0, 4, 2, 0, 3]))).toThrow(UnsupportedError);
  });
});

let h5wasmAvailable = true;
try {
  await import('h5wasm-plugins');
} catch {
  h5wasmAvailable = false;
}

describe.runIf(h5wasmAvailable && existsSync(PY))('bitshuffle interop with h5wasm + h5wasm-plugins (bshuf_h5filter.c)', () => {
  interface Case {
    name: string;
    data: Uint8Array | Uint16Array | Uint32Array | Float64Array;
    dtype: string;
    chunk: number;
    opts: number[];
  }
  const detector = (n: number, seed: number) => {
    const b = rand(n * 2, seed, true);
    return new Uint16Array(b.buffer);
  };
  const cases: Case[] = [
    { name: 'u16_none', data: detector(10006, 1), dtype: '<u2', chunk: 5003, opts: [] },
    { name: 'u16_lz4', data: detector(20000, 2), dtype: '<u2', chunk: 10000, opts: [0, 2] },
    { name: 'u16_lz4_odd', data: detector(8195 * 2, 3), dtype: '<u2', chunk: 8195, opts: [0, 2] },
    { name: 'u32_lz4_b256', data: new Uint32Array(detector(12000, 4).buffer), dtype: '<u4', chunk: 3001, opts: [256, 2] },
    { name: 'u8_lz4', data: rand(30000, 5, true), dtype: '|u1', chunk: 10000, opts: [0, 2] },
    { name: 'f64_zstd', data: Float64Array.from({ length: 6000 }, (_, i) => Math.sin(i / 40)), dtype: '<f8', chunk: 3000, opts: [0, 3, 3] },
    { name: 'u16_zstd', data: detector(9000, 6), dtype: '<u2', chunk: 4500, opts: [0, 3, 5] },
  ];
  const bytesOf = (c: Case, k: number) => {
    const es = c.data.BYTES_PER_ELEMENT;
    const start = k * c.chunk * es;
    return new Uint8Array(c.data.buffer, c.data.byteOffset + start, Math.min(c.chunk * es, c.data.byteLength - start));
  };
  const resolve = (id: number) => ALL_FILTERS.find((f) => f.id === id);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let h5wasm: any;

  beforeAll(async () => {
    h5wasm = await loadH5wasmWithPlugins();
  });

  it('decodes the chunks bshuf_h5filter.c wrote; our chunks equal its chunks byte for byte', async () => {
    const file = join(dir, 'h5wasm-bshuf.h5');
    const f = new h5wasm.File(file, 'w');
    for (const c of cases) {
      f.create_dataset({ name: c.name, data: c.data, shape: [c.data.length], chunks: [c.chunk], compression: 32008, compression_opts: c.opts });
    }
    f.close();
    const dump = JSON.parse(execFileSync(PY, [join(SUPPORT, 'h5bshuf.py'), 'dump', file], { encoding: 'utf8', maxBuffer: 1 << 28 })) as Record<
      string,
      { cd: number[]; chunks: { offset: number[]; mask: number; hex: string }[] }
    >;
    const mismatched: string[] = [];
    for (const c of cases) {
      const { cd, chunks } = dump[c.name]!;
      const es = c.data.BYTES_PER_ELEMENT;
      expect(cd.slice(2)).toEqual([es, ...c.opts]);
      const pipeline = { filters: [{ id: 32008, flags: 1, clientData: cd }] };
      const pctx = { datatype: { class: 'opaque' as const, size: es, tag: '' }, elementSize: es, chunkDims: [c.chunk] };
      for (const r of chunks) {
        const k = r.offset[0]! / c.chunk;
        const raw = new Uint8Array(Buffer.from(r.hex, 'hex'));
        const got = await decodeChunk(raw, pipeline, r.mask, resolve, pctx, { path: `/${c.name}`, chunk: [k] });
        // HDF5 filters whole chunks: the last, partial chunk is padded to full size.
        expect(Buffer.from(got.subarray(0, bytesOf(c, k).length)).equals(Buffer.from(bytesOf(c, k))), `${c.name} chunk ${k}`).toBe(true);
        const ours = await bitshuffleEncode(got, cd);
        if (!Buffer.from(ours).equals(Buffer.from(raw))) mismatched.push(`${c.name}[${k}]`);
      }
    }
    expect(mismatched).toEqual([]);
  });

  it('encodes chunks that bshuf_h5filter.c decodes to the same values', async () => {
    const spec = [];
    for (const c of cases) {
      const es = c.data.BYTES_PER_ELEMENT;
      const cd = bitshuffleSetLocal(c.opts, es);
      const chunks = [];
      for (let k = 0; k < Math.ceil(c.data.length / c.chunk); k++) {
        const full = new Uint8Array(c.chunk * es);
        full.set(bytesOf(c, k));
        const file = join(dir, `ours-${c.name}-${k}.bin`);
        writeFileSync(file, await bitshuffleEncode(full, cd));
        chunks.push({ offset: [k * c.chunk], file });
      }
      spec.push({ name: c.name, dtype: c.dtype, shape: [c.data.length], chunks: [c.chunk], cd, chunks_data: chunks });
    }
    const specFile = join(dir, 'spec.json');
    writeFileSync(specFile, JSON.stringify(spec));
    const file = join(dir, 'ours-bshuf.h5');
    execFileSync(PY, [join(SUPPORT, 'h5bshuf.py'), 'store', file, specFile]);
    const f = new h5wasm.File(file, 'r');
    try {
      for (const c of cases) {
        const ds = f.get(c.name);
        expect(ds.filters[0].id).toBe(32008);
        expect(Array.from(ds.value as ArrayLike<number>), c.name).toEqual(Array.from(c.data));
      }
    } finally {
      f.close();
    }
  });
});
