import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createFile } from '@chunkform/core';
import { run } from '../src/index.js';

const BIN = fileURLToPath(new URL('../bin/chunkform.js', import.meta.url));
const PY = '/usr/bin/python3';

let dir: string;
/** File written with chunkform's API. */
let ours: string;

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

function lines(s: string): string[] {
  return s.split('\n').filter((l) => l !== '');
}

/** h5ls-style line: name padded to 24 columns. */
function row(name: string, desc: string): string {
  return `${name.padEnd(24)} ${desc}`;
}

async function writeOurs(path: string): Promise<void> {
  const f = await createFile(path);
  await f.attrs.set('title', 'cli test');
  await f.attrs.set('version', 3, { dtype: 'int32' });
  const runG = await f.createGroup('run');
  await runG.attrs.set('run_number', 42, { dtype: 'int32' });
  await runG.createGroup('meta');
  const counts = await runG.createDataset('counts', { dtype: 'uint16', shape: [2, 3], data: [0, 1, 2, 3, 4, 5] });
  await counts.attrs.set('units', 'photons');
  await runG.createDataset('values', { dtype: 'float64', shape: [4], data: [1.5, NaN, Infinity, -Infinity] });
  await runG.createDataset('ids', { dtype: 'int64', shape: [3], data: BigInt64Array.from([1n, -2n, 9007199254740993n]) });
  await runG.createDataset('names', { dtype: 'string', shape: [2], data: ['alpha', 'βeta'] });
  await f.createDataset('scalar', { dtype: 'float32', shape: [], data: 2.5 });
  await f.createDataset('compact', { dtype: 'int8', shape: [3], data: [-1, 0, 1], layout: 'compact' });
  await f.close();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chunkform-cli-'));
  ours = join(dir, 'ours.h5');
  await writeOurs(ours);
});

describe('chunkform ls', () => {
  it('lists the root members like h5ls', async () => {
    const r = await cli('ls', ours);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(lines(r.stdout)).toEqual([row('compact', 'Dataset {3}'), row('run', 'Group'), row('scalar', 'Dataset {SCALAR}')]);
  });

  it('lists recursively with full paths, exactly as the real h5ls does', async () => {
    const r = await cli('ls', '-r', ours);
    expect(r.code).toBe(0);
    const expected = [
      row('/', 'Group'),
      row('/compact', 'Dataset {3}'),
      row('/run', 'Group'),
      row('/run/counts', 'Dataset {2, 3}'),
      row('/run/ids', 'Dataset {3}'),
      row('/run/meta', 'Group'),
      row('/run/names', 'Dataset {2}'),
      row('/run/values', 'Dataset {4}'),
      row('/scalar', 'Dataset {SCALAR}'),
    ];
    expect(lines(r.stdout)).toEqual(expected);
    expect(lines(execFileSync('h5ls', ['-r', ours], { encoding: 'utf8' }))).toEqual(expected);
  });

  it('lists a subgroup, and a single dataset', async () => {
    expect(lines((await cli('ls', ours, '/run')).stdout)).toEqual([
      row('counts', 'Dataset {2, 3}'),
      row('ids', 'Dataset {3}'),
      row('meta', 'Group'),
      row('names', 'Dataset {2}'),
      row('values', 'Dataset {4}'),
    ]);
    expect(lines((await cli('ls', ours, 'run/counts')).stdout)).toEqual([row('counts', 'Dataset {2, 3}')]);
    expect(lines((await cli('ls', '-r', ours, 'run/counts')).stdout)).toEqual([row('/run/counts', 'Dataset {2, 3}')]);
  });

  it('shows details with -v (h5ls -v lines)', async () => {
    const r = await cli('ls', '-v', ours, '/run');
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out[0]).toBe(`Opened "${ours}" with sec2 driver.`);
    const at = out.indexOf(row('counts', 'Dataset {2/2, 3/3}'));
    expect(at).toBeGreaterThanOrEqual(0);
    expect(out[at + 1]).toBe('    Attribute: units scalar');
    expect(out[at + 2]).toBe('        Type:      variable-length null-terminated UTF-8 string');
    expect(out[at + 3]).toMatch(/^ {4}Location: {2}1:\d+$/);
    expect(out.slice(at + 4, at + 7)).toEqual(['    Links:     1', '    Storage:   12 logical bytes, 12 allocated bytes, 100.00% utilization', '    Type:      native unsigned short']);
    expect(out).toContain('    Type:      native double');
    expect(out).toContain('    Type:      native long');
  });

  it('prints values with -d', async () => {
    const out = lines((await cli('ls', '-d', ours, '/run')).stdout);
    const at = out.indexOf(row('values', 'Dataset {4}'));
    expect(out.slice(at + 1, at + 3)).toEqual(['    Data:', '         1.5, nan, inf, -inf']);
  });
});

