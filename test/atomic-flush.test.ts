/**
 * One atomic commit per flush (issue #10): changed object headers move copy-on-write up to a new
 * root group header and the superblock is the one in-place write. These tests cover what the
 * crash-consistency kill-point test does not: open handles following moved headers, reuse of the
 * old header space, and the guard rules (object references, hard links, link storage that cannot be
 * updated copy-on-write) under which headers keep their address.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, Group, MemoryStore, openFile, selectHyperslab, type Dataset } from '../packages/core/src/index.js';
import { runPython as py } from './oracle/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkform-atomic-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An h5py-written file (libver latest) made by `body` (which sees `f`), as bytes. */
function h5pyFile(name: string, body: string): Uint8Array {
  const path = join(dir, name);
  py(`import h5py, numpy as np, sys\nwith h5py.File(sys.argv[1], 'w', libver='latest') as f:\n${body.replace(/^/gm, '    ')}`, path);
  return new Uint8Array(readFileSync(path));
}

function h5pyValues(bytes: Uint8Array, name: string): number[] {
  const path = join(dir, `check-${Math.random().toString(36).slice(2)}.h5`);
  writeFileSync(path, bytes);
  return JSON.parse(py(`import h5py, json, sys\nwith h5py.File(sys.argv[1], 'r') as f:\n    print(json.dumps(f[sys.argv[2]][()].ravel().tolist()))`, path, name)) as number[];
}

const addressOf = (o: unknown): number => (o as { headerModel: { address: number } }).headerModel.address;
const one = (at: number): ReturnType<typeof selectHyperslab> => selectHyperslab({ start: [at], block: [1] });

describe('headers move at flush; handles follow', () => {
  it('handles opened before a flush read, write and flush again at the new addresses; links and lookups agree', async () => {
    const store = new MemoryStore();
    const f = await createFile(store);
    const d = await f.createDataset('g/h/d', { dtype: 'int32', shape: [4], data: Int32Array.from([1, 2, 3, 4]) });
    const g = (await f.get('g')) as Group;
    await f.flush();
    const before = { root: addressOf(f), g: addressOf(g), d: addressOf(d) };
    await d.write(Int32Array.from([-1]), one(0));
    await f.flush();
    // the dataset, its groups and the root moved; nothing else did
    expect(addressOf(d)).not.toBe(before.d);
    expect(addressOf(g)).not.toBe(before.g);
    expect(addressOf(f)).not.toBe(before.root);
    expect((await g.getLink('h')).address).toBe(addressOf(await g.get('h')));
    expect((await ((await g.get('h')) as Group).getLink('d')).address).toBe(addressOf(d));
    // old handles keep working, and a fresh lookup is the same object
    await d.write(Int32Array.from([-2]), one(1));
    await f.flush();
    const again = (await f.get('/g/h/d')) as Dataset;
    expect(addressOf(again)).toBe(addressOf(d));
    expect(Array.from((await again.read()) as Int32Array)).toEqual([-1, -2, 3, 4]);
    await f.close();
    const bytes = store.toBytes();
    const r = await openFile(bytes);
    expect(Array.from((await ((await r.get('g/h/d')) as Dataset).read()) as Int32Array)).toEqual([-1, -2, 3, 4]);
    expect(h5pyValues(bytes, 'g/h/d')).toEqual([-1, -2, 3, 4]);
  });

  it('groups that gain links between flushes (the cached link list grows in place) are surveyed again', async () => {
    const store = new MemoryStore();
    const f = await createFile(store);
    await f.flush();
    const y = await f.createDataset('a/y', { dtype: 'int32', shape: [2], data: Int32Array.from([1, 2]) });
    await f.flush();
    await f.createDataset('a/z', { dtype: 'int32', shape: [1], data: Int32Array.from([3]) });
    await f.createDataset('b', { dtype: 'int32', shape: [1], data: Int32Array.from([4]) });
    await f.flush();
    for (let i = 0; i < 3; i++) {
      await y.write(Int32Array.from([10 + i]), one(0));
      await f.flush();
      const r = await openFile(store.toBytes());
      expect(Array.from((await ((await r.get('a/y')) as Dataset).read()) as Int32Array)).toEqual([10 + i, 2]);
      expect(Array.from((await ((await r.get('a/z')) as Dataset).read()) as Int32Array)).toEqual([3]);
    }
    await f.close();
    expect(h5pyValues(store.toBytes(), 'a/y')).toEqual([12, 2]);
  });

  it('a stream that flushes every frame reuses the old header space: the file stops growing', async () => {
    const store = new MemoryStore();
    const f = await createFile(store);
    const d = await f.createDataset('a/b/counter', { dtype: 'int32', shape: [4] });
    await f.attrs.set('run', 1);
    await f.flush();
    const sizes: number[] = [];
    for (let i = 0; i < 40; i++) {
      await d.write(Int32Array.from([i]), one(i % 4));
      await f.flush();
      sizes.push(await store.size());
    }
    // four headers move per flush; after a few flushes their old copies are reused (the file may
    // even shrink once released space at its end is given back)
    expect(Math.max(...sizes.slice(10))).toBeLessThanOrEqual(Math.max(...sizes.slice(0, 10)));
    expect(new Set(sizes.slice(10)).size).toBe(1);
    await f.close();
    expect(h5pyValues(store.toBytes(), 'a/b/counter')).toEqual([36, 37, 38, 39]);
  });

  it('a handle to an object whose link was deleted can still be written; the object keeps its address (no link to update)', async () => {
    const store = new MemoryStore();
    const f = await createFile(store);
    const d = await f.createDataset('x', { dtype: 'int32', shape: [2], data: Int32Array.from([1, 2]) });
    await f.createDataset('y', { dtype: 'int32', shape: [1], data: Int32Array.from([7]) });
    await f.flush();
    await f.delete('x');
    await d.write(Int32Array.from([5]), one(0));
    const at = addressOf(d);
    await f.flush();
    expect(addressOf(d)).toBe(at);
    expect(await f.keys()).toEqual(['y']);
    expect(Array.from((await d.read()) as Int32Array)).toEqual([5, 2]);
    await f.close();
    expect(h5pyValues(store.toBytes(), 'y')).toEqual([7]);
  });
});

