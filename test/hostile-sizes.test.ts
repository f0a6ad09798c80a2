/**
 * Hostile sizes (issue 10 item 4): a dataspace dimension, datatype size or layout size corrupted in a
 * file (checksums recomputed, so the change gets past verification) is checked against the layout,
 * the chunk index and the file before it sizes an allocation or a loop; reads are bounded by
 * `maxReadBytes` (typed error naming the dataset and the size, nothing allocated); and reads of an
 * extent of mostly absent chunks work on the stored chunks, not on the extent.
 */
import { describe, expect, it } from 'vitest';
import './setup-registrations.js';
import {
  createFile,
  FormatError,
  MemoryStore,
  openFile,
  ResourceLimitError,
  selectAll,
  selectHyperslab,
  selectPoints,
  ValueError,
  type CreateDatasetOptions,
  type Dataset,
} from '../packages/core/src/index.js';
import { applyChunkedMutation } from './oracle/chunked-mutations.js';
import { sizeMutations } from './oracle/size-mutations.js';

/** A file with one dataset "/d" created with `opts` and written with `data` (all of it) when given. */
async function oneDataset(opts: CreateDatasetOptions, write?: (d: Dataset) => Promise<void>): Promise<Uint8Array> {
  const store = new MemoryStore();
  const f = await createFile(store, { superblockVersion: 3 });
  const d = await f.createDataset('/d', opts);
  if (write) await write(d);
  await f.close();
  return store.toBytes();
}

/** `bytes` with the size-field mutation named `name` (test/oracle/size-mutations.ts) applied. */
async function mutated(bytes: Uint8Array, name: string): Promise<Uint8Array> {
  const all = await sizeMutations(bytes, 'hostile', Infinity);
  const m = all.find((x) => x.name === name);
  expect(m, `no mutation "${name}" among:\n${all.map((x) => x.name).join('\n')}`).toBeDefined();
  return applyChunkedMutation(bytes, m!.mutation);
}

