/**
 * Structured-chunk (sparse) index records (docs/structured-chunk-format.md §5): fixed and
 * extensible array clients 2/3 with header version 1, v2 B-tree record types 12/13, the
 * single-chunk record in the layout message; byte layouts from the notes, model tests with reopen,
 * and corrupt input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChecksumError, FormatError, H5Error, MemoryStore, ValueError } from '@chunkform/core';
import {
  type ChunkIndex,
  type ChunkIndexContext,
  type ChunkIndexProvider,
  type ChunkRecord,
  DEFAULT_SIZES,
  UNDEFINED_ADDRESS,
  isDefinedAddress,
  lookup3,
  decodeLayout,
  encodeLayout,
  type ChunkIndexInfo,
  type StructuredChunkLayout,
  chooseStructuredChunkIndex,
  DEFAULT_BTREE2_INDEX_INFO,
  DEFAULT_EXTENSIBLE_ARRAY_INFO,
  DEFAULT_FIXED_ARRAY_INFO,
} from '@chunkform/core/plugin';
import { defaultElementCodecFactory, defaultCreateClientId, defaultCreateVersion } from '../src/array-element/element-codec.js';
import { StructuredElementCodec, structuredElementCodecFactory } from '../src/array-element/structured-element-codec.js';
import { FixedArrayIndex, FixedArrayProvider } from '../src/fixed-array/fixed-array-index.js';
import { ExtensibleArrayIndex, ExtensibleArrayProvider } from '../src/extensible-array/extensible-array-index.js';
import { BTree2ChunkIndex, btree2IndexProvider } from '../src/btree2/btree2-index.js';
import { structuredChunkRecordClass, structuredChunkRecordSize } from '../src/btree2/chunk-records.js';
import { singleChunkIndexProvider } from '../src/single-chunk/single-chunk-index.js';
import { collect, memoryContext, MemoryIndexStorage, sortRecords } from './support/array-fixtures.js';

type Base = Pick<ChunkIndexContext, 'dims' | 'maxDims' | 'chunkDims' | 'elementSize' | 'filtered' | 'info'>;

/** A structured context over a fresh memory store. */
function structuredContext(base: Base, filtered: boolean, sections = 2): { ctx: ChunkIndexContext; storage: MemoryIndexStorage } {
  const storage = new MemoryIndexStorage(new MemoryStore(), 0);
  return { ctx: { ...memoryContext(storage, base), structured: { sections, filtered } }, storage };
}

/** The h5stat sparse dataset's shape (docs/structured-chunk-format.md §3.7): 1-D, chunk 5, int32 → L = 2. */
const ONE_D = (maxDims: number[], info: ChunkIndexInfo): Base => ({ dims: [30], maxDims, chunkDims: [5], elementSize: 4, filtered: false, info });

/** The filtered index record of chunk 0 of docs/structured-chunk-format.md §6.5 (address 0x800 for illustration). */
const REC_6_5: ChunkRecord = {
  coords: [0],
  address: 0x800,
  size: 58,
  filterMask: 0,
  sections: { offsets: [44], unfilteredSizes: [75, 8], filterMasks: [0, 0] },
};
// prettier-ignore
const ELEMENT_6_5 = [
  0x00, 0x08, 0, 0, 0, 0, 0, 0, // address
  0x3a, 0x00,                   // chunk size 58 (L = 2)
  0x2c, 0, 0, 0, 0, 0, 0, 0,    // offset of section 1 = 44
  0x4b, 0, 0, 0, 0, 0, 0, 0,    // unfiltered size of section 0 = 75
  0x08, 0, 0, 0, 0, 0, 0, 0,    // unfiltered size of section 1 = 8
  0, 0, 0, 0,                   // filter mask of section 0
  0, 0, 0, 0,                   // filter mask of section 1
];

/** Every `sig` block in `bytes`: [address, version, client id or record type]. */
function blocks(bytes: Uint8Array, sig: string): [number, number, number][] {
  const out: [number, number, number][] = [];
  const s = Array.from(sig, (c) => c.charCodeAt(0));
  for (let i = 0; i + 6 <= bytes.length; i++) {
    if (bytes[i] === s[0] && bytes[i + 1] === s[1] && bytes[i + 2] === s[2] && bytes[i + 3] === s[3]) out.push([i, bytes[i + 4]!, bytes[i + 5]!]);
  }
  return out;
}