describe('guard: objects whose address must not change keep in-place header writes', () => {
  it('a file holding object references: no header moves (the references stay valid)', async () => {
    const store = new MemoryStore();
    const f = await createFile(store);
    const d = await f.createDataset('d', { dtype: 'int32', shape: [2], data: Int32Array.from([1, 2]) });
    await f.flush();
    await f.createDataset('refs', { dtype: 'ref', shape: [1], data: [addressOf(d)] });
    await f.flush();
    const at = { root: addressOf(f), d: addressOf(d) };
    await d.write(Int32Array.from([9]), one(0));
    await f.flush();
    expect({ root: addressOf(f), d: addressOf(d) }).toEqual(at);
    await f.close();
    const path = join(dir, 'refs.h5');
    writeFileSync(path, store.toBytes());
    expect(py(`import h5py, sys\nwith h5py.File(sys.argv[1], 'r') as f:\n    print(f[f['refs'][0]][()].tolist())`, path).trim()).toBe('[9, 2]');
  });

  it('an h5py file whose attribute holds an object reference: headers keep their address', async () => {
    const bytes = h5pyFile('attr-ref.h5', `d = f.create_dataset('d', data=np.arange(4, dtype='i4'))\nf.create_group('g').attrs['target'] = d.ref`);
    const store = new MemoryStore(bytes);
    const f = await openFile(store, { mode: 'r+' });
    const d = (await f.get('d')) as Dataset;
    const at = addressOf(d);
    await d.write(Int32Array.from([-1]), one(0));
    await f.close();
    const r = await openFile(store.toBytes());
    expect(addressOf(await r.get('d'))).toBe(at);
    const path = join(dir, 'attr-ref-out.h5');
    writeFileSync(path, store.toBytes());
    expect(py(`import h5py, sys\nwith h5py.File(sys.argv[1], 'r') as f:\n    print(f[f['g'].attrs['target']][()].tolist())`, path).trim()).toBe('[-1, 1, 2, 3]');
  });

  it('a hard-linked dataset (reference count 2) keeps its address; its neighbours move', async () => {
    const bytes = h5pyFile('hard.h5', `f.create_dataset('a', data=np.arange(4, dtype='i4'))\nf.create_dataset('b', data=np.arange(4, dtype='i4'))\nf['g/a2'] = f['a']`);
    const store = new MemoryStore(bytes);
    const f = await openFile(store, { mode: 'r+' });
    const a = (await f.get('a')) as Dataset;
    const b = (await f.get('b')) as Dataset;
    const at = { a: addressOf(a), b: addressOf(b) };
    await a.write(Int32Array.from([10]), one(0));
    await b.write(Int32Array.from([20]), one(0));
    await f.flush();
    expect(addressOf(a)).toBe(at.a);
    expect(addressOf(b)).not.toBe(at.b);
    expect((await ((await f.get('g')) as Group).getLink('a2')).address).toBe(at.a);
    await f.close();
    expect(h5pyValues(store.toBytes(), 'g/a2')).toEqual([10, 1, 2, 3]);
    expect(h5pyValues(store.toBytes(), 'b')).toEqual([20, 1, 2, 3]);
  });

  it('a group with dense link storage (h5py): a changed member moves copy-on-write, the link is updated in the heap', async () => {
    const bytes = h5pyFile('dense.h5', `g = f.create_group('many')\nfor i in range(12):\n    g.create_dataset(f'd{i:02d}', data=np.arange(3, dtype='i4') + i)`);
    const store = new MemoryStore(bytes);
    const f = await openFile(store, { mode: 'r+' });
    const g = (await f.get('many')) as Group;
    const d = (await g.get('d05')) as Dataset;
    const at = addressOf(d);
    await d.write(Int32Array.from([-5]), one(0));
    await f.flush();
    expect(addressOf(d)).not.toBe(at);
    await f.close();
    expect(h5pyValues(store.toBytes(), 'many/d05')).toEqual([-5, 6, 7]);
    expect(h5pyValues(store.toBytes(), 'many/d06')).toEqual([6, 7, 8]);
    const again = await openFile(new MemoryStore(store.toBytes()));
    expect(Array.from((await ((await again.get('many/d05')) as Dataset).read()) as Int32Array)).toEqual([-5, 6, 7]);
    expect((await ((await again.get('many')) as Group).keys()).length).toBe(12);
    await again.close();
  });
});

