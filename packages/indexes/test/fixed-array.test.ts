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
  SourceMetadataReader,
} from '@chunkform/core/plugin';
import { FixedArrayIndex, FixedArrayProvider } from '../src/fixed-array/fixed-array-index.js';
import { decodeFixedArrayHeader, encodeFixedArrayHeader, fixedArrayHeaderSize } from '../src/fixed-array/header.js';
import {
  decodeFixedArrayDataBlock,
  encodeFixedArrayDataBlock,
  fixedArrayDataBlockLayout,
  fixedArrayPageEntries,
  fixedArrayPageOffset,
} from '../src/fixed-array/data-block.js';
import { chunkSizeFieldLength } from '../src/array-element/element-codec.js';
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

const FA_SETS = ['fa_small', 'fa_small_gzip', 'fa_paged', 'fa_paged_gzip', 'fa_empty'];

describe('fixed array: reading files written by HDF5 1.10', () => {
  for (const name of FA_SETS) {
    it(`${name}: iterate() and lookup() return exactly HDF5's chunk records`, async () => {
      const { bytes, meta } = arrayFixtures();
      const ds = meta[name]!;
      const { ctx, layout } = await datasetContext(bytes, name);
      expect(layout.index.type).toBe('fixed-array');
      const fa = await new FixedArrayProvider().open(ctx, layout.address);
      const expected = fixtureRecords(ds);
      expect(sortRecords(await collect(fa.iterate()))).toEqual(expected);
      for (const rec of expected) expect(await fa.lookup(rec.coords)).toEqual(rec);
      for (const a of ds.absent) expect(await fa.lookup(a)).toBeNull();
      expect(await fa.lookup(ds.maxshape.map(() => 10_000))).toBeNull();
    });
  }

  it('fa_paged really is paged, with an uninitialised page', async () => {
    const { bytes } = arrayFixtures();
    const { ctx, layout } = await datasetContext(bytes, 'fa_paged');
    const fa = await FixedArrayIndex.open(ctx, layout.address);
    const h = fa.headerInfo();
    expect(h).toMatchObject({ version: 0, clientId: 0, elementSize: 8, pageBits: 10, entries: 60 * 44 });
    const l = fixedArrayDataBlockLayout(h.entries, h.elementSize, h.pageBits, DEFAULT_SIZES);
    expect(l.npages).toBe(3);
    const blk = decodeFixedArrayDataBlock(bytes.subarray(h.dataBlockAddress), l, DEFAULT_SIZES, { structure: 'b', address: h.dataBlockAddress });
    expect(Array.from(blk.pageInit!)).toEqual([0b11000000]);
    expect(await fa.sizeOnDisk()).toBe(fixedArrayHeaderSize(DEFAULT_SIZES) + l.totalSize);
  });

  it('concurrent lookups and inserts (unloaded or new pages) are consistent', async () => {
    const { bytes, meta } = arrayFixtures();
    const { ctx, layout } = await datasetContext(bytes, 'fa_paged');
    const fa = await FixedArrayIndex.open(ctx, layout.address);
    const expected = fixtureRecords(meta.fa_paged!);
    expect(await Promise.all(expected.map((r) => fa.lookup(r.coords)))).toEqual(expected);
    const storage = new MemoryIndexStorage(new MemoryStore(), 0);
    const w = FixedArrayIndex.create(memoryContext(storage, { ...ctx, info: { type: 'fixed-array', pageBits: 10 } }));
    await Promise.all(expected.map((r) => w.insert(r)));
    expect(sortRecords(await collect(w.iterate()))).toEqual(expected);
  });

  it('filtered element size uses the layout-v4 chunk size width', async () => {
    const { bytes } = arrayFixtures();
    const { ctx, layout } = await datasetContext(bytes, 'fa_paged_gzip');
    const fa = await FixedArrayIndex.open(ctx, layout.address);
    expect(chunkSizeFieldLength(16)).toBe(2);
    expect(fa.headerInfo()).toMatchObject({ clientId: 1, elementSize: 8 + 2 + 4, entries: 64 * 32 });
  });

  it('header/data block decoders round-trip HDF5 bytes exactly', async () => {
    const { bytes } = arrayFixtures();
    for (const name of ['fa_small', 'fa_small_gzip', 'fa_paged', 'fa_paged_gzip']) {
      const { layout } = await datasetContext(bytes, name);
      const hsize = fixedArrayHeaderSize(DEFAULT_SIZES);
      const hbytes = bytes.subarray(layout.address, layout.address + hsize);
      const h = decodeFixedArrayHeader(hbytes, DEFAULT_SIZES, { structure: 'h', address: layout.address });
      expect(encodeFixedArrayHeader(h, DEFAULT_SIZES)).toEqual(hbytes);
      const l = fixedArrayDataBlockLayout(h.entries, h.elementSize, h.pageBits, DEFAULT_SIZES);
      const bbytes = bytes.subarray(h.dataBlockAddress, h.dataBlockAddress + l.blockSize);
      const b = decodeFixedArrayDataBlock(bbytes, l, DEFAULT_SIZES, { structure: 'b', address: h.dataBlockAddress });
      expect(b.headerAddress).toBe(layout.address);
      expect(encodeFixedArrayDataBlock(b, l, DEFAULT_SIZES)).toEqual(bbytes);
    }
  });
});

