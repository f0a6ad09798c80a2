import { describe, expect, it } from 'vitest';
import { FormatError, InvalidStateError, ValueError } from '@chunkform/core';
import { SourceMetadataReader, DEFAULT_SIZES, encodeLayout } from '@chunkform/core/plugin';
import { MemoryStore } from '@chunkform/core';
import { implicitIndexProvider, ImplicitIndex } from '../src/implicit/implicit-index.js';
import { singleChunkIndexProvider } from '../src/single-chunk/single-chunk-index.js';
import { byCoords, collect, contextFor, expectedRecords, loadFixture, newContext } from './support/index-fixtures.js';

const SMALL = loadFixture('small.h5');

describe('single chunk index', () => {
  for (const name of ['/single_u', '/single_f', '/single_empty', '/single_f_empty']) {
    it(`${name}: reads the record from the layout message as h5py reports it`, async () => {
      const d = SMALL.datasets.get(name)!;
      const { ctx, layout } = await contextFor(SMALL.bytes, name);
      expect(layout.index.type).toBe('single');
      const idx = await singleChunkIndexProvider.open(ctx, layout.address);
      expect(await collect(idx.iterate())).toEqual(expectedRecords(d));
      expect(await idx.lookup([0, 0])).toEqual(expectedRecords(d)[0] ?? null);
      expect(await idx.lookup([0, 1])).toBeNull();
      expect(await idx.sizeOnDisk()).toBe(0);
      // flush hands back what the layout message holds: re-encoding gives HDF5's message bytes
      const { address, info } = await idx.flush();
      expect(address).toBe(layout.address);
      expect(info).toEqual(layout.index);
      expect(encodeLayout({ ...layout, index: info, address })).toEqual(encodeLayout(layout));
    });
  }

  it('insert/remove round trip, filtered and unfiltered', async () => {
    const { ctx: fctx } = await contextFor(SMALL.bytes, '/single_f_empty');
    const f = await singleChunkIndexProvider.create({ ...fctx, info: { type: 'single' } });
    // HDF5 1.10.8 writes 0xffffffff as size and mask while there is no chunk (see /single_f_empty)
    expect(await f.flush()).toEqual({ address: -1, info: { type: 'single', filteredSize: 0xffffffff, filterMask: 0xffffffff } });
    await f.insert({ coords: [0, 0], address: 4096, size: 33, filterMask: 2 });
    expect(await f.lookup([0, 0])).toEqual({ coords: [0, 0], address: 4096, size: 33, filterMask: 2 });
    expect(await f.flush()).toEqual({ address: 4096, info: { type: 'single', filteredSize: 33, filterMask: 2 } });
    expect(await f.remove([0, 0])).toEqual({ coords: [0, 0], address: 4096, size: 33, filterMask: 2 });
    expect(await f.remove([0, 0])).toBeNull();
    expect(await collect(f.iterate())).toEqual([]);
    await expect(f.insert({ coords: [1, 0], address: 1, size: 1, filterMask: 0 })).rejects.toThrow(ValueError);
    await expect(f.insert({ coords: [0, 0], address: -5, size: 1, filterMask: 0 })).rejects.toThrow(ValueError);
    await expect(f.lookup([0])).rejects.toThrow(ValueError);

    const { ctx: uctx } = await contextFor(SMALL.bytes, '/single_empty');
    const u = await singleChunkIndexProvider.create(uctx);
    await u.insert({ coords: [0, 0], address: 8000, size: 1, filterMask: 5 });
    expect(await u.lookup([0, 0])).toEqual({ coords: [0, 0], address: 8000, size: 64, filterMask: 0 });
    expect(await u.flush()).toEqual({ address: 8000, info: { type: 'single' } });
  });

  it('a dataset larger than its single chunk is rejected', async () => {
    const { ctx } = await contextFor(SMALL.bytes, '/single_u');
    await expect(singleChunkIndexProvider.open({ ...ctx, dims: [7, 10] }, 100)).rejects.toThrow(FormatError);
  });
});

describe('implicit index', () => {
  for (const name of ['/implicit_2d', '/implicit_grow', '/implicit_3d']) {
    it(`${name}: every chunk of the current extent at address + linear(max grid) × chunk bytes, as h5py reports`, async () => {
      const d = SMALL.datasets.get(name)!;
      const { ctx, layout } = await contextFor(SMALL.bytes, name);
      expect(layout.index.type).toBe('implicit');
      const idx = await implicitIndexProvider.open(ctx, layout.address);
      const want = byCoords(expectedRecords(d));
      expect(await collect(idx.iterate())).toEqual(want);
      for (const r of want) expect(await idx.lookup(r.coords)).toEqual(r);
      expect(await idx.lookup(d.shape.map((s, i) => Math.ceil(s / d.chunks[i]!)))).toBeNull();
      expect(await idx.flush()).toEqual({ address: layout.address, info: { type: 'implicit' } });
      expect(await idx.sizeOnDisk()).toBe(0);
    });
  }

  it('grows up to the maximum dimensions; addresses stay on the max-dims grid', async () => {
    const { ctx, layout } = await contextFor(SMALL.bytes, '/implicit_grow');
    const idx = await implicitIndexProvider.open(ctx, layout.address);
    const before = await idx.lookup([1, 2]);
    await idx.resize([25, 30]);
    expect(await idx.lookup([1, 2])).toEqual(before);
    expect((await collect(idx.iterate())).length).toBe(7 * 6);
    expect((await idx.lookup([6, 5]))!.address).toBe(layout.address + (6 * 6 + 5) * 40);
    await expect(idx.resize([26, 30])).rejects.toThrow(ValueError);
  });

  it('create allocates the whole block; insert only accepts the computed record; remove is a no-op', async () => {
    const { ctx: rctx } = await contextFor(SMALL.bytes, '/implicit_grow');
    const { ctx, storage } = newContext(rctx, 1000);
    const idx = (await implicitIndexProvider.create(ctx)) as ImplicitIndex;
    expect(storage.allocated).toEqual([[1000, 7 * 6 * 40]]);
    const r = (await idx.lookup([2, 1]))!;
    expect(r).toEqual({ coords: [2, 1], address: 1000 + (2 * 6 + 1) * 40, size: 40, filterMask: 0 });
    await idx.insert(r);
    await expect(idx.insert({ ...r, address: r.address + 1 })).rejects.toThrow(ValueError);
    await expect(idx.insert({ ...r, filterMask: 1 })).rejects.toThrow(ValueError);
    expect(await idx.remove([2, 1])).toBeNull();
    expect(await idx.lookup([2, 1])).toEqual(r);
    expect(await idx.flush()).toEqual({ address: 1000, info: { type: 'implicit' } });
    await expect(implicitIndexProvider.create({ ...rctx, storage: undefined })).rejects.toThrow(InvalidStateError);
    await expect(implicitIndexProvider.create({ ...ctx, filtered: true })).rejects.toThrow(ValueError);
    await expect(implicitIndexProvider.create({ ...ctx, maxDims: [-1, 30] })).rejects.toThrow(ValueError);
  });

  it('a chunk block past the end of the file → FormatError naming the dataset', async () => {
    const { ctx, layout } = await contextFor(SMALL.bytes, '/implicit_2d');
    const reader = new SourceMetadataReader(new MemoryStore(SMALL.bytes), DEFAULT_SIZES, layout.address + 100);
    const e = await implicitIndexProvider.open({ ...ctx, reader }, layout.address).catch((x) => x);
    expect(e).toBeInstanceOf(FormatError);
    expect(e.message).toMatch(/implicit_2d.*implicit chunk index/);
  });
});