describe('structured array elements: clients 2 and 3 (docs/structured-chunk-format.md §5.1)', () => {
  it('element sizes 18 and 42 for L = 2; the filtered element of docs/structured-chunk-format.md §6.5 byte for byte', () => {
    const { ctx: u } = structuredContext(ONE_D([50], { ...DEFAULT_FIXED_ARRAY_INFO }), false);
    const { ctx: f } = structuredContext(ONE_D([50], { ...DEFAULT_FIXED_ARRAY_INFO }), true);
    expect(defaultElementCodecFactory(u, 2).elementSize).toBe(18);
    expect(defaultElementCodecFactory(f, 3).elementSize).toBe(42);
    expect(defaultCreateClientId(u)).toBe(2);
    expect(defaultCreateClientId(f)).toBe(3);
    expect(defaultCreateVersion(u)).toBe(1);
    expect(defaultCreateVersion({ ...u, structured: undefined } as ChunkIndexContext)).toBe(0);

    const codec = structuredElementCodecFactory(f, 3);
    const t = codec.create(2);
    const { coords: _c, ...value } = REC_6_5;
    t.set(0, value);
    const out = new Uint8Array(2 * 42);
    codec.encode(t, out, 0);
    expect(Array.from(out.subarray(0, 42))).toEqual(ELEMENT_6_5);
    // The fill element: undefined address, zeros elsewhere.
    expect(Array.from(out.subarray(42))).toEqual([...new Array(8).fill(0xff), ...new Array(34).fill(0)]);
    const back = codec.decode(out, 0, 2, 'b', 0);
    expect(back.get(0)).toEqual(value);
    expect(back.get(1)).toBeNull();
    expect(back.countDefined()).toBe(1);

    const uc = structuredElementCodecFactory(u, 2);
    const ut = uc.create(1);
    ut.set(0, { address: 0x800, size: 58, filterMask: 0, sections: { offsets: [44] } });
    const uo = new Uint8Array(18);
    uc.encode(ut, uo, 0);
    expect(Array.from(uo)).toEqual(ELEMENT_6_5.slice(0, 18));
    expect(uc.decode(uo, 0, 1, 'b', 0).get(0)).toEqual({ address: 0x800, size: 58, filterMask: 0, sections: { offsets: [44] } });
  });

  it('three sections (Lifeboat VL): L = 8, two offsets, three sizes and masks', () => {
    const { ctx } = structuredContext(ONE_D([50], { ...DEFAULT_FIXED_ARRAY_INFO }), true, 3);
    const codec = structuredElementCodecFactory(ctx, 3) as StructuredElementCodec;
    expect(codec.sizeLength).toBe(8);
    expect(codec.elementSize).toBe(8 + 8 + 2 * 8 + 3 * 8 + 3 * 4);
    const t = codec.create(1);
    const v = { address: 9, size: 100, filterMask: 0, sections: { offsets: [10, 60], unfilteredSizes: [1, 2, 3], filterMasks: [4, 5, 0xffffffff] } };
    t.set(0, v);
    const out = new Uint8Array(codec.elementSize);
    codec.encode(t, out, 0);
    expect(codec.decode(out, 0, 1, 'b', 0).get(0)).toEqual(v);
  });

  it('rejects records that do not fit, client ids that contradict the dataset, and offsets past the chunk', () => {
    const { ctx: u } = structuredContext(ONE_D([50], { ...DEFAULT_FIXED_ARRAY_INFO }), false);
    const { ctx: f } = structuredContext(ONE_D([50], { ...DEFAULT_FIXED_ARRAY_INFO }), true);
    const uc = structuredElementCodecFactory(u, 2);
    const fcd = structuredElementCodecFactory(f, 3);
    const t = uc.create(1);
    const rec = { address: 8, size: 20, filterMask: 0, sections: { offsets: [12] } };
    expect(() => t.set(0, { ...rec, sections: undefined } as never)).toThrow(ValueError);
    expect(() => t.set(0, { ...rec, size: 65536 })).toThrow(ValueError); // L = 2
    expect(() => t.set(0, { ...rec, size: 0 })).toThrow(ValueError);
    expect(() => t.set(0, { ...rec, sections: { offsets: [21] } })).toThrow(ValueError);
    expect(() => t.set(0, { ...rec, sections: { offsets: [1, 2] } })).toThrow(ValueError);
    expect(() => t.set(0, { ...rec, sections: { offsets: [1], filterMasks: [0, 1] } })).toThrow(ValueError);
    expect(() => fcd.create(1).set(0, rec)).toThrow(ValueError); // filtered needs sizes and masks
    expect(() => fcd.create(1).set(0, { ...rec, sections: { offsets: [1], unfilteredSizes: [1], filterMasks: [0] } })).toThrow(ValueError);
    expect(() => uc.encode(fcd.create(1), new Uint8Array(42), 0)).toThrow(ValueError);
    // Client ids against the dataset.
    expect(() => structuredElementCodecFactory(u, 3)).toThrow(FormatError);
    expect(() => structuredElementCodecFactory(f, 2)).toThrow(FormatError);
    expect(() => defaultElementCodecFactory(u, 0)).toThrow(FormatError);
    expect(() => defaultElementCodecFactory(u, 1)).toThrow(FormatError);
    const plain = { ...u, structured: undefined } as ChunkIndexContext;
    expect(() => defaultElementCodecFactory(plain, 2)).toThrow(FormatError);
    expect(() => defaultElementCodecFactory(plain, 3)).toThrow(FormatError);
    // A stored element whose section offset lies past the chunk: a FormatError naming block and element.
    const bad = Uint8Array.from(ELEMENT_6_5.slice(0, 18));
    bad[10] = 59;
    const decoded = uc.decode(bad, 0, 1, 'fixed array data block', 4096);
    expect(decoded.isDefined(0)).toBe(true);
    expect(() => decoded.get(0)).toThrow(FormatError);
    expect(() => decoded.get(0)).toThrow(/fixed array data block, at address 4096: element 0: section 1 starts at offset 59, past the end of the 58-byte chunk/);
  });
});

