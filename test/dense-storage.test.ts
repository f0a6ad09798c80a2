/**
 * Dense link and attribute storage written by chunkform (issue #11, "Groups"): groups past 8 links
 * and objects past 8 attributes (or with one over 64 KiB) use a fractal heap with v2 B-tree name
 * indexes, as HDF5 does with the latest format. Every reader — h5py (HDF5 C), h5dump, h5wasm and
 * chunkform — must list the same names and values; h5py-written dense groups opened `r+` are
 * extended by chunkform and read back by h5py; flush/reopen cycles rewrite nothing flushed in place
 * except the superblock and object header chunk 0; deleting below 6 links returns to compact links;
 * a corrupt heap block or B-tree node is a typed error.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { ChecksumError, createFile, H5Error, MemoryStore, openFile, type Group, type H5File } from '../packages/core/src/index.js';
import { LINK, LINK_INFO } from '../packages/core/src/format/messages/message-types.js';
import { decodeLinkInfo } from '../packages/core/src/format/messages/link-info.js';
import { setLinkAddress } from '../packages/core/src/objects/group-links.js';
import type { FileContext } from '../packages/core/src/file/file-context.js';
import { runPython as py } from './oracle/fixtures.js';
import { runH5dump } from './oracle/h5dump.js';
import { loadH5wasm } from './oracle/h5wasm.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkform-dense-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** h5py's listing of every group given: path → names (h5py order). */
function h5pyKeys(path: string, groups: string[]): Record<string, string[]> {
  return JSON.parse(
    py(`import h5py, json, sys\nf = h5py.File(sys.argv[1], 'r')\nprint(json.dumps({g: list(f[g].keys()) for g in sys.argv[2:]}))`, path, ...groups),
  ) as Record<string, string[]>;
}

/** h5dump's names of the members of `group` (`h5dump -n`: one line per object, full paths). */
function h5dumpMembers(path: string, group: string): string[] {
  const r = runH5dump(['-n', path]);
  expect(r.status, r.stderr).toBe(0);
  const prefix = `${group}/`;
  return r.stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[1] ?? '')
    .filter((p) => p.startsWith(prefix) && !p.slice(prefix.length).includes('/'))
    .map((p) => p.slice(prefix.length));
}

