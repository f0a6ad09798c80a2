import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MemoryStore } from '@chunkform/core';
import {
  ChecksumError,
  FormatError,
  H5Error,
  InvalidStateError,
  ValueError,
  DEFAULT_SIZES,
  UNDEFINED_ADDRESS,
  isDefinedAddress,
  SourceMetadataReader,
} from '@chunkform/core/plugin';
import { ExtensibleArrayIndex, ExtensibleArrayProvider, DEFAULT_EXTENSIBLE_ARRAY_INFO } from '../src/extensible-array/extensible-array-index.js';
import { ExtensibleArrayGeometry } from '../src/extensible-array/geometry.js';
import { decodeExtensibleArrayHeader, encodeExtensibleArrayHeader, extensibleArrayHeaderSize, type ExtensibleArrayHeader } from '../src/extensible-array/header.js';
import { decodeExtensibleArrayIndexBlock, encodeExtensibleArrayIndexBlock, extensibleArrayIndexBlockSize } from '../src/extensible-array/index-block.js';
import { decodeExtensibleArraySuperBlock, encodeExtensibleArraySuperBlock, extensibleArraySuperBlockSize } from '../src/extensible-array/super-block.js';
import { decodeExtensibleArrayDataBlock, encodeExtensibleArrayDataBlock, extensibleArrayDataBlockLayout } from '../src/extensible-array/data-block.js';
import { extensibleArrayGrid } from '../src/array-element/chunk-grid.js';
import {
  arrayFixtures,
  checkAgainstMap,
  collect,
  datasetContext,
  firstDifference,
  fixtureRecords,
  memoryContext,
  MemoryIndexStorage,
  corruptIndexError,
  rebuildAtHdf5Places,
  sortRecords,
  type IndexStep,
} from './support/array-fixtures.js';

const EA_SETS = ['ea_small', 'ea_1d', 'ea_1d_gzip', 'ea_swizzled', 'ea_dim0', 'ea_wide', 'ea_empty'];
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const W = (structure: string, address: number) => ({ structure, address });

interface RawBlock {
  kind: string;
  address: number;
  bytes: Uint8Array;
  reencoded: Uint8Array;
  /** File space of the structure (pages included). */
  extent: number;
  /** Sort key: our allocation order (header, index block, super blocks by s, data blocks by s, d). */
  order: number[];
}

/**
 * Walks every structure of the extensible array at `addr` with the pure decoders; returns an
 * address-free description (for comparing two files) and the raw blocks (for round trips).
 */