describe('structured fixed array (docs/structured-chunk-format.md §5.3)', () => {
  for (const filtered of [false, true]) {
    it(`${filtered ? 'filtered' : 'unfiltered'}: header v1 / client ${filtered ? 3 : 2}, data block v1, index size ${filtered ? 466 : 226} as the prototype's test expects`, async () => {
      const { ctx, storage } = structuredContext(ONE_D([50], { ...DEFAULT_FIXED_ARRAY_INFO }), filtered);
      const fa = await new FixedArrayProvider().create(ctx);
      const rec: ChunkRecord = filtered ? REC_6_5 : { coords: [0], address: 0x800, size: 58, filterMask: 0, sections: { offsets: [44] } };
      await fa.insert(rec);
      await fa.insert({ ...rec, coords: [9], address: 0x900 });
      const { address, info } = await fa.flush();
      expect(info).toEqual({ type: 'fixed-array', pageBits: 10 });
      expect(await fa.sizeOnDisk()).toBe(filtered ? 466 : 226);
      const bytes = storage.store.toBytes();
      const es = filtered ? 42 : 18;
      // FAHD: signature, version 1, client, element size, page bits 10, 10 entries, data block address, checksum.
      const hdr = bytes.subarray(address, address + 28);
      expect(Array.from(hdr.subarray(0, 16))).toEqual([0x46, 0x41, 0x48, 0x44, 1, filtered ? 3 : 2, es, 10, 10, 0, 0, 0, 0, 0, 0, 0]);
      expect(blocks(bytes, 'FADB')).toEqual([[expect.any(Number), 1, filtered ? 3 : 2]]);
      const [dblk] = blocks(bytes, 'FADB')[0]!;
      expect(Array.from(bytes.subarray(dblk + 14, dblk + 14 + es))).toEqual(filtered ? ELEMENT_6_5 : ELEMENT_6_5.slice(0, 18));
      // Reopen.
      const re = await FixedArrayIndex.open({ ...ctx, reader: storage.reader() }, address);
      expect(re.headerInfo()).toMatchObject({ version: 1, clientId: filtered ? 3 : 2, elementSize: es, entries: 10 });
      expect(await re.lookup([0])).toEqual(rec);
      expect(await re.lookup([9])).toEqual({ ...rec, coords: [9], address: 0x900 });
      expect(await re.lookup([1])).toBeNull();
      expect(await collect(re.iterate())).toEqual([rec, { ...rec, coords: [9], address: 0x900 }]);
    });
  }

  it('opening it as an ordinary (or wrongly filtered) dataset is a FormatError, and a corrupt element too', async () => {
    const { ctx, storage } = structuredContext(ONE_D([50], { ...DEFAULT_FIXED_ARRAY_INFO }), false);
    const fa = await new FixedArrayProvider().create(ctx);
    await fa.insert({ coords: [2], address: 0x800, size: 58, filterMask: 0, sections: { offsets: [44] } });
    const { address } = await fa.flush();
    const reader = storage.reader();
    await expect(FixedArrayIndex.open({ ...ctx, reader, structured: undefined }, address)).rejects.toThrow(FormatError);
    await expect(FixedArrayIndex.open({ ...ctx, reader, structured: { sections: 2, filtered: true } }, address)).rejects.toThrow(FormatError);
    await expect(FixedArrayIndex.open({ ...ctx, reader, structured: { sections: 3, filtered: false } }, address)).rejects.toThrow(/element size 18 does not match/);
    // Section offset past the chunk, with a valid checksum: FormatError naming the dataset on lookup.
    const bytes = storage.store.toBytes().slice();
    const [dblk] = blocks(bytes, 'FADB')[0]!;
    const blockSize = 14 + 10 * 18 + 4;
    bytes[dblk + 14 + 2 * 18 + 10] = 200;
    new DataView(bytes.buffer).setUint32(dblk + blockSize - 4, lookup3(bytes.subarray(dblk, dblk + blockSize - 4)), true);
    const corrupt = new MemoryIndexStorage(new MemoryStore(bytes), bytes.length);
    const re = await FixedArrayIndex.open({ ...ctx, reader: corrupt.reader() }, address);
    await expect(re.lookup([2])).rejects.toThrow(FormatError);
    expect(await re.lookup([3])).toBeNull();
    // Without fixing the checksum: ChecksumError.
    bytes[dblk + 20] ^= 1;
    const re2 = await FixedArrayIndex.open({ ...ctx, reader: new MemoryIndexStorage(new MemoryStore(bytes), bytes.length).reader() }, address);
    await expect(re2.lookup([2])).rejects.toThrow(ChecksumError);
  });
});

