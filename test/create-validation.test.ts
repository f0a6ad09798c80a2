/**
 * Issue 10 item 5 (creation): filters are checked against the datatype and the storage format in
 * `createDataset`, before any data is accepted (scale-offset / n-bit on a sparse section used to pass
 * `write()` and make `close()` throw, losing the chunk); sparse datasets refuse `allocTime` values
 * they cannot honour and apply shorthand filters to both sections; and a failed `createDataset` or
 * `createGroup` leaves the file as it was — after a flush the file is byte-for-byte the file written
 * without the failed calls, and h5py opens it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import {
  createFile,
  FilterError,
  H5Error,
  MemoryStore,
  openFile,
  selectPoints,
  UnknownFilterError,
  ValueError,
  type CreateDatasetOptions,
  type Dataset,
  type Group,
  type H5File,
} from '../packages/core/src/index.js';
import { PYTHON, requireH5py } from './oracle/fixtures.js';

const TMP = mkdtempSync(join(tmpdir(), 'chunkform-create-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** What h5py sees: every object path with its kind and, for datasets, the values. */
function h5pyWalk(path: string): Record<string, unknown> {
  requireH5py();
  // Sparse datasets (layout message version 5) are skipped: HDF5 1.10 cannot open them.
  const py = [
    'import h5py, json, sys',
    'out = {}',
    'def walk(g, prefix):',
    '    for name in g.keys():',
    '        if "sparse" in name: continue',
    '        obj = g[name]',
    '        if isinstance(obj, h5py.Dataset):',
    '            v = obj[()]',
    '            out[prefix + name] = [x.decode() if isinstance(x, bytes) else x for x in v.tolist()] if v.shape else v.tolist()',
    '        else:',
    '            out[prefix + name] = "group"',
    '            walk(obj, prefix + name + "/")',
    'walk(h5py.File(sys.argv[1], "r"), "")',
    'print(json.dumps(out))',
  ].join('\n');
  return JSON.parse(execFileSync(PYTHON, ['-c', py, path], { encoding: 'utf8' })) as Record<string, unknown>;
}

/** Creates that must fail: [label, path, options, expected error class]. */
const FAILING: [string, string, CreateDatasetOptions, new (...a: never[]) => H5Error][] = [
  ['unknown compression name', 'bad1', { dtype: 'int32', shape: [4], compression: 'lzf' as never }, ValueError],
  ['unknown filter id', 'bad2', { dtype: 'int32', shape: [4], chunks: [2], filters: [{ id: 40000 }] }, UnknownFilterError],
  ['zero chunk dimension', 'bad3', { dtype: 'int32', shape: [4, 4], chunks: [0, 2] }, ValueError],
  ['chunk rank', 'bad4', { dtype: 'int32', shape: [4, 4], chunks: [2] }, ValueError],
  ['invalid dtype', 'bad5', { dtype: 'float128' as never, shape: [4] }, ValueError],
  ['scale-offset on strings', 'bad6', { dtype: 'S8', shape: [4], chunks: [2], filters: [{ id: 6, clientData: [2, 0] }] }, FilterError],
  ['scale-offset on float16', 'bad7', { dtype: 'float16', shape: [4], chunks: [2], filters: [{ id: 6, clientData: [0, 2] }] }, FilterError],
  ['scale-offset on a sparse values section', 'bad8', { layout: 'sparse', dtype: 'int32', shape: [8], chunks: [4], filters: { values: [{ id: 6, clientData: [2, 0] }] } }, FilterError],
  ['n-bit on a sparse selection section', 'bad9', { layout: 'sparse', dtype: 'int16', shape: [8], chunks: [4], filters: { selection: [{ id: 5 }] } }, FilterError],
  ['scale-offset as compression on a sparse dataset', 'bad10', { layout: 'sparse', dtype: 'int32', shape: [8], chunks: [4], compression: 6 }, FilterError],
  ["sparse allocTime 'early'", 'bad11', { layout: 'sparse', dtype: 'int32', shape: [8], chunks: [4], allocTime: 'early' }, ValueError],
  ["sparse allocTime 'late'", 'bad12', { layout: 'sparse', dtype: 'int32', shape: [8], chunks: [4], allocTime: 'late' }, ValueError],
  ['contiguous data of the wrong length', 'bad13', { dtype: 'int32', shape: [4], data: [1, 2, 3] }, ValueError],
  ['chunked data out of range', 'bad14', { dtype: 'int8', shape: [3], chunks: [2], data: [1, 300, 2] }, ValueError],
  ['vlen strings, one not a string (contiguous)', 'bad15', { dtype: 'string', shape: [3], data: ['a', 'b', 5] }, ValueError],
  ['vlen strings, one not a string (chunked)', 'bad16', { dtype: 'string', shape: [3], chunks: [2], data: ['a', 'b', 5] }, ValueError],
  ['bad fill value', 'bad17', { dtype: 'uint8', shape: [3], chunks: [3], fillValue: -1 }, ValueError],
  ['compact too large', 'bad18', { dtype: 'float64', shape: [10000], layout: 'compact' }, ValueError],
  ['nested path, bad dtype: no intermediate group', 'new/inner/bad19', { dtype: 'nope' as never, shape: [2] }, ValueError],
  ['nested path, unknown filter: no intermediate group', 'new2/bad20', { dtype: 'int32', shape: [2], chunks: [2], filters: [{ id: 40001 }] }, UnknownFilterError],
  ['name exists', 'd', { dtype: 'int32', shape: [2] }, ValueError],
  ['path through a dataset', 'd/x', { dtype: 'int32', shape: [2] }, ValueError],
  ['scalar chunked', 'bad21', { dtype: 'int32', shape: [], chunks: [1] as never }, ValueError],
];

