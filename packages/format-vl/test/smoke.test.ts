import { describe, expect, it } from 'vitest';
import { selectHyperslab } from '@chunkform/core';
import { createVlDataset } from '../src/index.js';
import { memoryFile, reopen } from './support.js';

describe('smoke', () => {
  it('dense strings', async () => {
    const { store, file } = await memoryFile();
    const d = await createVlDataset(file, 'a', { dtype: 'string', shape: [10], chunks: [4], data: Array.from({ length: 10 }, (_, i) => `s${i}`.repeat(i)) });
    expect(await d.read()).toEqual(Array.from({ length: 10 }, (_, i) => `s${i}`.repeat(i)));
    await d.write(['x', 'ü'], selectHyperslab({ start: [3], count: [2] }));
    const f2 = await reopen(store, file);
    const d2 = await f2.get('a');
    expect(await (d2 as any).read()).toEqual(['', 's1', 's2s2', 'x', 'ü', ...[5, 6, 7, 8, 9].map((i) => `s${i}`.repeat(i))]);
    await f2.close();
  });
  it('sparse sequences', async () => {
    const { store, file } = await memoryFile();
    const d = await createVlDataset(file, 'b', { dtype: 'vlen<i4>', shape: [10], maxShape: [null], chunks: [4], sparse: true, filters: { heap: [{ id: 1, clientData: [5] }] } });
    await d.write([Int32Array.of(1, 2), [3]], selectHyperslab({ start: [5], count: [2] }));
    const f2 = await reopen(store, file);
    const d2 = (await f2.get('b')) as any;
    const v = await d2.read();
    expect(v[5]).toEqual(Int32Array.of(1, 2));
    expect(v[6]).toEqual(Int32Array.of(3));
    expect(await d2.getDefined()).toMatchObject({ kind: 'blocks' });
    await d2.erase(selectHyperslab({ start: [5], count: [1] }));
    const r = await d2.readDefined();
    expect(r.values).toEqual([Int32Array.of(3)]);
    await f2.close();
  });
});
