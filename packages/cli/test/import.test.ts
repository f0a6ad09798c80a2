import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openFile, selectBlocks, selectionEquals, type Dataset } from '@chunkform/core';
import { registerEverything } from '../src/index.js';
import { cli } from './support/run-cli.js';

let dir: string;

function py(code: string): string {
  return execFileSync('/usr/bin/python3', ['-c', code], { encoding: 'utf8', cwd: dir });
}

async function dataset<T>(file: string, path: string, body: (d: Dataset) => Promise<T>): Promise<T> {
  const f = await openFile(file);
  try {
    return await body((await f.get(path)) as Dataset);
  } finally {
    await f.close();
  }
}

/** Seed 003 figure 3 as `chunkform dump --sparse` prints it. */
const FIG3 = `HDF5 "fig3.h5" {
DATASET "Sparse" {
   DATATYPE  H5T_STD_I16LE
   DATASPACE  SIMPLE { ( 13, 10 ) / ( 13, 10 ) }
   REGION_TYPE BLOCK (2,2)-(4,7)
   DATA {
   (2,2): 66, 69, 72, 75, 78, 81,
   (3,2): 96, 99, 102, 105, 108, 111,
   (4,2): 126, 129, 132, 135, 138, 141
   }
   REGION_TYPE BLOCK (6,0)-(6,2)
   DATA {
   (6,0): 100, 0, -100
   }
   REGION_TYPE POINT (5,9), (11,1), (12,8)
   DATA {
   (5,9): 2
   (11,1): 1
   (12,8): 3
   }
}
}
`;

beforeAll(() => {
  registerEverything();
  dir = mkdtempSync(join(tmpdir(), 'chunkform-import-'));
  py(`
import numpy as np
a = np.zeros((4, 30, 40), dtype='>u2'); a[:, 3:9, 10:20] = np.arange(240, dtype='u2').reshape(4, 6, 10) + 1
np.save('frames.npy', a)
np.arange(20, dtype='<i8').tofile('r.bin')
`);
  writeFileSync(join(dir, 't.csv'), '# a table\n1.5, 2, 3\n4; 5 6\n');
  writeFileSync(join(dir, 'c.coo'), '0 1 5\n3 2 -7\n1 1 0\n');
  writeFileSync(join(dir, 'fig3.ddl'), FIG3);
});

