import { spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createFile } from '@chunkform/core';
import { registerEverything } from '../src/index.js';
import { formatG } from '../src/commands/diff/index.js';
import { cli } from './support/run-cli.js';

let dir: string;

beforeAll(() => {
  registerEverything();
  dir = mkdtempSync(join(tmpdir(), 'chunkform-diff-'));
  execFileSync('/usr/bin/python3', ['-c', `
import h5py, numpy as np, os
os.chdir('${dir}')
with h5py.File('a.h5', 'w') as f:
    f['x'] = np.array([1, 2, 3], dtype='i4')
    f['m'] = np.arange(6.).reshape(2, 3)
    f['same'] = np.arange(4)
    f['onlya'] = np.arange(2)
    f.create_group('g')['y'] = np.array([1.0, 2.0])
    f['t'] = np.arange(3, dtype='i4')
with h5py.File('b.h5', 'w') as f:
    f['x'] = np.array([1, 5, 3], dtype='i4')
    m = np.arange(6.).reshape(2, 3); m[1, 2] = 5.5; m[0, 0] = 0.001
    f['m'] = m
    f['same'] = np.arange(4)
    f['onlyb'] = np.arange(2)
    f.create_group('g')['y'] = np.array([1.0, 2.0001])
    f['t'] = np.arange(4, dtype='i4')
with h5py.File('c.h5', 'w') as f:
    f['v'] = np.array([1/3, 1e-20, 123456789.123, 0, -5], dtype='f8')
    f['f4'] = np.array([1/3, 2], dtype='f4')
    f['u8'] = np.array([1, 2**40], dtype='u8')
    f['i1'] = np.array([1, -2], dtype='i1')
    f['x'] = np.array([1, 2, 3], dtype='i4')
    f['big'] = np.arange(200000, dtype='i4').reshape(400, 500)
    f.attrs['at'] = 1
with h5py.File('d.h5', 'w') as f:
    f['v'] = np.array([2/3, 2e-20, 123456780.0, 1, -5.1], dtype='f8')
    f['f4'] = np.array([1/3 + 0.1, 2], dtype='f4')
    f['u8'] = np.array([1, 2**40 + 5], dtype='u8')
    f['i1'] = np.array([1, 3], dtype='i1')
    f['x'] = np.array([1, 2, 3], dtype='i2')
    b = np.arange(200000, dtype='i4').reshape(400, 500); b[399, 499] = 0; b[7, 3] += 2
    f.create_dataset('big', data=b, chunks=(64, 64), compression='gzip')
    f.attrs['at'] = 2
with h5py.File('n1.h5', 'w') as f:
    f['x'] = np.array([np.nan, 1, 2]); f['s'] = np.int32(3)
with h5py.File('n2.h5', 'w') as f:
    f['x'] = np.array([np.nan, np.nan, 2]); f['s'] = np.int32(4)
inner = np.dtype([('p', '<i2'), ('q', '<f4')])
kt = np.dtype([('x', '<i4'), ('y', '<f8'), ('name', 'S4'), ('n', inner), ('big', '<i8')])
for name, rows in [('k1.h5', [(1, 0.5, b'ab', (1, 1.0), 5), (2, -1.5, b'cdef', (2, 2.0), 6)]), ('k2.h5', [(1, 0.5, b'xy', (1, 1.5), 5), (2, -1.5, b'cdzz', (3, 2.0), 9)])]:
    with h5py.File(name, 'w') as f:
        f['table'] = np.array(rows, dtype=kt)
        f['table'].attrs['c'] = np.array(rows, dtype=kt)
        f['grid'] = np.array(rows * 3, dtype=kt).reshape(2, 3)
h5py.File('e.h5', 'w')['x'] = np.arange(3)
with h5py.File('e2.h5', 'w') as f:
    f['x'] = np.arange(3); f['y'] = 1
`]);
});

