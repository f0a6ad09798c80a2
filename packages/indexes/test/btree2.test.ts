import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ChecksumError, FormatError, InvalidStateError, MemoryStore, TruncatedError, ValueError } from '@chunkform/core';
import {
  type ChunkIndex,
  type ChunkIndexContext,
  type ChunkRecord,
  SourceMetadataReader,
  DEFAULT_SIZES,
  lookup3,
  decodeV2BTreeNode,
  iterateV2BTree,
  openV2BTree,
  v2HeaderSize,
  v2NodeUsedSize,
  decodeChunkRecord,
  decodeFilteredChunkRecord,
} from '@chunkform/core/plugin';
import { BTree2ChunkIndex, btree2IndexProvider } from '../src/btree2/btree2-index.js';
import { byCoords, collect, contextFor, expectedRecords, loadFixture, newContext, TestStorage, type FixtureDataset } from './support/index-fixtures.js';
import { dumpV2Tree } from './support/tree-dump.js';

const BT2 = loadFixture('bt2.h5');
const NAMES = ['/bt2_u', '/bt2_f', '/bt2_seq', '/bt2_shrink', '/bt2_cycle1', '/bt2_cycle2', '/bt2_cycle3', '/bt2_empty', '/bt2_gone'];
const key = (c: readonly number[]) => c.join(',');