/** The base content, with `between` run after each successful step. */
async function build(f: H5File, between: () => Promise<void>): Promise<void> {
  await f.createGroup('g');
  await between();
  await f.createDataset('d', { dtype: 'int32', shape: [3], data: [1, 2, 3] });
  await between();
  await f.createDataset('g/s', { dtype: 'string', shape: [2], data: ['x', 'yz'] });
  await between();
  const sp = await f.createDataset('g/sparse', { layout: 'sparse', dtype: 'int16', shape: [8], chunks: [4], compression: 'gzip' });
  await sp.write([5, 6], selectPoints([[1], [6]]));
  await between();
  await f.createDataset('g/c', { dtype: 'float32', shape: [4, 4], chunks: [2, 2], compression: 'gzip', data: new Float32Array(16).fill(1.5) });
  await between();
}

async function failAll(f: H5File): Promise<void> {
  const haveD = await f.has('d');
  for (const [label, path, opts, Err] of FAILING) {
    if (path.startsWith('d') && !haveD) continue; // needs the dataset /d

    const err = await f.createDataset(path, opts).catch((e: unknown) => e);
    expect(err, label).toBeInstanceOf(Err);
  }
  for (const p of haveD ? ['g', 'd', 'd/x'] : []) await expect(f.createGroup(p)).rejects.toThrow(ValueError);
}

