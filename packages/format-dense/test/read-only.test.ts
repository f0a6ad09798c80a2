/**
 * `registerDenseReadOnly`: the dense formats that only read — datasets written with the full registration read
 * back through it, creating or changing one is a typed error raised before anything changes, and it is one
 * registration or the other.
 */
import { describe, expect, it } from 'vitest';
import { createContainer, createFile, MemoryStore, openFile, resolveChunkFormatByName, UnsupportedError, type Dataset } from '@chunkform/core';
import { registerIndexes } from '@chunkform/indexes';
import { registerFilters } from '@chunkform/filters';
import { denseReadOnlyProvider, registerDenseFormats, registerDenseReadOnly } from '../src/index.js';

describe('registerDenseReadOnly', () => {
  it('reads dense chunked datasets, refuses to create or change them, and conflicts with registerDenseFormats', async () => {
    const full = createContainer();
    registerIndexes(full);
    registerFilters(full);
    registerDenseFormats(full);
    const store = new MemoryStore();
    const f = await createFile(store, { container: full });
    const data = Uint16Array.from({ length: 12 * 10 }, (_, i) => i * 3);
    await f.createDataset('d', { dtype: 'uint16', shape: [12, 10], chunks: [4, 5], compression: 'gzip', data });
    await f.createDataset('u', { dtype: 'uint16', shape: [12, 10], chunks: [4, 5], data });
    await f.close();
    const before = store.toBytes().slice();

    const ro = createContainer();
    registerIndexes(ro);
    registerFilters(ro);
    registerDenseReadOnly(ro);
    registerDenseReadOnly(ro); // again: nothing changes
    expect(resolveChunkFormatByName('dense', ro)).toBe(denseReadOnlyProvider);
    const r = await openFile(store, { mode: 'r+', container: ro });
    expect(await ((await r.get('/d')) as Dataset).read()).toEqual(data);
    await expect(r.createDataset('e', { dtype: 'uint8', shape: [4], chunks: [2] })).rejects.toThrow(UnsupportedError);
    await expect(r.createDataset('e', { dtype: 'uint8', shape: [4], chunks: [2] })).rejects.toThrow(/reads datasets but cannot create them/);
    for (const name of ['/d', '/u']) {
      const d = (await r.get(name)) as Dataset;
      expect(await d.read()).toEqual(data);
      await expect(d.write(new Uint16Array(120))).rejects.toThrow(/registerDenseReadOnly.*registerDenseFormats\(\)/);
      await expect(d.resize([4, 10])).rejects.toThrow(UnsupportedError);
    }
    await r.close();
    expect(store.toBytes()).toEqual(before);
    expect(() => registerDenseFormats(ro)).toThrow(/already registered/);
  });
});
