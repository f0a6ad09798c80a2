import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatError, TruncatedError } from '../src/errors.js';
import { ByteReader, ByteWriter, type SizeContext, UNDEFINED_ADDRESS } from '../src/format/bytes.js';
import { iterateV1BTree } from '../src/format/btree/v1.js';
import {
  type SymbolTableEntry,
  decodeSymbolTableEntry,
  decodeSymbolTableNode,
  encodeSymbolTableEntry,
  readSymbolTableGroup,
  readSymbolTableNode,
  symbolTableEntrySize,
} from '../src/format/symbol-table.js';
import { generateFixtures, memReader, parseSuperblock, symbolTableMessage } from './support/h5-structures.js';

let dir: string;
let file: Uint8Array;
let sizes: SizeContext;
let rootStab: { btree: number; heap: number };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cf-stab-'));
  generateFixtures(dir);
  file = new Uint8Array(readFileSync(join(dir, 'earliest.h5')));
  const sb = parseSuperblock(file);
  sizes = sb.sizes;
  rootStab = symbolTableMessage(file, sizes, sb.rootObjectHeader);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sig = (a: number) => String.fromCharCode(...file.subarray(a, a + 4));

describe('symbol tables (III.B, III.C)', () => {
  it('lists the root group; cached scratch pads point at real B-trees and heaps', async () => {
    const rd = memReader(file, sizes);
    const root = await readSymbolTableGroup(rd, rootStab.btree, rootStab.heap);
    expect(root.map((m) => m.name)).toEqual(['big', 'c2', 'cz', 'empty']);
    const big = root[0]!.entry;
    expect(big.cacheType).toBe(1);
    const scratch = big.scratch as { btreeAddress: number; heapAddress: number };
    expect(sig(scratch.btreeAddress)).toBe('TREE');
    expect(sig(scratch.heapAddress)).toBe('HEAP');
    expect(scratch).toEqual({ btreeAddress: symbolTableMessage(file, sizes, big.objectHeaderAddress).btree, heapAddress: symbolTableMessage(file, sizes, big.objectHeaderAddress).heap });
    expect(root[1]!.entry).toMatchObject({ cacheType: 0, scratch: null });
    expect(sig(root[1]!.entry.objectHeaderAddress)).not.toBe('OHDR'); // version-1 object header
  });

  it('lists a 200-member group spread over many symbol table nodes, with a soft link', async () => {
    const rd = memReader(file, sizes);
    const root = await readSymbolTableGroup(rd, rootStab.btree, rootStab.heap);
    const st = symbolTableMessage(file, sizes, root[0]!.entry.objectHeaderAddress);
    const list = await readSymbolTableGroup(rd, st.btree, st.heap);
    expect(list).toHaveLength(201);
    expect(list.slice(0, 200).map((m) => m.name)).toEqual(Array.from({ length: 200 }, (_, i) => `m${String(i).padStart(3, '0')}`));
    const soft = list[200]!;
    expect(soft.name).toBe('soft');
    expect(soft.entry.cacheType).toBe(2);
    expect(soft.entry.objectHeaderAddress).toBe(UNDEFINED_ADDRESS);
    expect(soft.softLinkValue).toBe('/big/m000');
    expect(new Set(list.map((m) => m.entry.objectHeaderAddress)).size).toBe(201);
  });

  it('returns no members for an empty group', async () => {
    const rd = memReader(file, sizes);
    const root = await readSymbolTableGroup(rd, rootStab.btree, rootStab.heap);
    const st = symbolTableMessage(file, sizes, root.find((m) => m.name === 'empty')!.entry.objectHeaderAddress);
    expect(await readSymbolTableGroup(rd, st.btree, st.heap)).toEqual([]);
  });

  it('re-encodes real symbol table nodes byte for byte', async () => {
    const rd = memReader(file, sizes);
    const root = await readSymbolTableGroup(rd, rootStab.btree, rootStab.heap);
    const st = symbolTableMessage(file, sizes, root[0]!.entry.objectHeaderAddress);
    let nodes = 0;
    for await (const leaf of iterateV1BTree(rd, st.btree, 0)) {
      const a = leaf.childAddress;
      const entries = decodeSymbolTableNode(file.subarray(a), sizes, a);
      expect(entries).toEqual(await readSymbolTableNode(rd, a));
      const w = new ByteWriter(sizes);
      for (const e of entries) encodeSymbolTableEntry(w, e);
      expect(w.finish()).toEqual(file.subarray(a + 8, a + 8 + entries.length * 40));
      nodes++;
    }
    expect(nodes).toBeGreaterThan(20);
  });

  it('round-trips entries of every cache type with 8- and 4-byte sizes', () => {
    const cases: SymbolTableEntry[] = [
      { linkNameOffset: 0, objectHeaderAddress: 96, cacheType: 0, scratch: null },
      { linkNameOffset: 8, objectHeaderAddress: 800, cacheType: 1, scratch: { btreeAddress: 840, heapAddress: 1384 } },
      { linkNameOffset: 1608, objectHeaderAddress: UNDEFINED_ADDRESS, cacheType: 2, scratch: { softLinkOffset: 1616 } },
    ];
    for (const sz of [sizes, { sizeOfOffsets: 4, sizeOfLengths: 4 }, { sizeOfOffsets: 8, sizeOfLengths: 4 }]) {
      expect(symbolTableEntrySize(sz)).toBe(sz.sizeOfLengths + sz.sizeOfOffsets + 24);
      const w = new ByteWriter(sz);
      for (const e of cases) encodeSymbolTableEntry(w, e);
      const bytes = w.finish();
      expect(bytes.length).toBe(3 * symbolTableEntrySize(sz));
      const r = new ByteReader(bytes, { sizes: sz });
      expect(cases.map(() => decodeSymbolTableEntry(r))).toEqual(cases);
      expect(r.remaining).toBe(0);
    }
    expect(() => encodeSymbolTableEntry(new ByteWriter(sizes), { ...cases[1]!, scratch: null })).toThrow(FormatError);
  });

  it('rejects corrupt nodes and entries with typed errors', async () => {
    const w = new ByteWriter(sizes);
    w.signature('SNOD').u8(1).u8(0).u16(2);
    encodeSymbolTableEntry(w, { linkNameOffset: 1, objectHeaderAddress: 64, cacheType: 0, scratch: null });
    encodeSymbolTableEntry(w, { linkNameOffset: 4, objectHeaderAddress: 128, cacheType: 0, scratch: null });
    const good = w.finish().slice();
    expect(decodeSymbolTableNode(good, sizes, 0)).toHaveLength(2);
    const badSig = good.slice();
    badSig[0] = 0x73;
    expect(() => decodeSymbolTableNode(badSig, sizes, 500)).toThrow(/symbol table node, at address 500: bad signature/);
    const badVer = good.slice();
    badVer[4] = 2;
    expect(() => decodeSymbolTableNode(badVer, sizes, 0)).toThrow(/unsupported version 2/);
    const badCache = good.slice();
    badCache[8 + 16] = 9;
    expect(() => decodeSymbolTableNode(badCache, sizes, 0)).toThrow(/unknown cache type 9/);
    const tooMany = good.slice();
    tooMany[6] = 200;
    expect(() => decodeSymbolTableNode(tooMany, sizes, 0)).toThrow(TruncatedError);
    await expect(readSymbolTableNode(memReader(tooMany, sizes), 0)).rejects.toThrow(TruncatedError);
    // A name offset outside the local heap.
    const rd = memReader(file, sizes);
    const root = await readSymbolTableGroup(rd, rootStab.btree, rootStab.heap);
    const firstLeaf = (await iterateV1BTree(rd, rootStab.btree, 0).next()).value!.childAddress;
    const b = file.slice();
    new DataView(b.buffer).setBigUint64(firstLeaf + 8, 1_000_000n, true);
    await expect(readSymbolTableGroup(memReader(b, sizes), rootStab.btree, rootStab.heap)).rejects.toThrow(FormatError);
    expect(root).toHaveLength(4);
  });
});
