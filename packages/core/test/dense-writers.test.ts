/**
 * Round trips of the dense-storage writers: fractal heap direct/indirect block encoders against
 * their decoders, the heap writer (managed objects through a root direct block, a root indirect
 * block whose rows double, huge objects) against the reader `FractalHeap`, copy-on-write flushes,
 * and the name/order/huge record classes.
 */
import { describe, expect, it } from 'vitest';
import { ChecksumError, FormatError } from '../src/errors.js';
import { UNDEFINED_ADDRESS, type SizeContext } from '../src/format/bytes.js';
import type { IndexStorage } from '../src/chunk/chunk-index.js';
import type { MetadataReader } from '../src/file/metadata-reader.js';
import { openFractalHeap } from '../src/format/heaps/fractal-heap.js';
import {
  decodeIndirectBlock,
  encodeDirectBlock,
  encodeIndirectBlock,
  makeDoublingTable,
  verifyDirectBlock,
} from '../src/format/heaps/fractal-heap-blocks.js';
import { ATTRIBUTE_HEAP_PARAMS, FractalHeapWriter, LINK_HEAP_PARAMS } from '../src/dense/fractal-heap-writer.js';
import { attributeNameClass, attributeOrderClass, hugeObjectClass, linkNameClass, linkOrderClass } from '../src/dense/index-records.js';

const sizes: SizeContext = { sizeOfOffsets: 8, sizeOfLengths: 8 };

/** A growable in-memory file with an allocator that treats everything since `commit()` as fresh. */
class MemFile implements IndexStorage, MetadataReader {
  bytes = new Uint8Array(1 << 16);
  eof = 8;
  readonly sizes = sizes;
  private freshFrom = 8;
  readonly writes: { address: number; length: number }[] = [];
  alloc(size: number): number {
    const a = this.eof;
    this.eof += (size + 7) & ~7;
    while (this.eof > this.bytes.length) {
      const b = new Uint8Array(this.bytes.length * 2);
      b.set(this.bytes);
      this.bytes = b;
    }
    return a;
  }
  release(): void {}
  async write(address: number, bytes: Uint8Array): Promise<void> {
    if (!this.isFresh(address, bytes.length)) throw new Error(`write into flushed space at ${address}`);
    this.writes.push({ address, length: bytes.length });
    this.bytes.set(bytes, address);
  }
  isFresh(address: number, size: number): boolean {
    return address >= this.freshFrom && address + size <= this.eof;
  }
  commit(): void {
    this.freshFrom = this.eof;
  }
  async read(address: number, length: number): Promise<Uint8Array> {
    if (address + length > this.eof) throw new FormatError('read past end');
    return this.bytes.slice(address, address + length);
  }
}

/** Byte equality without vitest's element-wise diff (huge objects are 70 kB). */
function expectSame(a: Uint8Array, b: Uint8Array): void {
  expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
}

const obj = (i: number, n = 20 + (i % 30)): Uint8Array => Uint8Array.from({ length: n }, (_, k) => (i * 31 + k) & 0xff);

describe('fractal heap block encoders', () => {
  const dt = makeDoublingTable(4, 512, 65536, 32, 'test', 0);
  it('a direct block encodes and verifies (checksum, owner, offset); a flipped byte is a ChecksumError', () => {
    const block = new Uint8Array(1024);
    block.set([1, 2, 3], 100);
    const enc = encodeDirectBlock(block, sizes, dt, 4096, 2048, true);
    expect(() => verifyDirectBlock(enc, sizes, dt, 10, 4096, 2048, true)).not.toThrow();
    expect(Array.from(enc.subarray(100, 103))).toEqual([1, 2, 3]);
    expect(() => verifyDirectBlock(enc, sizes, dt, 10, 4097, 2048, true)).toThrow(FormatError);
    const bad = enc.slice();
    bad[500] ^= 1;
    expect(() => verifyDirectBlock(bad, sizes, dt, 10, 4096, 2048, true)).toThrow(ChecksumError);
  });
  it('an indirect block round-trips its child addresses', () => {
    const childAddresses = Array.from({ length: 8 }, (_, i) => (i % 3 === 2 ? UNDEFINED_ADDRESS : 1000 + i * 512));
    const enc = encodeIndirectBlock({ blockOffset: 0, rows: 2, childAddresses }, sizes, dt, 77);
    const dec = decodeIndirectBlock(enc, sizes, dt, 5000, 77, 2, false);
    expect(dec.childAddresses).toEqual(childAddresses);
    expect(() => encodeIndirectBlock({ blockOffset: 0, rows: 3, childAddresses }, sizes, dt, 77)).toThrow(FormatError);
    const bad = enc.slice();
    bad[20] ^= 1;
    expect(() => decodeIndirectBlock(bad, sizes, dt, 5000, 77, 2, false)).toThrow(ChecksumError);
  });
});

