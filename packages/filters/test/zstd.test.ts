/**
 * zstd filter (32015): frame header parsing, round trips, corrupt input, the zstd CLI as a
 * reference codec, and interop with h5wasm + h5wasm-plugins (HDFGroup's H5Zzstd.c compiled to
 * WebAssembly) both ways, with Debian h5py moving the raw chunks.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilterError, decodeChunk, type FilterContext } from '@chunkform/core/plugin';
import { ALL_FILTERS, fzstdCodec, loadZstdWasm, zstdDecode, type ZstdCodec, zstdEncode, zstdFilter, zstdFrameContentSize, zstdLevel } from '../src/index.js';
import { loadH5wasmWithPlugins } from './support/h5wasm-plugins-loader.js';

const PY = '/usr/bin/python3';
const SUPPORT = join(dirname(fileURLToPath(import.meta.url)), 'support');
const dir = mkdtempSync(join(tmpdir(), 'cf-zstd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ctx = (elementSize: number, n: number, clientData: number[] = []): FilterContext => ({
  clientData,
  datatype: { class: 'opaque', size: elementSize, tag: '' },
  elementSize,
  chunkDims: [Math.max(1, Math.ceil(n / elementSize))],
  flags: 0,
});
const hdr = (...b: number[]) => Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, ...b]);

const arbData = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 3000 }),
  fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 300 })).map(([pat, reps]) => {
    const out = new Uint8Array(pat.length * reps);
    for (let r = 0; r < reps; r++) out.set(pat, r * pat.length);
    return out;
  }),
);

describe('zstd frame header (RFC 8878 §3.1.1.1)', () => {
  it('reads every Frame_Content_Size encoding', () => {
    expect(zstdFrameContentSize(hdr(0x20, 0x05))).toEqual({ kind: 'size', size: 5 });
    expect(zstdFrameContentSize(hdr(0x40, 0x00, 0x01, 0x00))).toEqual({ kind: 'size', size: 257 });
    expect(zstdFrameContentSize(hdr(0x81, 0x00, 0x09, 0x78, 0x56, 0x34, 0x12))).toEqual({ kind: 'size', size: 0x12345678 });
    expect(zstdFrameContentSize(hdr(0xe0, 1, 0, 0, 0, 1, 0, 0, 0))).toEqual({ kind: 'size', size: 2 ** 32 + 1 });
    expect(zstdFrameContentSize(hdr(0x00, 0x00))).toEqual({ kind: 'unknown' });
    expect(zstdFrameContentSize(hdr(0x08, 0x00)).kind).toBe('error');
    expect(zstdFrameContentSize(hdr(0x80, 0x00, 0x01)).kind).toBe('error');
    expect(zstdFrameContentSize(Uint8Array.from([1, 2, 3, 4, 5, 6])).kind).toBe('error');
  });

  it('maps client data to levels as H5Zzstd.c does', () => {
    expect(zstdLevel([])).toBe(3);
    expect(zstdLevel([9])).toBe(9);
    expect(zstdLevel([99])).toBe(22);
    expect(zstdLevel([0xfffffffb])).toBe(-5);
    expect(zstdLevel([0x80000000])).toBe(-131072);
  });
});

describe('zstd filter', () => {
  beforeAll(async () => {
    await loadZstdWasm();
  });

  it('round-trips for any element size, level and length', async () => {
    await fc.assert(
      fc.asyncProperty(arbData, fc.constantFrom(1, 2, 4, 8, 16), fc.integer({ min: -5, max: 19 }), async (data, es, level) => {
        const c = ctx(es, data.length, [level >>> 0]);
        const enc = await zstdFilter.encode(data, c);
        const cs = zstdFrameContentSize(enc);
        expect(cs).toEqual({ kind: 'size', size: data.length });
        const dec = await zstdFilter.decode(enc, c);
        expect(Buffer.from(dec).equals(Buffer.from(data))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('encodes synchronously once the WebAssembly encoder is loaded', () => {
    expect(zstdEncode(new Uint8Array(100))).toBeInstanceOf(Uint8Array);
  });

  it('decodes synchronously with the loaded WebAssembly decoder; another codec still gets an `out` of the content size', () => {
    const data = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7) % 253);
    const enc = zstdEncode(data, 3) as Uint8Array;
    const dec = zstdDecode(enc, data.length);
    expect(dec).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(dec as Uint8Array).equals(Buffer.from(data))).toBe(true);
    const sizes: number[] = [];
    const codec: ZstdCodec = { name: 'probe', compress: () => new Uint8Array(0), decompress: (d, out) => (sizes.push(out.length), fzstdCodec.decompress(d, out)) };
    const viaOther = zstdDecode(enc, data.length, codec) as Uint8Array;
    expect(sizes).toEqual([data.length]);
    expect(Buffer.from(viaOther).equals(Buffer.from(data))).toBe(true);
  });

  it('setLocal keeps [level] as uint32', () => {
    const c = { datatype: { class: 'opaque' as const, size: 1, tag: '' }, elementSize: 1, chunkDims: [10] };
    expect(zstdFilter.setLocal!([-3], c)).toEqual([0xfffffffd]);
    expect(zstdFilter.setLocal!([], c)).toEqual([]);
    expect(() => zstdFilter.setLocal!([1, 2], c)).toThrow(FilterError);
  });

  describe('corrupt input → FilterError', () => {
    const data = Uint8Array.from({ length: 6000 }, (_, i) => (i * i) % 251);
    let good: Uint8Array;
    beforeAll(async () => {
      good = await zstdEncode(data, 3);
    });
    it('framing errors', () => {
      const cases: Uint8Array[] = [
        new Uint8Array(0),
        Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]),
        hdr(0x00, 0x00, 0x01, 0x00, 0x00), // no content size
        hdr(0x20, 0x00), // zero content size
        hdr(0xe0, 0, 0, 0, 0, 0, 1, 0, 0), // 2^40 bytes claimed
        good.subarray(0, good.length - 3),
      ];
      for (const b of cases) expect(() => zstdDecode(b, 6000), Buffer.from(b.subarray(0, 12)).toString('hex')).toThrow(FilterError);
      const big = good.slice();
      expect(() => zstdDecode(big, 100)).toThrow(/limit/);
    });

    it('random corruption never escapes as anything but FilterError', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: good.length - 1 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: good.length }), (at, val, cut) => {
          const b = good.slice(0, cut);
          if (at < b.length) b[at] = val;
          try {
            const out = zstdDecode(b, 6000) as Uint8Array;
            expect(out.length).toBe(6000);
          } catch (e) {
            expect(e).toBeInstanceOf(FilterError);
          }
        }),
        { numRuns: 1000 },
      );
    });

    it('through the pipeline the error names filter, dataset and chunk', async () => {
      const pipeline = { filters: [{ id: 32015, flags: 0, clientData: [3] }] };
      const pctx = { datatype: { class: 'opaque' as const, size: 1, tag: '' }, elementSize: 1, chunkDims: [6000] };
      const err = await decodeChunk(good.subarray(0, 20), pipeline, 0, (id) => ALL_FILTERS.find((f) => f.id === id), pctx, { path: '/scan/data', chunk: [0, 2] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FilterError);
      const fe = err as FilterError;
      expect([fe.filterId, fe.filterName, fe.chunk]).toEqual([32015, 'zstd', [0, 2]]);
      expect(fe.message).toContain('/scan/data');
    });
  });
});

describe.runIf(existsSync('/usr/bin/zstd'))('zstd CLI as the reference codec', () => {
  it('the CLI decodes our frames and we decode its frames', async () => {
    const samples = fc.sample(arbData, { numRuns: 40, seed: 7 });
    for (const [k, d] of samples.entries()) {
      const ours = join(dir, `cli${k}.zst`);
      writeFileSync(ours, await zstdEncode(d, 3));
      const back = spawnSync('/usr/bin/zstd', ['-d', '-c', '-q', ours]);
      expect(back.status).toBe(0);
      expect(Buffer.from(back.stdout).equals(Buffer.from(d)), `sample ${k}`).toBe(true);
      const plain = join(dir, `cli${k}.bin`);
      writeFileSync(plain, d);
      const theirs = new Uint8Array(execFileSync('/usr/bin/zstd', ['-3', '-c', '-q', '--no-check', plain]));
      expect(Buffer.from(zstdDecode(theirs, d.length) as Uint8Array).equals(Buffer.from(d))).toBe(true);
    }
  });
});

/** Detector-like uint16 frame: low Poisson-ish counts with sparse bright hits. */
function detector(n: number, seed: number): Uint16Array {
  const a = new Uint16Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const r = s / 2 ** 32;
    a[i] = r < 0.01 ? 100 + ((s >>> 8) % 60000) : r < 0.3 ? 1 : 0;
  }
  return a;
}

