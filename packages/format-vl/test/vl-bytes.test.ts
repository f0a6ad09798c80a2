/**
 * The bytes of docs/format-vl.md: layout message (type 1, compositions, 8-byte chunk sizes), dense and
 * sparse VL chunk sections (entries, heap with its unused count, lookup3 checksums), heap space
 * reuse, section filters in the index records, and corrupt chunks → typed errors.
 */
import { describe, expect, it } from 'vitest';
import {
  ChecksumError,
  FilterError,
  FormatError,
  UnsupportedError,
  ValueError,
  parseDtype,
  type ChunkFormatContext,
  MemoryStore,
  createFile,
  encodeSelection,
  lookup3,
  openFile,
  selectHyperslab,
  selectPoints,
  type Dataset,
} from '@chunkform/core';
import { VlFormat, createVlDataset, type VlDatasetOptions } from '../src/index.js';
import { stringChunkContext } from './support.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const u32 = (v: number) => hex(Uint8Array.of(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24));
const u64 = (v: number) => u32(v) + '00000000';
const sum = (b: Uint8Array) => u32(lookup3(b));
const ascii = (s: string) => hex(new TextEncoder().encode(s));

/** Creates a VL dataset, runs `write`, closes; returns the file's bytes and the reopened dataset. */
async function build(opts: VlDatasetOptions, write: (d: Dataset) => Promise<void>) {
  const store = new MemoryStore();
  const f = await createFile(store, { superblockVersion: 3 });
  const d = await createVlDataset(f, 'v', opts);
  await write(d);
  await f.close();
  const bytes = store.toBytes();
  const g = await openFile(bytes);
  return { bytes, d: (await g.get('v')) as Dataset, close: () => g.close() };
}

/** The layout message body (type 8) of a dataset. */
function layoutBody(d: Dataset): Uint8Array {
  return d.headerModel.messages.find((m) => m.type === 0x08)!.body;
}

describe('layout message (docs/format-vl.md §1.1)', () => {
  it('dense VL, fixed array: type 01 00, composition 08 02 02 00 01', async () => {
    const { d, close } = await build({ dtype: 'string', shape: [6], maxShape: [9], chunks: [3] }, async () => {});
    const b = layoutBody(d);
    // version 5, class 4, property version 0, type 1, flags 0, rank+1 = 2, E = 1, dims 3 and 16
    expect(hex(b.subarray(0, 10))).toBe('05040001000002010310');
    expect(hex(b.subarray(10, 15))).toBe('0802020001'); // composition
    expect(hex(b.subarray(15, 17))).toBe('030a'); // fixed array, page bits 10
    expect(d.headerModel.messages.filter((m) => m.type !== 0).map((m) => m.type)).toEqual([0x01, 0x03, 0x05, 0x08]);
    await close();
  });

  it('sparse VL, single chunk: composition 08 03 03 00 01 02 and an 8-byte chunk size', async () => {
    const { d, close } = await build({ dtype: 'vlen<i2>', shape: [4], chunks: [4], sparse: true }, async (d) => {
      await d.write([Int16Array.of(7)], selectPoints([[2]]));
    });
    const b = layoutBody(d);
    expect(hex(b.subarray(0, 10))).toBe('05040001000002010410');
    expect(hex(b.subarray(10, 16))).toBe('080303000102');
    expect(b[16]).toBe(1); // single chunk index
    const info = await d.structChunkInfo(0);
    // chunk size (8 bytes), then offsets of sections 1 and 2 (8 each), then the address
    expect(hex(b.subarray(17, 25))).toBe(u64(info.size));
    expect(hex(b.subarray(25, 33))).toBe(u64(info.sectionSizes[0]!));
    expect(hex(b.subarray(33, 41))).toBe(u64(info.sectionSizes[0]! + info.sectionSizes[1]!));
    await close();
  });
});

