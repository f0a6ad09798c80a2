import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatError, TruncatedError } from '../src/errors.js';
import { UNDEFINED_ADDRESS } from '../src/format/bytes.js';
import {
  LOCAL_HEAP_FREE_NULL,
  decodeLocalHeapHeader,
  encodeLocalHeapHeader,
  localHeapHeaderSize,
  readLocalHeap,
} from '../src/format/heaps/local-heap.js';
import { readSymbolTableNode } from '../src/format/symbol-table.js';
import { iterateV1BTree } from '../src/format/btree/v1.js';
import { memReader, parseSuperblock, runH5py, symbolTableMessage } from './support/h5-structures.js';

const sizes = { sizeOfOffsets: 8, sizeOfLengths: 8 };
let dir: string;
let file: Uint8Array;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cf-lheap-'));
  runH5py(
    `import sys, h5py
with h5py.File(sys.argv[1], 'w', libver='earliest') as f:
    for n in ['alpha', 'beta', 'gamma', 'delta']:
        f.create_group(n)
    f['big'] = 1
    f.create_group('full')
    for i in range(3):
        f['full'].create_group('abcdefg%d' % i)
`,
    [join(dir, 'e.h5')],
  );
  file = new Uint8Array(readFileSync(join(dir, 'e.h5')));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('local heap (III.D)', () => {
  it('decodes the root group heap written by HDF5 and resolves member names', async () => {
    const sb = parseSuperblock(file);
    const rd = memReader(file, sb.sizes);
    const header = decodeLocalHeapHeader(file.subarray(sb.rootHeap!), sb.sizes, sb.rootHeap!);
    expect(header.dataSegmentSize).toBeGreaterThan(0);
    expect(header.dataSegmentAddress).toBe(sb.rootHeap! + localHeapHeaderSize(sizes));
    const heap = await readLocalHeap(rd, sb.rootHeap!);
    expect(heap.data.length).toBe(header.dataSegmentSize);
    // Offset 0 of a group heap is the empty string (the B-tree's first key).
    expect(heap.getString(0)).toBe('');
    const names: string[] = [];
    for await (const leaf of iterateV1BTree(rd, sb.rootBTree!, 0)) {
      for (const e of await readSymbolTableNode(rd, leaf.childAddress)) names.push(heap.getString(e.linkNameOffset));
    }
    expect(names).toEqual(['alpha', 'beta', 'big', 'delta', 'full', 'gamma']);
  });

  it('accepts the library\'s "no free block" value and real free-list offsets', async () => {
    const sb = parseSuperblock(file);
    const rd = memReader(file, sb.sizes);
    const root = await readLocalHeap(rd, sb.rootHeap!);
    const full = (await readSymbolTableNode(rd, (await iterateV1BTree(rd, sb.rootBTree!, 0).next()).value!.childAddress)).find(
      (e) => root.getString(e.linkNameOffset) === 'full',
    )!;
    const st = symbolTableMessage(file, sb.sizes, full.objectHeaderAddress);
    const h = (await readLocalHeap(rd, st.heap)).header;
    expect(h.freeListOffset === LOCAL_HEAP_FREE_NULL || h.freeListOffset < h.dataSegmentSize).toBe(true);
    expect(root.header.freeListOffset === LOCAL_HEAP_FREE_NULL || root.header.freeListOffset < root.header.dataSegmentSize).toBe(true);
  });

  it('round-trips the header with 8- and 4-byte sizes', () => {
    for (const sz of [sizes, { sizeOfOffsets: 4, sizeOfLengths: 4 }, { sizeOfOffsets: 8, sizeOfLengths: 4 }]) {
      for (const h of [
        { dataSegmentSize: 88, freeListOffset: 24, dataSegmentAddress: 712 },
        { dataSegmentSize: 16, freeListOffset: LOCAL_HEAP_FREE_NULL, dataSegmentAddress: 100 },
        { dataSegmentSize: 16, freeListOffset: UNDEFINED_ADDRESS, dataSegmentAddress: 100 },
      ]) {
        const bytes = encodeLocalHeapHeader(h, sz);
        expect(bytes.length).toBe(localHeapHeaderSize(sz));
        expect(decodeLocalHeapHeader(bytes, sz, 0)).toEqual(h);
      }
    }
  });

  it('matches the bytes HDF5 wrote for the root heap header', () => {
    const sb = parseSuperblock(file);
    const header = decodeLocalHeapHeader(file.subarray(sb.rootHeap!), sb.sizes, sb.rootHeap!);
    expect(encodeLocalHeapHeader(header, sizes)).toEqual(file.subarray(sb.rootHeap!, sb.rootHeap! + 32));
  });

  it('rejects bad signatures, versions and free-list offsets with FormatError', () => {
    const good = encodeLocalHeapHeader({ dataSegmentSize: 64, freeListOffset: 8, dataSegmentAddress: 32 }, sizes);
    const badSig = good.slice();
    badSig[0] = 0x48 ^ 0x20;
    expect(() => decodeLocalHeapHeader(badSig, sizes, 10)).toThrow(FormatError);
    expect(() => decodeLocalHeapHeader(badSig, sizes, 10)).toThrow(/local heap, at address 10: bad signature/);
    const badVer = good.slice();
    badVer[4] = 1;
    expect(() => decodeLocalHeapHeader(badVer, sizes, 0)).toThrow(/unsupported version 1/);
    const badFree = encodeLocalHeapHeader({ dataSegmentSize: 64, freeListOffset: 64, dataSegmentAddress: 32 }, sizes);
    expect(() => decodeLocalHeapHeader(badFree, sizes, 0)).toThrow(FormatError);
    expect(() => decodeLocalHeapHeader(good.subarray(0, 20), sizes, 0)).toThrow(TruncatedError);
  });

  it('bounds string lookups and the data segment by the file', async () => {
    const seg = new TextEncoder().encode('\0ab\0cd');
    const hdr = encodeLocalHeapHeader({ dataSegmentSize: seg.length, freeListOffset: LOCAL_HEAP_FREE_NULL, dataSegmentAddress: 32 }, sizes);
    const bytes = new Uint8Array(32 + seg.length);
    bytes.set(hdr);
    bytes.set(seg, 32);
    const heap = await readLocalHeap(memReader(bytes), 0);
    expect(heap.getString(1)).toBe('ab');
    expect(heap.getString(2)).toBe('b');
    expect(() => heap.getString(4)).toThrow(/not NUL-terminated/);
    expect(() => heap.getString(6)).toThrow(FormatError);
    expect(() => heap.getString(-1)).toThrow(FormatError);
    // A data segment claimed larger than the file.
    const huge = encodeLocalHeapHeader({ dataSegmentSize: 1e9, freeListOffset: LOCAL_HEAP_FREE_NULL, dataSegmentAddress: 32 }, sizes);
    const b2 = new Uint8Array(64);
    b2.set(huge);
    await expect(readLocalHeap(memReader(b2), 0)).rejects.toThrow(TruncatedError);
  });
});
