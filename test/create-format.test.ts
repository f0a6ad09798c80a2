/**
 * Creation through the format package (issue #13): `createDataset(path, { format })` looks the
 * chunk format up by name and lets its creator plan the header (`layout: 'sparse'` = `format:
 * 'sparse'`); a missing or read-only format is a typed error naming it; the `chunkIndex` option
 * picks the chunk index, and h5py reads the dense files made with every choice chunkform creates
 * (all but the v1 B-tree, which it only reads).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import {
  createContainer,
  createFile,
  MemoryStore,
  openFile,
  registerChunkFormat,
  selectPoints,
  UnsupportedError,
  ValueError,
  type ChunkFormatProvider,
  type CreateDatasetOptions,
  type Dataset,
} from '../packages/core/src/index.js';
import { registerIndexes } from '../packages/indexes/src/index.js';
import { sparseFormatProvider } from '../packages/format-sparse/src/index.js';
import { PYTHON, requireH5py } from './oracle/fixtures.js';

const TMP = mkdtempSync(join(tmpdir(), 'chunkform-create-format-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const headerBytes = (d: Dataset): string[] => d.headerModel.messages.map((m) => `${m.type}:${Buffer.from(m.body).toString('hex')}`);

describe('createDataset({ format })', () => {
  it("format: 'sparse' plans the same header as layout: 'sparse', and format: 'dense' the same as chunks", async () => {
    const f = await createFile(new MemoryStore());
    const common: CreateDatasetOptions = { dtype: 'uint16', shape: [6, 8], chunks: [3, 4], compression: 'gzip' };
    const a = await f.createDataset('a', { ...common, layout: 'sparse', filters: { selection: 'compact' } });
    const b = await f.createDataset('b', { ...common, format: 'sparse', filters: { selection: 'compact' } });
    expect(headerBytes(b)).toEqual(headerBytes(a));
    expect(b.layout.class).toBe('structured');
    const c = await f.createDataset('c', { ...common });
    const d = await f.createDataset('d', { ...common, format: 'dense' });
    expect(headerBytes(d)).toEqual(headerBytes(c));
    expect(d.layout.class).toBe('chunked');
    await b.write([7, 9], selectPoints([[0, 0], [5, 7]]));
    expect(Array.from((await b.readDefined()).values as Uint16Array)).toEqual([7, 9]);
    await f.close();
  });

  it('passes format options to the creator (sparse selectionEncoding, pipelineMessage) and refuses bad ones there', async () => {
    const f = await createFile(new MemoryStore());
    const d = await f.createDataset('s', { dtype: 'float32', shape: [4], format: 'sparse', pipelineMessage: 'stc', compression: 'gzip' });
    expect(d.headerModel.messages.some((m) => m.type === 0x19)).toBe(true);
    await expect(f.createDataset('t', { dtype: 'float32', shape: [4], format: 'sparse', selectionEncoding: 'densest' })).rejects.toThrow(/unknown selectionEncoding "densest"/);
    await expect(f.createDataset('u', { dtype: 'float32', shape: [4], format: 'sparse', filters: { values: [], pixels: [] } })).rejects.toThrow(/unknown section "pixels"/);
    await expect(f.createDataset('v', { dtype: 'float32', shape: [4], filters: { values: [] } })).rejects.toThrow(/per-section filters/);
    expect(await f.keys()).toEqual(['s']);
    await f.close();
  });

  it('a missing, read-only or contradictory format is a typed error and the file stays as it was', async () => {
    const f = await createFile(new MemoryStore());
    await expect(f.createDataset('x', { dtype: 'uint8', shape: [4], format: 'nope' })).rejects.toThrow(UnsupportedError);
    await expect(f.createDataset('x', { dtype: 'uint8', shape: [4], format: 'nope' })).rejects.toThrow(/no chunk format "nope" is registered/);
    await expect(f.createDataset('x', { dtype: 'uint8', shape: [4], format: 'vl' })).rejects.toThrow(/install @chunkform\/format-vl/);
    await expect(f.createDataset('x', { dtype: 'uint8', shape: [4], format: 'sparse', layout: 'contiguous' })).rejects.toThrow(ValueError);
    await expect(f.createDataset('x', { dtype: 'uint8', shape: [4], format: 'dense', layout: 'sparse' })).rejects.toThrow(/contradicts/);
    expect(await f.keys()).toEqual([]);
    await f.close();

    // A provider without a creator reads its datasets but cannot create one (an empty container:
    // children of chunkform's default container would see its sparse format).
    const container = createContainer(null);
    registerIndexes(container);
    const { creator: _c, ...readOnly } = sparseFormatProvider;
    registerChunkFormat({ ...readOnly, name: 'sparse-readonly' } as ChunkFormatProvider, container);
    const g = await createFile(new MemoryStore(), { container });
    await expect(g.createDataset('x', { dtype: 'uint8', shape: [4], format: 'sparse-readonly' })).rejects.toThrow(/reads datasets but cannot create them/);
    // and the process-wide sparse format is not in this container
    await expect(g.createDataset('x', { dtype: 'uint8', shape: [4], format: 'sparse' })).rejects.toThrow(/install @chunkform\/format-sparse and call registerSparseFormat/);
    await g.close();
  });
});

/** One dense dataset per `chunkIndex` choice (shape 8 × 6, chunks 4 × 3 unless the choice needs others). */
const DENSE_CASES: [string, Partial<CreateDatasetOptions>][] = [
  ['single', { chunks: [8, 6] }],
  ['implicit', { chunks: [4, 3] }],
  ['fixed-array', { chunks: [4, 3], compression: 'gzip' }],
  ['fixed-array', { chunks: [4, 3] }],
  ['extensible-array', { chunks: [4, 3], maxShape: [null, 6], compression: 'gzip' }],
  ['btree2', { chunks: [4, 3] }],
  ['btree2', { chunks: [4, 3], maxShape: [null, 6], shuffle: true, compression: 'gzip' }],
  ['btree2', { chunks: [4, 3], maxShape: [null, null] }],
];
const values = Int32Array.from({ length: 48 }, (_, i) => i * 3 - 20);