const ctxOf = (f: H5File): FileContext => (f as unknown as { ctx: FileContext }).ctx;
const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe('dense link storage written by chunkform', () => {
  const SIZES = [9, 100, 10_000];
  const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `item-${(i * 7919) % n}`);
  let path: string;

  it('groups of 9, 100 and 10,000 links read back in chunkform, h5py, h5dump and h5wasm', async () => {
    path = join(dir, 'links.h5');
    const f = await createFile(path);
    for (const n of SIZES) {
      const g = await f.createGroup(`g${n}`);
      for (const [i, name] of names(n).entries()) {
        if (i % 50 === 0) await g.createDataset(name, { dtype: 'int32', shape: [1], data: [i] });
        else await g.createGroup(name);
      }
    }
    const t = await f.createGroup('ordered', { trackOrder: true });
    const ordered = Array.from({ length: 40 }, (_, i) => `o${(i * 13) % 40}`);
    for (const n of ordered) await t.createGroup(n);
    await f.close();

    const expected: Record<string, string[]> = { '/ordered': ordered };
    for (const n of SIZES) expected[`/g${n}`] = names(n).sort(byteOrder);

    const r = await openFile(path);
    for (const [g, want] of Object.entries(expected)) {
      const group = (await r.get(g)) as Group;
      expect(await group.keys()).toEqual(want);
      // the header holds a Link Info message with a heap, no Link messages
      const model = group.headerModel;
      expect(model.findAll(LINK)).toHaveLength(0);
      expect(decodeLinkInfo(model.find(LINK_INFO)!.body).fractalHeapAddress).toBeGreaterThan(0);
    }
    // looked up by name through the index, on a fresh file (nothing listed yet)
    const fresh = await openFile(path);
    const one = names(10_000)[1234]!;
    expect((await fresh.get(`/g10000/${one}`)).constructor.name).toBe('Group');
    expect(await fresh.has('/g10000/item-not-there')).toBe(false);
    await fresh.close();
    await r.close();

    expect(h5pyKeys(path, Object.keys(expected))).toEqual(expected);
    for (const [g, want] of Object.entries(expected)) {
      if (g === '/ordered') continue; // h5dump lists by name
      expect(h5dumpMembers(path, g)).toEqual(want);
    }
    const h5wasm = await loadH5wasm();
    const hf = new h5wasm.File(path, 'r');
    try {
      for (const [g, want] of Object.entries(expected)) {
        const grp = hf.get(g) as InstanceType<typeof h5wasm.Group>;
        expect(grp.keys().length).toBe(want.length);
        expect(new Set(grp.keys())).toEqual(new Set(want));
      }
      const d = hf.get(`/g100/${names(100)[50]}`) as InstanceType<typeof h5wasm.Dataset>;
      expect(Array.from(d.value as Int32Array)).toEqual([50]);
    } finally {
      hf.close();
    }
  }, 120_000);

  it('a heap past the direct rows of the root indirect block (child indirect blocks, > 512 KiB) reads in h5py and h5dump, and h5py extends it', async () => {
    const p = join(dir, 'long-names.h5');
    const long = (i: number, c: string): string => `${String(i).padStart(5, '0')}-${c.repeat(250)}`;
    const f = await createFile(p);
    const g = await f.createGroup('g');
    for (let i = 0; i < 2500; i++) await g.createGroup(long(i, 'x'));
    await f.close();
    const w = await openFile(p, { mode: 'r+' });
    const wg = (await w.get('g')) as Group;
    for (let i = 2500; i < 2600; i++) await wg.createGroup(long(i, 'y'));
    await w.close();
    const want = Array.from({ length: 2600 }, (_, i) => long(i, i < 2500 ? 'x' : 'y'));
    expect(h5pyKeys(p, ['/g'])['/g']).toEqual(want);
    expect(h5dumpMembers(p, '/g')).toEqual(want);
    const out = py(`import h5py, sys\nf = h5py.File(sys.argv[1], 'r+')\nf['g'].create_group('zzz')\nf.close()\nprint(len(h5py.File(sys.argv[1], 'r')['g']))`, p);
    expect(out.trim()).toBe('2601');
  }, 60_000);

  it('h5py extends a dense group chunkform wrote', () => {
    const copy = join(dir, 'links-h5py.h5');
    copyFileSync(path, copy);
    const out = py(
      `import h5py, sys\nf = h5py.File(sys.argv[1], 'r+')\ng = f['g100']\ng.create_group('zz-h5py')\ndel g['item-3']\nf.close()\nf = h5py.File(sys.argv[1], 'r')\nprint(len(f['g100']), 'zz-h5py' in f['g100'], 'item-3' in f['g100'])`,
      copy,
    );
    expect(out.trim()).toBe('100 True False');
  });

  it('deleting links below 6 returns the group to compact storage; h5py reads both states', async () => {
    const p = join(dir, 'shrink.h5');
    const f = await createFile(p);
    const g = await f.createGroup('g');
    for (let i = 0; i < 12; i++) await g.createGroup(`m${i}`);
    await f.flush();
    for (let i = 0; i < 6; i++) await g.delete(`m${i}`);
    expect(g.headerModel.findAll(LINK)).toHaveLength(0); // 6 links: still dense
    await f.flush();
    expect(h5pyKeys(p, ['/g'])['/g']).toEqual(['m10', 'm11', 'm6', 'm7', 'm8', 'm9']);
    await g.delete('m6');
    expect(g.headerModel.findAll(LINK)).toHaveLength(5);
    expect(decodeLinkInfo(g.headerModel.find(LINK_INFO)!.body).fractalHeapAddress).toBe(-1);
    await f.close();
    expect(h5pyKeys(p, ['/g'])['/g']).toEqual(['m10', 'm11', 'm7', 'm8', 'm9']);
    const r = await openFile(p);
    expect(await ((await r.get('g')) as Group).keys()).toEqual(['m10', 'm11', 'm7', 'm8', 'm9']);
    await r.close();
  });

  it('flush/reopen cycles: flushed bytes are rewritten only by commit writes (superblock, header chunk 0)', async () => {
    const store = new MemoryStore();
    const writes: { pos: number; len: number }[] = [];
    const write = store.write.bind(store);
    store.write = async (pos: number, bytes: Uint8Array) => {
      writes.push({ pos, len: bytes.length });
      return write(pos, bytes);
    };
    let f = await createFile(store);
    let g = await f.createGroup('g', { trackOrder: true });
    const made: string[] = [];
    for (let round = 0; round < 5; round++) {
      const eof = (await store.size());
      const headers = new Set([0, g.headerModel.address, ctxOf(f).rootAddress]);
      writes.length = 0;
      for (let i = 0; i < 40; i++) {
        const n = `r${round}-${i}`;
        made.push(n);
        await g.createGroup(n);
      }
      await f.flush();
      for (const w of writes) {
        if (w.pos < eof) expect(headers.has(w.pos), `write of ${w.len} bytes at ${w.pos} in flushed space`).toBe(true);
      }
      await f.close();
      f = await openFile(store, { mode: 'r+' });
      g = (await f.get('g')) as Group;
      expect(await g.keys()).toEqual(made);
    }
    await f.close();
    const p = join(dir, 'cycles.h5');
    writeFileSync(p, store.toBytes());
    expect(h5pyKeys(p, ['/g'])['/g']).toEqual(made);
    expect(runH5dump(['-n', p]).status).toBe(0);
  });

  it('setLinkAddress points a dense link at another object, copy-on-write', async () => {
    const p = join(dir, 'relink.h5');
    const f = await createFile(p);
    const g = await f.createGroup('g');
    for (let i = 0; i < 20; i++) await g.createDataset(`d${i}`, { dtype: 'uint8', shape: [1], data: [i] });
    await f.flush();
    const target = (await g.getLink('d7')).address!;
    await ctxOf(f).lock.file('write', () => setLinkAddress(ctxOf(f), g.headerModel, '/g', 'd3', target));
    expect((await g.getLink('d3')).address).toBe(target);
    await f.close();
    expect(py(`import h5py, sys\nf = h5py.File(sys.argv[1], 'r')\nprint(f['g/d3'][0], f['g/d4'][0])`, p).trim()).toBe('7 4');
  });
});