describe('dense VL chunk (docs/format-vl.md §2.1, §3)', () => {
  it('entries (offset, length) + lookup3, heap = unused count + values + lookup3', async () => {
    const { d, close } = await build({ dtype: 'string', shape: [3], chunks: [3] }, (d) => d.write(['ab', '', 'cdé']));
    const { sections } = await d.readStructChunk([0]);
    const entries = u64(4) + u64(2) + u64(0) + u64(0) + u64(6) + u64(4);
    expect(hex(sections[0]!)).toBe(entries + sum(Buffer.from(entries, 'hex')));
    const heap = u32(0) + ascii('abcdé');
    expect(hex(sections[1]!)).toBe(heap + sum(Buffer.from(heap, 'hex')));
    expect(await d.read()).toEqual(['ab', '', 'cdé']);
    await close();
  });

  it('no non-empty value: the heap section is 0 bytes', async () => {
    const { d, close } = await build({ dtype: 'string', shape: [2], chunks: [2] }, (d) => d.write(['', '']));
    const { sections, info } = await d.readStructChunk([0]);
    expect(sections[1]!.length).toBe(0);
    expect(info.sectionSizes).toEqual([2 * 16 + 4, 0]);
    await close();
  });

  it('sequences: length counts base elements, values in the base type byte order', async () => {
    const { d, close } = await build({ dtype: 'vlen<<i4>', shape: [2], chunks: [2] }, (d) => d.write([Int32Array.of(1, -2), Int32Array.of()]));
    const { sections } = await d.readStructChunk([0]);
    expect(hex(sections[0]!.subarray(0, 32))).toBe(u64(4) + u64(2) + u64(0) + u64(0));
    expect(hex(sections[1]!.subarray(0, 12))).toBe(u32(0) + '01000000feffffff');
    await close();
  });
});

describe('heap space reuse (docs/format-vl.md §4)', () => {
  it('a shorter value goes where the old one was; the rest is counted unused', async () => {
    const { d, close } = await build({ dtype: 'string', shape: [3], chunks: [3] }, async (d) => {
      await d.write(['ab', 'cde', 'fgh']);
      await d.write(['x'], selectHyperslab({ start: [1], count: [1] }));
    });
    const { sections } = await d.readStructChunk([0]);
    expect(hex(sections[0]!.subarray(16, 32))).toBe(u64(6) + u64(1));
    expect(hex(sections[1]!.subarray(0, 12))).toBe(u32(2) + ascii('abxdefgh'));
    expect(await d.read()).toEqual(['ab', 'x', 'fgh']);
    await close();
  });

  it('once unused bytes reach the live bytes the heap is compacted; rewrites never grow the chunk', async () => {
    const long = ['a'.repeat(50), 'b'.repeat(50), 'c'.repeat(50)];
    const { d, close } = await build({ dtype: 'string', shape: [3], chunks: [3] }, async (d) => {
      await d.write(long);
      await d.write(['B', 'C'], selectHyperslab({ start: [1], count: [2] }));
    });
    const { sections } = await d.readStructChunk([0]);
    // 98 unused bytes ≥ 52 live bytes: compacted in element order
    expect(hex(sections[1]!.subarray(0, 4 + 52))).toBe(u32(0) + ascii('a'.repeat(50) + 'BC'));
    expect(sections[1]!.length).toBe(4 + 52 + 4);
    expect(await d.read()).toEqual(['a'.repeat(50), 'B', 'C']);
    await close();
  });

  it('sparse VL: erasing frees the value, the chunk shrinks', async () => {
    const { d, close } = await build({ dtype: 'string', shape: [4], chunks: [4], sparse: true }, async (d) => {
      await d.write(['x'.repeat(40), 'y'.repeat(40)], selectHyperslab({ start: [1], count: [2] }));
      await d.erase(selectPoints([[1]]));
    });
    const { sections } = await d.readStructChunk([0]);
    const sel = encodeSelection(selectHyperslab({ start: [2], count: [1] }), { dims: [4], maxDims: [4] });
    expect(hex(sections[0]!)).toBe(hex(sel) + sum(sel));
    const entries = u64(4) + u64(40);
    expect(hex(sections[1]!)).toBe(entries + sum(Buffer.from(entries, 'hex')));
    expect(hex(sections[2]!.subarray(0, 44))).toBe(u32(0) + ascii('y'.repeat(40)));
    expect(await d.read()).toEqual(['', '', 'y'.repeat(40), '']);
    await close();
  });
});

describe('section filters (docs/format-vl.md §3.3)', () => {
  it('deflate on the heap: unfiltered sizes and masks of every section in the record', async () => {
    const values = Array.from({ length: 20 }, (_, i) => `event-${i % 3}-label`);
    const { d, close } = await build({ dtype: 'string', shape: [20], chunks: [20], compression: 'gzip' }, (d) => d.write(values));
    const info = await d.structChunkInfo(0);
    const raw = values.reduce((n, s) => n + s.length, 0);
    expect(info.unfilteredSizes).toEqual([20 * 16 + 4, 4 + raw + 4]);
    expect(info.filterMasks).toEqual([0, 0]);
    expect(info.sectionSizes[1]!).toBeLessThan(raw);
    expect(await d.read()).toEqual(values);
    await close();
  });
});

