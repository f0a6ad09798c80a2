import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFile, openFile, Dataset, ExternalLink, Group, NotFoundError, ValueError } from '../src/index.js';
import { runH5py } from './support/h5-structures.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkform-links-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What h5py sees: every link (kind and target) and the values of the datasets it reaches. */
function h5pyView(path: string): Record<string, unknown> {
  const script = `
import h5py, json, sys
f = h5py.File(sys.argv[1], 'r')
out = {}
def walk(g, prefix):
    for name in g:
        full = prefix + name
        link = g.get(name, getlink=True)
        if isinstance(link, h5py.SoftLink):
            try:
                resolves = g[name][()].tolist()
            except KeyError:
                resolves = None
            out[full] = {'soft': link.path, 'resolves': resolves}
        elif isinstance(link, h5py.ExternalLink):
            out[full] = {'external': [link.filename, link.path]}
        else:
            obj = g[name]
            if isinstance(obj, h5py.Group):
                out[full] = 'group'
                walk(obj, full + '/')
            else:
                out[full] = obj[()].tolist()
walk(f, '/')
print(json.dumps(out))
`;
  return JSON.parse(runH5py(script, [path]));
}

describe('public link API (soft, external, move, delete) read back by h5py', () => {
  it('creates soft and external links, moves and deletes links', async () => {
    const path = join(dir, 'links.h5');
    const f = await createFile(path);
    await f.createDataset('data/a', { dtype: 'int32', shape: [3], data: [1, 2, 3] });
    await f.createDataset('data/b', { dtype: 'int32', shape: [2], data: [7, 8] });
    await f.createDataset('gone', { dtype: 'int32', shape: [1], data: [5] });
    await f.createSoftLink('alias', '/data/a');
    await f.createSoftLink('views/relative', '../data/b'); // a dangling-looking relative target is stored as given
    await f.createExternalLink('calib', 'calib.h5', '/gains');
    await f.move('data/b', 'moved/b2');
    await f.delete('gone');

    expect(((await f.get('alias')) as Dataset).path).toBe('/data/a');
    expect(await f.get('calib')).toBeInstanceOf(ExternalLink);
    expect(Array.from((await ((await f.get('/moved/b2')) as Dataset).read()) as Int32Array)).toEqual([7, 8]);
    expect(await f.has('gone')).toBe(false);
    expect(await (await f.get('data') as Group).keys()).toEqual(['a']);
    await f.close();

    const view = h5pyView(path);
    expect(view['/alias']).toEqual({ soft: '/data/a', resolves: [1, 2, 3] });
    expect(view['/calib']).toEqual({ external: ['calib.h5', '/gains'] });
    expect(view['/moved/b2']).toEqual([7, 8]);
    expect(view['/data/a']).toEqual([1, 2, 3]);
    expect(view['/views/relative']).toEqual({ soft: '../data/b', resolves: null });
    expect(view['/gone']).toBeUndefined();
    expect(view['/data/b']).toBeUndefined();

    const r = await openFile(path);
    expect(await r.keys()).toEqual(['alias', 'calib', 'data', 'moved', 'views']);
    await r.close();
  });

  it('refuses what h5py refuses, leaving the file unchanged', async () => {
    const path = join(dir, 'refuse.h5');
    const f = await createFile(path);
    await f.createDataset('x', { dtype: 'int8', shape: [1], data: [1] });
    await f.createGroup('g');
    await expect(f.delete('missing')).rejects.toBeInstanceOf(NotFoundError);
    await expect(f.move('missing', 'y')).rejects.toBeInstanceOf(NotFoundError);
    await expect(f.move('g', 'g/inner')).rejects.toBeInstanceOf(ValueError);
    await expect(f.createSoftLink('x', '/g')).rejects.toBeInstanceOf(ValueError); // exists
    await expect(f.createSoftLink('s', '')).rejects.toBeInstanceOf(ValueError);
    await f.move('x', 'x'); // a no-op, as in h5py
    await f.close();
    expect(h5pyView(path)).toEqual({ '/g': 'group', '/x': [1] });
  });

  it('keeps creation order for groups that track it', async () => {
    const path = join(dir, 'order.h5');
    const f = await createFile(path);
    const g = await f.createGroup('g', { trackOrder: true });
    await g.createDataset('z', { dtype: 'int8', shape: [1], data: [1] });
    await g.createDataset('a', { dtype: 'int8', shape: [1], data: [2] });
    await g.move('z', 'y');
    await g.createSoftLink('b', 'a');
    await f.close();
    const names = runH5py(
      "import h5py, sys\nf = h5py.File(sys.argv[1], 'r', track_order=True)\nprint(','.join(f['g'].keys()))",
      [path],
    ).trim();
    expect(names).toBe('a,y,b');
    const r = await openFile(path);
    expect(await ((await r.get('g')) as Group).keys()).toEqual(['a', 'y', 'b']);
    await r.close();
  });
});