describe('h5py-written dense groups extended by chunkform', () => {
  it('libver latest, with and without track_order: links added and deleted in r+ read back in h5py', async () => {
    const p = join(dir, 'from-h5py.h5');
    py(
      `import h5py, sys\nwith h5py.File(sys.argv[1], 'w', libver='latest') as f:\n    g = f.create_group('plain')\n    t = f.create_group('ordered', track_order=True)\n    for i in range(300):\n        g.create_group('p%03d' % i)\n        t.create_group('t%03d' % (299 - i))`,
      p,
    );
    const f = await openFile(p, { mode: 'r+' });
    const plain = (await f.get('plain')) as Group;
    const ordered = (await f.get('ordered')) as Group;
    for (let i = 0; i < 50; i++) {
      await plain.createGroup(`q${i}`);
      await ordered.createGroup(`u${i}`);
    }
    await f.flush();
    await plain.delete('p000');
    await ordered.delete('t299');
    await ordered.createGroup('last');
    await f.close();
    const keys = h5pyKeys(p, ['/plain', '/ordered']);
    const wantPlain = [...Array.from({ length: 299 }, (_, i) => `p${String(i + 1).padStart(3, '0')}`), ...Array.from({ length: 50 }, (_, i) => `q${i}`)].sort(byteOrder);
    const wantOrdered = [...Array.from({ length: 299 }, (_, i) => `t${String(298 - i).padStart(3, '0')}`), ...Array.from({ length: 50 }, (_, i) => `u${i}`), 'last'];
    expect(keys['/plain']).toEqual(wantPlain);
    expect(keys['/ordered']).toEqual(wantOrdered);
    const r = await openFile(p);
    expect(await ((await r.get('ordered')) as Group).keys()).toEqual(wantOrdered);
    await r.close();
  });
});

