import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createFile, openFile, selectionEquals, type Dataset } from '@chunkform/core';
import { registerEverything } from '../src/index.js';
import { cli } from './support/run-cli.js';

let dir: string;
let src: string;

function py(code: string): string {
  return execFileSync('/usr/bin/python3', ['-c', code], { encoding: 'utf8', cwd: dir });
}

beforeAll(() => {
  registerEverything();
  dir = mkdtempSync(join(tmpdir(), 'chunkform-copy-'));
  src = join(dir, 'src.h5');
  py(`
import h5py, numpy as np
with h5py.File('src.h5', 'w') as f:
    d = f.create_dataset('run/frames', data=np.arange(6000, dtype='u2').reshape(6, 20, 50), chunks=(1, 20, 50), compression='gzip', shuffle=True)
    d.attrs['gain'] = 2.5
    f['run/meta/x'] = np.arange(5)
    f['run/link'] = h5py.SoftLink('/run/meta/x')
    f['top'] = 7
`);
});

describe('chunkform copy', () => {
  it('copies a dataset into a new file with its chunks byte for byte', async () => {
    const out = join(dir, 'one.h5');
    const r = await cli('copy', '-q', '-v', '-i', src, '-o', out, '-s', '/run/frames', '-d', '/a/b/frames', '-p');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Copying file <${src}> and object </run/frames> to file <${out}> and object </a/b/frames>\n`);
    const f1 = await openFile(src);
    const f2 = await openFile(out);
    const a = (await f1.get('/run/frames')) as Dataset;
    const b = (await f2.get('/a/b/frames')) as Dataset;
    expect(b.chunks).toEqual([1, 20, 50]);
    expect(b.filters.map((x) => x.id)).toEqual([2, 1]);
    expect(await b.numChunks()).toBe(6);
    for (let i = 0; i < 6; i++) expect((await b.readChunk([i, 0, 0])).bytes).toEqual((await a.readChunk([i, 0, 0])).bytes);
    await f1.close();
    await f2.close();
    expect(py(`
import h5py, numpy as np
a, b = h5py.File('src.h5'), h5py.File('one.h5')
print(np.array_equal(a['run/frames'][()], b['a/b/frames'][()]), b['a/b/frames'].attrs['gain'])`).trim()).toBe('True 2.5');
  });

  it('copies a group tree into an existing file (links kept, -f noattr, -f soft, -f shallow)', async () => {
    const out = join(dir, 'tree.h5');
    const f = await createFile(out);
    await f.createDataset('existing', { dtype: 'int8', shape: [2], data: [1, 2] });
    await f.close();
    expect((await cli('copy', '-q', '-i', src, '-o', out, '-s', '/run', '-d', '/run', '-f', 'noattr')).code).toBe(0);
    expect((await cli('copy', '-q', '-i', src, '-o', out, '-s', '/run', '-d', '/expanded', '-f', 'soft')).code).toBe(0);
    expect((await cli('copy', '-q', '-i', src, '-o', out, '-s', '/run', '-d', '/shallow', '-f', 'shallow')).code).toBe(0);
    expect(
      py(`
import h5py, numpy as np
f = h5py.File('tree.h5')
assert f['existing'][()].tolist() == [1, 2]
assert f['run'].get('link', getlink=True).path == '/run/meta/x'
assert 'gain' not in f['run/frames'].attrs
assert isinstance(f['expanded'].get('link', getlink=True), h5py.HardLink) and f['expanded/link'][()].tolist() == [0, 1, 2, 3, 4]
assert f['expanded/frames'].attrs['gain'] == 2.5
assert list(f['shallow']) == ['frames', 'link', 'meta'] and list(f['shallow/meta']) == []
print('ok')`).trim(),
    ).toBe('ok');
  });

  it('keeps the defined elements of sparse datasets', async () => {
    const sp = join(dir, 'sparse.h5');
    const f = await createFile(sp, { superblockVersion: 3 });
    const d = await f.createDataset('s', { dtype: 'float32', shape: [8, 8], chunks: [4, 4], layout: 'sparse', compression: 'gzip' });
    await d.set([1, 2, 3], 2, [1, 4]);
    await d.set([0], 7, 7);
    const defined = await d.getDefined();
    await f.close();
    const out = join(dir, 'sparse-copy.h5');
    expect((await cli('copy', '-q', '-i', sp, '-o', out, '-s', 's', '-d', 'c')).code).toBe(0);
    const g = await openFile(out);
    const c = (await g.get('c')) as Dataset;
    expect(selectionEquals(await c.getDefined(), defined, [8, 8])).toBe(true);
    await g.close();
    expect((await cli('diff', '--defined', sp, out, '/s', '/c')).code).toBe(0);
  });

  it('fails with one line and leaves an existing output as it was', async () => {
    const out = join(dir, 'one.h5');
    const before = readFileSync(out);
    const cases: [string[], RegExp][] = [
      [['-s', '/nothere', '-d', '/x'], /object "\/nothere" does not exist/],
      [['-s', '/top', '-d', '/a/b/frames'], /destination object "\/a\/b\/frames" already exists/],
      [['-s', '/top', '-d', '/no/parent'], /destination parent group "\/no" does not exist \(use -p to create it\)/],
      [['-s', '/top', '-d', '/t', '-f', 'ref'], /-f ref is not supported/],
    ];
    for (const [args, message] of cases) {
      const r = await cli('copy', '-q', '-i', src, '-o', out, ...args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(readFileSync(out).equals(before)).toBe(true);
    }
    expect((await cli('copy', '-i', src, '-o', out, '-s', '/top')).code).toBe(2);
  });
});