describe('corrupt chunks → typed errors', () => {
  async function corrupt(section: number, at: (s: Uint8Array) => number, opts: Partial<VlDatasetOptions> = {}) {
    const { bytes, d, close } = await build({ dtype: 'string', shape: [3], chunks: [3], ...opts }, (d) => d.write(['ab', 'cd', 'ef']));
    const info = await d.structChunkInfo(0);
    await close();
    const start = info.address + info.sectionSizes.slice(0, section).reduce((a, b) => a + b, 0);
    const bad = bytes.slice();
    bad[start + at(bad.subarray(start))]! ^= 0xff;
    const g = await openFile(bad);
    const e = await ((await g.get('v')) as Dataset).read().catch((x: unknown) => x);
    await g.close();
    return e;
  }

  it('a flipped entry byte is a checksum error naming the chunk', async () => {
    const e = await corrupt(0, () => 3);
    expect(e).toBeInstanceOf(ChecksumError);
    expect(String((e as Error).message)).toMatch(/entries section/);
  });

  it('a flipped heap byte is a checksum error naming the heap section (both sections\' checksums are computed together)', async () => {
    const e = await corrupt(1, () => 5);
    expect(e).toBeInstanceOf(ChecksumError);
    expect(String((e as Error).message)).toMatch(/heap section/);
  });

  it('an entry pointing outside the heap (with a valid checksum) is a format error', async () => {
    const { bytes, d, close } = await build({ dtype: 'string', shape: [1], chunks: [1] }, (d) => d.write(['abc']));
    const info = await d.structChunkInfo(0);
    await close();
    const bad = bytes.slice();
    const entries = bad.subarray(info.address, info.address + 20);
    entries[8] = 200; // length 200
    entries.set(Buffer.from(sum(entries.subarray(0, 16)), 'hex'), 16);
    const g = await openFile(bad);
    const e = await ((await g.get('v')) as Dataset).read().catch((x: unknown) => x);
    await g.close();
    expect(e).toBeInstanceOf(FormatError);
    expect(String((e as Error).message)).toMatch(/outside the heap/);
  });
});

describe('bad layouts and options → typed errors', () => {
  const ctx = (over: Partial<ChunkFormatContext>) => stringChunkContext(4, { datasetPath: '/v', ...over });

  it('a VL layout with a fixed-size datatype or another number of sections is unsupported', () => {
    expect(() => new VlFormat(ctx({ datatype: parseDtype('<i4'), elementSize: 4 }), false)).toThrow(UnsupportedError);
    expect(() => new VlFormat(ctx({ sectionPipelines: [0, 1, 2, 3].map(() => ({ filters: [] })) }), false)).toThrow(UnsupportedError);
  });

  it('creation refuses bad options before the file changes', async () => {
    const store = new MemoryStore();
    const f = await createFile(store, { superblockVersion: 3 });
    await expect(createVlDataset(f, 'a', { dtype: '<i4', shape: [4] })).rejects.toBeInstanceOf(ValueError);
    await expect(createVlDataset(f, 'a', { dtype: 'string', shape: [4], filters: { selection: [{ id: 1 }] } })).rejects.toBeInstanceOf(ValueError);
    await expect(createVlDataset(f, 'a', { dtype: 'vlen<i4>', shape: [4], filters: { heap: [{ id: 5 }] } })).rejects.toBeInstanceOf(FilterError);
    await expect(createVlDataset(f, 'a', { dtype: 'string', shape: [2], data: ['x', 3] })).rejects.toBeInstanceOf(ValueError);
    await expect(createVlDataset(f, 'a', { dtype: 'str(ascii)', shape: [1], data: ['é'] })).rejects.toBeInstanceOf(ValueError);
    expect(await f.keys()).toEqual([]);
    const d = await createVlDataset(f, 'a', { dtype: 'string', shape: [2] });
    await expect(d.write(['ok'])).rejects.toBeInstanceOf(ValueError); // 1 value for 2 elements
    expect(await d.read()).toEqual(['', '']);
    await f.close();
  });
});