describe('chunkform dump', () => {
  it('writes a JSON document with metadata and values', async () => {
    const r = await cli('dump', ours, '--json');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const top = JSON.parse(r.stdout);
    expect(top).toMatchObject({ format: 'chunkform-dump', version: 1, file: ours });
    const doc = top.root;
    expect(doc.path).toBe('/');
    expect(doc.kind).toBe('group');
    expect(doc.attrs).toEqual({ title: 'cli test', version: 3 });
    expect(Object.keys(doc.members)).toEqual(['compact', 'run', 'scalar']);
    const runG = doc.members.run;
    expect(runG).toMatchObject({ path: '/run', kind: 'group', attrs: { run_number: 42 } });
    expect(runG.members.meta).toEqual({ path: '/run/meta', kind: 'group', attrs: {}, members: {} });
    expect(runG.members.counts).toEqual({
      path: '/run/counts',
      kind: 'dataset',
      shape: [2, 3],
      maxShape: [2, 3],
      dtype: '<u2',
      layout: { class: 'contiguous' },
      filters: [],
      fillValue: null,
      attrs: { units: 'photons' },
      values: [0, 1, 2, 3, 4, 5],
    });
    expect(runG.members.values.values).toEqual([1.5, 'NaN', 'Infinity', '-Infinity']);
    expect(runG.members.ids.values).toEqual(['1', '-2', '9007199254740993']);
    expect(runG.members.ids.dtype).toBe('<i8');
    expect(runG.members.names.values).toEqual(['alpha', 'βeta']);
    expect(doc.members.scalar).toMatchObject({ shape: [], dtype: '<f4', values: [2.5] });
    expect(doc.members.compact).toMatchObject({ layout: { class: 'compact' }, dtype: '|i1', values: [-1, 0, 1] });
  });

  it('dumps a subtree, and leaves values out with --no-values', async () => {
    const doc = JSON.parse((await cli('dump', '--json', ours, '/run/counts')).stdout).root;
    expect(doc).toMatchObject({ path: '/run/counts', kind: 'dataset', values: [0, 1, 2, 3, 4, 5] });
    const meta = JSON.parse((await cli('dump', '--json', '--no-values', ours, '/run')).stdout).root;
    expect(meta.members.counts.values).toBeNull();
    expect(meta.members.counts.shape).toEqual([2, 3]);
  });

  it('prints h5dump DDL without --json', async () => {
    const r = await cli('dump', ours, '/run');
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out[0]).toBe(`HDF5 "${ours}" {`);
    expect(out[1]).toBe('GROUP "/run" {');
    const at = out.indexOf('   DATASET "counts" {');
    expect(out.slice(at, at + 17)).toEqual([
      '   DATASET "counts" {',
      '      DATATYPE  H5T_STD_U16LE',
      '      DATASPACE  SIMPLE { ( 2, 3 ) / ( 2, 3 ) }',
      '      DATA {',
      '      (0,0): 0, 1, 2,',
      '      (1,0): 3, 4, 5',
      '      }',
      '      ATTRIBUTE "units" {',
      '         DATATYPE  H5T_STRING {',
      '            STRSIZE H5T_VARIABLE;',
      '            STRPAD H5T_STR_NULLTERM;',
      '            CSET H5T_CSET_UTF8;',
      '            CTYPE H5T_C_S1;',
      '         }',
      '         DATASPACE  SCALAR',
      '         DATA {',
      '         (0): "photons"',
    ]);
    expect(out).toContain('      (0): 1.5, nan, inf, -inf');
    expect(out).toContain('      (0): 1, -2, 9007199254740993');
    expect(out).toContain('      (0): "alpha", "βeta"');
    expect(out[out.length - 1]).toBe('}');
  });
});

