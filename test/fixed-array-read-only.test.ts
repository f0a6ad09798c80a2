/**
 * The read-only fixed array index (`registerFixedArrayReadOnly`) and dense formats
 * (`registerDenseReadOnly`) of issue #14's read-only bundle: they read what the full ones read for
 * chunked (dense) datasets, refuse writes before anything changes (typed error naming the
 * registration that writes), and the index names that registration for structured-chunk (sparse)
 * datasets, whose element codecs it leaves out.
 */
import { describe, expect, it } from 'vitest';
import {
  MemoryStore,
  UnsupportedError,
  createContainer,
  openFile,
  selectHyperslab,
  selectPoints,
  type Container,
  type Dataset,
} from '../packages/core/src/index.js';
import { openFile as openReadOnly, ReadDataset } from '../packages/core/src/read.js';
import { registerDenseFormats, registerDenseReadOnly } from '../packages/format-dense/src/index.js';
import { registerSparseFormat } from '../packages/format-sparse/src/index.js';
import { registerFilters, registerInflate } from '../packages/filters/src/index.js';
import { fixedArrayReadOnlyProvider, registerFixedArrayReadOnly } from '../packages/indexes/src/index.js';
import { writtenFile } from './support/sample-file.js';

const VALUES = Int32Array.from({ length: 3000 }, (_, i) => i * 7 - 300);

/** `/x`: [3000] int32 in chunks of 2 (1500 chunks: a paged fixed array), deflated; `/y` unfiltered, one chunk unwritten; `/s` sparse. */
function sampleFile(): Promise<Uint8Array> {
  return writtenFile(async (f) => {
    await f.createDataset('x', { dtype: 'int32', shape: [3000], chunks: [2], filters: [{ id: 1 }], data: VALUES });
    const y = await f.createDataset('y', { dtype: 'int32', shape: [40], chunks: [10], fillValue: -1 });
    await y.write(VALUES.subarray(0, 10), selectHyperslab({ start: [20], count: [10] }));
    const s = await f.createDataset('s', { dtype: 'int32', shape: [8], chunks: [4], layout: 'sparse' });
    await s.write([5], selectPoints([[2]]));
  });
}

/** The read-only registrations (`fullDense`: the dense formats that write, with the read-only index). */
function readOnlyContainer(fullDense = false): Container {
  const c = createContainer(null);
  registerFixedArrayReadOnly(c);
  if (fullDense) {
    registerDenseFormats(c);
    registerFilters(c);
  } else {
    registerDenseReadOnly(c);
    registerInflate(c);
  }
  registerSparseFormat(c);
  return c;
}

describe('read-only fixed array index', () => {
  it('reads paged and unpaged fixed arrays as the full index does (read-only and full openFile)', async () => {
    const bytes = await sampleFile();
    const container = readOnlyContainer();
    const expectedY = Int32Array.from({ length: 40 }, (_, i) => (i >= 20 && i < 30 ? VALUES[i - 20]! : -1));
    const r = await openReadOnly(bytes, { container });
    const x = await r.get('x');
    expect(x).toBeInstanceOf(ReadDataset);
    const layout = (x as ReadDataset).layout;
    expect(layout.class === 'chunked' && layout.index.type).toBe('fixed-array');
    expect(await (x as ReadDataset).read()).toEqual(VALUES);
    expect(await (x as ReadDataset).numChunks()).toBe(1500);
    expect(await ((await r.get('y')) as ReadDataset).read()).toEqual(expectedY);
    await r.close();
    const f = await openFile(bytes, { container });
    expect(await ((await f.get('x')) as Dataset).read()).toEqual(VALUES);
    await f.close();
  });

  it('refuses writes before anything changes, naming the registration that writes', async () => {
    const bytes = await sampleFile();
    const store = new MemoryStore(bytes.slice());
    const f = await openFile(store, { mode: 'r+', container: readOnlyContainer(true) });
    const x = (await f.get('x')) as Dataset;
    const err = await x.write(new Int32Array(2), selectPoints([[0], [1]])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedError);
    expect((err as Error).message).toMatch(/registerFixedArrayIndex\(\)/);
    const y = (await f.get('y')) as Dataset;
    await expect(y.write([1], selectPoints([[0]]))).rejects.toThrow(/read-only .*registerFixedArrayIndex\(\)/);
    await expect(y.resize([10])).rejects.toThrow(UnsupportedError);
    await f.close();
    expect(store.toBytes()).toEqual(bytes);
    // the read-only dense formats refuse first, naming theirs
    const g = await openFile(store, { mode: 'r+', container: readOnlyContainer() });
    for (const name of ['x', 'y']) {
      const d = (await g.get(name)) as Dataset;
      await expect(d.write([1], selectPoints([[0]]))).rejects.toThrow(/read-only \(registerDenseReadOnly\); registerDenseFormats\(\)/);
      await expect(d.resize([10])).rejects.toThrow(UnsupportedError);
      await expect(d.writeChunk([0], new Uint8Array(8))).rejects.toThrow(UnsupportedError);
    }
    await g.close();
    expect(store.toBytes()).toEqual(bytes);
    // creating a fixed array index through it is refused too
    await expect(fixedArrayReadOnlyProvider.create({ datasetPath: '/z' } as never)).rejects.toThrow(UnsupportedError);
  });

  it('orders un-awaited calls of a read-only file: reads together, close after the calls made before it', async () => {
    const bytes = await sampleFile();
    const r = await openReadOnly(bytes, { container: readOnlyContainer() });
    const x = (await r.get('x')) as ReadDataset;
    const reads = [x.read(), x.read(selectHyperslab({ start: [10], count: [5] })), r.keys(), r.attrs.keys()];
    const closed = r.close();
    const after = r.get('y');
    const [all, part, keys] = await Promise.all(reads);
    expect(all).toEqual(VALUES);
    expect(part).toEqual(VALUES.subarray(10, 15));
    expect(keys).toEqual(['s', 'x', 'y']);
    await closed;
    await expect(after).rejects.toThrow(/closed/);
    await expect(x.read()).rejects.toThrow(/closed/);
  });

  it('names registerFixedArrayIndex for structured-chunk (sparse) datasets', async () => {
    const bytes = await sampleFile();
    const r = await openReadOnly(bytes, { container: readOnlyContainer() });
    const s = (await r.get('s')) as ReadDataset;
    await expect(s.read()).rejects.toThrow(/structured-chunk datasets need registerFixedArrayIndex\(\)/);
    await r.close();
  });
});
