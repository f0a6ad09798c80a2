import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChecksumError, FormatError, UnsupportedError } from '../src/errors.js';
import { ByteReader, ByteWriter, type SizeContext, UNDEFINED_ADDRESS } from '../src/format/bytes.js';
import { lookup3 } from '../src/format/checksum/lookup3.js';
import * as R from '../src/format/btree/v2-records.js';
import {
  type FractalHeapHeader,
  decodeFractalHeapHeader,
  encodeFractalHeapHeader,
  fractalHeapHeaderBaseSize,
  openFractalHeap,
} from '../src/format/heaps/fractal-heap.js';
import { indirectBlockSize, lookupRowColumn, rowBlockOffset, rowBlockSize } from '../src/format/heaps/fractal-heap-blocks.js';
import { denseInfo, loadLatestFixture, memReader, parseLinkMessage, v2BTreeRecords, type LatestFixture } from './support/h5-structures.js';

let dir: string;
let file: Uint8Array;
let sizes: SizeContext;
let links: LatestFixture['links'];
const dec = new TextDecoder();

function records(bytes: Uint8Array, address: number): Promise<Uint8Array[]> {
  return v2BTreeRecords(bytes, sizes, address);
}

/** Name and raw data of an attribute message (version 3). */
function parseAttribute(body: Uint8Array): { name: string; data: Uint8Array } {
  const r = new ByteReader(body, { sizes });
  expect(r.u8()).toBe(3);
  r.u8();
  const nameSize = r.u16();
  const dt = r.u16();
  const ds = r.u16();
  r.u8();
  const name = dec.decode(body.subarray(r.pos, r.pos + nameSize - 1));
  r.skip(nameSize + dt + ds);
  return { name, data: body.subarray(r.pos) };
}

function managedOffset(id: Uint8Array, offsetSize: number): number {
  let v = 0;
  for (let i = 0; i < offsetSize; i++) v += id[1 + i]! * 256 ** i;
  return v;
}

