/**
 * LZ4 filter (32004): block codec and H5Zlz4.c framing, round trips, corrupt input, and interop
 * with Debian h5py + libh5lz4.so (hdf5-filter-plugin) both ways.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FilterError, decodeChunk, encodeChunk, type FilterContext } from '@chunkform/core/plugin';
import { ALL_FILTERS, LZ4_DEFAULT_BLOCK_SIZE, lz4CompressBound, lz4Decode, lz4Encode, lz4Filter } from '../src/index.js';
import { lz4CompressBlock, lz4DecompressBlock, Lz4BlockError, lz4Scratch } from '../src/lz4/block.js';
import { lz4EncodeInto, lz4FrameBound } from '../src/lz4/index.js';
import { MALFORMED_LZ4_BLOCKS } from './support/lz4-malformed.js';

const ctx = (elementSize: number, n: number, clientData: number[] = []): FilterContext => ({
  clientData,
  datatype: { class: 'opaque', size: elementSize, tag: '' },
  elementSize,
  chunkDims: [Math.ceil(n / elementSize)],
  flags: 0,
});

/** Bytes with runs, repeats and noise (compressible to various degrees). */
const arbData = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }),
  fc.array(fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 300 })), { maxLength: 40 }).map((runs) => {
    const out: number[] = [];
    for (const [v, n] of runs) for (let i = 0; i < n; i++) out.push(v);
    return Uint8Array.from(out);
  }),
  fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 200 }), fc.uint8Array({ maxLength: 30 })).map(([pat, reps, tail]) => {
    const out = new Uint8Array(pat.length * reps + tail.length);
    for (let r = 0; r < reps; r++) out.set(pat, r * pat.length);
    out.set(tail, pat.length * reps);
    return out;
  }),
);

