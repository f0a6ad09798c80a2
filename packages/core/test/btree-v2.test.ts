import { rmSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChecksumError, FormatError } from '../src/errors.js';
import { ByteReader, type SizeContext } from '../src/format/bytes.js';
import { lookup3 } from '../src/format/checksum/lookup3.js';
import {
  computeV2NodeInfo,
  decodeV2BTreeHeader,
  encodeV2BTreeHeader,
  findV2BTreeRecord,
  openV2BTree,
  v2NodeUsedSize,
} from '../src/format/btree/v2.js';
import * as R from '../src/format/btree/v2-records.js';
import { openFractalHeap } from '../src/format/heaps/fractal-heap.js';
import {
  denseInfo,
  loadLatestFixture,
  memReader,
  objectHeaderMessages,
  parseLinkMessage,
  v2BTreeRecords,
  type LatestFixture,
} from './support/h5-structures.js';

let dir: string;
let file: Uint8Array;
let sizes: SizeContext;
let links: LatestFixture['links'];

function collect(bytes: Uint8Array, address: number): Promise<Uint8Array[]> {
  return v2BTreeRecords(bytes, sizes, address);
}

/** v2 B-tree address and record geometry of a chunked dataset with a version-4 layout (index type 5). */
function chunkIndex(name: string): { address: number; chunkBytes: number } {
  const msg = objectHeaderMessages(file, sizes, links.get(name)!.address!).find((m) => m.type === 8)!;
  const r = new ByteReader(msg.body, { sizes });
  expect(r.u8()).toBe(4);
  expect(r.u8()).toBe(2);
  r.u8();
  const ndims = r.u8();
  const e = r.u8();
  let chunkBytes = 1;
  for (let i = 0; i < ndims; i++) chunkBytes *= r.uN(e);
  expect(r.u8()).toBe(5);
  r.skip(6);
  return { address: r.offset(), chunkBytes };
}