describe('a flush that fails part way', () => {
  /** A memory store whose `failAt`-th write (counted from arming) throws once; later writes succeed. */
  class FlakyStore extends MemoryStore {
    writes = 0;
    failAt = Infinity;
    override async write(offset: number, bytes: Uint8Array): Promise<void> {
      if (this.writes++ === this.failAt) throw new Error('simulated write failure');
      await super.write(offset, bytes);
    }
  }

  /** Nested groups and three datasets changed in one flush. */
  async function scenario(store: FlakyStore, failAt: number): Promise<{ f: Awaited<ReturnType<typeof createFile>>; failed: boolean }> {
    const f = await createFile(store);
    const x = await f.createDataset('a/b/x', { dtype: 'int32', shape: [4], data: Int32Array.from([1, 2, 3, 4]) });
    const y = await f.createDataset('a/y', { dtype: 'int32', shape: [0], maxShape: [null], chunks: [4], compression: 'gzip' });
    const z = await f.createDataset('c/z', { dtype: 'int32', shape: [2], data: Int32Array.from([5, 6]) });
    await f.flush();
    await x.write(Int32Array.from([-1]), one(0));
    await y.resize([3]);
    await y.write(Int32Array.from([7, 8, 9]));
    await z.write(Int32Array.from([-5]), one(0));
    await ((await f.get('a')) as Group).attrs.set('n', 3);
    store.writes = 0;
    store.failAt = failAt;
    const failed = await f.flush().then(
      () => false,
      () => true,
    );
    store.failAt = Infinity;
    return { f, failed };
  }

  it('at any write: the file keeps its old state, and the next flush writes the new one (chunkform and h5py)', async () => {
    const counting = new FlakyStore();
    await scenario(counting, Infinity);
    const total = counting.writes;
    expect(total).toBeGreaterThan(4);
    const problems: string[] = [];
    for (let k = 0; k < total; k++) {
      const store = new FlakyStore();
      const { f, failed } = await scenario(store, k);
      expect(failed).toBe(true);
      const old = await openFile(store.toBytes());
      const oldX = Array.from((await ((await old.get('a/b/x')) as Dataset).read()) as Int32Array);
      // the superblock is the flush's last write: a failure at any write leaves the old state
      if (oldX[0] !== 1) problems.push(`failed at write ${k}: x reads ${oldX}`);
      // still usable: more changes, then a flush that succeeds
      await ((await f.get('c/z')) as Dataset).write(Int32Array.from([-6]), one(1));
      await f.close();
      const bytes = store.toBytes();
      const r = await openFile(bytes);
      const got = {
        x: Array.from((await ((await r.get('a/b/x')) as Dataset).read()) as Int32Array),
        y: Array.from((await ((await r.get('a/y')) as Dataset).read()) as Int32Array),
        z: Array.from((await ((await r.get('c/z')) as Dataset).read()) as Int32Array),
        n: await ((await r.get('a')) as Group).attrs.get('n'),
      };
      if (JSON.stringify(got) !== JSON.stringify({ x: [-1, 2, 3, 4], y: [7, 8, 9], z: [-5, -6], n: 3 })) problems.push(`failed at write ${k}: after the retry ${JSON.stringify(got)}`);
      if (k % 3 === 0) {
        const h = [h5pyValues(bytes, 'a/b/x'), h5pyValues(bytes, 'a/y'), h5pyValues(bytes, 'c/z')];
        if (JSON.stringify(h) !== JSON.stringify([[-1, 2, 3, 4], [7, 8, 9], [-5, -6]])) problems.push(`failed at write ${k}: h5py reads ${JSON.stringify(h)}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