/** Copies an HDF5 file's FA structures into a fresh store written by our encoder and compares. */
async function rebuildLikeHdf5(name: string): Promise<void> {
  const { bytes, meta } = arrayFixtures();
  const { ctx: fileCtx, layout } = await datasetContext(bytes, name);
  const storage = new MemoryIndexStorage(new MemoryStore(), 4096);
  const ctx = memoryContext(storage, {
    dims: fileCtx.dims,
    maxDims: fileCtx.maxDims,
    chunkDims: fileCtx.chunkDims,
    elementSize: fileCtx.elementSize,
    filtered: fileCtx.filtered,
    info: { type: 'fixed-array', pageBits: 10 },
  });
  const fa = await new FixedArrayProvider().create(ctx);
  const recs = fixtureRecords(meta[name]!);
  for (const r of recs) await fa.insert(r);
  const { address, info } = await fa.flush();
  expect(info).toEqual({ type: 'fixed-array', pageBits: 10 });
  const ours = storage.store.toBytes();
  if (layout.address === UNDEFINED_ADDRESS) {
    // HDF5 creates the index with the first chunk; so do we.
    expect(address).toBe(UNDEFINED_ADDRESS);
    expect(recs).toEqual([]);
    return;
  }
  // reopen with a fresh reader
  const re = await FixedArrayIndex.open({ ...ctx, reader: storage.reader() }, address);
  expect(sortRecords(await collect(re.iterate()))).toEqual(recs);
  // compare structures with HDF5's, apart from their own addresses
  const hsize = fixedArrayHeaderSize(DEFAULT_SIZES);
  const theirsH = decodeFixedArrayHeader(bytes.subarray(layout.address, layout.address + hsize), DEFAULT_SIZES, { structure: 'h', address: 0 });
  const oursH = decodeFixedArrayHeader(ours.subarray(address, address + hsize), DEFAULT_SIZES, { structure: 'h', address: 0 });
  expect({ ...oursH, dataBlockAddress: 0 }).toEqual({ ...theirsH, dataBlockAddress: 0 });
  expect(oursH.dataBlockAddress === UNDEFINED_ADDRESS).toBe(theirsH.dataBlockAddress === UNDEFINED_ADDRESS);
  if (theirsH.dataBlockAddress === UNDEFINED_ADDRESS) return;
  const l = fixedArrayDataBlockLayout(theirsH.entries, theirsH.elementSize, theirsH.pageBits, DEFAULT_SIZES);
  const tb = bytes.subarray(theirsH.dataBlockAddress, theirsH.dataBlockAddress + l.totalSize);
  const ob = ours.subarray(oursH.dataBlockAddress, oursH.dataBlockAddress + l.totalSize);
  // data block: signature..client id identical, header address differs, rest identical (checksum aside)
  expect(ob.subarray(0, 6)).toEqual(tb.subarray(0, 6));
  expect(ob.subarray(14, l.blockSize - 4)).toEqual(tb.subarray(14, l.blockSize - 4));
  for (let k = 0; k < l.npages; k++) {
    const off = fixedArrayPageOffset(l, k);
    const n = fixedArrayPageEntries(l, k) * l.elementSize + 4;
    if (tb[14 + (k >> 3)]! & (0x80 >> (k & 7))) expect(ob.subarray(off, off + n)).toEqual(tb.subarray(off, off + n));
  }
}