function walk(bytes: Uint8Array, addr: number): { dump: unknown; raw: RawBlock[] } {
  const sizes = DEFAULT_SIZES;
  const raw: RawBlock[] = [];
  const hs = extensibleArrayHeaderSize(sizes);
  const hb = bytes.subarray(addr, addr + hs);
  const h = decodeExtensibleArrayHeader(hb, sizes, W('h', addr));
  raw.push({ kind: 'header', address: addr, bytes: hb, reencoded: encodeExtensibleArrayHeader(h, sizes), extent: hs, order: [0] });
  const g = new ExtensibleArrayGeometry(h, sizes);
  const defined = (a: number): string => (isDefinedAddress(a) ? 'D' : '-');
  const dump: Record<string, unknown> = { header: { ...h, indexBlockAddress: defined(h.indexBlockAddress) } };
  if (!isDefinedAddress(h.indexBlockAddress)) return { dump, raw };
  const ibs = extensibleArrayIndexBlockSize(g);
  const ibb = bytes.subarray(h.indexBlockAddress, h.indexBlockAddress + ibs);
  const ib = decodeExtensibleArrayIndexBlock(ibb, g, W('ib', h.indexBlockAddress));
  expect(ib.headerAddress).toBe(addr);
  raw.push({ kind: 'iblock', address: h.indexBlockAddress, bytes: ibb, reencoded: encodeExtensibleArrayIndexBlock(ib, g, sizes), extent: ibs, order: [1] });
  dump.iblock = { elements: hex(ib.elements), dblk: ib.dataBlockAddresses.map(defined).join(''), sblk: ib.superBlockAddresses.map(defined).join('') };
  const dblocks: unknown[] = [];
  const sblocks: unknown[] = [];
  const visitDblock = (s: number, d: number, a: number, pageInit: Uint8Array | null): void => {
    const l = extensibleArrayDataBlockLayout(g, s);
    const b = bytes.subarray(a, a + l.blockSize);
    const db = decodeExtensibleArrayDataBlock(b, g, l, W('db', a));
    expect(db.headerAddress).toBe(addr);
    raw.push({ kind: 'dblock', address: a, bytes: b, reencoded: encodeExtensibleArrayDataBlock(db, g, l, sizes), extent: l.totalSize, order: [3, s, d] });
    const pages: string[] = [];
    for (let p = 0; p < l.npages; p++) {
      const bit = d * l.npages + p;
      if (!((pageInit![bit >> 3]! >> (7 - (bit & 7))) & 1)) {
        pages.push('uninitialised');
        continue;
      }
      const pa = a + l.blockSize + p * l.pageSize;
      pages.push(hex(bytes.subarray(pa, pa + l.pageSize)));
    }
    dblocks.push({ s, d, blockOffset: db.blockOffset, elements: db.elements ? hex(db.elements) : null, pages });
  };
  for (let s = 0; s < g.superBlockCount; s++) {
    const info = g.superBlocks[s]!;
    if (s < g.indexBlockSuperBlocks) {
      for (let k = 0; k < info.dataBlocks; k++) {
        const a = ib.dataBlockAddresses[info.startDataBlock + k]!;
        if (isDefinedAddress(a)) visitDblock(s, info.startDataBlock + k, a, null);
      }
      continue;
    }
    const sa = ib.superBlockAddresses[s - g.indexBlockSuperBlocks]!;
    if (!isDefinedAddress(sa)) continue;
    const sbb = bytes.subarray(sa, sa + extensibleArraySuperBlockSize(g, s));
    const sb = decodeExtensibleArraySuperBlock(sbb, g, s, W('sb', sa));
    expect(sb.headerAddress).toBe(addr);
    raw.push({ kind: 'sblock', address: sa, bytes: sbb, reencoded: encodeExtensibleArraySuperBlock(sb, g, s, sizes), extent: sbb.length, order: [2, s] });
    sblocks.push({ s, blockOffset: sb.blockOffset, pageInit: hex(sb.pageInit), dblk: sb.dataBlockAddresses.map(defined).join('') });
    sb.dataBlockAddresses.forEach((a, d) => isDefinedAddress(a) && visitDblock(s, d, a, sb.pageInit));
  }
  dump.sblocks = sblocks;
  dump.dblocks = dblocks;
  return { dump, raw };
}

