import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createContainer,
  createFile,
  defaultContainer,
  openFile,
  registerFilter,
  selectionEquals,
  type Dataset,
  type Filter,
  type Selection,
} from '@chunkform/core';
import { registerEverything } from '../src/index.js';
import { parseDefinedElements, DefinedElementsError } from '../src/commands/repack/index.js';
import { cli } from './support/run-cli.js';

const PY = '/usr/bin/python3';
let dir: string;
let dense: string;

function py(code: string): string {
  return execFileSync(PY, ['-c', code], { encoding: 'utf8' });
}

/** The region DDL of a selection's canonical boxes (what `dump --sparse-locations` prints). */
function ddl(sel: Selection): string {
  if (sel.kind !== 'blocks') throw new Error(`expected blocks, got ${sel.kind}`);
  const r = sel.rank;
  const items: string[] = [];
  for (let i = 0; i < sel.boxCount; i++) {
    const o = i * 2 * r;
    const a = Array.from({ length: r }, (_, k) => sel.boxes[o + 2 * k]!);
    const b = Array.from({ length: r }, (_, k) => sel.boxes[o + 2 * k + 1]! - 1);
    items.push(`REGION_TYPE BLOCK (${a.join(',')})-(${b.join(',')})`);
  }
  return items.join('\n');
}

async function withDataset<T>(file: string, path: string, body: (d: Dataset) => Promise<T>, container = defaultContainer): Promise<T> {
  const f = await openFile(file, { container });
  try {
    return await body((await f.get(path)) as Dataset);
  } finally {
    await f.close();
  }
}

beforeAll(() => {
  registerEverything();
  dir = mkdtempSync(join(tmpdir(), 'chunkform-repack-'));
  dense = join(dir, 'dense.h5');
  py(`
import h5py, numpy as np
rng = np.random.default_rng(7)
a = np.zeros((6, 40, 50), dtype='uint16')
a[:, 5:15, 10:30] = rng.integers(1, 60000, (6, 10, 20))
a[2, 30, 40] = 9
with h5py.File('${dense}', 'w') as f:
    f.attrs['title'] = 'repack test'
    d = f.create_dataset('frames', data=a, chunks=(1, 40, 50), compression='gzip', compression_opts=4, shuffle=True)
    d.attrs['units'] = np.float32(1.5)
    g = f.create_group('g')
    g.create_dataset('f8', data=np.linspace(0, 1, 35).reshape(5, 7))
    g.create_dataset('s', data=np.array([b'ab', b'cde'], dtype='S3'))
    g['link'] = h5py.SoftLink('/frames')
    f['g/again'] = f['g/f8']
`);
});