describe('a failed create leaves the file as it was (issue 10, item 5)', () => {
  it('every failing create, then flush and close: the same bytes as the file without them, and h5py reads it', async () => {
    const refPath = join(TMP, 'ref.h5');
    const ref = await createFile(refPath, { superblockVersion: 3 });
    await build(ref, () => ref.flush());
    await ref.close();

    const path = join(TMP, 'failed.h5');
    const f = await createFile(path, { superblockVersion: 3 });
    await failAll(f);
    await build(f, async () => {
      await failAll(f);
      await f.flush();
    });
    await failAll(f);
    expect(await f.has('new')).toBe(false);
    expect(await f.has('new2')).toBe(false);
    await f.close();
    expect(readFileSync(path)).toEqual(readFileSync(refPath));
    expect(h5pyWalk(path)).toEqual({ d: [1, 2, 3], g: 'group', 'g/c': Array(4).fill(Array(4).fill(1.5)), 'g/s': ['x', 'yz'] });
  });

  it('in memory too, with groups: failing createGroup / createDataset calls leave nothing behind', async () => {
    const b = new MemoryStore();
    const fb = await createFile(b);
    await expect(fb.createDataset('x/y/z', { dtype: 'uint8', shape: [2], data: [1, 2, 3] })).rejects.toThrow(ValueError);
    expect(await fb.keys()).toEqual([]);
    await fb.createGroup('x/y');
    await expect(fb.createGroup('x/y')).rejects.toThrow(/already exists/);
    await expect(fb.createGroup('x')).rejects.toThrow(/already exists/);
    await fb.createDataset('x/y/z', { dtype: 'uint8', shape: [2], data: [1, 2] });
    await expect(fb.createGroup('x/y/z/w')).rejects.toThrow(/not a group/);
    await expect(fb.createGroup('x/y/z')).rejects.toThrow(/already exists/);
    await fb.close();
    const c = new MemoryStore();
    const fc = await createFile(c);
    await fc.createGroup('x/y');
    await fc.createDataset('x/y/z', { dtype: 'uint8', shape: [2], data: [1, 2] });
    await fc.close();
    expect(b.toBytes()).toEqual(c.toBytes());
  });

  it('concurrent creates under the same missing groups all land, as in some sequential order', async () => {
    const store = new MemoryStore();
    const f = await createFile(store);
    const names = ['p', 'q', 'r', 's'];
    await Promise.all(names.map((n, i) => f.createDataset(`a/b/${n}`, { dtype: 'int32', shape: [1], data: [i] })));
    const same = await Promise.allSettled([0, 1].map((i) => f.createDataset('a/b/dup', { dtype: 'int32', shape: [1], data: [i] })));
    expect(same.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    await f.close();
    const g = await openFile(store.toBytes());
    expect(await ((await g.get('a/b')) as Group).keys()).toEqual(['dup', 'p', 'q', 'r', 's']);
    for (const [i, n] of names.entries()) expect(Array.from((await ((await g.get(`a/b/${n}`)) as Dataset).read()) as Int32Array)).toEqual([i]);
    await g.close();
    // the space of the losing create is given back without leaving the end of file past the last byte
    const path = join(TMP, 'concurrent.h5');
    writeFileSync(path, store.toBytes());
    const seen = h5pyWalk(path);
    expect(Object.keys(seen).sort()).toEqual(['a', 'a/b', 'a/b/dup', 'a/b/p', 'a/b/q', 'a/b/r', 'a/b/s']);
    expect(seen['a/b/q']).toEqual([1]);
  });
});

describe('sparse datasets: options checked at create (issue 10, item 5)', () => {
  it('scale-offset on a sparse section fails in createDataset, before any write (the reproduction)', async () => {
    const store = new MemoryStore();
    const f = await createFile(store, { superblockVersion: 3 });
    const err = await f
      .createDataset('s', { layout: 'sparse', dtype: 'float32', shape: [16], chunks: [8], filters: { values: [{ id: 6, clientData: [0, 3] }] } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FilterError);
    expect((err as Error).message).toMatch(/scale-offset/);
    expect((err as Error).message).toMatch(/values section/);
    expect((err as Error).message).toMatch(/filters: \{ selection, values \}/);
    expect((err as Error).message).toMatch(/\/s/);
    expect(await f.has('s')).toBe(false);
    await f.close();
  });

  it("allocTime 'incremental' is accepted; shorthand filters apply to both sections", async () => {
    const store = new MemoryStore();
    const f = await createFile(store, { superblockVersion: 3 });
    const d = await f.createDataset('s', { layout: 'sparse', dtype: 'int32', shape: [16], chunks: [8], allocTime: 'incremental', compression: 'gzip', shuffle: true });
    expect(d.sectionFilters!.map((p) => p.filters.map((x) => x.id))).toEqual([[2, 1], [2, 1]]);
    await d.write([1, 2], selectPoints([[3], [12]]));
    await f.close();
    const g = await openFile(store.toBytes());
    expect((await ((await g.get('s')) as Dataset).readDefined()).values).toEqual(Int32Array.from([1, 2]));
    await g.close();
  });

  it('scale-offset and n-bit still work on dense chunked datasets of a supported type', async () => {
    const path = join(TMP, 'dense-so.h5');
    const f = await createFile(path);
    await f.createDataset('so', { dtype: 'int32', shape: [6], chunks: [3], filters: [{ id: 6, clientData: [2, 0] }], data: [1, 2, 3, 4, 5, 6] });
    await f.createDataset('nb', { dtype: 'int16', shape: [4], chunks: [2], filters: [{ id: 5 }], data: [1, -2, 3, -4] });
    await f.close();
    expect(h5pyWalk(path)).toEqual({ so: [1, 2, 3, 4, 5, 6], nb: [1, -2, 3, -4] });
  });
});