describe('extensible array: reading files written by HDF5 1.10', () => {
  for (const name of EA_SETS) {
    it(`${name}: iterate() and lookup() return exactly HDF5's chunk records`, async () => {
      const { bytes, meta } = arrayFixtures();
      const ds = meta[name]!;
      const { ctx, layout } = await datasetContext(bytes, name);
      expect(layout.index).toEqual(DEFAULT_EXTENSIBLE_ARRAY_INFO);
      const ea = await new ExtensibleArrayProvider().open(ctx, layout.address);
      const expected = fixtureRecords(ds);
      const got = await collect(ea.iterate());
      expect(sortRecords(got)).toEqual(expected);
      for (const rec of expected) expect(await ea.lookup(rec.coords)).toEqual(rec);
      for (const a of ds.absent) expect(await ea.lookup(a)).toBeNull();
    });
  }

  it('iterate() yields chunks in array index order (swizzled: unlimited dimension slowest)', async () => {
    const { bytes } = arrayFixtures();
    const { ctx, layout } = await datasetContext(bytes, 'ea_swizzled');
    const ea = await ExtensibleArrayIndex.open(ctx, layout.address);
    const got = await collect(ea.iterate());
    const grid = extensibleArrayGrid(ctx.maxDims, ctx.chunkDims, '');
    const idx = got.map((r) => grid.index(r.coords));
    expect(idx).toEqual([...idx].sort((a, b) => a - b));
    expect(grid.index([1, 0])).toBe(1);
    expect(grid.index([0, 1])).toBe(3);
  });

  it('ea_1d has super blocks and paged data blocks with uninitialised pages', async () => {
    const { bytes } = arrayFixtures();
    const { layout } = await datasetContext(bytes, 'ea_1d');
    const { dump } = walk(bytes, layout.address);
    const d = dump as { header: ExtensibleArrayHeader; dblocks: Array<{ s: number; pages: string[] }> };
    expect(d.header.stats.superBlocks).toBeGreaterThan(5);
    const paged = d.dblocks.filter((b) => b.pages.length > 0);
    expect(paged.length).toBeGreaterThan(0);
    expect(paged.some((b) => b.pages.includes('uninitialised'))).toBe(true);
    expect(paged.some((b) => b.pages.filter((p) => p !== 'uninitialised').length > 0)).toBe(true);
  });

  it('every structure of every HDF5 file round-trips through decode/encode byte for byte', async () => {
    const { bytes } = arrayFixtures();
    for (const name of EA_SETS) {
      const { layout } = await datasetContext(bytes, name);
      if (!isDefinedAddress(layout.address)) continue;
      for (const b of walk(bytes, layout.address).raw) expect(hex(b.reencoded), `${name} ${b.kind}@${b.address}`).toBe(hex(b.bytes));
    }
  });

  it("sizeOnDisk() is HDF5's index size (header + index block + super/data block statistics)", async () => {
    const { bytes } = arrayFixtures();
    const { ctx, layout } = await datasetContext(bytes, 'ea_small');
    const ea = await ExtensibleArrayIndex.open(ctx, layout.address);
    const h = ea.headerInfo();
    expect(h.stats).toEqual({ superBlocks: 0, superBlockSize: 0, dataBlocks: 0, dataBlockSize: 0, maxIndexSet: 3, realizedElements: 4 });
    expect(await ea.sizeOnDisk()).toBe(72 + 4 + 2 + 8 + 4 * 8 + 6 * 8 + 25 * 8 + 4);
  });
});