beforeAll(() => {
  ({ dir, file, sizes, links } = loadLatestFixture('cf-fheap-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fractal heap (III.G) in files written by HDF5', () => {
  it('reads the 2000 link messages of a dense group through a root indirect block', async () => {
    const info = denseInfo(file, sizes, links.get('dense')!.address!, 'links');
    const heap = await openFractalHeap(memReader(file, sizes), info.heapAddress);
    expect(heap.header).toMatchObject({
      heapIdLength: 7,
      ioFiltersLength: 0,
      flags: 2,
      tableWidth: 4,
      startingBlockSize: 512,
      maxDirectBlockSize: 65536,
      maxHeapSizeBits: 32,
      managedObjectCount: 2000,
      hugeObjectBTreeAddress: UNDEFINED_ADDRESS,
    });
    expect(heap.header.currentRootRows).toBeGreaterThan(1);
    expect(heap.table).toMatchObject({ maxDirectRows: 9, heapOffsetSize: 4, firstRowBits: 11, maxRootRows: 22 });
    const recs = (await records(file, info.orderIndexAddress)).map((r) => R.decodeLinkCreationOrderRecord(r));
    const names: string[] = [];
    const rows = new Set<number>();
    for (const rec of recs) {
      const link = parseLinkMessage(await heap.getObject(rec.heapId), sizes);
      expect(link.creationOrder).toBe(rec.creationOrder);
      expect(link.address).toBeGreaterThan(0);
      names.push(link.name);
      rows.add(lookupRowColumn(heap.table, managedOffset(rec.heapId, 4)).row);
    }
    expect(names).toEqual(Array.from({ length: 2000 }, (_, i) => `link${String(i).padStart(5, '0')}`));
    expect(rows.size).toBeGreaterThan(5);
  });

  it('reads objects in nested indirect blocks and huge objects through the huge-object B-tree', async () => {
    const info = denseInfo(file, sizes, links.get('nested')!.address!, 'links');
    const heap = await openFractalHeap(memReader(file, sizes), info.heapAddress);
    expect(heap.header.currentRootRows).toBeGreaterThan(heap.table.maxDirectRows);
    const firstIndirectRowOffset = rowBlockOffset(heap.table, heap.table.maxDirectRows);
    let nested = 0;
    let huge = 0;
    const names = new Set<string>();
    for (const raw of await records(file, info.nameIndexAddress)) {
      const { heapId } = R.decodeLinkNameRecord(raw);
      const link = parseLinkMessage(await heap.getObject(heapId), sizes);
      names.add(link.name);
      if ((heapId[0]! & 0x30) === 0x10) {
        huge++;
        expect(link.name).toBe('H' + 'y'.repeat(5000));
      } else if (managedOffset(heapId, heap.table.heapOffsetSize) >= firstIndirectRowOffset) {
        nested++;
      }
    }
    expect(names.size).toBe(301);
    expect(names.has('L0299' + 'x'.repeat(2000))).toBe(true);
    expect(huge).toBe(1);
    expect(nested).toBeGreaterThan(10);
  });

  it('reads dense attributes, including a 70 kB huge attribute', async () => {
    const info = denseInfo(file, sizes, links.get('attrs')!.address!, 'attributes');
    const heap = await openFractalHeap(memReader(file, sizes), info.heapAddress);
    expect(heap.header.heapIdLength).toBe(8);
    expect(heap.header.hugeObjectCount).toBe(1);
    const recs = (await records(file, info.orderIndexAddress)).map((r) => R.decodeAttributeCreationOrderRecord(r));
    for (const rec of recs) {
      const { name, data } = parseAttribute(await heap.getObject(rec.heapId));
      if (rec.creationOrder < 100) {
        expect(name).toBe(`a${String(rec.creationOrder).padStart(3, '0')}`);
        expect(Array.from(new Int32Array(data.slice().buffer))).toEqual(Array.from({ length: rec.creationOrder + 1 }, (_, i) => i));
      } else {
        expect(name).toBe('huge');
        expect(rec.heapId[0]! & 0x30).toBe(0x10);
        const v = new Float64Array(data.slice().buffer);
        expect(v.length).toBe(8750);
        expect(v[0]).toBe(0);
        expect(v[8749]).toBe(8749);
      }
    }
  });

  it('decodes the header of a heap with I/O filters and refuses to read filtered blocks', async () => {
    const info = denseInfo(file, sizes, links.get('filtered')!.address!, 'links');
    const heap = await openFractalHeap(memReader(file, sizes), info.heapAddress);
    expect(heap.header.ioFiltersLength).toBe(12);
    expect(Array.from(heap.header.filterInfo!)).toEqual([2, 1, 1, 0, 1, 0, 1, 0, 6, 0, 0, 0]);
    const [first] = await records(file, info.nameIndexAddress);
    await expect(heap.getObject(R.decodeLinkNameRecord(first!).heapId)).rejects.toThrow(UnsupportedError);
  });

  it('round-trips real headers through encodeFractalHeapHeader', () => {
    for (const name of ['dense', 'filtered']) {
      const { heapAddress } = denseInfo(file, sizes, links.get(name)!.address!, 'links');
      const h = decodeFractalHeapHeader(file.subarray(heapAddress), sizes, heapAddress);
      const bytes = encodeFractalHeapHeader(h, sizes);
      expect(bytes).toEqual(file.subarray(heapAddress, heapAddress + bytes.length));
      expect(bytes.length).toBe(fractalHeapHeaderBaseSize(sizes) + (h.ioFiltersLength ? 8 + 4 + h.ioFiltersLength : 0));
    }
  });

  it('detects corrupt headers, blocks and cycles', async () => {
    const info = denseInfo(file, sizes, links.get('nested')!.address!, 'links');
    const heapAddr = info.heapAddress;
    const good = await openFractalHeap(memReader(file, sizes), heapAddr);
    const recs = (await records(file, info.nameIndexAddress)).map((r) => R.decodeLinkNameRecord(r).heapId);
    const offsetOf = (id: Uint8Array) => managedOffset(id, good.table.heapOffsetSize);
    const managed = recs.filter((id) => (id[0]! & 0x30) === 0);
    const inRow9Col0 = managed.find((id) => {
      const o = offsetOf(id);
      return o >= rowBlockOffset(good.table, 9) && o < rowBlockOffset(good.table, 9) + rowBlockSize(good.table, 9);
    })!;
    expect(inRow9Col0).toBeDefined();

    const b1 = file.slice();
    b1[heapAddr + 20] ^= 1;
    await expect(openFractalHeap(memReader(b1, sizes), heapAddr)).rejects.toThrow(ChecksumError);
    const b2 = file.slice();
    b2[heapAddr + 1] = 0;
    await expect(openFractalHeap(memReader(b2, sizes), heapAddr)).rejects.toThrow(/fractal heap header, at address \d+: bad signature/);

    // A flipped byte in the root indirect block.
    const root = good.header.rootBlockAddress;
    const b3 = file.slice();
    b3[root + 30] ^= 0x10;
    await expect((await openFractalHeap(memReader(b3, sizes), heapAddr)).getObject(managed[0]!)).rejects.toThrow(ChecksumError);

    // A flipped data byte inside the direct block holding the first row-0 object.
    const first = managed.reduce((a, b) => (offsetOf(a) < offsetOf(b) ? a : b));
    const { row, col } = lookupRowColumn(good.table, offsetOf(first));
    expect(row).toBeLessThan(good.table.maxDirectRows);
    const entry = root + 17 + (row * good.table.width + col) * 8;
    const blockAddr = new ByteReader(file.subarray(entry, entry + 8), { sizes }).offset();
    const within = offsetOf(first) - rowBlockOffset(good.table, row) - col * rowBlockSize(good.table, row);
    const b4 = file.slice();
    b4[blockAddr + within + 3] ^= 0x01;
    await expect((await openFractalHeap(memReader(b4, sizes), heapAddr)).getObject(first)).rejects.toThrow(ChecksumError);

    // The root indirect block's first indirect child (row 9, column 0) aimed back at the root.
    const size = indirectBlockSize(sizes, good.table, good.header.currentRootRows, false);
    const b5 = file.slice();
    const dv = new DataView(b5.buffer);
    dv.setBigUint64(root + 17 + 9 * 4 * 8, BigInt(root), true);
    dv.setUint32(root + size - 4, lookup3(b5.subarray(root, root + size - 4)), true);
    const cyc = await openFractalHeap(memReader(b5, sizes), heapAddr);
    await expect(cyc.getObject(inRow9Col0)).rejects.toThrow(/cycle/);
    await expect(cyc.getObject(inRow9Col0)).rejects.toThrow(FormatError);
    expect((await cyc.getObject(first)).length).toBeGreaterThan(0);

    // Malformed IDs.
    await expect(good.getObject(Uint8Array.of(0x40, 0, 0, 0, 0, 0, 0))).rejects.toThrow(/heap ID version/);
    await expect(good.getObject(Uint8Array.of(0x30, 0, 0, 0, 0, 0, 0))).rejects.toThrow(FormatError);
    await expect(good.getObject(Uint8Array.of(0x10, 99, 0, 0, 0, 0, 0))).rejects.toThrow(/not in the huge-object B-tree/);
    await expect(good.getObject(Uint8Array.of(0, 0xff, 0xff, 0xff, 0x7f, 10, 0))).rejects.toThrow(FormatError);
    await expect(good.getObject(Uint8Array.of(0, 0, 0))).rejects.toThrow(FormatError);
  });
});

describe('fractal heap (III.G) object kinds, on synthetic heaps', () => {
  const S8 = { sizeOfOffsets: 8, sizeOfLengths: 8 };
  /** A heap with a root direct block of 256 bytes at address 1024, plus raw bytes at 2048. */
  function build(idLength: number, objects: Uint8Array[], opts: { checksum?: boolean; blockOffset?: number } = {}) {
    const checksum = opts.checksum ?? true;
    const header: Omit<FractalHeapHeader, 'address'> = {
      heapIdLength: idLength,
      ioFiltersLength: 0,
      flags: checksum ? 2 : 0,
      maxManagedObjectSize: 200,
      nextHugeObjectId: 0,
      hugeObjectBTreeAddress: UNDEFINED_ADDRESS,
      freeSpaceInManagedBlocks: 0,
      freeSpaceManagerAddress: UNDEFINED_ADDRESS,
      managedSpace: 256,
      allocatedManagedSpace: 256,
      directBlockIteratorOffset: 256,
      managedObjectCount: objects.length,
      hugeObjectsSize: 0,
      hugeObjectCount: 0,
      tinyObjectsSize: 0,
      tinyObjectCount: 0,
      tableWidth: 4,
      startingBlockSize: 256,
      maxDirectBlockSize: 1024,
      maxHeapSizeBits: 16,
      startingRootRows: 1,
      rootBlockAddress: 1024,
      currentRootRows: 0,
    };
    const file = new Uint8Array(4096);
    file.set(encodeFractalHeapHeader(header, S8), 0);
    const blk = new ByteWriter(S8, 256);
    blk.signature('FHDB').u8(0).offset(0).uN(opts.blockOffset ?? 0, 2);
    if (checksum) blk.u32(0);
    const ids: Uint8Array[] = [];
    for (const o of objects) {
      const id = new Uint8Array(idLength);
      id[0] = 0;
      id[1] = blk.pos & 0xff;
      id[2] = blk.pos >> 8;
      id[3] = o.length;
      ids.push(id);
      blk.bytes(o);
    }
    blk.zeros(256 - blk.pos);
    const block = blk.finish();
    if (checksum) new DataView(block.buffer, block.byteOffset).setUint32(5 + 8 + 2, lookup3(block), true);
    file.set(block, 1024);
    file.set(Uint8Array.from({ length: 300 }, (_, i) => i & 0xff), 2048);
    return { file, ids };
  }

  it('reads managed objects from a root direct block (checksummed or not)', async () => {
    for (const checksum of [true, false]) {
      const objs = [Uint8Array.of(1, 2, 3), new TextEncoder().encode('hello fractal heap')];
      const { file, ids } = build(7, objs, { checksum });
      const heap = await openFractalHeap(memReader(file), 0);
      expect(await heap.getObject(ids[0]!)).toEqual(objs[0]);
      expect(await heap.getObject(ids[1]!)).toEqual(objs[1]);
      const past = ids[1]!.slice();
      past[3] = 250;
      await expect(heap.getObject(past)).rejects.toThrow(/does not fit in the block/);
    }
    const { file, ids } = build(7, [Uint8Array.of(9)], { blockOffset: 512 });
    await expect((await openFractalHeap(memReader(file), 0)).getObject(ids[0]!)).rejects.toThrow(/block offset 512/);
    const bad = build(7, [Uint8Array.of(9)]);
    bad.file[1024 + 40] ^= 1;
    await expect((await openFractalHeap(memReader(bad.file), 0)).getObject(bad.ids[0]!)).rejects.toThrow(ChecksumError);
  });

  it('reads tiny objects from normal and extended heap IDs', async () => {
    const short = await openFractalHeap(memReader(build(7, []).file), 0);
    expect(await short.getObject(Uint8Array.of(0x20 | 2, 7, 8, 9, 0, 0, 0))).toEqual(Uint8Array.of(7, 8, 9));
    expect(await short.getObject(Uint8Array.of(0x20 | 5, 1, 2, 3, 4, 5, 6))).toEqual(Uint8Array.of(1, 2, 3, 4, 5, 6));
    await expect(short.getObject(Uint8Array.of(0x20 | 6, 1, 2, 3, 4, 5, 6))).rejects.toThrow(/does not fit/);
    const ext = await openFractalHeap(memReader(build(20, []).file), 0);
    const id = new Uint8Array(20);
    id[0] = 0x20;
    id[1] = 17; // length 18
    for (let i = 0; i < 18; i++) id[2 + i] = 100 + i;
    expect(await ext.getObject(id)).toEqual(id.subarray(2));
  });

  it('reads directly addressed huge objects and rejects them when out of the file', async () => {
    const { file } = build(17, []);
    const heap = await openFractalHeap(memReader(file), 0);
    const w = new ByteWriter(S8).u8(0x10).offset(2048).length(300);
    expect(await heap.getObject(w.finish())).toEqual(file.subarray(2048, 2348));
    const far = new ByteWriter(S8).u8(0x10).offset(4000).length(300).finish();
    await expect(heap.getObject(far)).rejects.toThrow(FormatError);
  });
});
