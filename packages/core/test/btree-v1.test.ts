import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatError, TruncatedError } from '../src/errors.js';
import { ByteReader, type SizeContext, UNDEFINED_ADDRESS } from '../src/format/bytes.js';
import {
  type V1ChunkEntry,
  type V1GroupEntry,
  decodeV1Node,
  iterateV1BTree,
  readV1Node,
  v1KeySize,
  v1NodeHeaderSize,
  v1NodeSize,
} from '../src/format/btree/v1.js';
import { readLocalHeap } from '../src/format/heaps/local-heap.js';
import { readSymbolTableGroup, readSymbolTableNode } from '../src/format/symbol-table.js';
import { generateFixtures, memReader, objectHeaderMessages, parseSuperblock, symbolTableMessage } from './support/h5-structures.js';

let dir: string;
let file: Uint8Array;
let sizes: SizeContext;
let members: Map<string, number>;
let big: { btree: number; heap: number };

async function all<T>(g: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of g) out.push(x);
  return out;
}

/** The v1 B-tree address of a chunked dataset with a version-3 layout message. */
function chunkBTree(name: string): number {
  const msg = objectHeaderMessages(file, sizes, members.get(name)!).find((m) => m.type === 8)!;
  expect(Array.from(msg.body.subarray(0, 3))).toEqual([3, 2, 3]);
  return new ByteReader(msg.body, { sizes, pos: 3 }).offset();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cf-bt1-'));
  generateFixtures(dir);
  file = new Uint8Array(readFileSync(join(dir, 'earliest.h5')));
  const sb = parseSuperblock(file);
  sizes = sb.sizes;
  const root = symbolTableMessage(file, sizes, sb.rootObjectHeader);
  const list = await readSymbolTableGroup(memReader(file, sizes), root.btree, root.heap);
  members = new Map(list.map((m) => [m.name, m.entry.objectHeaderAddress]));
  big = symbolTableMessage(file, sizes, members.get('big')!);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('v1 B-tree (III.A.1)', () => {
  it('sizes nodes like the library (544 bytes for groups, 2616 for 2-D chunks)', () => {
    expect(v1NodeHeaderSize(sizes)).toBe(24);
    expect(v1NodeSize(sizes, 0, 32)).toBe(544);
    expect(v1KeySize(sizes, 1, 2)).toBe(32);
    expect(v1NodeSize(sizes, 1, 64, 2)).toBe(2616);
    expect(v1NodeSize({ sizeOfOffsets: 4, sizeOfLengths: 4 }, 0, 0)).toBe(16 + 4);
  });

  it('walks a two-level group B-tree in name order; keys bracket each symbol table node', async () => {
    const rd = memReader(file, sizes);
    const root = await readV1Node(rd, big.btree, 0);
    expect(root.level).toBe(1);
    expect(root.keys).toHaveLength(root.entriesUsed + 1);
    const heap = await readLocalHeap(rd, big.heap);
    const leaves = await all<V1GroupEntry>(iterateV1BTree(rd, big.btree, 0));
    expect(leaves.length).toBeGreaterThan(20);
    expect(leaves[0]!.key).toBe(0);
    expect(heap.getString(leaves[0]!.key)).toBe('');
    const names: string[] = [];
    for (let i = 0; i < leaves.length; i++) {
      const snod = await readSymbolTableNode(rd, leaves[i]!.childAddress);
      const local = snod.map((e) => heap.getString(e.linkNameOffset));
      // The right key names the node's last symbol; the next node's left key is the same key.
      expect(heap.getString(leaves[i]!.nextKey)).toBe(local[local.length - 1]);
      if (i > 0) expect(leaves[i]!.key).toBe(leaves[i - 1]!.nextKey);
      names.push(...local);
    }
    expect(names).toEqual([...Array.from({ length: 200 }, (_, i) => `m${String(i).padStart(3, '0')}`), 'soft']);
  });

  it('walks chunk B-trees (type 1) of plain and deflated 2-D datasets', async () => {
    const rd = memReader(file, sizes);
    for (const name of ['c2', 'cz']) {
      const addr = chunkBTree(name);
      expect((await readV1Node(rd, addr, 1, 2)).level).toBeGreaterThanOrEqual(1);
      const chunks = await all<V1ChunkEntry>(iterateV1BTree(rd, addr, 1, 2));
      expect(chunks).toHaveLength(100);
      expect(chunks.map((c) => c.offsets.join(','))).toEqual(
        Array.from({ length: 100 }, (_, k) => `${Math.floor(k / 10) * 10},${(k % 10) * 10},0`),
      );
      for (const c of chunks) {
        expect(c.filterMask).toBe(0);
        let raw = file.subarray(c.childAddress, c.childAddress + c.chunkSize);
        if (name === 'c2') expect(c.chunkSize).toBe(400);
        else raw = new Uint8Array(inflateSync(raw));
        const v = new Int32Array(raw.slice().buffer);
        expect(v[0]).toBe(c.offsets[0]! * 100 + c.offsets[1]!);
        expect(v[99]).toBe((c.offsets[0]! + 9) * 100 + c.offsets[1]! + 9);
      }
    }
  });

  it('decodes a node from bytes, with siblings', async () => {
    const rd = memReader(file, sizes);
    const root = await readV1Node(rd, big.btree, 0);
    const child = decodeV1Node(file.subarray(root.children[0]!), sizes, root.children[0]!);
    expect(child.level).toBe(0);
    expect(child.leftSibling).toBe(UNDEFINED_ADDRESS);
    expect(child.rightSibling).toBe(root.children[1]);
    expect(child.children).toHaveLength(child.entriesUsed);
  });

  it('reports bad signatures, types, levels, cycles and sizes with typed errors', async () => {
    const rd = memReader(file, sizes);
    const root = await readV1Node(rd, big.btree, 0);
    const b1 = file.slice();
    b1[big.btree] = 0x58;
    await expect(all(iterateV1BTree(memReader(b1, sizes), big.btree, 0))).rejects.toThrow(/v1 B-tree node, at address \d+: bad signature/);
    await expect(all(iterateV1BTree(rd, big.btree, 1, 2))).rejects.toThrow(/node type 0, expected 1/);
    // A child claiming the wrong level.
    const b2 = file.slice();
    b2[root.children[1]! + 5] = 3;
    await expect(all(iterateV1BTree(memReader(b2, sizes), big.btree, 0))).rejects.toThrow(/level 3, expected 0/);
    // A child pointer aimed at the root itself: a cycle, not a hang.
    const b3 = file.slice();
    const childPtr = big.btree + 24 + v1KeySize(sizes, 0);
    new DataView(b3.buffer).setBigUint64(childPtr, BigInt(big.btree), true);
    await expect(all(iterateV1BTree(memReader(b3, sizes), big.btree, 0))).rejects.toThrow(/cycle/);
    await expect(all(iterateV1BTree(memReader(b3, sizes), big.btree, 0))).rejects.toThrow(FormatError);
    // Entry counts beyond what the caller allows, or beyond the file.
    await expect(all(iterateV1BTree(rd, big.btree, 0, undefined, { maxEntries: 1 }))).rejects.toThrow(/exceed the maximum 1/);
    const b4 = file.slice(0, big.btree + 100);
    new DataView(b4.buffer).setUint16(big.btree + 6, 60000, true);
    await expect(all(iterateV1BTree(memReader(b4, sizes), big.btree, 0))).rejects.toThrow(TruncatedError);
    // Chunk nodes need a rank.
    const chunkRoot = chunkBTree('c2');
    expect(() => decodeV1Node(file.subarray(chunkRoot), sizes, chunkRoot)).toThrow(/needs a dataspace rank/);
    expect(() => decodeV1Node(file.subarray(chunkRoot, chunkRoot + 40), sizes, chunkRoot, 2)).toThrow(TruncatedError);
    const b5 = file.slice(big.btree, big.btree + 100);
    b5[4] = 7;
    expect(() => decodeV1Node(b5, sizes, big.btree)).toThrow(/unknown node type 7/);
  });

  it('yields nothing for an empty group', async () => {
    const st = symbolTableMessage(file, sizes, members.get('empty')!);
    expect(await all(iterateV1BTree(memReader(file, sizes), st.btree, 0))).toEqual([]);
  });
});
