/**
 * Un-awaited calls on one file (issue #10 item 3): any interleaving gives the result of running the
 * calls one after the other in the order they were made. The two reproductions of the issue (50
 * disjoint writes whose regions share gzip chunks; 20 sparse point writes in flight into one
 * chunk), call order between overlapping writes, reads, resizes and file-wide operations, a failed
 * call in the middle, two handles of one dataset, and flushes taken while writes are in flight:
 * every flushed state is exactly the state after the calls made before the flush, in chunkform and
 * in h5py.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import {
  createFile,
  InvalidStateError,
  MemoryStore,
  openFile,
  selectBlocks,
  selectionCount,
  selectPoints,
  SelectionError,
  type Dataset,
  type Group,
  type Selection,
} from '../packages/core/src/index.js';
import { DelayStore } from './oracle/delay-store.js';
import { PYTHON, requireH5py } from './oracle/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkform-concurrency-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const range = (start: number, end: number): Selection => selectBlocks([{ start: [start], end: [end] }]);
const rows = (start: number, end: number, width: number): Selection => selectBlocks([{ start: [start, 0], end: [end, width] }]);

/** h5py's values of each dataset of each file (flat, C order). */
function h5pyValues(files: string[], names: string[]): number[][][] {
  requireH5py();
  const script = [
    'import h5py, json, sys',
    'names = json.loads(sys.argv[1])',
    'out = []',
    'for p in sys.argv[2:]:',
    '    with h5py.File(p, "r") as f:',
    '        out.append([f[n][()].ravel().tolist() for n in names])',
    'print(json.dumps(out))',
  ].join('\n');
  const r = spawnSync(PYTHON, ['-c', script, JSON.stringify(names), ...files], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as number[][][];
}

describe('un-awaited calls on one file behave as if run in call order', () => {
  it('keeps all of 50 disjoint writes in flight whose regions share gzip chunks (issue #10 item 3)', async () => {
    const path = join(dir, 'dense-50.h5');
    const f = await createFile(path);
    const d = await f.createDataset('d', { dtype: 'int32', shape: [500], chunks: [16], compression: 'gzip' });
    const expected = Int32Array.from({ length: 500 }, (_, i) => i + 1);
    await Promise.all(Array.from({ length: 50 }, (_, i) => d.write(expected.subarray(i * 10, i * 10 + 10), range(i * 10, i * 10 + 10))));
    expect(Array.from((await d.read()) as Int32Array)).toEqual(Array.from(expected));
    await f.close();
    const g = await openFile(path);
    expect(Array.from((await ((await g.get('d')) as Dataset).read()) as Int32Array)).toEqual(Array.from(expected));
    await g.close();
    expect(h5pyValues([path], ['d'])[0]![0]).toEqual(Array.from(expected));
  });

  it('keeps all of 20 sparse point writes in flight into one chunk (issue #10 item 3)', async () => {
    const f = await createFile(new MemoryStore(), { superblockVersion: 3 });
    const d = await f.createDataset('s', { layout: 'sparse', dtype: 'int32', shape: [20, 20], chunks: [20, 20] });
    await Promise.all(Array.from({ length: 20 }, (_, i) => d.write([i + 1], selectPoints([[i, (i * 7) % 20]]))));
    const check = async (ds: Dataset): Promise<void> => {
      const { selection, values } = await ds.readDefined();
      expect(selectionCount(selection, [20, 20])).toBe(20);
      const all = (await ds.read()) as Int32Array;
      for (let i = 0; i < 20; i++) expect(all[i * 20 + ((i * 7) % 20)]).toBe(i + 1);
      expect(Array.from(values as Int32Array).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    };
    await check(d);
    await f.flush();
    const g = await openFile(f.toBytes());
    await check((await g.get('s')) as Dataset);
  });

  it('orders overlapping writes, reads, erases and resizes as they were called', async () => {
    const f = await createFile(new DelayStore(7), { superblockVersion: 3 });
    const d = await f.createDataset('d', { dtype: 'int16', shape: [10], maxShape: [null], chunks: [4], compression: 'gzip' });
    const s = await f.createDataset('s', { layout: 'sparse', dtype: 'int16', shape: [10], maxShape: [null], chunks: [4] });
    const fill = (v: number, n: number): Int16Array => new Int16Array(n).fill(v);
    const calls = [
      d.write(fill(1, 10)),
      d.read(),
      d.write(fill(2, 6), range(2, 8)),
      d.resize([20]), // the write below is out of range for the shape at call time, not at run time
      d.write(fill(3, 10), range(10, 20)),
      d.get([5, 15]),
      d.resize([12]),
      d.read(),
      s.write(fill(5, 10)),
      s.erase(range(3, 6)),
      s.readDefined(),
      s.write(fill(6, 2), range(4, 6)),
      s.getDefined(),
    ];
    const r = await Promise.all(calls);
    expect(Array.from(r[1] as Int16Array)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(Array.from((r[5] as { values: Int16Array }).values)).toEqual([2, 2, 2, 1, 1, 3, 3, 3, 3, 3]);
    expect(Array.from(r[7] as Int16Array)).toEqual([1, 1, 2, 2, 2, 2, 2, 2, 1, 1, 3, 3]);
    expect(d.shape).toEqual([12]);
    const rd = r[10] as { selection: Selection; values: Int16Array };
    expect(selectionCount(rd.selection, [10])).toBe(7);
    expect(Array.from(rd.values)).toEqual([5, 5, 5, 5, 5, 5, 5]);
    expect(selectionCount(r[12] as Selection, [10])).toBe(9);
  });

  it('reads in flight that push cached changes out of a small chunk cache see those changes', async () => {
    // A partial read of a gzip chunk caches it, evicting (and writing out) a chunk changed only in
    // the cache: no other read of the dataset may look that chunk up before it is written.
    let wrong = 0;
    for (let stagger = 0; stagger < 12; stagger++) {
      for (let seed = 1; seed < 6; seed++) {
        const f = await createFile(new DelayStore(seed, 2));
        const d = await f.createDataset('d', { dtype: 'int32', shape: [64], chunks: [4], compression: 'gzip', chunkCache: { bytes: 64 } });
        await d.write(Int32Array.from({ length: 32 }, (_, k) => 1000 + k), range(32, 64));
        for (let c = 0; c < 4; c++) await d.write([c + 1], selectPoints([[4 * c + 1]]));
        const evicting = [8, 9, 10, 11].map((c) => d.read(selectPoints([[4 * c + 2]])));
        for (let t = 0; t < stagger; t++) await new Promise((r) => setImmediate(r));
        const late = await Promise.all([0, 1, 2, 3].map((c) => d.read(selectPoints([[4 * c + 1]]))));
        expect((await Promise.all(evicting)).map((v) => (v as Int32Array)[0])).toEqual([1002, 1006, 1010, 1014]);
        if (late.map((v) => (v as Int32Array)[0]).join() !== '1,2,3,4') wrong++;
      }
    }
    expect(wrong).toBe(0);
  });

  it('a failing call in the middle rejects alone: earlier and later calls take effect in order', async () => {
    const f = await createFile(new DelayStore(11));
    const d = await f.createDataset('d', { dtype: 'int32', shape: [16], chunks: [4], compression: 'gzip' });
    const results = await Promise.allSettled([
      d.write(new Int32Array(8).fill(1), range(0, 8)),
      d.write(new Int32Array(8).fill(9), range(12, 20)), // out of range
      d.write([1, 2, 3], range(0, 2)), // wrong length
      d.write(new Int32Array(8).fill(2), range(8, 16)),
      f.flush(),
      d.read(),
    ]);
    expect(results.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(SelectionError);
    expect(Array.from((results[5] as PromiseFulfilledResult<Int32Array>).value)).toEqual([...Array(8).fill(1), ...Array(8).fill(2)]);
  });

  it('two handles of one dataset share its order, its chunks and its shape', async () => {
    const store = new DelayStore(3);
    const f = await createFile(store);
    await f.createDataset('d', { dtype: 'int32', shape: [8, 4], maxShape: [null, 4], chunks: [4, 4], compression: 'gzip' });
    const [a, b] = (await Promise.all([f.get('d'), f.get('d')])) as Dataset[];
    expect(a).not.toBe(b);
    await Promise.all([
      a!.write(new Int32Array(4).fill(1), rows(0, 1, 4)),
      b!.write(new Int32Array(4).fill(2), rows(1, 2, 4)),
      a!.resize([12, 4]),
      b!.write(new Int32Array(4).fill(3), rows(11, 12, 4)),
    ]);
    expect(b!.shape).toEqual([12, 4]);
    await f.flush();
    const g = await openFile(store.toBytes());
    const v = Array.from((await ((await g.get('d')) as Dataset).read()) as Int32Array);
    expect(v.slice(0, 8)).toEqual([1, 1, 1, 1, 2, 2, 2, 2]);
    expect(v.slice(44)).toEqual([3, 3, 3, 3]);
  });

  it('orders group and file operations with dataset calls', async () => {
    const store = new DelayStore(5);
    const f = await createFile(store);
    const created = f.createDataset('g/d', { dtype: 'uint8', shape: [4], chunks: [2], compression: 'gzip' });
    const got = f.get('g/d'); // called after the create: finds it
    const keys = f.get('g').then((g) => (g as Group).keys());
    const d = await created;
    const writes = [d.write([1, 2, 3, 4]), d.attrs.set('n', 1), d.write([5, 6], range(2, 4))];
    const attr = d.attrs.get('n');
    const closed = f.close();
    const late = d.read().catch((e: unknown) => e); // called after close: refused
    await Promise.all(writes);
    expect(((await got) as Dataset).path).toBe('/g/d');
    expect(await keys).toEqual(['d']);
    expect(await attr).toBe(1);
    await closed;
    expect(await late).toBeInstanceOf(InvalidStateError);
    const g = await openFile(store.toBytes());
    expect(Array.from((await ((await g.get('g/d')) as Dataset).read()) as Uint8Array)).toEqual([1, 2, 5, 6]);
  });

  it('every flush taken while writes are in flight holds exactly the calls made before it (chunkform and h5py)', async () => {
    const H = 6;
    const W = 10;
    const FRAMES = 24;
    const store = new DelayStore(42, 4);
    const f = await createFile(store, { superblockVersion: 3 });
    const dense = await f.createDataset('frames', { dtype: 'int32', shape: [0, H, W], maxShape: [null, H, W], chunks: [4, 3, 5], compression: 'gzip', chunkCache: { bytes: 600 } });
    const sparse = await f.createDataset('hits', { layout: 'sparse', dtype: 'int32', shape: [FRAMES, H, W], chunks: [4, H, W] });
    const baseFlushes = store.snapshots.length;
    const model = { dense: new Int32Array(0), hits: new Map<number, number>() };
    const expectedAtFlush: { dense: Int32Array; hits: Map<number, number> }[] = [];
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < FRAMES; i++) {
      // frame i: grow by one frame, write it in two halves (sharing chunks with the frames around)
      calls.push(dense.resize([i + 1, H, W]));
      const grown = new Int32Array((i + 1) * H * W);
      grown.set(model.dense);
      model.dense = grown;
      for (const [y0, y1] of [[0, 3], [3, 6]] as const) {
        const v = Int32Array.from({ length: (y1 - y0) * W }, (_, k) => i * 1000 + y0 * W + k + 1);
        calls.push(dense.write(v, selectBlocks([{ start: [i, y0, 0], end: [i + 1, y1, W] }])));
        model.dense.set(v, i * H * W + y0 * W);
      }
      const pts = [[i, i % H, (i * 3) % W], [i, (i + 2) % H, (i * 7) % W]];
      calls.push(sparse.write([i + 1, -(i + 1)], selectPoints(pts)));
      model.hits.set(pts[0]![0]! * H * W + pts[0]![1]! * W + pts[0]![2]!, i + 1);
      model.hits.set(pts[1]![0]! * H * W + pts[1]![1]! * W + pts[1]![2]!, -(i + 1));
      if (i % 5 === 4) {
        calls.push(f.flush());
        expectedAtFlush.push({ dense: model.dense.slice(), hits: new Map(model.hits) });
      }
    }
    await Promise.all(calls);
    await f.close();
    expectedAtFlush.push({ dense: model.dense.slice(), hits: new Map(model.hits) });
    const snaps = store.snapshots.slice(baseFlushes);
    expect(snaps.length).toBe(expectedAtFlush.length);
    const paths: string[] = [];
    for (const [k, bytes] of snaps.entries()) {
      const want = expectedAtFlush[k]!;
      const g = await openFile(bytes);
      const gd = (await g.get('frames')) as Dataset;
      expect(gd.shape[0]).toBe(want.dense.length / (H * W));
      expect(Array.from((await gd.read()) as Int32Array)).toEqual(Array.from(want.dense));
      const gs = (await g.get('hits')) as Dataset;
      const all = (await gs.read()) as Int32Array;
      const { selection } = await gs.readDefined();
      expect(selectionCount(selection, [FRAMES, H, W])).toBe(want.hits.size);
      for (const [at, v] of want.hits) expect(all[at]).toBe(v);
      const p = join(dir, `flush-${k}.h5`);
      writeFileSync(p, bytes);
      paths.push(p);
    }
    // h5py (HDF5 1.10) reads the dense frames of every flushed state; it opens the sparse dataset's file
    const fromH5py = h5pyValues(paths, ['frames']);
    fromH5py.forEach(([frames], k) => expect(frames).toEqual(Array.from(expectedAtFlush[k]!.dense)));
  });
});