describe('fixed array: writing', () => {
  for (const name of FA_SETS) {
    it(`${name}: inserting HDF5's records reproduces HDF5's structures`, async () => {
      await rebuildLikeHdf5(name);
    });
  }

  it("written at HDF5's own addresses, the structures reproduce HDF5's file byte for byte", async () => {
    const { bytes } = arrayFixtures();
    for (const name of FA_SETS) {
      const { layout } = await datasetContext(bytes, name);
      if (layout.address === UNDEFINED_ADDRESS) continue;
      const h = decodeFixedArrayHeader(bytes.subarray(layout.address), DEFAULT_SIZES, { structure: 'h', address: 0 });
      const l = fixedArrayDataBlockLayout(h.entries, h.elementSize, h.pageBits, DEFAULT_SIZES);
      const places = [
        { address: layout.address, extent: fixedArrayHeaderSize(DEFAULT_SIZES) },
        { address: h.dataBlockAddress, extent: l.totalSize },
      ];
      const { out, address } = await rebuildAtHdf5Places(name, places, (ctx) => FixedArrayIndex.create(ctx));
      expect(address).toBe(layout.address);
      expect(firstDifference(out, bytes), name).toBe(-1);
    }
  });

  it('an untouched created index writes nothing; after insert+remove only header and data block remain; read-only indexes refuse writes', async () => {
    const storage = new MemoryIndexStorage(new MemoryStore(), 64);
    const o = { dims: [10], maxDims: [10], chunkDims: [5], elementSize: 4, filtered: false, info: { type: 'fixed-array' as const, pageBits: 10 } };
    const fa = await new FixedArrayProvider().create(memoryContext(storage, o));
    expect(await fa.sizeOnDisk()).toBe(0);
    expect((await fa.flush()).address).toBe(UNDEFINED_ADDRESS);
    expect(storage.allocated).toEqual([]);
    await fa.insert({ coords: [1], address: 5000, size: 20, filterMask: 0 });
    expect(await fa.remove([1])).toEqual({ coords: [1], address: 5000, size: 20, filterMask: 0 });
    expect(await fa.remove([1])).toBeNull();
    const { address } = await fa.flush();
    expect(storage.allocated).toEqual([[64, 28], [96, 4 + 1 + 1 + 8 + 2 * 8 + 4]]);
    const ro = await FixedArrayIndex.open({ ...memoryContext(storage, o), reader: storage.reader(), storage: undefined }, address);
    expect(await collect(ro.iterate())).toEqual([]);
    await expect(ro.insert({ coords: [0], address: 1, size: 20, filterMask: 0 })).rejects.toBeInstanceOf(InvalidStateError);
    await expect(fa.insert({ coords: [2], address: 1, size: 20, filterMask: 0 })).rejects.toBeInstanceOf(ValueError);
    await expect(fa.insert({ coords: [0, 0], address: 1, size: 20, filterMask: 0 })).rejects.toBeInstanceOf(ValueError);
    await expect(fa.insert({ coords: [0], address: 1, size: 20, filterMask: 4 })).rejects.toBeInstanceOf(ValueError);
    await expect(fa.resize([11])).rejects.toBeInstanceOf(ValueError);
    await fa.resize([3]);
  });

  it('works with 4-byte offsets and lengths', async () => {
    const sizes = { sizeOfOffsets: 4, sizeOfLengths: 4 };
    const storage = new MemoryIndexStorage(new MemoryStore(), 0);
    const o = { dims: [3000], maxDims: [3000], chunkDims: [1], elementSize: 1, filtered: false, info: { type: 'fixed-array' as const, pageBits: 10 } };
    const fa = FixedArrayIndex.create({ ...memoryContext(storage, o), sizes });
    const recs = [0, 5, 1024, 2999].map((i) => ({ coords: [i], address: 7 + i, size: 1, filterMask: 0 }));
    for (const r of recs) await fa.insert(r);
    expect(fa.headerInfo().elementSize).toBe(4);
    const { address } = await fa.flush();
    expect(await fa.sizeOnDisk()).toBe(4 + 4 + 4 + 4 + 4 + (4 + 1 + 1 + 4 + 1 + 4) + 3000 * 4 + 3 * 4);
    const reader = new SourceMetadataReader(storage.store, sizes, storage.next);
    const re = await FixedArrayIndex.open({ ...memoryContext(storage, o), sizes, reader }, address);
    expect(await collect(re.iterate())).toEqual(recs);
  });

  it('filtered sizes that do not fit the size field are rejected', async () => {
    const storage = new MemoryIndexStorage(new MemoryStore(), 0);
    const o = { dims: [10], maxDims: [10], chunkDims: [5], elementSize: 4, filtered: true, info: { type: 'fixed-array' as const, pageBits: 10 } };
    const fa = await new FixedArrayProvider().create(memoryContext(storage, o));
    await fa.insert({ coords: [0], address: 100, size: 65535, filterMask: 7 });
    await expect(fa.insert({ coords: [1], address: 100, size: 65536, filterMask: 0 })).rejects.toBeInstanceOf(ValueError);
  });
});

