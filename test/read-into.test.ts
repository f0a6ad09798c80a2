/**
 * `Dataset.readInto(out, selection?)` (h5py's `read_direct`): the same values as `read()` for
 * contiguous, chunked (whole, edge and unwritten chunks) and sparse datasets, big-endian and
 * float16 types (converted), a caller buffer inside a larger ArrayBuffer, and typed errors for a
 * wrong length or a non-numeric dataset.
 */
import { describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, MemoryStore, openFile, ValueError, type Dataset } from '../packages/core/src/index.js';
import { selectHyperslab } from '../packages/core/src/selection/index.js';

async function roundTrip(opts: Record<string, unknown>, data?: ArrayLike<number>) {
  const store = new MemoryStore();
  const f = await createFile(store);
  const d = await f.createDataset('x', { shape: [7, 9], fillValue: 5, ...opts } as never);
  if (data) await d.write(data, selectHyperslab({ start: [0, 0], count: [5, 9] }));
  await f.close();
  const g = await openFile(store.toBytes());
  return { g, d: (await g.get('x')) as Dataset };
}

const data = Array.from({ length: 5 * 9 }, (_, i) => i * 3 - 40);

describe('Dataset.readInto', () => {
  const cases: [string, Record<string, unknown>, new (n: number) => ArrayLike<number> & { fill(v: number): unknown }][] = [
    ['contiguous int16', { dtype: 'int16' }, Int16Array],
    ['chunked int16 (edge + unwritten chunks)', { dtype: 'int16', chunks: [2, 4] }, Int16Array],
    ['chunked deflate float64', { dtype: 'float64', chunks: [3, 3], compression: 'gzip' }, Float64Array],
    ['big-endian int32', { dtype: '>i4', chunks: [4, 4] }, Int32Array],
    ['float16 into Float32Array', { dtype: 'float16' }, Float32Array],
    ['sparse uint16', { dtype: 'uint16', layout: 'sparse', chunks: [4, 4] }, Uint16Array],
  ];
  for (const [name, opts, Ctor] of cases) {
    it(name, async () => {
      const src = name.startsWith('sparse') ? data.map((v) => v + 100) : data;
      const { g, d } = await roundTrip(opts, src);
      for (const sel of [undefined, selectHyperslab({ start: [1, 2], stride: [2, 3], count: [3, 2], block: [1, 2] })]) {
        const expected = Array.from((await d.read(sel)) as ArrayLike<number>);
        const out = new Ctor(expected.length);
        out.fill(99);
        const got = await d.readInto(out as never, sel);
        expect(got).toBe(out);
        expect(Array.from(out)).toEqual(expected);
      }
      await g.close();
    });
  }

  it('fills a view inside a larger buffer and leaves the rest alone', async () => {
    const { g, d } = await roundTrip({ dtype: 'int16', chunks: [7, 9] }, data);
    const backing = new Int16Array(100).fill(-1);
    const out = backing.subarray(10, 10 + 63);
    await d.readInto(out);
    expect(Array.from(out)).toEqual(Array.from((await d.read()) as Int16Array));
    expect(backing[9]).toBe(-1);
    expect(backing[73]).toBe(-1);
    await g.close();
  });

  it('refuses a wrong length and non-numeric datasets with a ValueError naming the dataset', async () => {
    const { g, d } = await roundTrip({ dtype: 'int16' }, data);
    await expect(d.readInto(new Int16Array(62))).rejects.toThrow(ValueError);
    await expect(d.readInto(new Int16Array(62))).rejects.toThrow(/\/x/);
    await g.close();
    const store = new MemoryStore();
    const f = await createFile(store);
    const s = await f.createDataset('s', { dtype: 'string', shape: [2], data: ['a', 'b'] } as never);
    await expect(s.readInto(new Uint8Array(2))).rejects.toThrow(/integer or float/);
    await f.close();
  });
});