describe('structured extensible array (docs/structured-chunk-format.md §5.4)', () => {
  it('header, index block, super blocks and data blocks are version 1 with client 2/3; reopen', async () => {
    for (const filtered of [false, true]) {
      const { ctx, storage } = structuredContext(ONE_D([-1], { ...DEFAULT_EXTENSIBLE_ARRAY_INFO }), filtered);
      const ea = await new ExtensibleArrayProvider().create(ctx);
      const recs: ChunkRecord[] = [];
      for (const i of [0, 1, 3, 5, 40, 300, 1500]) {
        const size = 30 + (i % 200);
        recs.push({
          coords: [i],
          address: 0x1000 + i * 64,
          size,
          filterMask: 0,
          sections: filtered ? { offsets: [i % size], unfilteredSizes: [i, 2 * i], filterMasks: [i & 1, 2] } : { offsets: [i % size] },
        });
      }
      for (const r of recs) await ea.insert(r);
      const { address, info } = await ea.flush();
      expect(info).toEqual(DEFAULT_EXTENSIBLE_ARRAY_INFO);
      const bytes = storage.store.toBytes();
      const client = filtered ? 3 : 2;
      const es = filtered ? 42 : 18;
      expect(blocks(bytes, 'EAHD')).toEqual([[address, 1, client]]);
      expect(bytes[address + 6]).toBe(es);
      for (const sig of ['EAIB', 'EASB', 'EADB']) {
        const found = blocks(bytes, sig);
        expect(found.length, sig).toBeGreaterThan(0);
        for (const [, version, id] of found) expect([sig, version, id]).toEqual([sig, 1, client]);
      }
      // The first index-block element is chunk 0's record.
      const [ib] = blocks(bytes, 'EAIB')[0]!;
      const first = structuredElementCodecFactory(ctx, client).decode(bytes, ib + 14, 1, 'b', ib).get(0);
      expect(first).toEqual((({ coords: _c, ...v }) => v)(recs[0]!));
      const re = await ExtensibleArrayIndex.open({ ...ctx, reader: storage.reader() }, address);
      expect(re.headerInfo()).toMatchObject({ version: 1, clientId: client, elementSize: es });
      expect(await collect(re.iterate())).toEqual(recs);
      for (const r of recs) expect(await re.lookup(r.coords)).toEqual(r);
      expect(await re.lookup([2])).toBeNull();
    }
  });

  it('only the element size differs from an ordinary filtered array (h5stat: 178 / 274 vs 162)', async () => {
    const sizes: number[] = [];
    for (const mode of ['ordinary', 'unfiltered', 'filtered'] as const) {
      const storage = new MemoryIndexStorage(new MemoryStore(), 0);
      const base = memoryContext(storage, { ...ONE_D([-1], { ...DEFAULT_EXTENSIBLE_ARRAY_INFO }), filtered: mode === 'ordinary' });
      const ctx: ChunkIndexContext = mode === 'ordinary' ? base : { ...base, structured: { sections: 2, filtered: mode === 'filtered' } };
      const ea = await new ExtensibleArrayProvider().create(ctx);
      for (let i = 0; i < 4; i++) {
        await ea.insert({ ...REC_6_5, coords: [i], ...(mode === 'unfiltered' ? { sections: { offsets: [44] } } : {}) });
      }
      await ea.flush();
      sizes.push(await ea.sizeOnDisk());
    }
    expect(sizes[1]! - sizes[0]!).toBe(178 - 162);
    expect(sizes[2]! - sizes[0]!).toBe(274 - 162);
  });
});