let h5wasmAvailable = true;
try {
  await import('h5wasm-plugins');
} catch {
  h5wasmAvailable = false;
}

describe.runIf(h5wasmAvailable && existsSync(PY))('zstd interop with h5wasm + h5wasm-plugins (H5Zzstd.c)', () => {
  interface Case {
    name: string;
    data: Uint16Array | Float64Array;
    dtype: string;
    chunk: number;
    level: number;
  }
  const cases: Case[] = [
    { name: 'u16_l3', data: detector(8192, 1), dtype: '<u2', chunk: 2048, level: 3 },
    { name: 'u16_l1', data: detector(6000, 2), dtype: '<u2', chunk: 1000, level: 1 },
    { name: 'u16_neg5', data: detector(4096, 3), dtype: '<u2', chunk: 4096, level: -5 },
    { name: 'f64_l19', data: Float64Array.from({ length: 3000 }, (_, i) => Math.sin(i / 40)), dtype: '<f8', chunk: 1500, level: 19 },
  ];
  const bytesOf = (c: Case, k: number) => new Uint8Array(c.data.buffer, k * c.chunk * c.data.BYTES_PER_ELEMENT, c.chunk * c.data.BYTES_PER_ELEMENT);
  const resolve = (id: number) => ALL_FILTERS.find((f) => f.id === id);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let h5wasm: any;

  beforeAll(async () => {
    h5wasm = await loadH5wasmWithPlugins();
  });

  it('decodes the chunks H5Zzstd.c wrote; our frames equal its frames byte for byte', async () => {
    const file = join(dir, 'h5wasm-zstd.h5');
    const f = new h5wasm.File(file, 'w');
    for (const c of cases) {
      f.create_dataset({ name: c.name, data: c.data, shape: [c.data.length], chunks: [c.chunk], compression: 32015, compression_opts: [c.level >>> 0] });
    }
    f.close();
    const dump = JSON.parse(execFileSync(PY, [join(SUPPORT, 'h5zstd.py'), 'dump', file], { encoding: 'utf8', maxBuffer: 1 << 28 })) as Record<string, { offset: number[]; mask: number; hex: string }[]>;
    let sameBytes = 0;
    let total = 0;
    for (const c of cases) {
      const rows = dump[c.name]!;
      expect(rows.length).toBe(c.data.length / c.chunk);
      const es = c.data.BYTES_PER_ELEMENT;
      const pipeline = { filters: [{ id: 32015, flags: 1, clientData: [c.level >>> 0] }] };
      const pctx = { datatype: { class: 'opaque' as const, size: es, tag: '' }, elementSize: es, chunkDims: [c.chunk] };
      for (const r of rows) {
        const k = r.offset[0]! / c.chunk;
        const raw = new Uint8Array(Buffer.from(r.hex, 'hex'));
        const got = await decodeChunk(raw, pipeline, r.mask, resolve, pctx, { path: `/${c.name}`, chunk: [k] });
        expect(Buffer.from(got).equals(Buffer.from(bytesOf(c, k))), `${c.name} chunk ${k}`).toBe(true);
        const ours = await zstdEncode(bytesOf(c, k), c.level);
        total++;
        if (Buffer.from(ours).equals(Buffer.from(raw))) sameBytes++;
      }
    }
    // same zstd (1.5.x, ZSTD_compress) and level: the frames are identical
    expect(sameBytes).toBe(total);
  });

  it('encodes chunks that H5Zzstd.c decodes to the same values', async () => {
    const spec = [];
    for (const c of cases) {
      const chunks = [];
      for (let k = 0; k < c.data.length / c.chunk; k++) {
        const file = join(dir, `ours-${c.name}-${k}.zst`);
        writeFileSync(file, await zstdEncode(bytesOf(c, k), c.level));
        chunks.push({ offset: [k * c.chunk], file });
      }
      spec.push({ name: c.name, dtype: c.dtype, shape: [c.data.length], chunks: [c.chunk], level: c.level, chunks_data: chunks });
    }
    const specFile = join(dir, 'spec.json');
    writeFileSync(specFile, JSON.stringify(spec));
    const file = join(dir, 'ours-zstd.h5');
    execFileSync(PY, [join(SUPPORT, 'h5zstd.py'), 'store', file, specFile]);
    const f = new h5wasm.File(file, 'r');
    try {
      for (const c of cases) {
        const ds = f.get(c.name);
        expect(ds.filters[0].id).toBe(32015);
        const v = ds.value as Uint16Array | Float64Array;
        expect(Array.from(v), c.name).toEqual(Array.from(c.data));
      }
    } finally {
      f.close();
    }
  });
});
