/**
 * `registerDenseReadOnly`: the dense formats without dataset creation — datasets written with the full
 * registration read back through it, creating one is a typed error, and it is one registration or the other.
 */
import { describe, expect, it } from 'vitest';
import { createContainer, createFile, MemoryStore, openFile, resolveChunkFormatByName, UnsupportedError, type Dataset } from '@chunkform/core';
import { registerIndexes } from '@chunkform/indexes';
import { registerFilters } from '@chunkform/filters';
import { denseReadOnlyProvider, registerDenseFormats, registerDenseReadOnly } from '../src/index.js';

describe('registerDenseReadOnly', () => {
  it('reads dense chunked datasets, refuses to create them, and conflicts with registerDenseFormats', async () => {
    const full = createContainer();
    registerIndexes(full);
    registerFilters(full);
    registerDenseFormats(full);
    const store = new MemoryStore();
    const f = await createFile(store, { container: full });
    const data = Uint16Array.from({ length: 12 * 10 }, (_, i) => i * 3);
    await f.createDataset('d', { dtype: 'uint16', shape: [12, 10], chunks: [4, 5], compression: 'gzip', data });
    await f.close();

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
    await r.close();
    expect(() => registerDenseFormats(ro)).toThrow(/already registered/);
  });
});