describe('structured v2 B-tree: record types 12 and 13 (docs/structured-chunk-format.md §5.5)', () => {
  it('record layout: address, size (L), scaled offsets, section offsets [, unfiltered sizes, masks]', () => {
    const shape = { rank: 2, sections: 2, filtered: true, sizeLength: 2, offsetSize: 8 };
    const cls = structuredChunkRecordClass(DEFAULT_SIZES, shape);
    expect(cls.type).toBe(13);
    expect(cls.headerVersion).toBe(1);
    expect(cls.recordSize).toBe(8 + 2 + 16 + 8 + 16 + 8);
    expect(structuredChunkRecordSize(DEFAULT_SIZES, { ...shape, filtered: false })).toBe(8 + 2 + 16 + 8);
    const rec: ChunkRecord = { ...REC_6_5, coords: [3, 0x0102] };
    const enc = cls.encode(rec);
    expect(Array.from(enc)).toEqual([
      ...ELEMENT_6_5.slice(0, 10),
      3, 0, 0, 0, 0, 0, 0, 0, // scaled offset 0
      2, 1, 0, 0, 0, 0, 0, 0, // scaled offset 1
      ...ELEMENT_6_5.slice(10),
    ]);
    expect(cls.decode(enc, 0)).toEqual(rec);
    const u = structuredChunkRecordClass(DEFAULT_SIZES, { ...shape, filtered: false });
    expect(u.type).toBe(12);
    const ue = u.encode({ ...rec, sections: { offsets: [44] } });
    expect(Array.from(ue)).toEqual([...ELEMENT_6_5.slice(0, 10), 3, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0, ...ELEMENT_6_5.slice(10, 18)]);
    // Corrupt records: offset past the chunk, undefined address.
    const bad = ue.slice();
    bad[26] = 59;
    expect(() => u.decode(bad, 4096)).toThrow(/section 1 starts at offset 59, past the end of the 58-byte chunk/);
    const undef = ue.slice();
    undef.fill(0xff, 0, 8);
    expect(() => u.decode(undef, 4096)).toThrow(FormatError);
  });

  for (const filtered of [false, true]) {
    it(`${filtered ? 'type 13' : 'type 12'}: header version 1, leaves hold the structured records; reopen`, async () => {
      const base = { dims: [20, 20], maxDims: [-1, -1], chunkDims: [2, 3], elementSize: 4, filtered: false, info: { ...DEFAULT_BTREE2_INDEX_INFO } };
      const { ctx, storage } = structuredContext(base, filtered);
      const bt = await btree2IndexProvider.create(ctx);
      const recs: ChunkRecord[] = [];
      for (let i = 0; i < 300; i++) {
        const size = 10 + (i % 500);
        recs.push({
          coords: [Math.floor(i / 17), i % 17],
          address: 0x10000 + i * 600,
          size,
          filterMask: 0,
          sections: filtered ? { offsets: [size >> 1], unfilteredSizes: [i, 7], filterMasks: [0, i % 2] } : { offsets: [size >> 1] },
        });
      }
      for (const r of recs) await bt.insert(r);
      const { address } = await bt.flush();
      const bytes = storage.store.toBytes();
      expect(blocks(bytes, 'BTHD')).toEqual([[address, 1, filtered ? 13 : 12]]);
      const leaves = blocks(bytes, 'BTLF');
      expect(leaves.length).toBeGreaterThan(1);
      for (const [, version, type] of [...leaves, ...blocks(bytes, 'BTIN')]) expect([version, type]).toEqual([0, filtered ? 13 : 12]);
      const re = await BTree2ChunkIndex.open({ ...ctx, reader: storage.reader() }, address);
      expect(await collect(re.iterate())).toEqual(sortRecords(recs));
      // As an ordinary dataset the record type does not match.
      await expect(BTree2ChunkIndex.open({ ...ctx, reader: storage.reader(), structured: undefined }, address)).rejects.toThrow(FormatError);
    });
  }

  it('insert validation', async () => {
    const base = { dims: [20, 20], maxDims: [-1, -1], chunkDims: [2, 3], elementSize: 4, filtered: false, info: { ...DEFAULT_BTREE2_INDEX_INFO } };
    const bt = await btree2IndexProvider.create(structuredContext(base, true).ctx);
    const ok: ChunkRecord = { coords: [0, 0], address: 8, size: 30, filterMask: 0, sections: { offsets: [10], unfilteredSizes: [1, 2], filterMasks: [0, 0] } };
    await bt.insert(ok);
    await expect(bt.insert({ ...ok, size: 65536 })).rejects.toThrow(ValueError);
    await expect(bt.insert({ ...ok, sections: { offsets: [31], unfilteredSizes: [1, 2], filterMasks: [0, 0] } })).rejects.toThrow(ValueError);
    await expect(bt.insert({ ...ok, sections: { offsets: [10] } })).rejects.toThrow(/unfiltered sizes/);
    await expect(bt.insert({ ...ok, sections: undefined })).rejects.toThrow(ValueError);
    expect(await bt.lookup([0, 0])).toEqual(ok);
  });
});