/** A linear congruential generator from `seed`: `rnd(n)` is the next number below n. */
function lcg(seed: number): (n: number) => number {
  return (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
}

/**
 * Writes the file of `store` to `file` with the index header flushed at `address` copied over HDF5's
 * at `layoutAddress` (same size), the superblock's (version 3) end-of-file address and checksum fixed.
 */
async function writePatched(store: MemoryStore, address: number, layoutAddress: number, file: string): Promise<void> {
  await store.write(layoutAddress, (await store.read(address, v2HeaderSize(DEFAULT_SIZES))).slice());
  const bytes = store.toBytes();
  const sb = new DataView(bytes.buffer, bytes.byteOffset);
  expect(bytes[8]).toBe(3); // superblock version 3
  sb.setBigUint64(28, BigInt(bytes.length), true);
  sb.setUint32(44, lookup3(bytes.subarray(0, 44)), true);
  writeFileSync(file, bytes);
}

/** Chunks HDF5's H5D__chunk_prune_by_extent removes when shrinking `from` → `to`, in its order. */
function pruneOrder(from: number[], to: number[], chunks: number[]): number[][] {
  const n = from.length;
  const maxMod = from.map((d, i) => Math.floor((d - 1) / chunks[i]!));
  const minMod = to.map((d, i) => Math.floor(d / chunks[i]!));
  const maxFill = to.map((d, i) => (d === 0 ? -1 : Math.floor((Math.min(d, from[i]!) - 1) / chunks[i]!)));
  const out: number[][] = [];
  for (let op = 0; op < n; op++) {
    if (!(to[op]! < from[op]!)) continue;
    const s = new Array<number>(n).fill(0);
    s[op] = minMod[op]!;
    for (let carry = false; !carry; ) {
      if (s.some((v, u) => v > maxFill[u]!)) out.push(s.slice());
      carry = true;
      for (let i = n - 1; i >= 0; i--) {
        if (++s[i]! > maxMod[i]!) s[i] = i === op ? minMod[i]! : 0;
        else {
          carry = false;
          break;
        }
      }
    }
    if (minMod[op] === 0) break;
    maxMod[op] = minMod[op]! - 1;
  }
  return out;
}

/** Replays a fixture's operations (puts and shrinking resizes) on `idx`, with the final records' values. */
async function replay(d: FixtureDataset, idx: ChunkIndex): Promise<void> {
  const final = new Map(expectedRecords(d).map((r) => [key(r.coords), r]));
  let fake = 1;
  for (const op of d.ops) {
    if (op.op === 'put') {
      await idx.insert(final.get(key(op.coords)) ?? { coords: op.coords, address: fake++, size: op.size, filterMask: op.mask });
    } else if (op.to.some((t, i) => t < op.from[i]!)) {
      for (const c of pruneOrder(op.from, op.to, d.chunks)) if (await idx.lookup(c)) expect(await idx.remove(c)).not.toBeNull();
    }
  }
}

describe('v2 B-tree chunk index: reading files written by HDF5 1.10', () => {
  for (const name of NAMES) {
    it(`${name}: iterate/lookup return exactly what h5py's get_chunk_info reports`, async () => {
      const d = BT2.datasets.get(name)!;
      const { ctx, layout } = await contextFor(BT2.bytes, name);
      expect(layout.index.type).toBe('btree2');
      const idx = await btree2IndexProvider.open(ctx, layout.address);
      const want = byCoords(expectedRecords(d));
      const got = await collect(idx.iterate());
      expect(got).toEqual(want); // iteration is in key (row-major coordinate) order
      for (const r of want.slice(0, 3000)) expect(await idx.lookup(r.coords)).toEqual(r);
      const present = new Set(want.map((r) => key(r.coords)));
      const grid = d.shape.map((s, i) => Math.ceil(s / d.chunks[i]!) + 1);
      for (let k = 0; k < 500; k++) {
        const c = grid.map((g) => (k * 7919 + g * 31) % (g + 3));
        if (!present.has(key(c))) expect(await idx.lookup(c)).toBeNull();
      }
    });
  }

  it('a read-only context flushes a clean tree without writing and refuses changes', async () => {
    const { ctx, layout } = await contextFor(BT2.bytes, '/bt2_f');
    const idx = await btree2IndexProvider.open(ctx, layout.address);
    expect(await idx.flush()).toEqual({ address: layout.address, info: layout.index });
    await expect(idx.insert({ coords: [0, 0, 0], address: 1, size: 1, filterMask: 0 })).rejects.toThrow(InvalidStateError);
    await expect(idx.remove([0, 0, 0])).rejects.toThrow(InvalidStateError);
    expect((await idx.lookup([0, 0, 0]))!.address).toBe(expectedRecords(BT2.datasets.get('/bt2_f')!).find((r) => r.coords.every((c) => c === 0))!.address);
  });

  it('the 18000-chunk tree has depth 2; sizes on disk follow H5B2_size', async () => {
    const { ctx, layout } = await contextFor(BT2.bytes, '/bt2_u');
    const idx = (await btree2IndexProvider.open(ctx, layout.address)) as BTree2ChunkIndex;
    expect(idx.depth).toBe(2);
    expect(idx.count).toBe(18000);
    const h = await openV2BTree(ctx.reader, layout.address);
    let nodes = 0;
    const walk = async (a: number, depth: number, n: number): Promise<void> => {
      nodes++;
      const node = decodeV2BTreeNode(await ctx.reader.read(a, v2NodeUsedSize(h, DEFAULT_SIZES, depth, n), 'n'), h, DEFAULT_SIZES, a, depth, n);
      for (const c of node.children) await walk(c.address, depth - 1, c.recordCount);
    };
    await walk(h.rootAddress, h.depth, h.rootRecordCount);
    expect(await idx.sizeOnDisk()).toBe(v2HeaderSize(DEFAULT_SIZES) + nodes * 2048);
    const empty = await btree2IndexProvider.open((await contextFor(BT2.bytes, '/bt2_empty')).ctx, -1);
    expect(await empty.sizeOnDisk()).toBe(0);
    const gone = await contextFor(BT2.bytes, '/bt2_gone');
    expect(await (await btree2IndexProvider.open(gone.ctx, gone.layout.address)).sizeOnDisk()).toBe(38);
  });
});

describe('v2 B-tree chunk index: writing', () => {
  for (const name of ['/bt2_u', '/bt2_f', '/bt2_seq', '/bt2_shrink', '/bt2_cycle1', '/bt2_cycle2', '/bt2_cycle3', '/bt2_gone']) {
    it(`${name}: replaying HDF5's operations builds HDF5's tree (same header, node shapes, records; identical leaf bytes)`, async () => {
      const d = BT2.datasets.get(name)!;
      const { ctx: rctx, layout } = await contextFor(BT2.bytes, name);
      const { ctx, storage } = newContext({ ...rctx, info: layout.index }, 1 << 20);
      const idx = await btree2IndexProvider.create(ctx);
      await replay(d, idx);
      const { address, info } = await idx.flush();
      expect(info).toEqual({ type: 'btree2', nodeSize: 2048, splitPercent: 100, mergePercent: 40 });
      const ours = await dumpV2Tree(storage.reader(), address);
      const theirs = await dumpV2Tree(rctx.reader, layout.address);
      expect(ours.header).toEqual(theirs.header);
      expect(ours.nodes.length).toBe(theirs.nodes.length);
      for (let i = 0; i < ours.nodes.length; i++) expect(ours.nodes[i]).toEqual(theirs.nodes[i]);
      // and our reader reads our tree back
      const back = await btree2IndexProvider.open({ ...ctx, reader: storage.reader() }, address);
      expect(await collect(back.iterate())).toEqual(byCoords(expectedRecords(d)));
    });
  }

  it('an index never inserted into writes nothing; updates keep the record count', async () => {
    const { ctx: rctx } = await contextFor(BT2.bytes, '/bt2_f');
    const { ctx, storage } = newContext(rctx);
    const idx = (await btree2IndexProvider.create(ctx)) as BTree2ChunkIndex;
    expect(await idx.flush()).toEqual({ address: -1, info: rctx.info });
    expect(storage.allocated).toEqual([]);
    await idx.insert({ coords: [1, 2, 3], address: 100, size: 50, filterMask: 0 });
    await idx.insert({ coords: [1, 2, 3], address: 200, size: 60, filterMask: 1 });
    expect(idx.count).toBe(1);
    expect(await idx.lookup([1, 2, 3])).toEqual({ coords: [1, 2, 3], address: 200, size: 60, filterMask: 1 });
    await expect(idx.insert({ coords: [1, 2, 3], address: 200, size: 70000, filterMask: 0 })).rejects.toThrow(ValueError); // 2-byte size field
    await expect(idx.insert({ coords: [1, 2], address: 200, size: 7, filterMask: 0 })).rejects.toThrow(ValueError);
    await expect(idx.lookup([-1, 0, 0])).rejects.toThrow(ValueError);
    expect(await idx.remove([9, 9, 9])).toBeNull();
    expect(await idx.remove([1, 2, 3])).toEqual({ coords: [1, 2, 3], address: 200, size: 60, filterMask: 1 });
    const { address } = await idx.flush();
    const h = await openV2BTree(storage.reader(), address);
    expect([h.type, h.depth, h.rootAddress, h.totalRecordCount]).toEqual([11, 0, -1, 0]);
  });

  it('rejects invalid split/merge percents as HDF5 does (merge < split / 2)', async () => {
    const { ctx: rctx } = await contextFor(BT2.bytes, '/bt2_u');
    const { ctx } = newContext({ ...rctx, info: { type: 'btree2', nodeSize: 2048, splitPercent: 60, mergePercent: 30 } });
    await expect(btree2IndexProvider.create(ctx)).rejects.toThrow(ValueError);
    // nodes so small that the merge threshold is 0 records would break HDF5's algorithms
    const tiny = newContext({ ...rctx, info: { type: 'btree2', nodeSize: 128, splitPercent: 100, mergePercent: 10 } });
    await expect(btree2IndexProvider.create(tiny.ctx)).rejects.toThrow(/too small/);
  });
});

/** Independent check of a flushed tree: core's reader yields exactly `model` in order. */
async function checkOnDisk(storage: TestStorage, address: number, model: Map<string, ChunkRecord>, filtered: boolean): Promise<void> {
  const reader = storage.reader();
  const h = await openV2BTree(reader, address);
  const recs: ChunkRecord[] = [];
  for await (const raw of iterateV2BTree(reader, h)) {
    const r = filtered ? decodeFilteredChunkRecord(raw, DEFAULT_SIZES, 2, 2) : decodeChunkRecord(raw, DEFAULT_SIZES, 2);
    recs.push({ coords: r.scaledOffsets, address: r.address, size: filtered ? r.chunkSize : 8, filterMask: r.filterMask });
  }
  expect(h.totalRecordCount).toBe(model.size);
  expect(recs).toEqual(byCoords([...model.values()]));
}

type Op = { k: 'put'; c: [number, number]; a: number; s: number; m: number } | { k: 'del'; c: [number, number] } | { k: 'get'; c: [number, number] } | { k: 'flush' };

async function runModel(ops: Op[], opts: { filtered: boolean; nodeSize: number; split: number; merge: number }): Promise<void> {
  const base = {
    dims: [64, 64],
    maxDims: [-1, -1],
    chunkDims: [1, 2],
    elementSize: 4,
    filtered: opts.filtered,
    info: { type: 'btree2' as const, nodeSize: opts.nodeSize, splitPercent: opts.split, mergePercent: opts.merge },
    datasetPath: '/model',
  };
  const { ctx, storage } = newContext(base);
  let idx: ChunkIndex = await btree2IndexProvider.create(ctx);
  const model = new Map<string, ChunkRecord>();
  for (const op of ops) {
    if (op.k === 'put') {
      const rec = { coords: op.c.slice(), address: op.a, size: opts.filtered ? op.s : 8, filterMask: opts.filtered ? op.m : 0 };
      await idx.insert(rec);
      model.set(key(op.c), rec);
    } else if (op.k === 'del') {
      expect(await idx.remove(op.c)).toEqual(model.get(key(op.c)) ?? null);
      model.delete(key(op.c));
    } else if (op.k === 'get') {
      expect(await idx.lookup(op.c)).toEqual(model.get(key(op.c)) ?? null);
    } else {
      const { address } = await idx.flush();
      if (address >= 0) await checkOnDisk(storage, address, model, opts.filtered);
      idx = await btree2IndexProvider.open({ ...ctx, reader: storage.reader() }, address);
    }
  }
  expect(await collect(idx.iterate())).toEqual(byCoords([...model.values()]));
  const { address } = await idx.flush();
  if (address >= 0) await checkOnDisk(storage, address, model, opts.filtered);
}

describe('v2 B-tree chunk index: model tests', () => {
  const coord = fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 }));
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 6, arbitrary: fc.record({ k: fc.constant('put' as const), c: coord, a: fc.integer({ min: 1, max: 2 ** 40 }), s: fc.integer({ min: 1, max: 65535 }), m: fc.integer({ min: 0, max: 7 }) }) },
    { weight: 4, arbitrary: fc.record({ k: fc.constant('del' as const), c: coord }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('get' as const), c: coord }) },
    { weight: 1, arbitrary: fc.constant({ k: 'flush' as const }) },
  );
  it('random insert/update/remove/lookup/flush+reopen sequences match a Map (small nodes, deep trees)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 400 }),
        fc.boolean(),
        fc.constantFrom(256, 320, 512),
        fc.constantFrom([100, 40], [100, 25], [80, 30], [60, 29]),
        async (ops, filtered, nodeSize, [split, merge]) => runModel(ops, { filtered, nodeSize, split: split!, merge: merge! }),
      ),
      { numRuns: Number(process.env.FC_RUNS ?? 120) },
    );
  });

  it('30000 random operations on a deep tree stay consistent', async () => {
    const rnd = lcg(12345);
    const ops: Op[] = [];
    for (let i = 0; i < 30000; i++) {
      const c: [number, number] = [rnd(200), rnd(200)];
      const r = rnd(100);
      if (i < 12000 || r < 45) ops.push({ k: 'put', c, a: i + 1, s: 1 + rnd(60000), m: rnd(3) });
      else if (r < 95) ops.push({ k: 'del', c });
      else ops.push({ k: 'flush' });
    }
    await runModel(ops, { filtered: true, nodeSize: 512, split: 100, merge: 40 });
  });
});