describe('chunkIndex', () => {
  it('makes the asked index; chunkform reads it back and h5py reads every file', async () => {
    requireH5py();
    const path = join(TMP, 'indexes.h5');
    const f = await createFile(path);
    for (const [i, [chunkIndex, opts]] of DENSE_CASES.entries()) {
      await f.createDataset(`d${i}`, { dtype: 'int32', shape: [8, 6], ...opts, chunkIndex: chunkIndex as CreateDatasetOptions['chunkIndex'], data: values });
    }
    // A partly written dataset: unwritten chunks read as the fill value.
    const p = await f.createDataset('partial', { dtype: 'int32', shape: [8, 6], chunks: [4, 3], chunkIndex: 'implicit', fillValue: -1 });
    await p.set([1, 2, 3], 0, [0, 3]);
    await f.close();
    const r = await openFile(path);
    for (const [i, [chunkIndex]] of DENSE_CASES.entries()) {
      const d = (await r.get(`d${i}`)) as Dataset;
      expect(d.layout.class === 'chunked' && d.layout.index.type, `d${i}`).toBe(chunkIndex);
      expect(Array.from((await d.read()) as Int32Array), `d${i}`).toEqual(Array.from(values));
    }
    await r.close();
    const script = [
      'import h5py, sys, json',
      'f = h5py.File(sys.argv[1], "r")',
      'print(json.dumps({k: f[k][()].ravel().tolist() for k in f}))',
    ].join('\n');
    const got = JSON.parse(execFileSync(PYTHON, ['-c', script, path], { encoding: 'utf8' })) as Record<string, number[]>;
    for (let i = 0; i < DENSE_CASES.length; i++) expect(got[`d${i}`], `h5py d${i} (${DENSE_CASES[i]![0]})`).toEqual(Array.from(values));
    const partial = new Array<number>(48).fill(-1);
    partial.splice(0, 3, 1, 2, 3);
    expect(got.partial).toEqual(partial);
  });

  it('sparse datasets take single, fixed-array, extensible-array and btree2', async () => {
    const store = new MemoryStore();
    const f = await createFile(store);
    const cases: [string, Partial<CreateDatasetOptions>][] = [
      ['single', { chunks: [8, 6] }],
      ['fixed-array', { chunks: [4, 3] }],
      ['extensible-array', { chunks: [4, 3], maxShape: [null, 6] }],
      ['btree2', { chunks: [4, 3], compression: 'gzip' }],
    ];
    for (const [i, [chunkIndex, opts]] of cases.entries()) {
      const d = await f.createDataset(`s${i}`, { dtype: 'int32', shape: [8, 6], format: 'sparse', ...opts, chunkIndex: chunkIndex as CreateDatasetOptions['chunkIndex'] });
      await d.set([5, 6], 7, [4, 6]);
    }
    await f.close();
    const r = await openFile(store);
    for (const [i, [chunkIndex]] of cases.entries()) {
      const d = (await r.get(`s${i}`)) as Dataset;
      expect(d.layout.class === 'structured' && d.layout.index.type).toBe(chunkIndex);
      expect(Array.from((await d.readDefined()).values as Int32Array)).toEqual([5, 6]);
    }
    await r.close();
  });

  it('an unknown or unsuitable choice is a ValueError naming the option, before anything is stored', async () => {
    const f = await createFile(new MemoryStore());
    const bad: [Partial<CreateDatasetOptions>, RegExp][] = [
      [{ chunkIndex: 'bogus' as never }, /unknown chunkIndex "bogus"; use 'single', 'implicit'/],
      [{ chunkIndex: 'single' }, /chunkIndex 'single' does not suit this dataset: a single-chunk index needs shape = maxShape = chunks/],
      [{ chunkIndex: 'fixed-array', maxShape: [null, 6] }, /chunkIndex 'fixed-array'.*without unlimited dimensions/],
      [{ chunkIndex: 'extensible-array' }, /chunkIndex 'extensible-array'.*exactly one unlimited dimension \(maxShape has 0\)/],
      [{ chunkIndex: 'extensible-array', maxShape: [null, null] }, /exactly one unlimited dimension \(maxShape has 2\)/],
      [{ chunkIndex: 'implicit', compression: 'gzip' }, /chunkIndex 'implicit'.*cannot hold filtered chunks/],
      [{ chunkIndex: 'implicit', allocTime: 'incremental' }, /chunkIndex 'implicit'.*allocTime: 'early'/],
      [{ chunkIndex: 'implicit', format: 'sparse' }, /chunkIndex 'implicit'.*structured-chunk layouts/],
      [{ chunkIndex: 'btree1', format: 'sparse' }, /chunkIndex 'btree1'.*structured-chunk layouts/],
      [{ chunkIndex: 'btree1' }, /chunkIndex 'btree1'.*reads v1 B-tree chunk indexes .* but does not create them/],
      [{ chunkIndex: 'fixed-array', layout: 'contiguous' }, /layout 'contiguous' cannot have chunks, filters, a chunkIndex/],
    ];
    for (const [opts, message] of bad) {
      const p = f.createDataset('x', { dtype: 'int32', shape: [8, 6], chunks: [4, 3], ...opts });
      await expect(p, JSON.stringify(opts)).rejects.toThrow(message);
      await expect(f.createDataset('x', { dtype: 'int32', shape: [8, 6], chunks: [4, 3], ...opts })).rejects.toBeInstanceOf(ValueError);
    }
    expect(await f.keys()).toEqual([]);
    await f.close();
  });
});