describe('errors and exit codes', () => {
  it('exits 1 with a one-line message for a missing file', async () => {
    const r = await cli('ls', join(dir, 'nope.h5'));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`chunkform: ${join(dir, 'nope.h5')}: no such file or directory\n`);
  });

  it('names the file when it cannot be opened as one', async () => {
    const r = await cli('dump', dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`chunkform: ${dir}: is a directory\n`);
  });

  it('exits 1 for a file that is not HDF5 and for a missing path, without a stack trace', async () => {
    const junk = join(dir, 'junk.h5');
    writeFileSync(junk, 'this is not an HDF5 file at all, just some text.\n'.repeat(20));
    const r = await cli('dump', '--json', junk);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^chunkform: .*\n$/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const p = await cli('ls', ours, '/run/missing');
    expect(p.code).toBe(1);
    expect(p.stderr).toMatch(/^chunkform: .*missing.*\n$/);
  });

  it('exits 2 on usage errors and 0 for --help', async () => {
    expect((await cli()).code).toBe(2);
    expect((await cli('frobnicate', ours)).code).toBe(2);
    const bad = await cli('ls', '--bogus', ours);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown option '--bogus'");
    expect((await cli('ls')).code).toBe(2);
    expect((await cli('ls', ours, '/', 'extra')).code).toBe(2);
    const help = await cli('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('ls [options] <file> [path]');
    expect(help.stdout).toContain('dump [options] <file> [path]');
  });
});

describe('bin/chunkform.js (subprocess)', () => {
  it('runs ls and dump through the launcher', () => {
    const ls = spawnSync(process.execPath, [BIN, 'ls', ours], { encoding: 'utf8' });
    expect(ls.status).toBe(0);
    expect(lines(ls.stdout)).toEqual([row('compact', 'Dataset {3}'), row('run', 'Group'), row('scalar', 'Dataset {SCALAR}')]);
    const dump = spawnSync(process.execPath, [BIN, 'dump', '--json', ours, '/run/ids'], { encoding: 'utf8' });
    expect(dump.status).toBe(0);
    expect(JSON.parse(dump.stdout).root.values).toEqual(['1', '-2', '9007199254740993']);
    const missing = spawnSync(process.execPath, [BIN, 'ls', join(dir, 'nope.h5')], { encoding: 'utf8' });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^chunkform: .*no such file or directory\n$/);
    const usage = spawnSync(process.execPath, [BIN, 'ls'], { encoding: 'utf8' });
    expect(usage.status).toBe(2);
  });
});

/** Writes a file with h5py: links of every kind, a second hard link, a cycle, an LZF-compressed dataset. */
const FIXTURE = `
import sys
import h5py, numpy as np
path, libver = sys.argv[1], sys.argv[2]
with h5py.File(path, 'w', libver=libver) as f:
    f.attrs['title'] = 'from h5py'
    f.attrs['vec'] = np.array([1, 2, 3], dtype='<i4')
    g = f.create_group('grp')
    g.attrs['note'] = 'hello'
    g.attrs['big'] = np.int64(2**62 + 1)
    g.create_dataset('u16', data=np.arange(6, dtype='<u2').reshape(2, 3))
    g.create_dataset('f64', data=np.array([0.5, np.nan, np.inf, -np.inf]))
    g.create_dataset('i64', data=np.array([-1, 2**62 + 3], dtype='<i8'))
    g.create_dataset('strs', data=['a', 'b\\u00e9c'], dtype=h5py.string_dtype())
    f.create_dataset('scalar', data=np.float32(1.25))
    # zeros: LZF must really compress, else HDF5 skips this optional filter and the chunk stays readable
    f.create_dataset('lzf', data=np.zeros(10, dtype='<i4'), maxshape=(None,), chunks=(5,), compression='lzf')
    f['soft'] = h5py.SoftLink('/grp')
    f['ext'] = h5py.ExternalLink('other.h5', '/x')
    g['u16_again'] = g['u16']
    g['loop'] = f['grp']
`;