describe('LZ4 block codec', () => {
  it('round-trips and respects the block format limits', () => {
    fc.assert(
      fc.property(arbData, fc.integer({ min: 1, max: 8 }), (data, accel) => {
        const dst = new Uint8Array(lz4CompressBound(data.length));
        const end = lz4CompressBlock(data, 0, data.length, dst, 0, lz4Scratch(), accel);
        expect(end).toBeLessThanOrEqual(dst.length);
        const out = new Uint8Array(data.length);
        lz4DecompressBlock(dst, 0, end, out, 0, data.length);
        expect(Buffer.from(out).equals(Buffer.from(data))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('decodes hand-made sequences, including overlapping matches', () => {
    // literal "ab", match offset 2 length 4+15+3=22, then last literals "xyz12"
    const block = Uint8Array.from([0x2f, 0x61, 0x62, 0x02, 0x00, 0x03, 0x50, 0x78, 0x79, 0x7a, 0x31, 0x32]);
    const out = new Uint8Array(2 + 22 + 5);
    lz4DecompressBlock(block, 0, block.length, out, 0, out.length);
    expect(Buffer.from(out).toString('latin1')).toBe('ab'.repeat(12) + 'xyz12');
  });

  it('rejects malformed blocks with Lz4BlockError', () => {
    const out = new Uint8Array(64);
    for (const [b, n] of MALFORMED_LZ4_BLOCKS) expect(() => lz4DecompressBlock(Uint8Array.from(b), 0, b.length, out, 0, n), JSON.stringify(b)).toThrow(Lz4BlockError);
  });
});

describe('LZ4 filter framing (H5Zlz4.c)', () => {
  it('writes the big-endian header and per-block sizes', () => {
    const data = new Uint8Array(2500).fill(7);
    const enc = lz4Encode(data, { blockSize: 1000 });
    const v = new DataView(enc.buffer, enc.byteOffset, enc.byteLength);
    expect(v.getUint32(0)).toBe(0);
    expect(v.getUint32(4)).toBe(2500);
    expect(v.getUint32(8)).toBe(1000);
    let s = 12;
    for (const n of [1000, 1000, 500]) {
      const size = v.getUint32(s);
      expect(size).toBeLessThan(n);
      s += 4 + size;
    }
    expect(s).toBe(enc.length);
    expect(Buffer.from(lz4Decode(enc)).equals(Buffer.from(data))).toBe(true);
  });

  it('stores incompressible blocks raw (size = block size) and clamps the block size', () => {
    const data = Uint8Array.from({ length: 300 }, (_, i) => (i * 2654435761) >>> 24);
    const enc = lz4Encode(data);
    const v = new DataView(enc.buffer, enc.byteOffset, enc.byteLength);
    expect(v.getUint32(8)).toBe(300); // default 1 GiB clamped to the chunk
    expect(v.getUint32(12)).toBe(300);
    expect(Buffer.from(enc.subarray(16)).equals(Buffer.from(data))).toBe(true);
    expect(LZ4_DEFAULT_BLOCK_SIZE).toBe(1 << 30);
  });

  it('gives every frame a buffer of its own, of its size: the next encode never changes an earlier result', () => {
    // the encoder compresses into one kept buffer; each result is a copy of its own frame
    const a = Uint8Array.from({ length: 100_000 }, (_, i) => (i >> 6) & 0xff);
    const b = Uint8Array.from({ length: 120_000 }, (_, i) => (i * 7) & 0xff);
    const ea = lz4Encode(a);
    const copy = ea.slice();
    const eb = lz4Encode(b);
    expect(ea.buffer).not.toBe(eb.buffer);
    expect(ea.byteOffset).toBe(0);
    expect(ea.buffer.byteLength).toBe(ea.length);
    expect(Buffer.from(ea).equals(Buffer.from(copy))).toBe(true);
    expect(Buffer.from(lz4Decode(ea)).equals(Buffer.from(a))).toBe(true);
    expect(Buffer.from(lz4Decode(eb)).equals(Buffer.from(b))).toBe(true);
    // a chunk larger than the kept buffer: a new one, and the results still decode
    const c = Uint8Array.from({ length: 300_000 }, (_, i) => (i >> 3) & 0x3f);
    expect(Buffer.from(lz4Decode(lz4Encode(c))).equals(Buffer.from(c))).toBe(true);
    expect(Buffer.from(lz4Decode(ea)).equals(Buffer.from(a))).toBe(true);
  });

  it('builds the frame in the memory `into` gives (a view of it, same bytes), else in a buffer of its own', () => {
    const a = Uint8Array.from({ length: 100_000 }, (_, i) => (i >> 6) & 0xff);
    const plain = lz4Encode(a);
    const mem = new SharedArrayBuffer(lz4FrameBound(a.length) + 100);
    const asked: number[] = [];
    const inMem = lz4EncodeInto(a, { clientData: [] }, (cap) => (asked.push(cap), new Uint8Array(mem)));
    expect(asked).toEqual([lz4FrameBound(a.length)]); // one block: the bound is the worst case asked for
    expect(inMem.buffer).toBe(mem);
    expect(inMem.byteOffset).toBe(0);
    expect(Buffer.from(inMem).equals(Buffer.from(plain))).toBe(true);
    // too small, or none given: the frame leaves in a buffer of its own
    const small = lz4EncodeInto(a, { clientData: [] }, () => new Uint8Array(16));
    expect(small.buffer.byteLength).toBe(small.length);
    expect(Buffer.from(small).equals(Buffer.from(plain))).toBe(true);
    expect(Buffer.from(lz4EncodeInto(a, { clientData: [] }, () => undefined)).equals(Buffer.from(plain))).toBe(true);
    // several blocks (client data [blockSize]) ask for more than the one-block bound; same bytes as the filter
    const blocks = lz4EncodeInto(a, { clientData: [4096] }, (cap) => new Uint8Array(cap));
    expect(Buffer.from(blocks).equals(Buffer.from(lz4Encode(a, { blockSize: 4096 })))).toBe(true);
  });

  it('round-trips through the filter for any element size, block size and length', async () => {
    await fc.assert(
      fc.asyncProperty(arbData, fc.constantFrom(1, 2, 4, 8, 16), fc.integer({ min: 0, max: 4096 }), fc.integer({ min: -3, max: 1 }), async (data, es, bs, p) => {
        const c = ctx(es, data.length, [bs, p >>> 0]);
        const enc = await lz4Filter.encode(data, c);
        const dec = await lz4Filter.decode(enc, c);
        expect(Buffer.from(dec).equals(Buffer.from(data))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('setLocal keeps [blockSize, encoderParam] as uint32 and rejects bad values', () => {
    const c = { datatype: { class: 'opaque' as const, size: 1, tag: '' }, elementSize: 1, chunkDims: [10] };
    expect(lz4Filter.setLocal!([4096, -1], c)).toEqual([4096, 0xffffffff]);
    expect(() => lz4Filter.setLocal!([1, 2, 3], c)).toThrow(FilterError);
    expect(() => lz4Filter.setLocal!([-5], c)).toThrow(FilterError);
  });
});

describe('LZ4 corrupt input', () => {
  const good = lz4Encode(new Uint8Array(5000).map((_, i) => i % 17), { blockSize: 2048 });
  const mutate = (f: (b: Uint8Array, v: DataView) => void) => {
    const b = good.slice();
    f(b, new DataView(b.buffer));
    return b;
  };
  const cases: [string, Uint8Array][] = [
    ['short header', good.subarray(0, 11)],
    ['huge original size', mutate((_, v) => v.setUint32(0, 0x7fff))],
    ['size beyond the data', mutate((_, v) => v.setUint32(4, 0x7fffffff))],
    ['block size 0', mutate((_, v) => v.setUint32(8, 0))],
    ['truncated blocks', good.subarray(0, good.length - 5)],
    ['block size past the end', mutate((_, v) => v.setUint32(12, 100000))],
    ['garbage block', mutate((b) => b.fill(0xff, 16, 30))],
  ];
  for (const [name, bytes] of cases) {
    it(`${name} → FilterError naming the filter`, () => {
      expect(() => lz4Decode(bytes, 5000)).toThrow(FilterError);
    });
  }

  it('random corruption never escapes as anything but FilterError', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: good.length - 1 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: good.length }), (at, val, cut) => {
        const b = good.slice(0, cut);
        if (at < b.length) b[at] = val;
        try {
          lz4Decode(b, 5000);
        } catch (e) {
          expect(e).toBeInstanceOf(FilterError);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('through the pipeline the error names filter, dataset and chunk', async () => {
    const pipeline = { filters: [{ id: 32004, flags: 0, clientData: [] }] };
    const pctx = { datatype: { class: 'opaque' as const, size: 1, tag: '' }, elementSize: 1, chunkDims: [5000] };
    const err = await decodeChunk(good.subarray(0, 40), pipeline, 0, (id) => ALL_FILTERS.find((f) => f.id === id), pctx, { path: '/det/frames', chunk: [3, 0] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FilterError);
    const fe = err as FilterError;
    expect(fe.filterId).toBe(32004);
    expect(fe.filterName).toBe('lz4');
    expect(fe.chunk).toEqual([3, 0]);
    expect(fe.message).toContain('/det/frames');
    expect(fe.message).toContain('lz4');
  });
});

const PLUGIN_DIR = '/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins';
const haveOracle = existsSync(join(PLUGIN_DIR, 'libh5lz4.so')) && existsSync('/usr/bin/python3');

describe.runIf(haveOracle)('LZ4 interop with h5py + libh5lz4.so', () => {
  const PY = '/usr/bin/python3';
  const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'support/h5lz4.py');
  const env = { ...process.env, HDF5_PLUGIN_PATH: PLUGIN_DIR };
  const dir = mkdtempSync(join(tmpdir(), 'cf-lz4-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync(PY, [SCRIPT, 'make', dir], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  interface Case {
    name: string;
    elementSize: number;
    chunkDims: number[];
    filters: { id: number; flags: number; clientData: number[] }[];
    chunks: { offset: number[]; mask: number; raw: string; plain: string }[];
  }
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { cases: Case[] };
  const read = (f: string) => new Uint8Array(readFileSync(join(dir, f)));
  const resolve = (id: number) => ALL_FILTERS.find((f) => f.id === id);
  const setup = (c: Case) => ({
    pipeline: { filters: c.filters },
    pctx: { datatype: { class: 'opaque' as const, size: c.elementSize, tag: '' }, elementSize: c.elementSize, chunkDims: c.chunkDims },
  });

  it('decodes every chunk HDF5 wrote to the unfiltered bytes', async () => {
    expect(manifest.cases.length).toBeGreaterThan(5);
    for (const c of manifest.cases) {
      const { pipeline, pctx } = setup(c);
      for (const ch of c.chunks) {
        const got = await decodeChunk(read(ch.raw), pipeline, ch.mask, resolve, pctx, { path: `/${c.name}`, chunk: ch.offset });
        expect(Buffer.from(got).equals(Buffer.from(read(ch.plain))), `${c.name} [${ch.offset}]`).toBe(true);
      }
    }
  });

  it('encodes chunks that HDF5 reads back as the same values', async () => {
    const ours: Record<string, { offset: number[]; mask: number; file: string }[]> = {};
    for (const c of manifest.cases) {
      const { pipeline, pctx } = setup(c);
      ours[c.name] = [];
      for (const [k, ch] of c.chunks.entries()) {
        const enc = await encodeChunk(read(ch.plain), pipeline, resolve, pctx, { path: `/${c.name}`, chunk: ch.offset });
        expect(enc.filterMask).toBe(0);
        expect(Buffer.from(enc.bytes).equals(Buffer.from(read(ch.raw))), `${c.name} [${ch.offset}] equals HDF5's bytes`).toBe(true);
        const file = `${c.name}.ours${k}.bin`;
        writeFileSync(join(dir, file), enc.bytes);
        ours[c.name]!.push({ offset: ch.offset, mask: enc.filterMask, file });
      }
    }
    writeFileSync(join(dir, 'ours.json'), JSON.stringify(ours));
    const r = JSON.parse(execFileSync(PY, [SCRIPT, 'write', dir], { env, encoding: 'utf8' })) as Record<string, boolean>;
    for (const c of manifest.cases) expect(r[c.name], c.name).toBe(true);
  });

  it('libh5lz4 decodes our chunks and we decode its chunks; the bytes are identical', () => {
    const samples = fc.sample(arbData.filter((d) => d.length > 0), { numRuns: 150, seed: 42 });
    // large inputs take liblz4's other path (32-bit positions, 5-byte hash)
    const big = (n: number, seed: number) => {
      const a = new Uint16Array(n);
      let s = seed;
      for (let i = 0; i < n; i++) {
        s = (Math.imul(s, 1103515245) + 12345) >>> 0;
        a[i] = s < 0x2000000 ? s >>> 12 : s < 0x50000000 ? 1 : 0;
      }
      return new Uint8Array(a.buffer);
    };
    samples.push(big(40000, 1), big(32774, 2), big(150000, 3), new Uint8Array(70000).map((_, i) => (i * 31) % 253), new Uint8Array(65546).fill(9));
    const items = samples.map((d, k) => {
      const blockSize = k >= 150 ? [0, 0, 65536, 0, 0][k - 150]! : [0, 64, 1000, 4096][k % 4]!;
      writeFileSync(join(dir, `s${k}.orig`), d);
      writeFileSync(join(dir, `s${k}.enc`), lz4Encode(d, { blockSize }));
      return { file: `s${k}.enc`, orig: `s${k}.orig`, blockSize };
    });
    writeFileSync(join(dir, 'batch.json'), JSON.stringify(items));
    const r = JSON.parse(execFileSync(PY, [SCRIPT, 'batch', dir], { env, encoding: 'utf8' })) as boolean[];
    expect(r).toEqual(items.map(() => true));
    let compressedBlocks = 0;
    for (const [k, d] of samples.entries()) {
      const ref = read(`s${k}.enc.ref`);
      expect(Buffer.from(lz4Decode(ref)).equals(Buffer.from(d)), `sample ${k}`).toBe(true);
      const ours = read(`s${k}.enc`);
      if (ours.length < d.length) compressedBlocks++;
      // same parsing as liblz4's LZ4_compress_fast: identical bytes
      expect(Buffer.from(ours).equals(Buffer.from(ref)), `sample ${k} (${d.length} bytes) bytes equal libh5lz4's`).toBe(true);
    }
    expect(compressedBlocks).toBeGreaterThan(50);
  });
});
