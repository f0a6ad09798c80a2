import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createFile, openFile, type Dataset } from '@chunkform/core';
import { registerEverything } from '../src/index.js';
import { cli } from './support/run-cli.js';

let dir: string;
let rich: string;

beforeAll(() => {
  registerEverything();
  dir = mkdtempSync(join(tmpdir(), 'chunkform-stat-'));
  rich = join(dir, 'rich.h5');
  execFileSync('/usr/bin/python3', ['-c', `
import h5py, numpy as np
with h5py.File('${rich}', 'w') as f:
    f.create_group('empty')
    g = f.create_group('many')
    for i in range(12): g[f'd{i}'] = np.arange(i + 1)
    for i in range(11): g.attrs[f'a{i}'] = i
    f.attrs['title'] = 'stat'
    f['one'] = np.arange(3.)
    f['big1d'] = np.arange(200)
    f['m'] = np.zeros((3, 4, 5), dtype='u2')
    f['scalar'] = 1.5
    f.create_dataset('sh', data=np.arange(100, dtype='f4'), chunks=(10,), shuffle=True, fletcher32=True, compression='gzip')
    f.create_dataset('so', data=np.arange(100, dtype='i4'), chunks=(10,), scaleoffset=0)
    f.create_dataset('c2', data=np.arange(1000, dtype='i8').reshape(10, 100), chunks=(5, 50), compression='gzip')
    f['ext'] = h5py.ExternalLink('x.h5', '/y')
    f['again'] = f['one']
`]);
});

describe('chunkform stat against h5stat 1.10', () => {
  for (const flag of ['-f', '-g', '-d', '-T', '-A']) {
    it(`stat ${flag} equals h5stat ${flag} (plus the STRUCTURED CHUNK SPARSE layout line)`, async () => {
      const ref = execFileSync('h5stat', [flag, rich], { encoding: 'utf8' });
      const r = await cli('stat', flag, rich);
      expect(r.code).toBe(0);
      const ours = r.stdout.split('\n').filter((l) => !l.includes('STRUCTURED CHUNK SPARSE')).join('\n');
      expect(ours).toBe(ref);
      if (flag === '-d') expect(r.stdout).toContain('\tDataset layout counts[STRUCTURED CHUNK SPARSE]: 0\n');
    });
  }

  it('-F prints the superblock and chunk index sizes h5stat measures', async () => {
    const ref = execFileSync('h5stat', ['-F', rich], { encoding: 'utf8' });
    const r = await cli('stat', '-F', rich);
    const superblock = /\tSuperblock: \d+\n/.exec(ref)![0];
    const index = /\tChunked datasets:\n\t\tIndex: \d+\n/.exec(ref)![0];
    expect(r.stdout).toContain(superblock);
    expect(r.stdout).toContain(index);
  });
});

describe('chunkform stat of sparse datasets', () => {
  it('counts sparse layouts, each filter once per dataset, and breaks sparse storage down', async () => {
    const path = join(dir, 'sparse.h5');
    const f = await createFile(path, { superblockVersion: 3 });
    const d = await f.createDataset('hits', { dtype: 'uint16', shape: [4, 64, 64], chunks: [1, 64, 64], layout: 'sparse', compression: 'gzip', shuffle: true });
    await d.set(Uint16Array.from({ length: 40 }, (_, i) => i + 1), 1, [3, 7], [10, 20]);
    await d.set([5], 3, 60, 60);
    await f.createDataset('dense', { dtype: 'int32', shape: [10], data: Int32Array.from({ length: 10 }, (_, i) => i), compression: 'gzip' });
    await f.close();
    const r = await cli('stat', path);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('\tDataset layout counts[STRUCTURED CHUNK SPARSE]: 1\n');
    expect(r.stdout).toContain('\tDataset layout counts[CHUNKED]: 1\n');
    // gzip and shuffle sit on both sections of /hits: counted once for it (docs/cli.md, sparse RFC §4.3), once for /dense
    expect(r.stdout).toContain('\t\tGZIP filter: 2\n');
    expect(r.stdout).toContain('\t\tSHUFFLE filter: 1\n');
    expect(r.stdout).toContain('\t\tDefined elements: 41\n');
    expect(r.stdout).toContain('\t\tChunks stored: 2\n');
    const g = await openFile(path);
    const hits = (await g.get('hits')) as Dataset;
    let sec0 = 0;
    let sec1 = 0;
    await hits.iterateStructChunks((c) => {
      sec0 += c.sectionSizes[0]!;
      sec1 += c.sectionSizes[1]!;
    });
    await g.close();
    expect(r.stdout).toContain(`\t\tSection 0 (selection) bytes: ${sec0}\n\t\tSection 1 (values) bytes: ${sec1}\n`);
    const index = Number(/\t\tIndex bytes: (\d+)\n/.exec(r.stdout)![1]);
    expect(index).toBeGreaterThan(0);
    expect(r.stdout).toContain(`\t\tBytes per defined element: ${((index + sec0 + sec1) / 41).toFixed(3)} (values alone: 2)\n`);
    const json = JSON.parse((await cli('stat', '--json', path)).stdout);
    expect(json.version).toBe(1);
    expect(json.layouts.sparse).toBe(1);
    expect(json.sparse[0].definedElements).toBe(41);
  });

  it('a missing file is one line on stderr and exit 1', async () => {
    const r = await cli('stat', join(dir, 'nope.h5'));
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