describe('fixed array: many records at once (insertMany)', () => {
  /** A new fixed array of 40 × 60 chunks (3 pages of 1024) and 40 records for it, spread over the pages. */
  function pagedArray() {
    const storage = new MemoryIndexStorage(new MemoryStore(), 0);
    const o = { dims: [40, 60], maxDims: [40, 60], chunkDims: [1, 1], elementSize: 8, filtered: true, info: { type: 'fixed-array' as const, pageBits: 10 } };
    const ctx = memoryContext(storage, o);
    const coords = Array.from({ length: 40 }, (_, i) => [i, (i * 7) % 60]);
    const recs = coords.map((c, i) => ({ coords: c, address: 1000 + 64 * i, size: 50 + i, filterMask: i % 3 }));
    return { storage, ctx, fa: FixedArrayIndex.create(ctx), coords, recs };
  }

  it('inserts like insert one by one, across pages, and after flush + reopen', async () => {
    const { storage, ctx, fa, coords, recs } = pagedArray();
    await fa.insertMany(recs.slice(0, 20));
    for (const r of recs.slice(20)) await fa.insert(r);
    expect(await Promise.all([...coords, [39, 59]].map((c) => fa.lookup(c)))).toEqual([...recs, null]);
    const { address } = await fa.flush();
    const re = await FixedArrayIndex.open({ ...ctx, reader: storage.reader() }, address);
    expect(await Promise.all(coords.slice().reverse().map((c) => re.lookup(c)))).toEqual(recs.slice().reverse());
    expect(sortRecords(await collect(re.iterate()))).toEqual(sortRecords(recs));
  });

  it('lookupMany gives what lookup gives, chunk by chunk: in memory, from pages read back, outside the grid', async () => {
    const { storage, ctx, fa, coords, recs } = pagedArray();
    const asked = [...coords, [39, 59], [40, 0]];
    expect(await fa.lookupMany(asked)).toEqual(asked.map(() => null));
    await fa.insertMany(recs);
    expect(await fa.lookupMany(asked)).toEqual([...recs, null, null]);
    const { address } = await fa.flush();
    const re = await FixedArrayIndex.open({ ...ctx, reader: storage.reader() }, address);
    const backwards = asked.slice().reverse();
    expect(await re.lookupMany(backwards)).toEqual(await Promise.all(backwards.map((c) => re.lookup(c))));
    expect(await re.lookupMany(backwards)).toEqual([null, null, ...recs.slice().reverse()]);
  });

  it('records every chunk or none: a record that cannot be stored leaves the earlier ones of the call unrecorded', async () => {
    const storage = new MemoryIndexStorage(new MemoryStore(), 0);
    const o = { dims: [10], maxDims: [10], chunkDims: [1], elementSize: 4, filtered: true, info: { type: 'fixed-array' as const, pageBits: 10 } };
    const fa = FixedArrayIndex.create(memoryContext(storage, o));
    await fa.insert({ coords: [1], address: 500, size: 10, filterMask: 0 });
    const good = { coords: [0], address: 100, size: 10, filterMask: 0 };
    const replaced = { coords: [1], address: 200, size: 10, filterMask: 0 };
    // size too large for the size field
    await expect(fa.insertMany([good, replaced, { coords: [2], address: 300, size: 1 << 20, filterMask: 0 }])).rejects.toBeInstanceOf(ValueError);
    // outside the grid
    await expect(fa.insertMany([good, { coords: [10], address: 300, size: 10, filterMask: 0 }])).rejects.toBeInstanceOf(ValueError);
    expect(await Promise.all([[0], [1], [2]].map((c) => fa.lookup(c)))).toEqual([null, { coords: [1], address: 500, size: 10, filterMask: 0 }, null]);
  });
});

