/**
 * A file holding VL-chunked datasets stays readable by HDF5 for everything else (docs/format-vl.md):
 * h5py (Debian's, HDF5 1.10) and h5wasm read the file's other datasets, groups and attributes —
 * an ordinary VL string dataset (global heap), chunked gzip numbers, a contiguous array — while
 * the VL-chunked datasets (unknown layout class 4 to them) read back here, also after reopening.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFile, openFile, selectPoints, type Dataset } from '@chunkform/core';
import { createVlDataset } from '../src/index.js';
import './support.js';

const PYTHON = '/usr/bin/python3';
const TMP = mkdtempSync(join(tmpdir(), 'chunkform-vl-interop-'));
const PATH = join(TMP, 'vl.h5');
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const LABELS = ['alpha', 'beta', 'gamma', 'δέλτα'];
const NUMBERS = Array.from({ length: 50 }, (_, i) => i * 3);
const VL_LINES = Array.from({ length: 40 }, (_, i) => `line ${i}: ${'x'.repeat(i % 7)}`);

beforeAll(async () => {
  const f = await createFile(PATH, { superblockVersion: 3 });
  await f.createDataset('plain/labels', { dtype: 'string', shape: [LABELS.length], data: LABELS });
  await f.createDataset('plain/numbers', { dtype: '<i4', shape: [50], chunks: [16], compression: 'gzip', data: NUMBERS });
  await f.attrs.set('title', 'file with VL chunks');
  await createVlDataset(f, 'vl/lines', { dtype: 'string', shape: [40], maxShape: [null], chunks: [16], compression: 'gzip', data: VL_LINES });
  const s = await createVlDataset(f, 'vl/sparse', { dtype: 'vlen<f8>', shape: [10, 10], chunks: [5, 5], sparse: true, filters: { entries: [{ id: 1 }] } });
  await s.write([[1.5, 2.5], [3]], selectPoints([[0, 0], [9, 9]]));
  await f.createDataset('plain/after', { dtype: '<f8', shape: [3], data: [0.5, 1.5, 2.5] });
  await f.close();
});

describe('a file with VL-chunked datasets', () => {
  it('h5py reads every other dataset, the groups and the attributes', () => {
    const script = `
import h5py, json, sys
out = {}
with h5py.File(sys.argv[1], 'r') as f:
    out['keys'] = sorted(f.keys())
    out['vl_keys'] = sorted(f['vl'].keys())
    out['labels'] = [x.decode() for x in f['plain/labels'][()]]
    out['numbers'] = f['plain/numbers'][()].tolist()
    out['after'] = f['plain/after'][()].tolist()
    t = f.attrs['title']
    out['title'] = t.decode() if isinstance(t, bytes) else t
    try:
        f['vl/lines'][()]
        out['vl'] = 'read'
    except Exception as e:
        out['vl'] = 'error'
print(json.dumps(out))
`;
    const r = spawnSync(PYTHON, ['-c', script, PATH], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toEqual({
      keys: ['plain', 'vl'],
      vl_keys: ['lines', 'sparse'],
      labels: LABELS,
      numbers: NUMBERS,
      after: [0.5, 1.5, 2.5],
      title: 'file with VL chunks',
      vl: 'error',
    });
  });

  it('h5wasm reads every other dataset', async () => {
    const h5wasm = (await import('h5wasm/node')).default;
    await h5wasm.ready;
    const hf = new h5wasm.File(PATH, 'r');
    try {
      expect((hf.get('plain/labels') as InstanceType<typeof h5wasm.Dataset>).value).toEqual(LABELS);
      expect(Array.from((hf.get('plain/numbers') as InstanceType<typeof h5wasm.Dataset>).value as Int32Array)).toEqual(NUMBERS);
      expect(Array.from((hf.get('plain/after') as InstanceType<typeof h5wasm.Dataset>).value as Float64Array)).toEqual([0.5, 1.5, 2.5]);
    } finally {
      hf.close();
    }
  });

  it('chunkform reads everything back', async () => {
    const f = await openFile(PATH);
    expect(await ((await f.get('vl/lines')) as Dataset).read()).toEqual(VL_LINES);
    const s = (await f.get('vl/sparse')) as Dataset;
    const { values } = await s.readDefined();
    expect((values as Float64Array[]).map((v) => Array.from(v))).toEqual([[1.5, 2.5], [3]]);
    expect(await ((await f.get('plain/labels')) as Dataset).read()).toEqual(LABELS);
    await f.close();
  });
});