describe('extensible array: writing', () => {
  for (const name of EA_SETS) {
    it(`${name}: inserting HDF5's records reproduces HDF5's structures and statistics`, async () => {
      const { bytes, meta } = arrayFixtures();
      const { ctx: fileCtx, layout } = await datasetContext(bytes, name);
      const storage = new MemoryIndexStorage(new MemoryStore(), 1000);
      const ctx = memoryContext(storage, { ...fileCtx, info: DEFAULT_EXTENSIBLE_ARRAY_INFO });
      const ea = await new ExtensibleArrayProvider().create(ctx);
      const recs = fixtureRecords(meta[name]!);
      // insert in a shuffled order: the result must not depend on it
      const order = recs.map((_, i) => i).sort((a, b) => ((a * 7919) % 1009) - ((b * 7919) % 1009));
      for (const i of order) await ea.insert(recs[i]!);
      const { address, info } = await ea.flush();
      expect(info).toEqual(DEFAULT_EXTENSIBLE_ARRAY_INFO);
      if (!isDefinedAddress(layout.address)) {
        expect(address).toBe(UNDEFINED_ADDRESS);
        return;
      }
      const re = await ExtensibleArrayIndex.open({ ...ctx, reader: storage.reader() }, address);
      expect(sortRecords(await collect(re.iterate()))).toEqual(recs);
      expect(await re.sizeOnDisk()).toBe(await (await ExtensibleArrayIndex.open(fileCtx, layout.address)).sizeOnDisk());
      expect(walk(storage.store.toBytes(), address).dump).toEqual(walk(bytes, layout.address).dump);
    });
  }

  it("written at HDF5's own addresses, the structures reproduce HDF5's file byte for byte", async () => {
    const { bytes } = arrayFixtures();
    for (const name of EA_SETS) {
      const { layout } = await datasetContext(bytes, name);
      if (!isDefinedAddress(layout.address)) continue;
      const raw = walk(bytes, layout.address).raw;
      const places = raw
        .slice()
        .sort((a, b) => {
          for (let i = 0; i < Math.max(a.order.length, b.order.length); i++) if ((a.order[i] ?? 0) !== (b.order[i] ?? 0)) return (a.order[i] ?? 0) - (b.order[i] ?? 0);
          return 0;
        });
      // uninitialised pages: HDF5 never wrote them either (zero in a fresh file) — keep the original bytes there
      const { out, address, unused } = await rebuildAtHdf5Places(name, places, (ctx) => ExtensibleArrayIndex.create(ctx));
      expect(address).toBe(layout.address);
      expect(unused).toEqual([]);
      expect(firstDifference(out, bytes), name).toBe(-1);
    }
  });

  it('creates nothing before the first insert; refuses writes without storage and out-of-range chunks', async () => {
    const storage = new MemoryIndexStorage(new MemoryStore(), 8);
    const o = { dims: [5, 4], maxDims: [-1, 4], chunkDims: [1, 2], elementSize: 4, filtered: false, info: DEFAULT_EXTENSIBLE_ARRAY_INFO };
    const ea = await new ExtensibleArrayProvider().create(memoryContext(storage, o));
    expect(await ea.sizeOnDisk()).toBe(0);
    expect((await ea.flush()).address).toBe(UNDEFINED_ADDRESS);
    await expect(ea.insert({ coords: [0, 2], address: 9, size: 8, filterMask: 0 })).rejects.toBeInstanceOf(ValueError);
    await expect(ea.insert({ coords: [2 ** 31, 0], address: 9, size: 8, filterMask: 0 })).rejects.toBeInstanceOf(ValueError);
    await ea.insert({ coords: [3, 1], address: 9, size: 8, filterMask: 0 });
    expect((ea as ExtensibleArrayIndex).headerInfo().stats.maxIndexSet).toBe(8);
    await ea.resize([1000, 4]);
    await expect(ea.resize([10, 5])).rejects.toBeInstanceOf(ValueError);
    const { address } = await ea.flush();
    const ro = await ExtensibleArrayIndex.open({ ...memoryContext(storage, o), reader: storage.reader(), storage: undefined }, address);
    expect(await collect(ro.iterate())).toEqual([{ coords: [3, 1], address: 9, size: 8, filterMask: 0 }]);
    await expect(ro.insert({ coords: [0, 0], address: 1, size: 8, filterMask: 0 })).rejects.toBeInstanceOf(InvalidStateError);
  });

  it('concurrent inserts and lookups (unloaded or new blocks and pages) are consistent', async () => {
    const { bytes, meta } = arrayFixtures();
    const { ctx } = await datasetContext(bytes, 'ea_1d');
    const { layout } = await datasetContext(bytes, 'ea_1d');
    const ea = await ExtensibleArrayIndex.open(ctx, layout.address);
    const expected = fixtureRecords(meta.ea_1d!);
    expect(await Promise.all(expected.map((r) => ea.lookup(r.coords)))).toEqual(expected);
    const storage = new MemoryIndexStorage(new MemoryStore(), 0);
    const w = ExtensibleArrayIndex.create(memoryContext(storage, { ...ctx, info: DEFAULT_EXTENSIBLE_ARRAY_INFO }));
    await Promise.all(expected.map((r) => w.insert(r)));
    expect(sortRecords(await collect(w.iterate()))).toEqual(expected);
    const { address } = await w.flush();
    expect(walk(storage.store.toBytes(), address).dump).toEqual(walk(bytes, layout.address).dump);
  });

  it('works with 4-byte offsets and lengths', async () => {
    const sizes = { sizeOfOffsets: 4, sizeOfLengths: 4 };
    const storage = new MemoryIndexStorage(new MemoryStore(), 0);
    const o = { dims: [10], maxDims: [-1], chunkDims: [1], elementSize: 2, filtered: true, info: DEFAULT_EXTENSIBLE_ARRAY_INFO };
    const ea = ExtensibleArrayIndex.create({ ...memoryContext(storage, o), sizes });
    const recs = [0, 3, 17, 300, 131100, 132100].map((i) => ({ coords: [i], address: 1000 + i, size: 3, filterMask: i & 1 }));
    for (const r of recs) await ea.insert(r);
    expect(ea.headerInfo().elementSize).toBe(4 + 2 + 4);
    const { address } = await ea.flush();
    const reader = new SourceMetadataReader(storage.store, sizes, storage.next);
    const re = await ExtensibleArrayIndex.open({ ...memoryContext(storage, o), sizes, reader }, address);
    expect(await collect(re.iterate())).toEqual(recs);
  });

  it('the unlimited dimension must be unique', async () => {
    const storage = new MemoryIndexStorage(new MemoryStore(), 0);
    const o = { dims: [5, 4], maxDims: [-1, -1], chunkDims: [1, 2], elementSize: 4, filtered: false, info: DEFAULT_EXTENSIBLE_ARRAY_INFO };
    await expect(new ExtensibleArrayProvider().create(memoryContext(storage, o))).rejects.toBeInstanceOf(FormatError);
  });
});