describe('chunkform import', () => {
  it('imports .npy, raw binary and CSV into dense datasets h5py reads', async () => {
    expect((await cli('import', '-q', join(dir, 'frames.npy'), join(dir, 'npy.h5'))).code).toBe(0);
    expect((await cli('import', '-q', '--dtype', '<i8', '--shape', '4x5', '-d', 'g/raw', join(dir, 'r.bin'), join(dir, 'raw.h5'))).code).toBe(0);
    expect((await cli('import', '-q', '--dtype', 'float32', '-l', 'CHUNK=1x3', '-f', 'GZIP=5', join(dir, 't.csv'), join(dir, 'csv.h5'))).code).toBe(0);
    expect(
      py(`
import h5py, numpy as np
a = np.load('frames.npy')
d = h5py.File('npy.h5')['data']
assert d.dtype == a.dtype and np.array_equal(d[()], a)
r = h5py.File('raw.h5')['g/raw']
assert r.dtype == np.int64 and np.array_equal(r[()], np.arange(20).reshape(4, 5))
c = h5py.File('csv.h5')['data']
assert c.dtype == np.float32 and c.chunks == (1, 3) and c.compression == 'gzip'
assert c[()].tolist() == [[1.5, 2, 3], [4, 5, 6]]
print('ok')`).trim(),
    ).toBe('ok');
  });

  it('imports a dense array into a sparse dataset with --exclude', async () => {
    const out = join(dir, 'npy-sparse.h5');
    expect((await cli('import', '-q', '-l', 'SPARSECHUNK=1x30x40', '--exclude', '0', '-f', 'GZIP=4', join(dir, 'frames.npy'), out)).code).toBe(0);
    await dataset(out, 'data', async (d) => {
      expect(d.layout.class).toBe('structured');
      const def = await d.getDefined();
      expect(selectionEquals(def, selectBlocks([{ start: [0, 3, 10], end: [4, 9, 20] }]), [4, 30, 40])).toBe(true);
    });
    const back = join(dir, 'npy-back.h5');
    expect((await cli('repack', '-q', '-l', 'data:CONTI', out, back)).code).toBe(0);
    expect(py(`
import h5py, numpy as np
print(np.array_equal(h5py.File('npy-back.h5')['data'][()], np.load('frames.npy')))`).trim()).toBe('True');
  });

  it('imports COO triplets into a sparse dataset (a stored 0 stays defined)', async () => {
    const out = join(dir, 'coo.h5');
    expect((await cli('import', '-q', '--dtype', 'int32', '--shape', '5x4', join(dir, 'c.coo'), out)).code).toBe(0);
    await dataset(out, 'data', async (d) => {
      expect(d.shape).toEqual([5, 4]);
      const { selection, values } = await d.readDefined();
      expect(selectionEquals(selection, selectBlocks([
        { start: [0, 1], end: [2, 2] },
        { start: [3, 2], end: [4, 3] },
      ]), [5, 4])).toBe(true);
      expect(Array.from(values as Int32Array)).toEqual([5, 0, -7]);
    });
  });

  it('re-imports the dump --sparse text of the sparse RFC figure 3 (docs/cli.md) to the same content', async () => {
    const out = join(dir, 'fig3.h5');
    const r = await cli('import', '-q', '-l', 'SPARSECHUNK=5x4', join(dir, 'fig3.ddl'), out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    await dataset(out, 'Sparse', async (d) => {
      expect(d.shape).toEqual([13, 10]);
      expect(d.chunks).toEqual([5, 4]);
      const expected = selectBlocks([
        { start: [2, 2], end: [5, 8] },
        { start: [6, 0], end: [7, 3] },
        { start: [5, 9], end: [6, 10] },
        { start: [11, 1], end: [12, 2] },
        { start: [12, 8], end: [13, 9] },
      ]);
      expect(selectionEquals(await d.getDefined(), expected, [13, 10])).toBe(true);
      const all = Array.from((await d.read()) as Int16Array);
      expect(all.slice(60, 63)).toEqual([100, 0, -100]);
      expect(all[5 * 10 + 9]).toBe(2);
      expect(all[11 * 10 + 1]).toBe(1);
      expect(all[12 * 10 + 8]).toBe(3);
    });
    // the same content through another route (dense, then --defined-elements) compares equal with --defined
    const dense = join(dir, 'fig3-dense.h5');
    expect((await cli('repack', '-q', '-l', 'Sparse:CONTI', out, dense)).code).toBe(0);
    const again = join(dir, 'fig3-again.h5');
    const ddl = 'BLOCK (2,2)-(4,7), (6,0)-(6,2) POINT (5,9), (11, 1), (12,8)';
    expect((await cli('repack', '-q', '-l', 'Sparse:SPARSECHUNK=5x4', '--defined-elements', ddl, dense, again)).code).toBe(0);
    expect((await cli('diff', '--defined', out, again)).code).toBe(0);
  });

  it('rejects bad input with one line and writes nothing', async () => {
    writeFileSync(join(dir, 'bad.csv'), '1,2\n3\n');
    const cases: [string[], RegExp][] = [
      [[join(dir, 'r.bin')], /raw input needs --dtype/],
      [['--dtype', 'int32', join(dir, 'bad.csv')], /bad\.csv:2: 1 values where the first row has 2/],
      [['--dtype', 'int16', '--shape', '100x100', join(dir, 'r.bin')], /needs 20000 bytes of data, the file has 160/],
      [['--dtype', 'int32', '--shape', '2x2', join(dir, 'c.coo')], /entry 2 \(3,2\) is outside shape \[2, 2\]/],
      [['-l', 'CONTI', '-f', 'GZIP=1', join(dir, 'frames.npy')], /filters need a chunked layout/],
    ];
    for (const [args, message] of cases) {
      const out = join(dir, 'bad.h5');
      const r = await cli('import', '-q', ...args, out);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(out)).toBe(false);
    }
    expect((await cli('import', '--format', 'xls', join(dir, 't.csv'), join(dir, 'x.h5'))).code).toBe(2);
  });
});