describe('structured single chunk index (docs/structured-chunk-format.md §3.4, §5.2)', () => {
  const base = (filtered: boolean, info: ChunkIndexInfo): Base => ({ dims: [5], maxDims: [5], chunkDims: [5], elementSize: 4, filtered: false, info });

  for (const filtered of [false, true]) {
    it(`${filtered ? 'filtered' : 'unfiltered'}: the record travels through the layout message`, async () => {
      const choice = chooseStructuredChunkIndex({ dims: [5], chunkDims: [5], filtered });
      const { ctx } = structuredContext(base(filtered, choice as ChunkIndexInfo), filtered);
      const idx = await singleChunkIndexProvider.create(ctx);
      const empty = await idx.flush();
      expect(empty).toEqual({ address: UNDEFINED_ADDRESS, info: choice });
      const rec: ChunkRecord = filtered ? REC_6_5 : { coords: [0], address: 0x800, size: 58, filterMask: 0, sections: { offsets: [44] } };
      await idx.insert(rec);
      expect(await idx.lookup([0])).toEqual(rec);
      const { address, info } = await idx.flush();
      // The layout message the storage layer would write (docs/structured-chunk-format.md §3.7 shape, single-chunk record).
      const layout: StructuredChunkLayout = {
        class: 'structured',
        version: 5,
        propertyVersion: 0,
        chunkType: 0,
        flags: 0,
        chunkDims: [5],
        elementSize: 4,
        offsetSize: 8,
        sectionCount: 2,
        metadataSections: [0],
        index: info as StructuredChunkLayout['index'],
        address,
      };
      const body = encodeLayout(layout);
      if (filtered) expect(Array.from(body.subarray(15, 15 + 2 + 8 + 16 + 8))).toEqual(ELEMENT_6_5.slice(8));
      else expect(Array.from(body.subarray(15, 25))).toEqual(ELEMENT_6_5.slice(8, 18));
      expect(Array.from(body.subarray(body.length - 8 - (filtered ? 8 : 8), body.length - 8))).toEqual(ELEMENT_6_5.slice(0, 8));
      const decoded = decodeLayout(body) as StructuredChunkLayout;
      expect(decoded.flags).toBe(filtered ? 2 : 0);
      const re = await singleChunkIndexProvider.open({ ...ctx, info: decoded.index as ChunkIndexInfo }, decoded.address);
      expect(await collect(re.iterate())).toEqual([rec]);
      expect(await re.remove([0])).toEqual(rec);
      expect(await re.flush()).toEqual(empty);
    });
  }

  it('corrupt records in the layout give FormatErrors; bad inserts ValueErrors', async () => {
    const { ctx } = structuredContext(base(true, { type: 'single' }), true);
    const open = (info: object, address = 0x800) => singleChunkIndexProvider.open({ ...ctx, info: info as ChunkIndexInfo }, address);
    await expect(open({ type: 'single', chunkSize: 58, sectionOffsets: [59], unfilteredSizes: [1, 2], filterMasks: [0, 0] })).rejects.toThrow(FormatError);
    await expect(open({ type: 'single', chunkSize: 58, sectionOffsets: [44] })).rejects.toThrow(/lacks unfiltered sizes/);
    await expect(open({ type: 'single' })).rejects.toThrow(FormatError);
    await expect(open({ type: 'single', chunkSize: 0, sectionOffsets: [0], unfilteredSizes: [0, 0], filterMasks: [0, 0] })).rejects.toThrow(FormatError);
    // No chunk: nothing is checked.
    expect(await (await open({ type: 'single' }, UNDEFINED_ADDRESS)).lookup([0])).toBeNull();
    const idx = await open({ type: 'single' }, UNDEFINED_ADDRESS);
    await expect(idx.insert({ ...REC_6_5, size: 65536 })).rejects.toThrow(ValueError);
    await expect(idx.insert({ ...REC_6_5, sections: { offsets: [44] } })).rejects.toThrow(ValueError);
    await expect(idx.insert({ ...REC_6_5, coords: [1] })).rejects.toThrow(ValueError);
  });
});

