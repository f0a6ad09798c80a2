import { describe, expect, it } from 'vitest';
import { FormatError, MemoryStore, TruncatedError, UnsupportedError } from '@chunkform/core';
import { type ChunkIndex, SourceMetadataReader, DEFAULT_SIZES, readV1Node, v1NodeSize } from '@chunkform/core/plugin';
import { btree1IndexProvider } from '../src/btree1/btree1-index.js';
import { byCoords, collect, contextFor, expectedRecords, loadFixture } from './support/index-fixtures.js';

const V1 = loadFixture('v1.h5');
const key = (c: readonly number[]) => c.join(',');

describe('v1 B-tree chunk index (libver "earliest")', () => {
  for (const name of ['/v1_1d', '/v1_2d_f', '/v1_3d', '/v1_empty']) {
    it(`${name}: iterate/lookup return exactly what h5py's get_chunk_info reports`, async () => {
      const d = V1.datasets.get(name)!;
      const { ctx, layout } = await contextFor(V1.bytes, name);
      expect(layout.index.type).toBe('btree1');
      const idx = await btree1IndexProvider.open(ctx, layout.address);
      const want = byCoords(expectedRecords(d));
      expect(await collect(idx.iterate())).toEqual(want);
      for (const r of want) expect(await idx.lookup(r.coords)).toEqual(r);
      const present = new Set(want.map((r) => key(r.coords)));
      const grid = d.shape.map((s, i) => Math.ceil(s / d.chunks[i]!));
      for (let k = 0; k < 2000; k++) {
        const c = grid.map((g, i) => (k * (7919 + i * 104729)) % (g + 2));
        if (!present.has(key(c))) expect(await idx.lookup(c)).toBeNull();
      }
      expect(await idx.flush()).toEqual({ address: layout.address, info: { type: 'btree1' } });
    });
  }

  it('is read-only: insert/remove/create throw UnsupportedError naming the index', async () => {
    const { ctx, layout } = await contextFor(V1.bytes, '/v1_1d');
    const idx = await btree1IndexProvider.open(ctx, layout.address);
    const e = await idx.insert({ coords: [1], address: 1, size: 40, filterMask: 0 }).catch((x) => x);
    expect(e).toBeInstanceOf(UnsupportedError);
    expect(e.message).toMatch(/v1_1d.*v1 B-tree chunk index/);
    await expect(idx.remove([1])).rejects.toThrow(UnsupportedError);
    await expect(btree1IndexProvider.create(ctx)).rejects.toThrow(UnsupportedError);
  });

  it('size on disk = nodes × the size of a node with 2K = 64 entries', async () => {
    const { ctx, layout } = await contextFor(V1.bytes, '/v1_2d_f');
    const idx = await btree1IndexProvider.open(ctx, layout.address);
    let nodes = 0;
    const walk = async (a: number): Promise<void> => {
      nodes++;
      const n = await readV1Node(ctx.reader, a, 1, 2);
      if (n.level > 0) for (const c of n.children) await walk(c);
    };
    await walk(layout.address);
    expect(nodes).toBeGreaterThan(3);
    expect(await idx.sizeOnDisk()).toBe(nodes * v1NodeSize(DEFAULT_SIZES, 1, 64, 2));
  });

  describe('corrupt trees give typed errors', () => {
    async function patched(fn: (b: Uint8Array, root: number) => Uint8Array | void): Promise<ChunkIndex> {
      const { ctx, layout } = await contextFor(V1.bytes, '/v1_1d');
      let b: Uint8Array = V1.bytes.slice();
      b = fn(b, layout.address) ?? b;
      return btree1IndexProvider.open({ ...ctx, reader: new SourceMetadataReader(new MemoryStore(b), DEFAULT_SIZES, b.length) }, layout.address);
    }
    it('bad signature, cycle, wrong level, misaligned key, truncation', async () => {
      const first = async (i: ChunkIndex) => collect(i.iterate());
      const { ctx, layout } = await contextFor(V1.bytes, '/v1_1d');
      const root = await readV1Node(ctx.reader, layout.address, 1, 1);
      expect(root.level).toBeGreaterThan(0);
      const child0 = 8 + 16 + 24; // first child pointer: after the header and key 0 (8 + 8 × 2 bytes)
      let e = await patched((b, r) => void (b[r] = 0x58)).then(first).catch((x) => x);
      expect(e).toBeInstanceOf(FormatError);
      e = await patched((b, r) => new DataView(b.buffer).setBigUint64(r + child0, BigInt(r), true)).then(first).catch((x) => x);
      expect(e).toBeInstanceOf(FormatError); // child = root: level mismatch or cycle
      e = await patched((b, r) => new DataView(b.buffer).setBigUint64(r + child0, BigInt(r), true))
        .then((i) => i.lookup([0]))
        .catch((x) => x);
      expect(e).toBeInstanceOf(FormatError);
      e = await patched((b) => void (b[root.children[0]! + 5] = 9)).then(first).catch((x) => x); // level byte of a child
      expect(e).toBeInstanceOf(FormatError);
      let leaf = root;
      let leafAddr = layout.address;
      while (leaf.level > 0) leaf = await readV1Node(ctx.reader, (leafAddr = leaf.children[0]!), 1, 1);
      e = await patched((b) => void (b[leafAddr + 24 + 8] = 3)).then(first).catch((x) => x); // key offset not a multiple of 10
      expect(e).toBeInstanceOf(FormatError);
      expect(e.message).toMatch(/v1_1d/);
      e = await patched((b) => b.slice(0, root.children[1]! + 10)).then(first).catch((x) => x);
      expect(e).toBeInstanceOf(TruncatedError);
    });
  });
});
