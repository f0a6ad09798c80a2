import { describe, expect, it } from 'vitest';
import {
  createFile,
  Dataset,
  ExternalLink,
  Group,
  InvalidStateError,
  MemoryStore,
  NotFoundError,
  openFile,
  ValueError,
} from '../src/index.js';

async function roundTrip(build: (f: Awaited<ReturnType<typeof createFile>>) => Promise<void>) {
  const store = new MemoryStore();
  const f = await createFile(store);
  await build(f);
  await f.close();
  return openFile(store.toBytes());
}

describe('object layer: write then read in memory', () => {
  it('round-trips groups, datasets and attributes', async () => {
    const f = await roundTrip(async (f) => {
      const g = await f.createGroup('run/meta');
      await g.attrs.set('operator', 'ada');
      await g.attrs.set('gain', 2.5);
      await f.createDataset('run/counts', { dtype: 'uint16', shape: [2, 3], data: [1, 2, 3, 4, 5, 6] });
      await f.createDataset('run/names', { dtype: 'string', shape: [2], data: ['α', ''] });
      await f.createDataset('run/c', { dtype: 'int32', shape: [4], data: [-1, 0, 1, 2], layout: 'compact' });
      await f.createDataset('run/empty', { dtype: 'float32', shape: [3], fillValue: 7.5 });
      await f.attrs.set('version', 3n, { dtype: 'int64' });
    });
    expect(await f.keys()).toEqual(['run']);
    const run = (await f.get('run')) as Group;
    expect(await run.keys()).toEqual(['c', 'counts', 'empty', 'meta', 'names']);
    const counts = (await f.get('/run/counts')) as Dataset;
    expect(counts.shape).toEqual([2, 3]);
    expect(Array.from((await counts.read()) as Uint16Array)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await ((await f.get('run/names')) as Dataset).read()).toEqual(['α', '']);
    expect(Array.from((await ((await f.get('run/c')) as Dataset).read()) as Int32Array)).toEqual([-1, 0, 1, 2]);
    expect(Array.from((await ((await f.get('run/empty')) as Dataset).read()) as Float32Array)).toEqual([7.5, 7.5, 7.5]);
    const meta = (await f.get('run/meta')) as Group;
    expect(await meta.attrs.get('operator')).toBe('ada');
    expect(await meta.attrs.get('gain')).toBe(2.5);
    expect(await f.attrs.get('version')).toBe(3n);
    await expect(f.get('nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(f.createGroup('x')).rejects.toBeInstanceOf(InvalidStateError);
  });

  it('keeps creation order for trackOrder groups and survives many links and attributes', async () => {
    const f = await roundTrip(async (f) => {
      const g = await f.createGroup('ordered', { trackOrder: true });
      for (const n of ['zeta', 'alpha', 'mid']) await g.createGroup(n);
      const many = await f.createGroup('many');
      for (let i = 0; i < 150; i++) await many.createDataset(`d${i}`, { dtype: 'int8', shape: [1], data: [i % 100] });
      for (let i = 0; i < 40; i++) await many.attrs.set(`a${i}`, i);
    });
    expect(await ((await f.get('ordered')) as Group).keys()).toEqual(['zeta', 'alpha', 'mid']);
    const many = (await f.get('many')) as Group;
    expect((await many.keys()).length).toBe(150);
    expect(Array.from((await ((await many.get('d149')) as Dataset).read()) as Int8Array)).toEqual([49]);
    expect(await many.attrs.get('a39')).toBe(39);
  });

  it('reopens r+ and rewrites values; errors are typed', async () => {
    const store = new MemoryStore();
    const f = await createFile(store);
    await f.createDataset('x', { dtype: 'float64', shape: [3], data: [1, 2, 3] });
    await expect(f.createDataset('x', { dtype: 'int8', shape: [1] })).rejects.toBeInstanceOf(ValueError);
    await expect(f.createDataset('y', { dtype: 'int8', shape: [2], data: [1, 2, 3] })).rejects.toBeInstanceOf(ValueError);
    await f.close();
    const g = await openFile(store, { mode: 'r+' });
    await ((await g.get('x')) as Dataset).write([4, 5, 6]);
    await g.createGroup('later');
    await g.close();
    const h = await openFile(store.toBytes());
    expect(Array.from((await ((await h.get('x')) as Dataset).read()) as Float64Array)).toEqual([4, 5, 6]);
    expect(await h.keys()).toEqual(['later', 'x']);
    expect(ExternalLink).toBeDefined();
  });
});