/** The error `fn` throws (fails the test when it does not throw). */
async function thrown(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

const data40x40 = async (d: Dataset): Promise<void> => d.write(Int32Array.from({ length: 1600 }, (_, i) => i));

describe('dataset sizes are checked at open', () => {
  it('contiguous [40, 40] → [16777215, 40]: FormatError naming the dataset, the layout and both sizes', async () => {
    const bytes = await mutated(await oneDataset({ dtype: '<i4', shape: [40, 40] }, data40x40), '/d: dataspace dim 0 40 → 16777215');
    const f = await openFile(bytes);
    const e = await thrown(() => f.get('/d'));
    expect(e).toBeInstanceOf(FormatError);
    expect(e.message).toContain('"/d"');
    expect(e.message).toContain('data layout message');
    expect(e.message).toContain('6400');
    expect(e.message).toContain(String(16777215 * 40 * 4));
  });

  it('contiguous storage past the end of the file: TruncatedError', async () => {
    const base = await oneDataset({ dtype: '<i4', shape: [40, 40] }, data40x40);
    const f0 = await openFile(base);
    const at = ((await f0.get('/d')) as Dataset).headerModel.find(8)!.body;
    const address = Number(new DataView(at.buffer, at.byteOffset + 2, 8).getBigUint64(0, true));
    const bytes = await mutated(base, `/d: contiguous layout address ${address} → ${base.length - 8}`);
    const e = await thrown(async () => (await openFile(bytes)).get('/d'));
    expect(e.constructor.name).toBe('TruncatedError');
    expect(e.message).toMatch(/"\/d".*extends past the end of the file/);
  });

  it('compact data shorter than the dataspace needs: FormatError', async () => {
    const bytes = await mutated(await oneDataset({ dtype: '<i4', shape: [4], layout: 'compact', data: [1, 2, 3, 4] }), '/d: dataspace dim 0 4 → 5');
    const e = await thrown(async () => (await openFile(bytes)).get('/d'));
    expect(e).toBeInstanceOf(FormatError);
    expect(e.message).toMatch(/"\/d".*compact data has 16 bytes.*needs 20/);
  });

  it('a dimension above its maximum: FormatError naming dims and maximum', async () => {
    const bytes = await mutated(
      await oneDataset({ dtype: '<i4', shape: [40, 40], maxShape: [40, 40], chunks: [10, 10] }, data40x40),
      '/d: dataspace dim 0 40 → 16777215',
    );
    const e = await thrown(async () => (await openFile(bytes)).get('/d'));
    expect(e).toBeInstanceOf(FormatError);
    expect(e.message).toMatch(/"\/d".*dataspace message.*dimension 0 has size 16777215 but maximum 40/);
  });

  it('fixed array of 16 entries under max dims inflated to [16777215, 40]: FormatError', async () => {
    const bytes = await mutated(
      await oneDataset({ dtype: '<i4', shape: [40, 40], maxShape: [40, 40], chunks: [10, 10] }, data40x40),
      '/d: dataspace max dim 0 40 → 16777215',
    );
    const f = await openFile(bytes);
    const e = await thrown(async () => ((await f.get('/d')) as Dataset).read());
    expect(e).toBeInstanceOf(FormatError);
    expect(e.message).toMatch(/"\/d".*fixed array header.*16 entries do not match the 6710888 chunks/);
  });

  it('a datatype size unlike the chunk element size: FormatError', async () => {
    const bytes = await mutated(await oneDataset({ dtype: '<i4', shape: [40, 40], chunks: [10, 10] }, data40x40), '/d: datatype size 4 → 5');
    const e = await thrown(async () => (await openFile(bytes)).get('/d'));
    expect(e).toBeInstanceOf(FormatError);
    expect(e.message).toContain('"/d"');
  });

  it('an extensible array cannot hold the chunks of an inflated unlimited dimension: FormatError', async () => {
    const base = await oneDataset({ dtype: '<i4', shape: [40], maxShape: [null], chunks: [10] }, (d) => d.write(Int32Array.from({ length: 40 }, (_, i) => i)));
    const d = (await (await openFile(await mutated(base, '/d: dataspace dim 0 40 → 1099511627776'))).get('/d')) as Dataset;
    const e = await thrown(() => d.read(selectHyperslab({ start: [0], count: [1] })));
    expect(e).toBeInstanceOf(FormatError);
    expect(e.message).toMatch(/"\/d".*extensible array header.*capacity/);
  });
});

describe('maxReadBytes', () => {
  const ea = (): Promise<Uint8Array> =>
    oneDataset({ dtype: '<i4', shape: [40], maxShape: [null], chunks: [10], fillValue: 7 }, (d) => d.write(Int32Array.from({ length: 40 }, (_, i) => i)));

  it('a read above the file limit throws ResourceLimitError naming the dataset and the size, before allocating', async () => {
    // [40] → [16777215]: an extensible array may hold that many chunks; 64 MiB of fill values, more than the limit
    const bytes = await mutated(await ea(), '/d: dataspace dim 0 40 → 16777215');
    const f = await openFile(bytes, { maxReadBytes: 1 << 20 });
    const d = (await f.get('/d')) as Dataset;
    const e = (await thrown(() => d.read())) as ResourceLimitError;
    expect(e).toBeInstanceOf(ResourceLimitError);
    expect(e.requested).toBe(16777215 * 4);
    expect(e.limit).toBe(1 << 20);
    expect(e.message).toContain('"/d"');
    expect(e.message).toContain(String(16777215 * 4));
    // a small read of the same dataset is fine, and a read can raise the limit for itself
    expect(Array.from((await d.read(selectHyperslab({ start: [38], count: [4] }))) as Int32Array)).toEqual([38, 39, 7, 7]);
    const all = (await d.read(selectAll(), { maxReadBytes: 16777215 * 4 })) as Int32Array;
    expect(all.length).toBe(16777215);
    expect([all[0], all[39], all[40], all[16777214]]).toEqual([0, 39, 7, 7]);
    // readDefined passes the limit to its read (every element of a dense dataset is defined)
    await expect(d.readDefined(undefined, { maxReadBytes: 8 })).rejects.toBeInstanceOf(ResourceLimitError);
  });

  it('the default limit is 1 GiB; invalid limits are refused', async () => {
    const bytes = await mutated(await ea(), '/d: dataspace dim 0 40 → 4250861632');
    const d = (await (await openFile(bytes)).get('/d')) as Dataset;
    const e = (await thrown(() => d.read())) as ResourceLimitError;
    expect(e).toBeInstanceOf(ResourceLimitError);
    expect(e.limit).toBe(2 ** 30);
    expect(e.requested).toBe(4250861632 * 4);
    await expect(openFile(bytes, { maxReadBytes: -1 })).rejects.toBeInstanceOf(ValueError);
    await expect(d.read(undefined, { maxReadBytes: 0.5 })).rejects.toBeInstanceOf(ValueError);
    // no limit but the platform's: still a typed error, never a RangeError
    const big = (await thrown(() => d.read(undefined, { maxReadBytes: Infinity }))) as ResourceLimitError;
    expect(big).toBeInstanceOf(ResourceLimitError);
    expect(big.message).toContain('"/d"');
  });
});

describe('reads of mostly absent extents follow the stored chunks', () => {
  const N = 1_000_000;
  for (const layout of ['chunked', 'sparse'] as const) {
    it(`${layout}: 2 stored chunks in an extent of ${N / 10} chunks read back with fill values around them`, async () => {
      const opts: CreateDatasetOptions = { dtype: '<i4', shape: [N], maxShape: [null], chunks: [10], fillValue: -1, ...(layout === 'sparse' ? { layout: 'sparse' } : {}) };
      const bytes = await oneDataset(opts, (d) => d.write([11, 22], selectPoints([[5], [N - 5]])));
      const d = (await (await openFile(bytes)).get('/d')) as Dataset;
      const all = (await d.read()) as Int32Array;
      const want = new Int32Array(N).fill(-1);
      want[5] = 11;
      want[N - 5] = 22;
      expect(all.length).toBe(N);
      expect(Buffer.from(all.buffer).equals(Buffer.from(want.buffer))).toBe(true);
      // a strided selection: buffer positions of the stored chunks' elements stay those of the whole selection
      const sel = selectHyperslab({ start: [0], stride: [5], count: [N / 5] });
      const strided = (await d.read(sel)) as Int32Array;
      expect(strided.length).toBe(N / 5);
      expect([strided[0], strided[1], strided[2], strided[N / 5 - 1]]).toEqual([-1, 11, -1, 22]);
      expect(strided.filter((v) => v !== -1).length).toBe(2);
      // into a caller's buffer
      const into = new Int32Array(N / 5).fill(123);
      await d.readInto(into, sel);
      expect(Buffer.from(into.buffer).equals(Buffer.from(strided.buffer))).toBe(true);
    });
  }

  it('a 2-D extent: pieces keep their buffer positions (row and column strides)', async () => {
    const bytes = await oneDataset({ dtype: '<i2', shape: [3000, 3000], maxShape: [null, 3000], chunks: [7, 11], fillValue: 5 }, async (d) => {
      await d.write([1, 2, 3], selectPoints([[0, 0], [1500, 2999], [2999, 1234]]));
    });
    const d = (await (await openFile(bytes)).get('/d')) as Dataset;
    const sel = selectHyperslab({ start: [0, 1], stride: [3, 1], count: [1000, 2999] });
    const got = (await d.read(sel)) as Int16Array;
    // element (r, c) of the dataset is at ((r / 3) * 2999 + c - 1) when r % 3 === 0 and c ≥ 1
    const at = (r: number, c: number): number => (r / 3) * 2999 + c - 1;
    expect(got[at(1500, 2999)]).toBe(2);
    expect(got[at(2997, 1234)]).toBe(5);
    expect(got.filter((v) => v !== 5).length).toBe(1);
    const rows = (await d.read(selectHyperslab({ start: [2999, 0], count: [1, 3000] }))) as Int16Array;
    expect(rows[1234]).toBe(3);
  });
});

describe('resize over a large extent of few chunks', () => {
  it('shrinking resets the straddling chunk and drops the others (work follows the stored chunks)', async () => {
    const N = 100_000; // 10,000 chunks: more than are looked up one by one
    const store = new MemoryStore();
    const f = await createFile(store, { superblockVersion: 3 });
    const d = await f.createDataset('/d', { dtype: '<i4', shape: [N], maxShape: [null], chunks: [10], fillValue: -1 });
    await d.write([5, 6, 7, 8], selectHyperslab({ start: [5], count: [4] }));
    await d.write([9], selectPoints([[N - 5]]));
    await d.resize([7]);
    expect(await d.numChunks()).toBe(1);
    await d.resize([20]);
    expect(Array.from((await d.read()) as Int32Array)).toEqual([-1, -1, -1, -1, -1, 5, 6, ...new Array<number>(13).fill(-1)]);
    await f.close();
    const g = await openFile(store.toBytes());
    const reopened = (await g.get('/d')) as Dataset;
    expect(Array.from((await reopened.read()) as Int32Array).slice(0, 9)).toEqual([-1, -1, -1, -1, -1, 5, 6, -1, -1]);
  });
});