describe('fixed array: model-based (fast-check)', () => {
  it('random insert/remove/lookup/flush+reopen sequences match a Map', async () => {
    const op = fc.oneof(
      fc.record({ k: fc.constant('ins' as const), c: fc.tuple(fc.nat(39), fc.nat(59)), a: fc.integer({ min: 1, max: 2 ** 40 }), s: fc.nat(65535), m: fc.nat(3) }),
      fc.record({ k: fc.constant('del' as const), c: fc.tuple(fc.nat(39), fc.nat(59)) }),
      fc.record({ k: fc.constant('get' as const), c: fc.tuple(fc.nat(39), fc.nat(59)) }),
      fc.record({ k: fc.constant('flush' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(op, { maxLength: 60 }), async (filtered, ops) => {
        const storage = new MemoryIndexStorage(new MemoryStore(), 0);
        // 40 × 60 = 2400 chunks: 3 pages of 1024 (last one short)
        const o = { dims: [40, 60], maxDims: [40, 60], chunkDims: [1, 1], elementSize: 8, filtered, info: { type: 'fixed-array' as const, pageBits: 10 } };
        const steps = ops.map((x): IndexStep => {
          if (x.k === 'flush') return x;
          if (x.k === 'ins') return { k: 'ins', rec: { coords: [...x.c], address: x.a, size: filtered ? x.s : 8, filterMask: filtered ? x.m : 0 } };
          return { k: x.k, coords: [...x.c] };
        });
        await checkAgainstMap(new FixedArrayProvider(), storage, memoryContext(storage, o), steps);
      }),
      { numRuns: 40 },
    );
  });
});

describe('fixed array: corruption', () => {
  function openCorrupt(name: string, mutate: (b: Uint8Array, hdr: number, dblk: number) => void): Promise<unknown> {
    return corruptIndexError(
      name,
      (ctx, address) => FixedArrayIndex.open(ctx, address),
      (copy, address, original) => mutate(copy, address, decodeFixedArrayHeader(original.subarray(address), DEFAULT_SIZES, { structure: 'h', address: 0 }).dataBlockAddress),
    );
  }

  it('flipped bytes in header, data block and pages give ChecksumErrors naming structure, address and dataset', async () => {
    const e1 = await openCorrupt('fa_small', (b, h) => (b[h + 9]! ^= 0x40));
    expect(e1).toBeInstanceOf(ChecksumError);
    expect((e1 as ChecksumError).structure).toBe('fixed array header');
    expect((e1 as ChecksumError).path).toBe('/fa_small');
    const e2 = await openCorrupt('fa_small', (b, _h, d) => (b[d + 20]! ^= 1));
    expect(e2).toBeInstanceOf(ChecksumError);
    expect((e2 as ChecksumError).structure).toBe('fixed array data block');
    const e3 = await openCorrupt('fa_paged', (b, _h, d) => (b[d + 18 + 100]! ^= 1));
    expect(e3).toBeInstanceOf(ChecksumError);
    expect((e3 as ChecksumError).structure).toBe('fixed array data block page');
    const { layout } = await datasetContext(arrayFixtures().bytes, 'fa_paged');
    const d = decodeFixedArrayHeader(arrayFixtures().bytes.subarray(layout.address), DEFAULT_SIZES, { structure: 'h', address: 0 }).dataBlockAddress;
    expect((e3 as ChecksumError).address).toBe(d + 19);
  });

  it('impossible counts and addresses give FormatErrors (no huge allocations)', async () => {
    const rewrite = (b: Uint8Array, h: number, f: (hdr: ReturnType<typeof decodeFixedArrayHeader>) => void): void => {
      const hdr = decodeFixedArrayHeader(b.subarray(h), DEFAULT_SIZES, { structure: 'h', address: h });
      f(hdr);
      b.set(encodeFixedArrayHeader(hdr, DEFAULT_SIZES), h);
    };
    const cases: Array<(b: Uint8Array, h: number) => void> = [
      (b, h) => rewrite(b, h, (x) => (x.entries = 2 ** 40)), // data block could not hold that many
      (b, h) => rewrite(b, h, (x) => (x.entries = 3)), // fewer than the max-dims chunk grid
      (b, h) => rewrite(b, h, (x) => (x.entries = 60 * 44 + 1)), // more than the max-dims chunk grid
      (b, h) => rewrite(b, h, (x) => (x.dataBlockAddress = 2 ** 45)),
      (b, h) => rewrite(b, h, (x) => (x.elementSize = 9)),
      (b, h) => rewrite(b, h, (x) => (x.clientId = 1)),
      (b, h) => rewrite(b, h, (x) => (x.pageBits = 0)),
      (b, h) => rewrite(b, h, (x) => (x.dataBlockAddress = h)), // points at the header itself
    ];
    for (const mutate of cases) {
      const e = await openCorrupt('fa_paged', mutate);
      expect(e).toBeInstanceOf(FormatError);
      expect((e as H5Error).path).toBe('/fa_paged');
    }
  });
});