describe('FractalHeapWriter', () => {
  it.each([
    ['link heap, root direct block only', LINK_HEAP_PARAMS, 10],
    ['link heap, root indirect block of 8 rows', LINK_HEAP_PARAMS, 3000],
    ['attribute heap with huge objects', ATTRIBUTE_HEAP_PARAMS, 200],
  ] as const)('%s: objects read back through the reader after a flush, and after reopening for writing', async (_name, params, n) => {
    const file = new MemFile();
    const w = FractalHeapWriter.create(file, sizes, params);
    const ids: Uint8Array[] = [];
    const objects: Uint8Array[] = [];
    for (let i = 0; i < n; i++) {
      const o = params === ATTRIBUTE_HEAP_PARAMS && i % 50 === 7 ? obj(i, 70_000) : obj(i);
      objects.push(o);
      ids.push(w.insert(o));
    }
    for (let i = 0; i < n; i += 7) expectSame(await w.get(ids[i]!), objects[i]!);
    const address = await w.flush(file);
    const heap = await openFractalHeap(file, address);
    expect(heap.header.managedObjectCount + heap.header.hugeObjectCount).toBe(n);
    for (let i = 0; i < n; i++) expectSame(await heap.getObject(ids[i]!), objects[i]!);

    // reopened, extended, flushed copy-on-write: old IDs still valid, nothing flushed rewritten
    file.commit();
    const w2 = await FractalHeapWriter.open(file, address);
    const more = Array.from({ length: 20 }, (_, i) => obj(10_000 + i));
    const moreIds = more.map((o) => w2.insert(o));
    const a2 = await w2.flush(file);
    expect(a2).not.toBe(address);
    const heap2 = await openFractalHeap(file, a2);
    for (let i = 0; i < n; i += 3) expectSame(await heap2.getObject(ids[i]!), objects[i]!);
    for (let i = 0; i < more.length; i++) expectSame(await heap2.getObject(moreIds[i]!), more[i]!);
    // the old heap is intact
    expectSame(await (await openFractalHeap(file, address)).getObject(ids[0]!), objects[0]!);
  });

  it('replace keeps the heap ID; a different length is refused', async () => {
    const file = new MemFile();
    const w = FractalHeapWriter.create(file, sizes, LINK_HEAP_PARAMS);
    const id = w.insert(obj(1, 16));
    w.replace(id, obj(2, 16));
    expect(await w.get(id)).toEqual(obj(2, 16));
    expect(() => w.replace(id, obj(2, 17))).toThrow(FormatError);
  });

  it('past the direct rows of the root, objects go to child indirect blocks; reopened and extended', async () => {
    const file = new MemFile();
    const w = FractalHeapWriter.create(file, sizes, LINK_HEAP_PARAMS);
    const objects = Array.from({ length: 400 }, (_, i) => obj(i, 3000 + (i % 7) * 100));
    const ids = objects.map((o) => w.insert(o));
    const address = await w.flush(file);
    const heap = await openFractalHeap(file, address);
    expect(heap.header.currentRootRows).toBeGreaterThan(9); // rows of child indirect blocks
    for (let i = 0; i < objects.length; i++) expectSame(await heap.getObject(ids[i]!), objects[i]!);
    file.commit();
    const w2 = await FractalHeapWriter.open(file, address);
    const more = Array.from({ length: 100 }, (_, i) => obj(5000 + i, 3500));
    const moreIds = more.map((o) => w2.insert(o));
    const a2 = await w2.flush(file);
    const heap2 = await openFractalHeap(file, a2);
    for (let i = 0; i < objects.length; i += 5) expectSame(await heap2.getObject(ids[i]!), objects[i]!);
    for (let i = 0; i < more.length; i++) expectSame(await heap2.getObject(moreIds[i]!), more[i]!);
  });
});

describe('dense index record classes', () => {
  it('encode/decode round trips and name order (hash, then name bytes)', () => {
    const names = new Map<string, Uint8Array>();
    const heapId = Uint8Array.of(0, 1, 2, 3, 4, 5, 6);
    const ln = linkNameClass(names);
    const rec = { hash: 0xdeadbeef, heapId };
    expect(ln.decode(ln.encode(rec), 0)).toEqual(rec);
    expect(ln.compare({ hash: 1, heapId, name: Uint8Array.of(98) }, { hash: 1, heapId, name: Uint8Array.of(97) })).toBeGreaterThan(0);
    expect(ln.compare({ hash: 1, heapId }, { hash: 2, heapId })).toBeLessThan(0);
    const lo = { creationOrder: 12, heapId };
    expect(linkOrderClass.decode(linkOrderClass.encode(lo), 0)).toEqual(lo);
    const aid = Uint8Array.of(0, 1, 2, 3, 4, 5, 6, 7);
    const an = attributeNameClass(names);
    const arec = { hash: 7, heapId: aid, messageFlags: 0, creationOrder: 3 };
    expect(an.decode(an.encode(arec), 0)).toEqual(arec);
    const ao = { creationOrder: 5, heapId: aid, messageFlags: 0 };
    expect(attributeOrderClass.decode(attributeOrderClass.encode(ao), 0)).toEqual(ao);
    const hc = hugeObjectClass(sizes);
    const h = { address: 4096, length: 70_000, id: 3 };
    expect(hc.decode(hc.encode(h), 0)).toEqual(h);
    expect(hc.recordSize).toBe(24);
  });
});