beforeAll(() => {
  ({ dir, file, sizes, links } = loadLatestFixture('cf-bt2-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('v2 B-tree (III.A.2)', () => {
  it('reads the depth-2 link name index (type 5) of a 2000-link group in hash order', async () => {
    const info = denseInfo(file, sizes, links.get('dense')!.address!, 'links');
    const rd = memReader(file, sizes);
    const h = await openV2BTree(rd, info.nameIndexAddress);
    expect(h).toMatchObject({ type: 5, recordSize: 11, nodeSize: 512, depth: 2, totalRecordCount: 2000, maxRecordCountSize: 1 });
    expect(h.nodeInfo.map((n) => n.maxRecords)).toEqual([45, 24, 22]);
    expect(h.nodeInfo.map((n) => n.cumulativeMaxRecordsSize)).toEqual([0, 2, 2]);
    const heap = await openFractalHeap(rd, info.heapAddress);
    const recs = (await collect(file, info.nameIndexAddress)).map((r) => R.decodeLinkNameRecord(r, heap.header.heapIdLength));
    expect(recs).toHaveLength(2000);
    const names = new Set<string>();
    for (let i = 0; i < recs.length; i++) {
      if (i > 0) expect(recs[i]!.hash).toBeGreaterThanOrEqual(recs[i - 1]!.hash);
      const name = parseLinkMessage(await heap.getObject(recs[i]!.heapId), sizes).name;
      expect(recs[i]!.hash).toBe(lookup3(new TextEncoder().encode(name)));
      names.add(name);
    }
    expect(names.size).toBe(2000);
    expect(names.has('link01999')).toBe(true);
  });

  it('reads the creation-order index (type 6) in order and finds records by key', async () => {
    const info = denseInfo(file, sizes, links.get('dense')!.address!, 'links');
    const recs = (await collect(file, info.orderIndexAddress)).map((r) => R.decodeLinkCreationOrderRecord(r));
    expect(recs.map((r) => r.creationOrder)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    const byName = (await collect(file, info.nameIndexAddress)).map((r) => Array.from(R.decodeLinkNameRecord(r).heapId).join());
    expect(new Set(recs.map((r) => Array.from(r.heapId).join()))).toEqual(new Set(byName));
    const rd = memReader(file, sizes);
    const h = await openV2BTree(rd, info.orderIndexAddress);
    const heap = await openFractalHeap(rd, info.heapAddress);
    for (const want of [0, 1, 777, 1500, 1999]) {
      const rec = await findV2BTreeRecord(rd, h, (raw) => want - R.decodeLinkCreationOrderRecord(raw).creationOrder);
      expect(R.decodeLinkCreationOrderRecord(rec!).creationOrder).toBe(want);
      expect(parseLinkMessage(await heap.getObject(R.decodeLinkCreationOrderRecord(rec!).heapId), sizes).name).toBe(
        `link${String(want).padStart(5, '0')}`,
      );
    }
    expect(await findV2BTreeRecord(rd, h, (raw) => 2000 - R.decodeLinkCreationOrderRecord(raw).creationOrder)).toBeUndefined();
  });

  it('reads attribute indexes (types 8 and 9) and the huge-object index (type 1)', async () => {
    const info = denseInfo(file, sizes, links.get('attrs')!.address!, 'attributes');
    const byName = (await collect(file, info.nameIndexAddress)).map((r) => R.decodeAttributeNameRecord(r));
    const byOrder = (await collect(file, info.orderIndexAddress)).map((r) => R.decodeAttributeCreationOrderRecord(r));
    expect(byName).toHaveLength(101);
    expect(byOrder.map((r) => r.creationOrder)).toEqual(Array.from({ length: 101 }, (_, i) => i));
    for (let i = 1; i < byName.length; i++) expect(byName[i]!.hash).toBeGreaterThanOrEqual(byName[i - 1]!.hash);
    expect(new Set(byName.map((r) => r.creationOrder))).toEqual(new Set(byOrder.map((r) => r.creationOrder)));
    const rd = memReader(file, sizes);
    const heap = await openFractalHeap(rd, info.heapAddress);
    const huge = await collect(file, heap.header.hugeObjectBTreeAddress);
    expect(huge.map((r) => R.decodeHugeIndirectRecord(r, sizes))).toEqual([
      { address: expect.any(Number), length: 70054, filterMask: 0, objectSize: 70054, id: 1 },
    ]);
  });

  it('reads chunk indexes (types 10 and 11) of 2-D datasets with unlimited dimensions', async () => {
    const rd = memReader(file, sizes);
    for (const name of ['b2', 'bz']) {
      const { address, chunkBytes } = chunkIndex(name);
      const h = await openV2BTree(rd, address);
      const filtered = name === 'bz';
      expect(h.type).toBe(filtered ? 11 : 10);
      const width = h.recordSize - 8 - 4 - 16;
      if (filtered) expect(width).toBe(Math.min(8, 1 + Math.floor((Math.floor(Math.log2(chunkBytes)) + 8) / 8)));
      const recs = (await collect(file, address)).map((r) =>
        filtered ? R.decodeFilteredChunkRecord(r, sizes, 2, width) : R.decodeChunkRecord(r, sizes, 2),
      );
      expect(recs).toHaveLength(100);
      const seen = new Set(recs.map((r) => r.scaledOffsets.join(',')));
      expect(seen.size).toBe(100);
      for (const rec of recs) {
        const [ci, cj] = rec.scaledOffsets as [number, number];
        let raw = file.subarray(rec.address, rec.address + (filtered ? rec.chunkSize : 400));
        if (filtered) {
          expect(rec.filterMask).toBe(0);
          raw = new Uint8Array(inflateSync(raw));
        }
        const v = new Int32Array(raw.slice().buffer);
        expect(v[0]).toBe(ci * 10 * 100 + cj * 10);
        expect(v[99]).toBe((ci * 10 + 9) * 100 + cj * 10 + 9);
      }
    }
  });

  it('round-trips every record encoder', () => {
    const id7 = Uint8Array.of(0, 1, 2, 3, 4, 5, 6);
    const id8 = Uint8Array.of(0x10, 1, 2, 3, 4, 5, 6, 7);
    expect(R.decodeLinkNameRecord(R.encodeLinkNameRecord({ hash: 0xdeadbeef, heapId: id7 }))).toEqual({ hash: 0xdeadbeef, heapId: id7 });
    expect(R.decodeLinkCreationOrderRecord(R.encodeLinkCreationOrderRecord({ creationOrder: 2 ** 40 + 3, heapId: id7 }))).toEqual({
      creationOrder: 2 ** 40 + 3,
      heapId: id7,
    });
    const a = { heapId: id8, messageFlags: 2, creationOrder: 65537, hash: 0x80000001 };
    expect(R.encodeAttributeNameRecord(a).length).toBe(17);
    expect(R.decodeAttributeNameRecord(R.encodeAttributeNameRecord(a))).toEqual(a);
    expect(R.encodeAttributeCreationOrderRecord(a).length).toBe(13);
    expect(R.decodeAttributeCreationOrderRecord(R.encodeAttributeCreationOrderRecord(a))).toEqual({ ...a, hash: 0 });
    for (const sz of [sizes, { sizeOfOffsets: 4, sizeOfLengths: 4 }]) {
      const h = { address: 4096, length: 70054, id: 9 };
      expect(R.decodeHugeIndirectRecord(R.encodeHugeIndirectRecord(h, sz), sz)).toEqual({ ...h, filterMask: 0, objectSize: 70054 });
      const c = { address: 123456, chunkSize: 0, filterMask: 0, scaledOffsets: [3, 0, 7] };
      expect(R.decodeChunkRecord(R.encodeChunkRecord(c, sz), sz, 3)).toEqual(c);
      const fc = { address: 99, chunkSize: 70000, filterMask: 5, scaledOffsets: [1, 2] };
      expect(R.decodeFilteredChunkRecord(R.encodeFilteredChunkRecord(fc, sz, 3), sz, 2, 3)).toEqual(fc);
    }
  });

  it('round-trips real headers through encodeV2BTreeHeader', () => {
    const info = denseInfo(file, sizes, links.get('dense')!.address!, 'links');
    for (const a of [info.nameIndexAddress, info.orderIndexAddress, chunkIndex('bz').address]) {
      const h = decodeV2BTreeHeader(file.subarray(a), sizes, a);
      expect(encodeV2BTreeHeader(h, sizes)).toEqual(file.subarray(a, a + 38));
    }
  });

  it('computes node geometry like H5B2__hdr_init', () => {
    // Chunk index of a 2-D dataset: 512-byte nodes, 24-byte records.
    const g = computeV2NodeInfo(sizes, 512, 24, 2);
    expect(g.nodeInfo[0]!.maxRecords).toBe(20);
    expect(g.maxRecordCountSize).toBe(1);
    expect(g.nodeInfo[1]!.maxRecords).toBe(Math.floor((512 - 10 - 9) / (24 + 9)));
    expect(() => computeV2NodeInfo(sizes, 20, 24, 0)).toThrow(FormatError);
  });

  it('rejects corrupt headers and nodes with typed errors, and detects cycles', async () => {
    const info = denseInfo(file, sizes, links.get('dense')!.address!, 'links');
    const rd = memReader(file, sizes);
    const h = await openV2BTree(rd, info.nameIndexAddress);
    // Header checksum.
    const b1 = file.slice();
    b1[info.nameIndexAddress + 10] ^= 0x01;
    await expect(openV2BTree(memReader(b1, sizes), info.nameIndexAddress)).rejects.toThrow(ChecksumError);
    // Header signature.
    const b2 = file.slice();
    b2[info.nameIndexAddress] = 0x58;
    await expect(openV2BTree(memReader(b2, sizes), info.nameIndexAddress)).rejects.toThrow(/v2 B-tree header, at address \d+: bad signature/);
    // A byte of the root internal node.
    const b3 = file.slice();
    b3[h.rootAddress + 8] ^= 0x40;
    await expect(collect(b3, info.nameIndexAddress)).rejects.toThrow(ChecksumError);
    // Root internal node's first child pointer aimed at the root itself (checksum fixed up).
    const b4 = file.slice();
    const used = v2NodeUsedSize(h, sizes, h.depth, h.rootRecordCount);
    const ptr = h.rootAddress + 6 + h.rootRecordCount * h.recordSize;
    new DataView(b4.buffer).setBigUint64(ptr, BigInt(h.rootAddress), true);
    new DataView(b4.buffer).setUint32(h.rootAddress + used - 4, lookup3(b4.subarray(h.rootAddress, h.rootAddress + used - 4)), true);
    await expect(collect(b4, info.nameIndexAddress)).rejects.toThrow(/cycle/);
    await expect(collect(b4, info.nameIndexAddress)).rejects.toThrow(FormatError);
    // Record type that disagrees with the header.
    const b5 = file.slice();
    b5[h.rootAddress + 5] = 6;
    await expect(collect(b5, info.nameIndexAddress)).rejects.toThrow(FormatError);
    // Root record count larger than a node can hold (checksum fixed up).
    const hb = file.slice(info.nameIndexAddress, info.nameIndexAddress + 38);
    new DataView(hb.buffer).setUint16(16 + 8, 500, true);
    new DataView(hb.buffer).setUint32(34, lookup3(hb.subarray(0, 34)), true);
    expect(() => decodeV2BTreeHeader(hb, sizes, info.nameIndexAddress)).toThrow(/more than the 22 that fit/);
    // Truncated file.
    await expect(collect(file.subarray(0, h.rootAddress + 20), info.nameIndexAddress)).rejects.toThrow(FormatError);
  });
});
