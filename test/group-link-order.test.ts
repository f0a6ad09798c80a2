/**
 * Link order of groups kept sorted incrementally (objects/link-list.ts): after creating links in a
 * shuffled order, a group lists them in the order h5py (the HDF5 C library) reports for the same file,
 * i.e. by the UTF-8 bytes of the names — also after reopening and when more links are added to a
 * group read from disk.
 */
import './setup-registrations.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFile, openFile, type Group } from '../packages/core/src/index.js';
import { LinkList, compareNames, insertLink } from '../packages/core/src/objects/link-list.js';
import { h5pyDump, requireH5py } from './oracle/fixtures.js';

requireH5py();
const dir = mkdtempSync(join(tmpdir(), 'chunkform-linkorder-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Names whose UTF-8 byte order differs from JavaScript's UTF-16 order and from length order. */
const NAMES = ['b', 'a', 'ab', 'a0', 'A', 'Z', '_', 'é', 'z', '\u{1F600}', '\uFF5E', 'a\u00e9', 'aa', 'x10', 'x9', 'x100', ' ', '~', 'Ω', 'ä'];

function shuffled<T>(xs: T[], seed: number): T[] {
  const out = xs.slice();
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const byteOrder = (names: string[]): string[] => names.slice().sort(compareNames);

describe('incremental link order', () => {
  it('insertLink gives the order a full sort gives', () => {
    const names = shuffled([...NAMES, ...Array.from({ length: 300 }, (_, i) => `n${(i * 7919) % 1000}`)], 7);
    const list = new LinkList([], false, 0);
    for (const name of names) insertLink(list, { name, kind: 'hard', address: 1, charset: 'utf-8' });
    expect(list.links.map((l) => l.name)).toEqual(byteOrder(names));
    const sorted = new LinkList(names.map((name) => ({ name, kind: 'hard' as const, address: 1, charset: 'utf-8' as const })), false, 0);
    expect(sorted.links.map((l) => l.name)).toEqual(byteOrder(names));
    expect(list.has('é') && !list.has('e')).toBe(true);
  });

  it('creation-order lists insert by creation index', () => {
    const list = new LinkList([], true, 0);
    for (const o of [0, 1, 2, 5, 3, 4]) insertLink(list, { name: `k${o}`, kind: 'hard', address: 1, charset: 'utf-8', creationOrder: o });
    expect(list.links.map((l) => l.name)).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5']);
  });

  it('a group lists shuffled creations in the order h5py reports, before and after reopening', async () => {
    const path = join(dir, 'order.h5');
    const names = shuffled([...NAMES, ...Array.from({ length: 60 }, (_, i) => `d${(i * 37) % 61}`)], 3);
    const f = await createFile(path);
    const g = await f.createGroup('g');
    const half = names.length >> 1;
    for (const name of names.slice(0, half)) await g.createDataset(name, { dtype: 'uint8', shape: [2] });
    expect(await g.keys()).toEqual(byteOrder(names.slice(0, half)));
    await f.close();
    // reopen: the list is decoded and sorted once, then kept sorted as links are added
    const f2 = await openFile(path, { mode: 'r+' });
    const g2 = (await f2.get('g')) as Group;
    expect(await g2.keys()).toEqual(byteOrder(names.slice(0, half)));
    for (const name of names.slice(half)) await g2.createGroup(name);
    await expect(g2.createGroup(names[0]!)).rejects.toThrow(/already exists/);
    const ours = await g2.keys();
    expect(ours).toEqual(byteOrder(names));
    await f2.close();
    const doc = h5pyDump(path);
    const grp = doc.objects.find((o) => o.path === '/g') as unknown as { links: { name: string }[] };
    expect(grp.links.map((l) => l.name)).toEqual(ours);
  });
});