describe('chunkform repack', () => {
  it('dense gzip → sparse with --exclude 0 → dense reads equal in h5py and h5dump', async () => {
    const sparse = join(dir, 'sparse.h5');
    const back = join(dir, 'back.h5');
    let r = await cli('repack', '-q', '-l', 'frames:SPARSECHUNK=1x20x25', '--exclude', '0', dense, sparse);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const nDefined = await withDataset(sparse, 'frames', async (d) => {
      expect(d.layout.class).toBe('structured');
      expect(d.chunks).toEqual([1, 20, 25]);
      const { values } = await d.readDefined();
      return values.length;
    });
    expect(nDefined).toBe(Number(py(`
import h5py, numpy as np
print(np.count_nonzero(h5py.File('${dense}')['frames'][()]))`)));
    r = await cli('repack', '-q', '-l', 'frames:CHUNK=2x40x50', '-f', 'frames:GZIP=6', sparse, back);
    expect(r.code).toBe(0);
    expect(
      py(`
import h5py, numpy as np
a, b = h5py.File('${dense}'), h5py.File('${back}')
for k in ['frames', 'g/f8', 'g/s', 'g/again']:
    assert np.array_equal(a[k][()], b[k][()]), k
assert b['frames'].chunks == (2, 40, 50) and b['frames'].compression == 'gzip'
assert b['frames'].attrs['units'] == np.float32(1.5) and b['frames'].attrs['units'].dtype == np.float32
assert b.attrs['title'] == 'repack test'
assert b['g'].get('link', getlink=True).path == '/frames'
assert len(b.attrs) == 1 and len(b['frames'].attrs) == 1  # counted by HDF5 (attribute info message)
print('ok')`).trim(),
    ).toBe('ok');
    // h5diff compares every object and attribute: the repacked file equals the original
    const h5diff = spawnSync('h5diff', ['-v', dense, back], { encoding: 'utf8' });
    expect(h5diff.stdout).not.toMatch(/only in obj/);
    expect(h5diff.status).toBe(0);
    const strip = (s: string): string => s.replace(/^HDF5 ".*" \{$/m, '');
    const dumpA = execFileSync('h5dump', ['-d', '/frames', dense], { encoding: 'utf8' });
    const dumpB = execFileSync('h5dump', ['-d', '/frames', back], { encoding: 'utf8' });
    expect(strip(dumpB)).toBe(strip(dumpA));
  });

  it('sparse → dense → sparse with --defined-elements keeps exactly the defined elements', async () => {
    const orig = join(dir, 'orig-sparse.h5');
    const f = await createFile(orig, { superblockVersion: 3 });
    const d = await f.createDataset('m', { dtype: 'int16', shape: [13, 10], chunks: [5, 4], layout: 'sparse' });
    // the sparse RFC figure 3 (docs/cli.md): BLOCK (2,2)-(4,7), (6,0)-(6,2) and POINT (5,9), (11,1), (12,8)
    const vals = [66, 69, 72, 75, 78, 81, 96, 99, 102, 105, 108, 111, 126, 129, 132, 135, 138, 141];
    await d.set(vals, [2, 5], [2, 8]);
    await d.set([100, 0, -100], 6, [0, 3]);
    await d.set([2], [5, 6], [9, 10]);
    await d.set([1], [11, 12], [1, 2]);
    await d.set([3], [12, 13], [8, 9]);
    const defined = await d.getDefined();
    await f.close();
    const locs = join(dir, 'locs.txt');
    writeFileSync(locs, ddl(defined));
    const denseOut = join(dir, 'fig3-dense.h5');
    const again = join(dir, 'fig3-sparse.h5');
    expect((await cli('repack', '-q', '-l', 'm:CHUNK=13x10', orig, denseOut)).code).toBe(0);
    expect(py(`import h5py; print(h5py.File('${denseOut}')['m'][6].tolist())`).trim()).toBe('[100, 0, -100, 0, 0, 0, 0, 0, 0, 0]');
    const r = await cli('repack', '-q', '-l', 'm:SPARSECHUNK=5x4', '--defined-elements', `m:@${locs}`, denseOut, again);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    await withDataset(again, 'm', async (d2) => {
      expect(selectionEquals(await d2.getDefined(), defined, [13, 10])).toBe(true);
      expect(Array.from((await d2.readDefined()).values as Int16Array)).toContain(0); // (6,1) is defined and 0
    });
    // the whole output of `dump --sparse-locations` (header, locations and values) works as the @FILE too
    const dumped = join(dir, 'fig3-dump.txt');
    const dump = await cli('dump', '--sparse-locations', '-d', '/m', orig);
    expect(dump.stdout).toContain('REGION_TYPE BLOCK');
    writeFileSync(dumped, dump.stdout);
    const viaDump = join(dir, 'fig3-via-dump.h5');
    expect((await cli('repack', '-q', '-l', 'm:SPARSECHUNK=5x4', '--defined-elements', `m:@${dumped}`, denseOut, viaDump)).code).toBe(0);
    await withDataset(viaDump, 'm', async (d2) => expect(selectionEquals(await d2.getDefined(), defined, [13, 10])).toBe(true));
    // --exclude 0 instead would drop (6,1): the seed's round-trip caveat
    const excl = join(dir, 'fig3-excl.h5');
    expect((await cli('repack', '-q', '-l', 'm:SPARSECHUNK=5x4', '--exclude', '0', denseOut, excl)).code).toBe(0);
    await withDataset(excl, 'm', async (d2) => expect((await d2.readDefined()).values.length).toBe(vals.length + 3 + 3 - 1));
  });

  it('copies chunks raw when layout and filters do not change, even for an unregistered filter', async () => {
    const xorFilter: Filter = {
      id: 40123,
      name: 'xor test filter',
      encode: (b) => b.map((x) => x ^ 0x5a),
      decode: (b) => b.map((x) => x ^ 0x5a),
    };
    const withXor = createContainer(); // sees the default container's filters, adds xor
    registerFilter(xorFilter, withXor);
    const src = join(dir, 'xor.h5');
    const out = join(dir, 'xor-repacked.h5');
    const f = await createFile(src, { container: withXor });
    await f.createDataset('x', { dtype: 'int32', shape: [100], chunks: [30], filters: [{ id: 40123 }], data: Int32Array.from({ length: 100 }, (_, i) => i * 3) });
    await f.createDataset('sp', { dtype: 'int32', shape: [10, 10], chunks: [5, 5], layout: 'sparse', filters: { values: [{ id: 40123 }] } });
    await f.close();
    const r = await cli('repack', '-v', '-q', src, out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('/x: CHUNK=30, filters 40123, chunks copied raw');
    expect(await withDataset(out, 'x', async (d) => Array.from((await d.read()) as Int32Array), withXor)).toEqual(Array.from({ length: 100 }, (_, i) => i * 3));
    // changing the layout needs the filter: a clear error and no output
    const failed = join(dir, 'xor-failed.h5');
    const bad = await cli('repack', '-q', '-l', 'x:CHUNK=50', src, failed);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/filter 40123/);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(failed)).toBe(false);
  });

  it('puts filters on single sections of sparse chunks', async () => {
    const out = join(dir, 'sections.h5');
    const r = await cli('repack', '-q', '-l', 'frames:SPARSECHUNK=1x40x50', '--exclude', '0', '-f', 'frames:SECTION0:GZIP=9', '-f', 'frames:VALUES:SHUF', '-f', 'frames:SECTION1:LZ4', dense, out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    await withDataset(out, 'frames', async (d) => {
      expect(d.sectionFilters!.map((p) => p.filters.map((x) => x.id))).toEqual([[1], [2, 32004]]);
      expect(d.sectionFilters![0]!.filters[0]!.clientData).toEqual([9]);
      const full = (await d.read()) as Uint16Array;
      const ref = py(`import h5py; print(int(h5py.File('${dense}')['frames'][()].astype('int64').sum()))`).trim();
      expect(String(full.reduce((a, b) => a + b, 0))).toBe(ref);
    });
  });

  it('rejects bad arguments with one line and writes nothing (an existing output stays as it was)', async () => {
    const out = join(dir, 'kept.h5');
    writeFileSync(out, 'previous content');
    const cases: [string[], RegExp][] = [
      [['--defined-elements', 'BLOCK (1,2)-(3)'], /--defined-elements: coordinate has 1 dimensions where earlier ones have 2 at column/],
      [['--defined-elements', 'BLOB (1,2)'], /expected BLOCK or POINT/],
      [['-l', 'frames:CHUNK=0x2x2'], /chunk dimensions must be positive integers/],
      [['-l', 'nothere:CONTI'], /object "nothere" named in -l\/-f\/--defined-elements is not a dataset/],
      [['-f', 'frames:GZIP=11'], /GZIP needs a level 1–9/],
      [['-l', 'frames:CONTI', '-f', 'frames:SHUF'], /filters need a chunked layout/],
      [['-f', 'frames:SECTION1:GZIP=1'], /per-section filters need a sparse/],
      [['-l', 'frames:SPARSECHUNK=1x40x50', '--defined-elements', 'frames:BLOCK (0,0,0)-(0,0,99)'], /coordinate 99 in dimension 2 is outside the dataset/],
    ];
    for (const [args, message] of cases) {
      const r = await cli('repack', '-q', ...args, dense, out);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(readFileSync(out, 'utf8')).toBe('previous content');
    }
    expect((await cli('repack', '--bogus', dense, out)).code).toBe(2);
  });

  it('-m: datasets smaller than the minimum keep their layout and get no -f filters, as with h5repack', async () => {
    const input = join(dir, 'minimum.h5');
    py(`import h5py, numpy as np
with h5py.File('${input}', 'w') as f:
    f['small'] = np.arange(10, dtype='<i4')
    f['big'] = np.arange(10000, dtype='<i4')`);
    const ours = join(dir, 'minimum-ours.h5');
    const theirs = join(dir, 'minimum-h5repack.h5');
    expect((await cli('repack', '-q', '-m', '1000', '-f', 'GZIP=1', input, ours)).code).toBe(0);
    execFileSync('h5repack', ['-m', '1000', '-f', 'GZIP=1', input, theirs]);
    const layouts = (f: string): string =>
      execFileSync('h5dump', ['-p', '-H', f], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => /DATASET|CONTIGUOUS|CHUNKED|COMPRESSION DEFLATE/.test(l))
        .join('\n');
    expect(layouts(ours)).toBe(layouts(theirs));
    expect(layouts(ours)).toMatch(/"small"[^]*CONTIGUOUS/);
    expect((await cli('repack', '-q', '-m', 'lots', '-f', 'GZIP=1', input, join(dir, 'minimum-bad.h5'))).code).toBe(1);
    expect(existsSync(join(dir, 'minimum-bad.h5'))).toBe(false);
  });

  it('a corrupt chunk fails the repack with one line and leaves no output', async () => {
    const bad = join(dir, 'corrupt.h5');
    const bytes = readFileSync(dense);
    const { address, size } = await withDataset(dense, 'frames', (d) => d.chunkInfo(2));
    bytes.fill(0xff, address + 2, address + Math.min(size, 40));
    writeFileSync(bad, bytes);
    for (const args of [['-l', 'frames:SPARSECHUNK=1x40x50', '--exclude', '0'], ['-f', 'frames:GZIP=1']]) {
      const out = join(dir, 'from-corrupt.h5');
      const r = await cli('repack', '-q', ...args, bad, out);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^chunkform: .*frames/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(out)).toBe(false);
    }
    const truncated = join(dir, 'truncated.h5');
    writeFileSync(truncated, bytes.subarray(0, 3000));
    const r = await cli('repack', truncated, join(dir, 'from-truncated.h5'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/file is truncated/);
    expect(existsSync(join(dir, 'from-truncated.h5'))).toBe(false);
  });
});

describe('--defined-elements DDL', () => {
  it('parses dump --sparse-locations output and the sparse RFC h5repack example (docs/cli.md)', () => {
    const a = parseDefinedElements('REGION_TYPE BLOCK (5,9) - (5,9)\nREGION_TYPE BLOCK (11,1) - (11,1)');
    expect(a).toEqual({ rank: 2, boxes: [5, 6, 9, 10, 11, 12, 1, 2], items: 2 });
    const b = parseDefinedElements('BLOCK (2,2)-(4,7), (6,0)-(6,2) POINT (5,9), (11, 1), (12,8)');
    expect(b.items).toBe(5);
    expect(b.boxes.slice(0, 4)).toEqual([2, 5, 2, 8]);
  });

  it('names the column and the problem', () => {
    const err = (t: string): string => {
      try {
        parseDefinedElements(t);
      } catch (e) {
        expect(e).toBeInstanceOf(DefinedElementsError);
        return (e as Error).message;
      }
      throw new Error('no error');
    };
    expect(err('')).toMatch(/the list is empty/);
    expect(err('BLOCK (1,2)-(0,2)')).toMatch(/block end \(0,2\) is before its start \(1,2\) in dimension 0 at column 7/);
    expect(err('POINT (1,x)')).toMatch(/expected a non-negative integer coordinate at column 10, found 'x\)'/);
    expect(err('BLOCK (1,2) (3,4)')).toMatch(/expected '-' between the corners of a block at column 13/);
    expect(err('POINT (1,2),')).toMatch(/expected '\(' to start a coordinate at column 13, found the end/);
  });
});