describe('chunkform diff against h5diff 1.10', () => {
  const cases: string[][] = [
    ['a.h5', 'b.h5'],
    ['-r', 'a.h5', 'b.h5'],
    ['-v', 'a.h5', 'b.h5'],
    ['-c', 'a.h5', 'b.h5'],
    ['-q', 'a.h5', 'b.h5'],
    ['a.h5', 'b.h5', '/x', '/x'],
    ['a.h5', 'a.h5'],
    ['-r', 'c.h5', 'd.h5'],
    ['-r', '-p', '0.2', 'c.h5', 'd.h5', '/v'],
    ['-r', '-d', '0.5', 'c.h5', 'd.h5', '/v'],
    ['-r', '--use-system-epsilon', 'c.h5', 'd.h5', '/f4'],
    ['-r', '-p', '0.01', 'c.h5', 'd.h5', '/i1'],
    ['-r', 'c.h5', 'd.h5', '/big'],
    ['e.h5', 'e2.h5'],
    ['-r', 'n1.h5', 'n2.h5'],
    ['-r', '-p', '0.01', 'n1.h5', 'n2.h5', '/s'],
    // compound values: member by member, nested members flattened, strings character by character
    ['k1.h5', 'k2.h5'],
    ['-r', 'k1.h5', 'k2.h5'],
    ['-v', 'k1.h5', 'k2.h5'],
    ['-q', 'k1.h5', 'k2.h5'],
    ['-c', 'k1.h5', 'k2.h5'],
    ['-r', '-d', '0.5', 'k1.h5', 'k2.h5'],
    ['-r', '-p', '0.1', 'k1.h5', 'k2.h5', '/table'],
    ['-r', '--use-system-epsilon', 'k1.h5', 'k2.h5', '/grid'],
  ];
  for (const args of cases) {
    it(`diff ${args.join(' ')}`, async () => {
      const ref = spawnSync('h5diff', args, { cwd: dir, encoding: 'utf8' });
      const ours = await cli('diff', ...args.map((a) => (a.endsWith('.h5') ? join(dir, a) : a)));
      expect(ours.stderr).toBe('');
      expect(ours.stdout).toBe(ref.stdout);
      expect(ours.code).toBe(ref.status);
    });
  }

  it('errors exit 2 with one line', async () => {
    let r = await cli('diff', join(dir, 'a.h5'), join(dir, 'b.h5'), '/nothere');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`chunkform diff: Object </nothere> could not be found in <${join(dir, 'a.h5')}>\n`);
    r = await cli('diff', join(dir, 'a.h5'), join(dir, 'missing.h5'));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/missing\.h5>: unable to open file/);
    expect((await cli('diff', '-d', 'x', join(dir, 'a.h5'), join(dir, 'b.h5'))).code).toBe(2);
    expect((await cli('diff', '-d', '1', '-p', '1', join(dir, 'a.h5'), join(dir, 'b.h5'))).code).toBe(2);
  });
});

describe('chunkform diff of sparse datasets', () => {
  it('compares undefined elements as the fill value; --defined also compares which are defined', async () => {
    const make = async (name: string, zeroDefined: boolean): Promise<string> => {
      const path = join(dir, name);
      const f = await createFile(path, { superblockVersion: 3 });
      const d = await f.createDataset('s', { dtype: 'int32', shape: [6, 8], chunks: [3, 4], layout: 'sparse', fillValue: 0 });
      await d.set([5, 6, 7], 1, [2, 5]);
      if (zeroDefined) await d.set([0], 4, [7, 8]);
      await f.close();
      return path;
    };
    const p1 = await make('s1.h5', false);
    const p2 = await make('s2.h5', true);
    expect((await cli('diff', p1, p2)).code).toBe(0);
    const r = await cli('diff', '-r', '--defined', p1, p2);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('[ 4 7 ]          undefined       0               defined differs');
    expect(r.stdout).toContain('1 differences found');
    // dense copy of the same values: equal by value
    const dense = join(dir, 's-dense.h5');
    expect((await cli('repack', '-q', '-l', 's:CHUNK=6x8', p2, dense)).code).toBe(0);
    expect((await cli('diff', p2, dense)).code).toBe(0);
    expect((await cli('diff', '--defined', p2, dense)).code).toBe(1);
  });
});

describe('formatG', () => {
  it('prints like C printf %g', () => {
    expect([0.1, 1 / 3, 1e-20, 123456789.123, 100000, 1000000, 0.0001, 0.00001, -2.5, 1e21].map((x) => formatG(x))).toEqual([
      '0.1', '0.333333', '1e-20', '1.23457e+08', '100000', '1e+06', '0.0001', '1e-05', '-2.5', '1e+21',
    ]);
    expect(formatG(1 / 3, 10)).toBe('0.3333333333');
  });
});