/** h5py's view of a file, in the dump's JSON conventions. */
const VIEW = `
import sys, json, math
import h5py, numpy as np
def conv(v):
    if isinstance(v, bytes): return v.decode()
    if isinstance(v, np.ndarray): return [conv(x) for x in v.reshape(-1)]
    if isinstance(v, (np.integer,)):
        return str(int(v)) if v.dtype.itemsize == 8 else int(v)
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return 'NaN' if math.isnan(f) else ('Infinity' if f == math.inf else ('-Infinity' if f == -math.inf else f))
    return v
out = {}
seen = set()
with h5py.File(sys.argv[1], 'r') as f:
    out['/'] = {'kind': 'group', 'attrs': {k: conv(f.attrs[k]) for k in f.attrs}}
    seen.add(h5py.h5o.get_info(f.id).addr)
    def walk(g, path):
        for name in g:
            p = (path.rstrip('/') + '/' + name)
            link = g.get(name, getlink=True)
            if isinstance(link, h5py.SoftLink): out[p] = {'kind': 'soft', 'target': link.path}; continue
            if isinstance(link, h5py.ExternalLink): out[p] = {'kind': 'external', 'file': link.filename, 'target': link.path}; continue
            obj = g[name]
            addr = h5py.h5o.get_info(obj.id).addr
            if addr in seen: out[p] = {'kind': 'group' if isinstance(obj, h5py.Group) else 'dataset', 'hardlink': True}; continue
            seen.add(addr)
            e = {'attrs': {k: conv(obj.attrs[k]) for k in obj.attrs}}
            if isinstance(obj, h5py.Dataset):
                e.update(kind='dataset', shape=list(obj.shape), maxShape=[m for m in obj.maxshape] if obj.maxshape is not None else None, chunks=list(obj.chunks) if obj.chunks else None)
                v = obj[()]
                e['values'] = conv(np.asarray(v)) if obj.shape != () else [conv(v)]
                out[p] = e
            else:
                e['kind'] = 'group'
                out[p] = e
                walk(obj, p)
    walk(f, '/')
print(json.dumps(out))
`;

describe.each(['earliest', 'latest'])('an h5py-made file (libver=%s)', (libver) => {
  let file: string;
  let h5py: Record<string, Record<string, unknown>>;

  beforeAll(() => {
    file = join(dir, `h5py-${libver}.h5`);
    execFileSync(PY, ['-c', FIXTURE, file, libver]);
    h5py = JSON.parse(execFileSync(PY, ['-c', VIEW, file], { encoding: 'utf8' }));
  });

  it('ls -r prints what h5ls -r prints', async () => {
    const r = await cli('ls', '-r', file);
    expect(lines(r.stdout)).toEqual(lines(execFileSync('h5ls', ['-r', file], { encoding: 'utf8' })));
    expect(lines(r.stdout)).toContain(row('/grp/loop', 'Group, same as /grp'));
    expect(lines(r.stdout)).toContain(row('/grp/u16_again', 'Dataset, same as /grp/u16'));
    expect(lines(r.stdout)).toContain(row('/lzf', 'Dataset {10/Inf}'));
  });

  it('dump --json agrees with h5py, and reports the unreadable LZF dataset in place', async () => {
    const r = await cli('dump', '--json', file);
    const doc = JSON.parse(r.stdout).root;
    expect(doc.attrs).toEqual({ title: 'from h5py', vec: [1, 2, 3] });
    expect(h5py['/']!.attrs).toEqual(doc.attrs);
    const flat: Record<string, Record<string, unknown>> = {};
    const walk = (e: Record<string, unknown>): void => {
      flat[e.path as string] = e;
      for (const m of Object.values((e.members ?? {}) as Record<string, Record<string, unknown>>)) walk(m);
    };
    walk(doc);
    for (const [path, view] of Object.entries(h5py)) {
      const mine = flat[path];
      expect(mine, path).toBeDefined();
      expect(mine!.kind, path).toBe(view.kind);
      expect(mine!.hardlink !== undefined, path).toBe(view.hardlink === true);
      if (view.hardlink) continue;
      if (view.kind === 'soft') expect(mine!.target).toBe(view.target);
      if (view.kind === 'external') expect([mine!.file, mine!.target]).toEqual([view.file, view.target]);
      if (view.kind === 'group' || view.kind === 'dataset') expect(mine!.attrs, path).toEqual(view.attrs);
      if (view.kind !== 'dataset') continue;
      expect(mine!.shape, path).toEqual(view.shape);
      expect(mine!.maxShape, path).toEqual(view.maxShape);
      if (view.chunks) expect((mine!.layout as { chunks?: number[] }).chunks, path).toEqual(view.chunks);
      if (mine!.error === undefined) expect(mine!.values, path).toEqual(view.values);
    }
    expect(flat['/grp/u16_again']).toEqual({ path: '/grp/u16_again', kind: 'dataset', hardlink: '/grp/u16' });
    expect(flat['/grp/loop']).toEqual({ path: '/grp/loop', kind: 'group', hardlink: '/grp' });
    expect(flat['/grp/u16']!.dtype).toBe('<u2');
    expect(flat['/grp/i64']!.values).toEqual(['-1', String(2n ** 62n + 3n)]);
    expect(flat['/grp']!.attrs).toEqual({ note: 'hello', big: String(2n ** 62n + 1n) });
    const lzf = flat['/lzf']!;
    expect(lzf.filters).toEqual([expect.objectContaining({ id: 32000 })]);
    // No LZF decoder is registered: the error lands in the entry, the rest is still dumped, exit 1.
    expect(lzf.error).toMatch(/32000|lzf|filter|chunk/i);
    expect(lzf.values).toBeNull();
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('chunkform: 1 object could not be read completely\n');
  });
});