describe('structured indexes: random operations against a model, with reopen', () => {
  interface Kind {
    name: string;
    provider: ChunkIndexProvider;
    base: Base;
    coords: fc.Arbitrary<number[]>;
    reopen: (ctx: ChunkIndexContext, address: number) => Promise<ChunkIndex>;
  }
  const kinds: Kind[] = [
    {
      name: 'fixed array (paged)',
      provider: new FixedArrayProvider(),
      base: { dims: [60, 44], maxDims: [60, 44], chunkDims: [1, 1], elementSize: 8, filtered: false, info: { ...DEFAULT_FIXED_ARRAY_INFO } },
      coords: fc.tuple(fc.nat(59), fc.nat(43)),
      reopen: (c, a) => FixedArrayIndex.open(c, a),
    },
    {
      name: 'extensible array',
      provider: new ExtensibleArrayProvider(),
      base: { dims: [10, 3], maxDims: [-1, 3], chunkDims: [2, 3], elementSize: 4, filtered: false, info: { ...DEFAULT_EXTENSIBLE_ARRAY_INFO } },
      coords: fc.tuple(fc.oneof(fc.nat(40), fc.nat(3000)), fc.constant(0)),
      reopen: (c, a) => ExtensibleArrayIndex.open(c, a),
    },
    {
      name: 'v2 B-tree',
      provider: btree2IndexProvider,
      base: { dims: [4, 4, 4], maxDims: [-1, -1, 4], chunkDims: [2, 2, 2], elementSize: 2, filtered: false, info: { ...DEFAULT_BTREE2_INDEX_INFO, nodeSize: 512 } },
      coords: fc.tuple(fc.nat(40), fc.nat(40), fc.nat(1)),
      reopen: (c, a) => BTree2ChunkIndex.open(c, a),
    },
  ];

  for (const kind of kinds) {
    it(`${kind.name}: insert / remove / lookup / flush + reopen match a Map (clients 2 and 3)`, async () => {
      const op = fc.oneof(
        { weight: 5, arbitrary: fc.record({ k: fc.constant('ins' as const), c: kind.coords, a: fc.integer({ min: 1, max: 2 ** 40 }), s: fc.integer({ min: 1, max: 65535 }), o: fc.nat(65535), u: fc.array(fc.nat(2 ** 40), { minLength: 2, maxLength: 2 }), m: fc.array(fc.nat(0xffffffff), { minLength: 2, maxLength: 2 }) }) },
        { weight: 2, arbitrary: fc.record({ k: fc.constant('del' as const), c: kind.coords }) },
        { weight: 2, arbitrary: fc.record({ k: fc.constant('get' as const), c: kind.coords }) },
        { weight: 1, arbitrary: fc.record({ k: fc.constant('flush' as const) }) },
      );
      await fc.assert(
        fc.asyncProperty(fc.boolean(), fc.array(op, { maxLength: 60 }), async (filtered, ops) => {
          const { ctx: c0, storage } = structuredContext(kind.base, filtered);
          let ctx = c0;
          let idx = await kind.provider.create(ctx);
          const model = new Map<string, ChunkRecord>();
          for (const x of ops) {
            if (x.k === 'flush') {
              const { address } = await idx.flush();
              ctx = { ...ctx, reader: storage.reader() };
              idx = await kind.provider.open(ctx, address);
              continue;
            }
            const key = x.c.join(',');
            if (x.k === 'ins') {
              const rec: ChunkRecord = {
                coords: x.c,
                address: x.a,
                size: x.s,
                filterMask: 0,
                sections: filtered ? { offsets: [x.o % (x.s + 1)], unfilteredSizes: x.u, filterMasks: x.m } : { offsets: [x.o % (x.s + 1)] },
              };
              await idx.insert(rec);
              model.set(key, rec);
            } else if (x.k === 'del') {
              expect(await idx.remove(x.c)).toEqual(model.get(key) ?? null);
              model.delete(key);
            } else expect(await idx.lookup(x.c)).toEqual(model.get(key) ?? null);
          }
          expect(sortRecords(await collect(idx.iterate()))).toEqual(sortRecords([...model.values()]));
          const { address } = await idx.flush();
          if (isDefinedAddress(address)) {
            const re = await kind.reopen({ ...ctx, reader: storage.reader() }, address);
            expect(sortRecords(await collect(re.iterate()))).toEqual(sortRecords([...model.values()]));
          }
        }),
        { numRuns: 40 },
      );
    });
  }

  it('decoding corrupted structured indexes throws only H5Errors', async () => {
    const { ctx, storage } = structuredContext(kinds[1]!.base, true);
    const ea = await new ExtensibleArrayProvider().create(ctx);
    for (let i = 0; i < 30; i++) await ea.insert({ ...REC_6_5, coords: [i, 0], address: 0x4000 + i });
    const { address } = await ea.flush();
    const good = storage.store.toBytes();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(good.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }), async (muts) => {
        const b = good.slice();
        for (const [i, v] of muts) b[i] = v;
        const reader = new MemoryIndexStorage(new MemoryStore(b), b.length).reader();
        try {
          const re = await ExtensibleArrayIndex.open({ ...ctx, reader }, address);
          await collect(re.iterate());
        } catch (e) {
          expect(e).toBeInstanceOf(H5Error);
        }
      }),
      { numRuns: 150 },
    );
  });
});