describe('v2 B-tree chunk index: HDF5 reads and extends trees written here', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cf-bt2-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a tree built by random inserts/removes replaces HDF5\'s; h5py lists the same chunks, reads the data, adds chunks', async () => {
    const name = '/bt2_u';
    const d = BT2.datasets.get(name)!;
    const { ctx: rctx, layout } = await contextFor(BT2.bytes, name);
    const store = new MemoryStore(BT2.bytes.slice());
    const start = Math.ceil(BT2.bytes.length / 8) * 8;
    const storage = new TestStorage(store, start);
    const ctx: ChunkIndexContext = { ...rctx, reader: storage.reader(), storage };
    const idx = await btree2IndexProvider.create(ctx);
    const pool = expectedRecords(d);
    const model = new Map<string, ChunkRecord>();
    const rnd = lcg(7);
    for (let i = 0; i < 40000; i++) {
      const r = pool[rnd(pool.length)]!;
      if (rnd(10) < 6) {
        await idx.insert(r);
        model.set(key(r.coords), r);
      } else if (await idx.remove(r.coords)) model.delete(key(r.coords));
    }
    const { address } = await idx.flush();
    // Put our header where HDF5's was (same size), then fix the superblock's EOF and checksum.
    const file = join(dir, 'patched.h5');
    await writePatched(store, address, layout.address, file);
    const script = `
import h5py, json, sys, numpy as np
f = h5py.File(sys.argv[1], 'r+')
d = f['${name}']
raw = open(sys.argv[1], 'rb').read()
chunks = []
for i in range(d.id.get_num_chunks()):
    ci = d.id.get_chunk_info(i)
    chunks.append([[int(x) for x in ci.chunk_offset], int(ci.byte_offset), int(ci.size), int(ci.filter_mask)])
vals = d[...]
ok = True
seen = set()
for off, addr, size, mask in chunks:
    want = np.frombuffer(raw[addr:addr + size], dtype='<i4')
    got = vals[off[0], off[1]:off[1] + 3]
    ok = ok and bool((got == want[:got.size]).all())
    seen.add((off[0], off[1]))
zero = all(vals[r, c:c + 3].sum() == 0 for r in range(0, 200, 7) for c in range(0, 300, 3) if (r, c) not in seen)
d.id.write_direct_chunk((199, 297), b'\\x01' * 12)
d.id.write_direct_chunk((0, 0), b'\\x02' * 12)
f.close()
print(json.dumps({"chunks": chunks, "ok": ok, "zero": zero}))
`;
    const out = JSON.parse(execFileSync('/usr/bin/python3', ['-c', script, file], { encoding: 'utf8', maxBuffer: 1 << 28 })) as {
      chunks: [number[], number, number, number][];
      ok: boolean;
      zero: boolean;
    };
    expect(out.ok).toBe(true);
    expect(out.zero).toBe(true);
    const listed = out.chunks.map(([off, a, s, m]) => ({ coords: [off[0]!, off[1]! / 3], address: a, size: s, filterMask: m }));
    expect(byCoords(listed)).toEqual(byCoords([...model.values()]));
    // HDF5 inserted into our tree; read its result back.
    const after = new Uint8Array(readFileSync(file));
    const reader = new SourceMetadataReader(new MemoryStore(after), DEFAULT_SIZES, after.length);
    const back = await btree2IndexProvider.open({ ...rctx, reader }, layout.address);
    const got = await collect(back.iterate());
    expect(got.length).toBe(model.size + (model.has('199,99') ? 0 : 1) + (model.has('0,0') ? 0 : 1));
    expect((await back.lookup([199, 99]))?.size).toBe(12);
    expect((await back.lookup([0, 0]))?.address).toBeGreaterThan(0);
  });

  it('filtered (type 11) records with a 2-byte size field: h5py lists them and updates/extends the tree', async () => {
    const name = '/bt2_f';
    const d = BT2.datasets.get(name)!;
    const { ctx: rctx, layout } = await contextFor(BT2.bytes, name);
    const store = new MemoryStore(BT2.bytes.slice());
    const storage = new TestStorage(store, Math.ceil(BT2.bytes.length / 8) * 8);
    const idx = await btree2IndexProvider.create({ ...rctx, reader: storage.reader(), storage });
    const model = new Map<string, ChunkRecord>();
    const rnd = lcg(99);
    for (const r of expectedRecords(d)) {
      if (rnd(4) === 0) continue;
      const rec = { ...r, filterMask: rnd(4) }; // masks as if some filters were skipped
      await idx.insert(rec);
      model.set(key(r.coords), rec);
    }
    const { address } = await idx.flush();
    const file = join(dir, 'patched-f.h5');
    await writePatched(store, address, layout.address, file);
    const script = `
import h5py, json, sys
f = h5py.File(sys.argv[1], 'r+')
d = f['${name}']
chunks = []
for i in range(d.id.get_num_chunks()):
    ci = d.id.get_chunk_info(i)
    chunks.append([[int(x) for x in ci.chunk_offset], int(ci.byte_offset), int(ci.size), int(ci.filter_mask)])
d.id.write_direct_chunk((38, 27, 16), b'\x05' * 300, filter_mask=1)
f.close()
print(json.dumps(chunks))
`;
    const out = JSON.parse(execFileSync('/usr/bin/python3', ['-c', script, file], { encoding: 'utf8', maxBuffer: 1 << 26 })) as [number[], number, number, number][];
    const listed = out.map(([off, a, s, m]) => ({ coords: off.map((o, i) => o / d.chunks[i]!), address: a, size: s, filterMask: m }));
    expect(byCoords(listed)).toEqual(byCoords([...model.values()]));
    const after = new Uint8Array(readFileSync(file));
    const back = await btree2IndexProvider.open({ ...rctx, reader: new SourceMetadataReader(new MemoryStore(after), DEFAULT_SIZES, after.length) }, layout.address);
    expect(await back.lookup([19, 9, 4])).toMatchObject({ size: 300, filterMask: 1 });
    expect((await collect(back.iterate())).length).toBe(model.size + (model.has('19,9,4') ? 0 : 1));
  });
});