describe('damaged objects', () => {
  it('reports an object whose header fails its checksum in place and goes on', async () => {
    const file = join(dir, 'damaged.h5');
    const addr = execFileSync(
      PY,
      [
        '-c',
        `
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], 'w', libver='latest') as f:
    f.create_dataset('a', data=np.arange(3))
    f.create_dataset('bad', data=np.arange(4))
    f.create_dataset('c', data=np.arange(5))
    print(h5py.h5o.get_info(f['bad'].id).addr)
`,
        file,
      ],
      { encoding: 'utf8' },
    );
    const bytes = readFileSync(file);
    const at = Number(addr.trim());
    expect(bytes.subarray(at, at + 4).toString('latin1')).toBe('OHDR');
    bytes[at + 8] = bytes[at + 8]! ^ 0xff; // inside the checksummed prefix
    writeFileSync(file, bytes);

    const ls = await cli('ls', file);
    expect(ls.code).toBe(1);
    const out = lines(ls.stdout);
    expect(out[0]).toBe(row('a', 'Dataset {3}'));
    expect(out[1]).toMatch(/^bad {22}\*\*ERROR\*\* .*checksum/i);
    expect(out[2]).toBe(row('c', 'Dataset {5}'));
    expect(ls.stderr).toBe('chunkform: 1 object could not be read\n');

    const dump = await cli('dump', '--json', file);
    expect(dump.code).toBe(1);
    const doc = JSON.parse(dump.stdout).root;
    expect(doc.members.a.values).toEqual(['0', '1', '2']);
    expect(doc.members.bad).toMatchObject({ path: '/bad', kind: 'unknown' });
    expect(doc.members.bad.error).toMatch(/checksum/i);
    expect(doc.members.c.values).toEqual(['0', '1', '2', '3', '4']);
  });
});

describe('examples/demo.ts', () => {
  it('writes a file that h5py reads, and prints its listing', async () => {
    const repo = fileURLToPath(new URL('../../../', import.meta.url));
    const file = join(dir, 'demo.h5');
    const out = execFileSync(process.execPath, ['--import', 'tsx', join(repo, 'examples/demo.ts'), file], {
      cwd: repo,
      encoding: 'utf8',
    });
    const ls = lines(out);
    expect(ls).toContain(row('/run/frames', 'Dataset {4/Inf, 64/64, 64/64}'));
    expect(ls).toContain(row('/run/reduced', 'Dataset {4/Inf, 64/64, 64/64}'));
    expect(ls).toContain('    Sparse Chunks: {1, 64, 64} 8192 bytes');
    expect(ls).toContain('    Section 1: VALUES');
    const defined = /\/run\/reduced defines (\d+) of 16384 elements/.exec(out);
    expect(defined).not.toBeNull();
    const py = JSON.parse(
      execFileSync(
        PY,
        [
          '-c',
          `
import sys, json, h5py
with h5py.File(sys.argv[1], 'r') as f:
    print(json.dumps({
        'frames': f['run/frames'][()].reshape(-1).tolist(),
        'run_number': int(f['run'].attrs['run_number']),
        'title': f.attrs['title'],
    }))
`,
          file,
        ],
        { encoding: 'utf8' },
      ),
    );
    // the sparse dataset keeps the frames' values where it defines elements, and the fill value elsewhere
    const { openFile, Dataset } = await import('@chunkform/core');
    (await import('../src/registrations.js')).registerEverything();
    const f = await openFile(file);
    const reduced = await f.get('/run/reduced');
    if (!(reduced instanceof Dataset)) throw new Error('no /run/reduced');
    const { values } = await reduced.readDefined();
    expect(values.length).toBe(Number(defined![1]));
    const all = Array.from((await reduced.read()) as Uint16Array);
    let kept = 0;
    all.forEach((v, i) => {
      if (v !== 0) {
        kept++;
        expect(v).toBe(py.frames[i]);
      }
    });
    expect(kept).toBe(values.length);
    await f.close();
    const doc = JSON.parse((await cli('dump', '--json', '-d', '/run/frames', file)).stdout).root;
    expect(JSON.stringify(doc)).toContain(String(py.frames[24 * 64 + 20]));
    expect(py.run_number).toBe(42);
    expect(py.title).toBe('chunkform demo: one LCLS-style detector run');
  });
});