describe('dense attribute storage written by chunkform', () => {
  it('> 8 attributes and > 64 KiB attributes read back in chunkform, h5py, h5dump and h5wasm', async () => {
    const p = join(dir, 'attrs.h5');
    const f = await createFile(p);
    const d = await f.createDataset('d', { dtype: 'int32', shape: [2], data: [1, 2] });
    for (let i = 0; i < 12; i++) await d.attrs.set(`a${i}`, i + 0.5);
    const g = await f.createGroup('g');
    await g.attrs.set('note', 'small');
    const big = Float64Array.from({ length: 20_000 }, (_, i) => i / 4);
    await g.attrs.set('big', big);
    await f.flush();
    await d.attrs.set('a3', 'replaced');
    await d.attrs.delete('a5');
    await g.attrs.set('bigger', Int32Array.from({ length: 40_000 }, (_, i) => -i));
    await f.close();

    const wantD = ['a0', 'a1', 'a10', 'a11', 'a2', 'a3', 'a4', 'a6', 'a7', 'a8', 'a9'];
    const r = await openFile(p);
    const rd = (await r.get('d')) as unknown as { attrs: { keys(): Promise<string[]>; get(n: string): Promise<unknown> } };
    expect(await rd.attrs.keys()).toEqual(wantD);
    expect(await rd.attrs.get('a3')).toBe('replaced');
    const rg = (await r.get('g')) as Group;
    expect(Array.from((await rg.attrs.get('big')) as Float64Array)).toEqual(Array.from(big));
    expect(((await rg.attrs.get('bigger')) as Int32Array)[39_999]).toBe(-39_999);
    await r.close();

    const out = JSON.parse(
      py(
        `import h5py, json, sys\nf = h5py.File(sys.argv[1], 'r')\nd = f['d'].attrs\ng = f['g'].attrs\nprint(json.dumps({'d': sorted(d.keys()), 'a3': d['a3'] if isinstance(d['a3'], str) else d['a3'].decode(), 'a11': float(d['a11']), 'g': sorted(g.keys()), 'big': float(g['big'].sum()), 'bigger': int(g['bigger'][-1]), 'note': g['note'] if isinstance(g['note'], str) else g['note'].decode()}))`,
        p,
      ),
    ) as Record<string, unknown>;
    expect(out).toEqual({ d: wantD, a3: 'replaced', a11: 11.5, g: ['big', 'bigger', 'note'], big: big.reduce((s, v) => s + v, 0), bigger: -39_999, note: 'small' });

    const dump = runH5dump(['-A', p]);
    expect(dump.status, dump.stderr).toBe(0);
    for (const n of [...wantD, 'big', 'bigger', 'note']) expect(dump.stdout).toContain(`ATTRIBUTE "${n}"`);

    const h5wasm = await loadH5wasm();
    const hf = new h5wasm.File(p, 'r');
    try {
      const attrs = (hf.get('g') as InstanceType<typeof h5wasm.Group>).attrs;
      expect(Object.keys(attrs).sort()).toEqual(['big', 'bigger', 'note']);
      expect((attrs['bigger']!.value as Int32Array)[39_999]).toBe(-39_999);
      expect(Object.keys((hf.get('d') as InstanceType<typeof h5wasm.Dataset>).attrs).sort()).toEqual(wantD);
    } finally {
      hf.close();
    }
  }, 60_000);

  it('h5py dense attributes extended in r+', async () => {
    const p = join(dir, 'attrs-h5py.h5');
    py(
      `import h5py, numpy, sys\nwith h5py.File(sys.argv[1], 'w', libver='latest') as f:\n    d = f.create_dataset('d', data=1)\n    for i in range(10): d.attrs['x%d' % i] = i\n    d.attrs['huge'] = numpy.arange(30000.0)`,
      p,
    );
    const f = await openFile(p, { mode: 'r+' });
    const d = (await f.get('d')) as unknown as { attrs: { set(n: string, v: unknown): Promise<void>; delete(n: string): Promise<void> } };
    await d.attrs.set('ours', 7);
    await d.attrs.delete('x0');
    await d.attrs.set('x1', 'one');
    await f.close();
    const out = py(
      `import h5py, sys\nf = h5py.File(sys.argv[1], 'r')\na = f['d'].attrs\nprint(sorted(a.keys()), a['ours'], a['x1'], a['huge'][-1])`,
      p,
    );
    expect(out.trim()).toBe(`['huge', 'ours', 'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7', 'x8', 'x9'] 7.0 one 29999.0`);
  });
});