describe('extensible array: model-based (fast-check)', () => {
  it('random insert/remove/lookup/resize/flush+reopen sequences match a Map (paged range included)', async () => {
    const coord = fc.oneof(fc.nat(300), fc.integer({ min: 131000, max: 140000 }), fc.nat(5000));
    const op = fc.oneof(
      fc.record({ k: fc.constant('ins' as const), u: coord, f: fc.nat(2), a: fc.integer({ min: 1, max: 2 ** 40 }), s: fc.nat(255), m: fc.nat(3) }),
      fc.record({ k: fc.constant('del' as const), u: coord, f: fc.nat(2) }),
      fc.record({ k: fc.constant('get' as const), u: coord, f: fc.nat(2) }),
      fc.record({ k: fc.constant('resize' as const), u: fc.nat(200000) }),
      fc.record({ k: fc.constant('flush' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.boolean(), fc.array(op, { maxLength: 50 }), async (filtered, swizzle, ops) => {
        const storage = new MemoryIndexStorage(new MemoryStore(), 0);
        // 2-D: the unlimited dimension is dimension 0 or (swizzled) dimension 1; the fixed one has 3 chunks
        const o = swizzle
          ? { dims: [3, 10], maxDims: [3, -1], chunkDims: [1, 1], elementSize: 1, filtered, info: DEFAULT_EXTENSIBLE_ARRAY_INFO }
          : { dims: [10, 3], maxDims: [-1, 3], chunkDims: [1, 1], elementSize: 1, filtered, info: DEFAULT_EXTENSIBLE_ARRAY_INFO };
        const at = (u: number, f: number): number[] => (swizzle ? [f, Math.floor(u / 3)] : [Math.floor(u / 3), f]);
        const steps = ops.map((x): IndexStep => {
          if (x.k === 'flush') return x;
          if (x.k === 'resize') return { k: 'resize', dims: swizzle ? [3, x.u] : [x.u, 3] };
          if (x.k === 'ins') return { k: 'ins', rec: { coords: at(x.u, x.f), address: x.a, size: filtered ? x.s : 1, filterMask: filtered ? x.m : 0 } };
          return { k: x.k, coords: at(x.u, x.f) };
        });
        const { index, ctx, records } = await checkAgainstMap(new ExtensibleArrayProvider(), storage, memoryContext(storage, o), steps);
        const { address } = await index.flush();
        if (isDefinedAddress(address)) {
          const re = await ExtensibleArrayIndex.open({ ...ctx, reader: storage.reader() }, address);
          expect(sortRecords(await collect(re.iterate()))).toEqual(records);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('extensible array: corruption', () => {
  function run(name: string, mutate: (b: Uint8Array, raw: RawBlock[]) => void): Promise<unknown> {
    return corruptIndexError(
      name,
      (ctx, address) => ExtensibleArrayIndex.open(ctx, address),
      (copy, address, original) => mutate(copy, walk(original, address).raw),
    );
  }

  it('a flipped byte in any structure or page gives a ChecksumError naming structure, address and dataset', async () => {
    const { bytes } = arrayFixtures();
    const { layout } = await datasetContext(bytes, 'ea_1d');
    const raw = walk(bytes, layout.address).raw;
    const kinds = new Map<string, RawBlock>();
    for (const b of raw) if (!kinds.has(b.kind)) kinds.set(b.kind, b);
    const names: Record<string, string> = {
      header: 'extensible array header',
      iblock: 'extensible array index block',
      sblock: 'extensible array super block',
      dblock: 'extensible array data block',
    };
    for (const [kind, blk] of kinds) {
      const e = await run('ea_1d', (b) => (b[blk.address + blk.bytes.length - 6]! ^= 0x10));
      expect(e, kind).toBeInstanceOf(ChecksumError);
      expect((e as ChecksumError).structure).toBe(names[kind]);
      expect((e as ChecksumError).address).toBe(blk.address);
      expect((e as ChecksumError).path).toBe('/ea_1d');
    }
    // a page of a paged data block
    const paged = raw.find((b) => b.kind === 'dblock' && b.bytes.length === 4 + 1 + 1 + 8 + 4 + 4)!;
    const e = await run('ea_1d', (b) => (b[paged.address + paged.bytes.length + 3]! ^= 1));
    expect(e).toBeInstanceOf(ChecksumError);
    expect((e as ChecksumError).structure).toBe('extensible array data block page');
  });

  it('impossible parameters, counts and addresses give FormatErrors (never a hang or huge allocation)', async () => {
    const rewriteHeader = (f: (h: ExtensibleArrayHeader) => void) => (b: Uint8Array, raw: RawBlock[]) => {
      const hb = raw.find((r) => r.kind === 'header')!;
      const h = decodeExtensibleArrayHeader(b.subarray(hb.address), DEFAULT_SIZES, W('h', hb.address));
      f(h);
      b.set(encodeExtensibleArrayHeader(h, DEFAULT_SIZES), hb.address);
    };
    const cases = [
      rewriteHeader((h) => (h.maxBits = 70)),
      rewriteHeader((h) => (h.dataBlockMinElements = 12)),
      rewriteHeader((h) => (h.superBlockMinDataPointers = 1)),
      rewriteHeader((h) => (h.pageBits = 40)),
      rewriteHeader((h) => (h.pageBits = 4)),
      rewriteHeader((h) => (h.elementSize = 9)),
      rewriteHeader((h) => (h.clientId = 7)),
      rewriteHeader((h) => (h.stats.maxIndexSet = 2 ** 40)),
      rewriteHeader((h) => (h.indexBlockAddress = 2 ** 50)),
      rewriteHeader((h) => (h.indexBlockAddress = h.indexBlockAddress + 8)),
      // an index block listing the same data block twice
      (b: Uint8Array, raw: RawBlock[]) => {
        const ibr = raw.find((r) => r.kind === 'iblock')!;
        const g = new ExtensibleArrayGeometry(decodeExtensibleArrayHeader(raw[0]!.bytes, DEFAULT_SIZES, W('h', 0)), DEFAULT_SIZES);
        const ib = decodeExtensibleArrayIndexBlock(ibr.bytes, g, W('ib', ibr.address));
        ib.dataBlockAddresses[1] = ib.dataBlockAddresses[0]!;
        b.set(encodeExtensibleArrayIndexBlock(ib, g, DEFAULT_SIZES), ibr.address);
      },
      // a super block whose data blocks (with their pages) would extend past the end of the file
      (b: Uint8Array, raw: RawBlock[]) => {
        const sb = raw.filter((r) => r.kind === 'sblock').at(-1)!;
        const s = decodeExtensibleArraySuperBlock(sb.bytes, new ExtensibleArrayGeometry(decodeExtensibleArrayHeader(raw[0]!.bytes, DEFAULT_SIZES, W('h', 0)), DEFAULT_SIZES), 13, W('sb', sb.address));
        s.dataBlockAddresses[0] = b.length - 100;
        const g = new ExtensibleArrayGeometry(decodeExtensibleArrayHeader(raw[0]!.bytes, DEFAULT_SIZES, W('h', 0)), DEFAULT_SIZES);
        b.set(encodeExtensibleArraySuperBlock(s, g, 13, DEFAULT_SIZES), sb.address);
      },
    ];
    for (const mutate of cases) {
      const e = await run('ea_1d', mutate);
      expect(e).toBeInstanceOf(FormatError);
      expect((e as H5Error).path).toBe('/ea_1d');
    }
  });
});
