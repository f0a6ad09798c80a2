import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFile, ValueError, type Dataset } from '@chunkform/core';
import { chooseChunkIndex, type AllocTime } from '@chunkform/core';

interface Case {
  name: string;
  shape: number[];
  maxshape: (number | null)[];
  chunks: number[];
  gzip: boolean;
  early: boolean;
}

const CASES: Case[] = [
  { name: 'single', shape: [10, 10], maxshape: [10, 10], chunks: [10, 10], gzip: false, early: false },
  { name: 'single_gzip', shape: [10, 10], maxshape: [10, 10], chunks: [10, 10], gzip: true, early: false },
  { name: 'single_early', shape: [10], maxshape: [10], chunks: [10], gzip: false, early: true },
  { name: 'fa', shape: [10, 10], maxshape: [10, 10], chunks: [5, 5], gzip: false, early: false },
  { name: 'implicit', shape: [10, 10], maxshape: [10, 10], chunks: [5, 5], gzip: false, early: true },
  { name: 'fa_early_gzip', shape: [10, 10], maxshape: [10, 10], chunks: [5, 5], gzip: true, early: true },
  { name: 'fa_growable', shape: [10, 10], maxshape: [20, 20], chunks: [10, 10], gzip: false, early: false },
  { name: 'implicit_growable', shape: [10, 10], maxshape: [20, 20], chunks: [10, 10], gzip: false, early: true },
  { name: 'ea', shape: [10, 10], maxshape: [null, 10], chunks: [5, 5], gzip: false, early: false },
  { name: 'ea_1d_one_chunk', shape: [10], maxshape: [null], chunks: [10], gzip: false, early: false },
  { name: 'ea_early', shape: [10, 10], maxshape: [10, null], chunks: [10, 10], gzip: false, early: true },
  { name: 'bt2', shape: [10, 10], maxshape: [null, null], chunks: [5, 5], gzip: true, early: false },
  { name: 'bt2_early', shape: [10, 10], maxshape: [null, null], chunks: [10, 10], gzip: false, early: true },
  { name: 'bt2_3d', shape: [4, 5, 6], maxshape: [null, 5, null], chunks: [2, 5, 3], gzip: false, early: false },
  { name: 'fa_4d', shape: [3, 4, 5, 6], maxshape: [3, 4, 5, 6], chunks: [1, 2, 5, 6], gzip: true, early: false },
];

describe('chooseChunkIndex picks what HDF5 1.10 (libver latest) picks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cf-choose-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'choose.h5');
  const script = `
import h5py, json, sys
cases = json.loads(sys.argv[2])
with h5py.File(sys.argv[1], 'w', libver='latest') as f:
    for c in cases:
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk(tuple(c['chunks']))
        if c['gzip']:
            dcpl.set_deflate(4)
        if c['early']:
            dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
        mx = tuple(h5py.h5s.UNLIMITED if m is None else m for m in c['maxshape'])
        space = h5py.h5s.create_simple(tuple(c['shape']), mx)
        h5py.h5d.create(f.id, c['name'].encode(), h5py.h5t.STD_I32LE, space, dcpl=dcpl)
`;
  execFileSync('/usr/bin/python3', ['-c', script, file, JSON.stringify(CASES)]);

  for (const c of CASES) {
    it(c.name, async () => {
      const f = await openFile(new Uint8Array(readFileSync(file)));
      const d = (await f.get(c.name)) as Dataset;
      if (d.layout.class !== 'chunked') throw new Error('not chunked');
      const allocTime: AllocTime = c.early ? 'early' : 'default';
      const got = chooseChunkIndex({ dims: c.shape, maxDims: c.maxshape, chunkDims: c.chunks, filtered: c.gzip, allocTime });
      const info = d.layout.index;
      // HDF5 stores the single-chunk record in the layout; only the type and parameters are compared.
      expect(got).toEqual(info.type === 'single' ? { type: 'single' } : info);
      expect(chooseChunkIndex({ dims: c.shape, maxDims: c.maxshape.map((m) => m ?? -1), chunkDims: c.chunks, filtered: c.gzip, allocTime })).toEqual(got);
    });
  }

  it('defaults and argument checks', () => {
    expect(chooseChunkIndex({ dims: [4, 4], chunkDims: [4, 4], filtered: false })).toEqual({ type: 'single' });
    expect(chooseChunkIndex({ dims: [4, 4], chunkDims: [2, 4], filtered: false, allocTime: 'incremental' })).toEqual({ type: 'fixed-array', pageBits: 10 });
    expect(() => chooseChunkIndex({ dims: [4], chunkDims: [2, 2], filtered: false })).toThrow(ValueError);
  });
});