describe('dense attributes with creation order (h5py track_order)', () => {
  it('dense tracked attributes extended, and compact tracked ones converted, list in creation order in h5py', async () => {
    const p = join(dir, 'attrs-order.h5');
    py(
      `import h5py, sys\nwith h5py.File(sys.argv[1], 'w', libver='latest') as f:\n    d = f.create_dataset('d', data=1, track_order=True)\n    for i in range(10): d.attrs['z%d' % (9 - i)] = i\n    e = f.create_dataset('e', data=1, track_order=True)\n    for i in range(5): e.attrs['y%d' % (4 - i)] = i`,
      p,
    );
    const f = await openFile(p, { mode: 'r+' });
    type WithAttrs = { attrs: { set(n: string, v: unknown): Promise<void>; delete(n: string): Promise<void>; keys(): Promise<string[]> } };
    const d = (await f.get('d')) as unknown as WithAttrs;
    await d.attrs.set('new1', 1);
    await d.attrs.delete('z5');
    await d.attrs.set('new2', 2);
    const e = (await f.get('e')) as unknown as WithAttrs;
    for (let i = 0; i < 6; i++) await e.attrs.set(`m${i}`, i);
    const wantD = ['z9', 'z8', 'z7', 'z6', 'z4', 'z3', 'z2', 'z1', 'z0', 'new1', 'new2'];
    const wantE = ['y4', 'y3', 'y2', 'y1', 'y0', 'm0', 'm1', 'm2', 'm3', 'm4', 'm5'];
    expect(await d.attrs.keys()).toEqual(wantD);
    expect(await e.attrs.keys()).toEqual(wantE);
    await f.close();
    const out = JSON.parse(py(`import h5py, json, sys\nf = h5py.File(sys.argv[1], 'r')\nprint(json.dumps([list(f['d'].attrs), list(f['e'].attrs), float(f['e'].attrs['m5'])]))`, p)) as unknown[];
    expect(out).toEqual([wantD, wantE, 5]);
  });
});

describe('corrupt dense storage', () => {
  /** A file with one dense group; returns its bytes and the addresses of its heap block and name index root. */
  async function denseFile(): Promise<{ bytes: Uint8Array; block: number; leaf: number }> {
    const store = new MemoryStore();
    const f = await createFile(store);
    const g = await f.createGroup('g');
    for (let i = 0; i < 20; i++) await g.createGroup(`c${i}`);
    await f.close();
    const bytes = store.toBytes();
    const find = (sig: string): number => Buffer.from(bytes).indexOf(Buffer.from(sig, 'latin1'));
    return { bytes, block: find('FHDB'), leaf: find('BTLF') };
  }

  it('a corrupt heap direct block or B-tree leaf is a ChecksumError naming the structure', async () => {
    const { bytes, block, leaf } = await denseFile();
    expect(block).toBeGreaterThan(0);
    expect(leaf).toBeGreaterThan(0);
    for (const [at, structure] of [
      [block + 40, 'fractal heap direct block'],
      [leaf + 12, 'v2 B-tree leaf node'],
    ] as const) {
      const bad = bytes.slice();
      bad[at] ^= 0xff;
      const f = await openFile(bad);
      const err = await ((await f.get('g')) as Group).keys().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ChecksumError);
      expect((err as H5Error).message).toContain(structure);
      await f.close();
    }
  });

  it('a corrupt heap block met while extending a group r+ is a typed error and the file stays as it was', async () => {
    const { bytes, block } = await denseFile();
    const bad = bytes.slice();
    bad[block + 40] ^= 0xff;
    const store = new MemoryStore(bad);
    const f = await openFile(store, { mode: 'r+' });
    const g = (await f.get('g')) as Group;
    await expect(g.createGroup('more')).rejects.toBeInstanceOf(H5Error);
    await f.close();
    expect(Buffer.compare(Buffer.from(store.toBytes()), Buffer.from(bad))).toBe(0);
  });
});