describe('v2 B-tree chunk index: corrupt input gives typed errors', () => {
  const name = '/bt2_u';
  async function openPatched(patch: (b: Uint8Array, hdr: Awaited<ReturnType<typeof openV2BTree>>, rootAddr: number) => void | Uint8Array): Promise<ChunkIndex> {
    const { ctx, layout } = await contextFor(BT2.bytes, name);
    const h = await openV2BTree(ctx.reader, layout.address);
    let b: Uint8Array = BT2.bytes.slice();
    b = patch(b, h, layout.address) ?? b;
    const reader = new SourceMetadataReader(new MemoryStore(b), DEFAULT_SIZES, b.length);
    return btree2IndexProvider.open({ ...ctx, reader }, layout.address);
  }
  const resum = (b: Uint8Array, start: number, len: number) => new DataView(b.buffer).setUint32(start + len - 4, lookup3(b.subarray(start, start + len - 4)), true);
  const all = async (idx: ChunkIndex) => collect(idx.iterate());

  it('header checksum mismatch → ChecksumError naming the structure, address and dataset', async () => {
    const err = await openPatched((b, _h, a) => void (b[a + 6]! ^= 1)).catch((e) => e);
    expect(err).toBeInstanceOf(ChecksumError);
    expect(err.message).toMatch(/\/bt2_u.*v2 B-tree header.*address/);
  });

  it('leaf checksum mismatch, bad signature, records out of order', async () => {
    const { ctx, layout } = await contextFor(BT2.bytes, name);
    const h = await openV2BTree(ctx.reader, layout.address);
    const root = decodeV2BTreeNode(await ctx.reader.read(h.rootAddress, v2NodeUsedSize(h, DEFAULT_SIZES, 2, h.rootRecordCount), 'r'), h, DEFAULT_SIZES, h.rootAddress, 2, h.rootRecordCount);
    const mid = root.children[0]!;
    const midNode = decodeV2BTreeNode(await ctx.reader.read(mid.address, v2NodeUsedSize(h, DEFAULT_SIZES, 1, mid.recordCount), 'm'), h, DEFAULT_SIZES, mid.address, 1, mid.recordCount);
    const leaf = midNode.children[0]!;
    let e = await all(await openPatched((b) => void (b[leaf.address + 20]! ^= 0x40))).catch((x) => x);
    expect(e).toBeInstanceOf(ChecksumError);
    expect(e.message).toMatch(/bt2_u.*v2 B-tree leaf node/);
    e = await all(await openPatched((b) => void (b[leaf.address]! = 0x58))).catch((x) => x);
    expect(e).toBeInstanceOf(FormatError);
    e = await all(
      await openPatched((b) => {
        const r = 6 + 24; // swap records 0 and 1 of the leaf
        const t = b.slice(leaf.address + 6, leaf.address + r);
        b.copyWithin(leaf.address + 6, leaf.address + r, leaf.address + r + 24);
        b.set(t, leaf.address + r);
        resum(b, leaf.address, v2NodeUsedSize(h, DEFAULT_SIZES, 0, leaf.recordCount));
      }),
    ).catch((x) => x);
    expect(e).toBeInstanceOf(FormatError);
    expect(e.message).toMatch(/out of order/);
  });

  it('a child pointer to an already visited node (cycle) and inconsistent counts → FormatError', async () => {
    const { ctx, layout } = await contextFor(BT2.bytes, name);
    const h = await openV2BTree(ctx.reader, layout.address);
    const rootLen = v2NodeUsedSize(h, DEFAULT_SIZES, 2, h.rootRecordCount);
    const ptr0 = 6 + h.rootRecordCount * h.recordSize; // first child pointer in the root
    const psize = 8 + h.maxRecordCountSize + h.nodeInfo[1]!.cumulativeMaxRecordsSize;
    const cyc = await all(
      await openPatched((b) => {
        const a = h.rootAddress;
        b.copyWithin(a + ptr0 + psize, a + ptr0, a + ptr0 + psize); // child 1 := child 0 (address and counts)
        resum(b, a, rootLen);
        const root = decodeV2BTreeNode(b.subarray(a, a + rootLen), h, DEFAULT_SIZES, a, 2, h.rootRecordCount);
        const total = root.records.length + root.children.reduce((n, c) => n + c.totalRecordCount, 0);
        new DataView(b.buffer).setBigUint64(layout.address + 26, BigInt(total), true); // keep the header consistent
        resum(b, layout.address, 38);
      }),
    ).catch((x) => x);
    expect(cyc).toBeInstanceOf(FormatError);
    expect(cyc.message).toMatch(/referenced twice/);
    const cnt = await all(
      await openPatched((b) => {
        const a = h.rootAddress;
        b[a + ptr0 + 8]! ^= 1; // child 0's record count
        resum(b, a, rootLen);
      }),
    ).catch((x) => x);
    expect(cnt).toBeInstanceOf(FormatError);
  });

  it('impossible header fields and truncation → FormatError / TruncatedError, no hang or huge allocation', async () => {
    for (const [off, val] of [
      [12, 0x40], // depth 64
      [24, 0xff], // root record count 0xffff
      [32, 0xff], // total records beyond 2^53
      [32, 0x01], // total records disagree with the nodes
    ] as const) {
      const e = await openPatched((b, _h, a) => {
        b[a + off] = val;
        if (off === 24) b[a + off + 1] = 0xff;
        resum(b, a, 38);
      })
        .then(all)
        .catch((x) => x);
      expect(e).toBeInstanceOf(FormatError);
    }
    const e = await openPatched((b, h) => b.slice(0, h.rootAddress + 100))
      .then(all)
      .catch((x) => x);
    expect(e).toBeInstanceOf(TruncatedError);
  });
});
