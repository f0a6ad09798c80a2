/**
 * Crash consistency (issue #10): a writer killed at any point leaves the file in exactly its last
 * flushed state. Each scenario runs once on a {@link DyingStore} to count its writes and record the
 * state after every flush; then, for every write index k, it runs again on a store that dies after
 * k writes, and the bytes the "killed" writer left must read — in chunkform, in h5py (all k in one
 * Python run per scenario), and in h5dump — as the state of the last flush that completed.
 *
 * A flush commits with one in-place write, the superblock (changed object headers moved
 * copy-on-write up to a new root group header before it): killed before that write the file is
 * the old state, after it the new one — for the whole file (every group's links, every dataset,
 * group attributes), never a mix. Objects whose address must not change (hard-linked from several
 * groups) keep in-place header writes after the superblock: in that commit window each of them is
 * old or new, everything else is new (the documented weaker property, asserted for them).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, Group, MemoryStore, openFile, selectHyperslab, selectPoints, type Dataset } from '../packages/core/src/index.js';
import { runH5dump } from './oracle/h5dump.js';
import { PYTHON, requireH5py } from './oracle/fixtures.js';
import { DyingStore } from './oracle/dying-store.js';

interface DatasetState {
  shape: number[];
  values: number[];
}
/** Every dataset (by path without the leading '/'), and every group's attributes. */
type State = Record<string, DatasetState>;
/** A file as a reader saw it: its object paths, datasets and group attributes. */
interface Seen {
  tree: string[];
  data: State;
  attrs: Record<string, Record<string, number[]>>;
}

interface Scenario {
  /** Runs the scenario: setup (writes not counted), then `store.arm(limit)`, then `checkpoint` after every flush (and once after arming). */
  run(store: DyingStore, limit: number, checkpoint: (s: State, attrs?: Record<string, Record<string, number[]>>) => void): Promise<void>;
  /** Datasets h5py and h5dump cannot read (sparse): left out of their comparison. */
  h5pySkip?: string[];
  /** Datasets whose headers are pinned (written in place): in a commit window each is old or new. */
  pinned?: string[];
  /** Compare with h5dump too (default true; not for files holding sparse datasets). */
  h5dump?: boolean;
}

const dir = mkdtempSync(join(tmpdir(), 'chunkform-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const clone = (s: State): State => JSON.parse(JSON.stringify(s)) as State;
/** JSON with object keys sorted (readers list objects in different orders). */
const canon = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x));
const same = (a: unknown, b: unknown): boolean => canon(a) === canon(b);

/** Writes `values` into the C-order model of a dataset over the box `start` + `block`. */
function setBox(d: DatasetState, start: number[], block: number[], values: ArrayLike<number>): void {
  const n = block.reduce((a, b) => a * b, 1);
  const idx = new Array<number>(block.length).fill(0);
  for (let k = 0; k < n; k++) {
    let flat = 0;
    for (let i = 0; i < block.length; i++) flat = flat * d.shape[i]! + start[i]! + idx[i]!;
    d.values[flat] = values[k]!;
    for (let i = block.length - 1; i >= 0; i--) {
      if (++idx[i]! < block[i]!) break;
      idx[i] = 0;
    }
  }
}

/** Grows the first dimension of a model dataset (new rows hold 0, the fill value). */
function growRows(d: DatasetState, rows: number): void {
  const row = d.shape.slice(1).reduce((a, b) => a * b, 1);
  d.shape = [rows, ...d.shape.slice(1)];
  while (d.values.length < rows * row) d.values.push(0);
}

/** Every object, dataset and attribute of `bytes` as chunkform reads them (or the error). */
async function readAll(bytes: Uint8Array): Promise<Seen | string> {
  try {
    const f = await openFile(bytes);
    const out: Seen = { tree: [], data: {}, attrs: {} };
    const visit = async (g: Group, prefix: string): Promise<void> => {
      for (const k of await g.keys()) {
        const path = prefix + k;
        out.tree.push(path);
        const o = await g.get(k);
        if (o instanceof Group) await visit(o, `${path}/`);
        if (o instanceof Group || isDataset(o)) {
          const a = await o.attrs.toObject();
          if (Object.keys(a).length > 0) out.attrs[path] = Object.fromEntries(Object.entries(a).map(([n, v]) => [n, typeof v === 'number' ? [v] : Array.from(v as ArrayLike<number>)]));
        }
        if (isDataset(o)) out.data[path] = { shape: [...o.shape], values: Array.from((await o.read()) as ArrayLike<number>) };
      }
    };
    await visit(f, '');
    out.tree.sort();
    await f.close();
    return out;
  } catch (e) {
    return `chunkform: ${e instanceof Error ? e.message : String(e)}`;
  }
}

function isDataset(o: unknown): o is Dataset {
  return typeof o === 'object' && o !== null && 'shape' in o && 'read' in o && !(o instanceof Group);
}

const H5PY_READ = `
import h5py, json, sys
import numpy as np
skip = set(json.loads(sys.argv[1]))
out = {}
def walk(g, prefix, r):
    for k in g.keys():
        p = prefix + k
        r['tree'].append(p)
        if p in skip:
            continue
        o = g[k]
        if len(o.attrs):
            r['attrs'][p] = {n: np.asarray(v).ravel().tolist() for n, v in o.attrs.items()}
        if isinstance(o, h5py.Group):
            walk(o, p + '/', r)
        else:
            r['data'][p] = {'shape': list(o.shape), 'values': o[()].ravel().tolist()}
for p in sys.argv[2:]:
    try:
        with h5py.File(p, 'r') as f:
            r = {'tree': [], 'data': {}, 'attrs': {}}
            walk(f, '', r)
            r['tree'].sort()
        out[p] = r
    except Exception as e:
        out[p] = 'h5py: ' + repr(e)
print(json.dumps(out))
`;

/** `seen` without the datasets `skip`. */
function without(seen: Seen, skip: readonly string[]): Seen {
  return { tree: seen.tree, attrs: seen.attrs, data: Object.fromEntries(Object.entries(seen.data).filter(([k]) => !skip.includes(k))) };
}

/**
 * What the file left at a kill point must be: exactly `want`; in a commit window (the superblock
 * written, pinned headers maybe not yet), a pinned dataset may still be as in `old`.
 */
function judge(got: Seen | string, want: Seen, old: Seen | null, pinned: readonly string[]): string | null {
  if (typeof got === 'string') return got;
  if (same(got, want)) return null;
  if (old && same(got.tree, want.tree) && same(got.attrs, want.attrs)) {
    const keys = Object.keys(want.data);
    const bad = keys.filter((k) => !same(got.data[k], want.data[k]) && !(pinned.includes(k) && same(got.data[k], old.data[k])));
    if (same(Object.keys(got.data).sort(), keys.sort()) && bad.length === 0) return null;
  }
  const differ = [
    ...(same(got.tree, want.tree) ? [] : ['the object tree']),
    ...(same(got.attrs, want.attrs) ? [] : ['attributes']),
    ...[...new Set([...Object.keys(got.data), ...Object.keys(want.data)])].filter((k) => !same(got.data[k], want.data[k])),
  ];
  return `differs from the last flushed state in ${differ.join(', ')}`;
}

async function explore(name: string, sc: Scenario): Promise<void> {
  const counting = new DyingStore();
  const cps: { writes: number; seen: Seen }[] = [];
  const modelProblems: string[] = [];
  await sc.run(counting, Infinity, async (m, attrs) => {
    const seen = await readAll(counting.bytes());
    if (typeof seen === 'string') throw new Error(seen);
    // the flushed file holds what the scenario wrote (its model)
    for (const [k, v] of Object.entries(m)) if (!same(seen.data[k], v)) modelProblems.push(`after flush ${cps.length}: ${k} differs from the model`);
    if (attrs && !same(seen.attrs, attrs)) modelProblems.push(`after flush ${cps.length}: attributes differ from the model`);
    cps.push({ writes: counting.writes, seen });
  });
  expect(modelProblems).toEqual([]);
  const total = counting.writes;
  const commits = [...counting.superblockWrites];
  // one superblock write per flush after arming, each a flush's commit write
  expect(commits.length).toBe(cps.length - 1);
  const pinned = sc.pinned ?? [];
  const skip = sc.h5pySkip ?? [];
  const problems: string[] = [];
  const files: { k: number; path: string; want: Seen; old: Seen | null }[] = [];
  let windows = 0;
  for (let k = 0; k <= total; k++) {
    const store = new DyingStore();
    try {
      await sc.run(store, k, async () => undefined);
    } catch (e) {
      if (!store.dead) throw e;
    }
    expect(store.dead).toBe(k < total);
    let j = 0;
    while (j + 1 < cps.length && cps[j + 1]!.writes <= k) j++;
    // the flush after checkpoint j wrote its superblock (write index commits[j]) before dying: new state
    const committed = j < commits.length && k > commits[j]!;
    const want = committed ? cps[j + 1]!.seen : cps[j]!.seen;
    const old = committed ? cps[j]!.seen : null;
    if (committed) windows++;
    const bytes = store.bytes();
    const v = judge(await readAll(bytes), want, old, pinned);
    if (v) problems.push(`killed after ${k} of ${total} writes (chunkform): ${v}`);
    const path = join(dir, `${name}-${k}.h5`);
    writeFileSync(path, bytes);
    files.push({ k, path, want, old });
  }
  requireH5py();
  const r = spawnSync(PYTHON, ['-c', H5PY_READ, JSON.stringify(skip), ...files.map((f) => f.path)], { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(r.stderr);
  const seen = JSON.parse(r.stdout) as Record<string, Seen | string>;
  for (const f of files) {
    const v = judge(seen[f.path]!, without(f.want, skip), f.old && without(f.old, skip), pinned);
    if (v) problems.push(`killed after ${f.k} of ${total} writes (h5py): ${v}`);
  }
  if (sc.h5dump !== false) {
    for (const f of files) {
      const d = runH5dump([f.path]);
      if (d.status !== 0) problems.push(`killed after ${f.k} of ${total} writes (h5dump): exit ${d.status}: ${d.stderr.slice(0, 300)}`);
    }
  }
  console.log(`${name}: ${total} writes, ${cps.length - 1} flushes, ${total + 1} kill points (${windows} after a commit write)`);
  expect(problems).toEqual([]);
}

// ---- scenarios ---------------------------------------------------------------------------------

const H = 6;
const W = 5;
const FRAMES = 5;

/** Streaming dense writer: gzip frames into a growing dataset (2 frames per chunk), plus an implicit-index dataset edited per frame; flush per frame. */
const denseStreaming: Scenario = {
  async run(store, limit, checkpoint) {
    const f = await createFile(store);
    const frames = await f.createDataset('frames', { dtype: 'int16', shape: [0, H, W], maxShape: [null, H, W], chunks: [2, H, W], compression: 'gzip', compressionOpts: 1 });
    const calib = await f.createDataset('calib', { dtype: 'int32', shape: [4, 6], maxShape: [4, 6], chunks: [2, 3], allocTime: 'early' });
    await f.flush();
    store.arm(limit);
    const m: State = { frames: { shape: [0, H, W], values: [] }, calib: { shape: [4, 6], values: new Array<number>(24).fill(0) } };
    await checkpoint(m);
    for (let i = 0; i < FRAMES; i++) {
      await frames.resize([i + 1, H, W]);
      const frame = Int16Array.from({ length: H * W }, (_, x) => i * 100 + x - 50);
      await frames.write(frame, selectHyperslab({ start: [i, 0, 0], block: [1, H, W] }));
      growRows(m.frames!, i + 1);
      setBox(m.frames!, [i, 0, 0], [1, H, W], frame);
      // two elements across a chunk boundary: partial writes into stored chunks
      const pair = Int32Array.from([i + 1, -(i + 1)]);
      await calib.write(pair, selectHyperslab({ start: [i % 4, 2], block: [1, 2] }));
      setBox(m.calib!, [i % 4, 2], [1, 2], pair);
      await f.flush();
      await checkpoint(m);
    }
  },
};

/** Sparse writer: point hits into a growing sparse dataset (2 frames per chunk) and a contiguous dataset edited per frame; flush per frame. */
const sparseStreaming: Scenario = {
  h5pySkip: ['frames'],
  h5dump: false,
  async run(store, limit, checkpoint) {
    const S = 8;
    const f = await createFile(store, { superblockVersion: 3 });
    const meta = await f.createDataset('meta', { dtype: 'int32', shape: [4], data: Int32Array.from([1, 2, 3, 4]) });
    const sp = await f.createDataset('frames', { layout: 'sparse', dtype: 'uint16', shape: [0, S, S], maxShape: [null, S, S], chunks: [2, S, S] });
    await f.flush();
    store.arm(limit);
    const m: State = { frames: { shape: [0, S, S], values: [] }, meta: { shape: [4], values: [1, 2, 3, 4] } };
    await checkpoint(m);
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed);
    for (let i = 0; i < FRAMES; i++) {
      await sp.resize([i + 1, S, S]);
      growRows(m.frames!, i + 1);
      const hits = new Map<number, number>();
      for (let k = 0; k < 6; k++) hits.set(rnd() % (S * S), 1 + (rnd() % 60000));
      const coords = new Float64Array(3 * hits.size);
      const values = new Uint16Array(hits.size);
      let n = 0;
      for (const [flat, v] of hits) {
        coords.set([i, Math.floor(flat / S), flat % S], 3 * n);
        values[n++] = v;
        m.frames!.values[i * S * S + flat] = v;
      }
      await sp.write(values, selectPoints(coords, 3));
      await meta.write(Int32Array.from([100 + i]), selectHyperslab({ start: [i % 4], block: [1] }));
      m.meta!.values[i % 4] = 100 + i;
      await f.flush();
      await checkpoint(m);
    }
  },
};

const ramp = (n: number, k = 1): number[] => Array.from({ length: n }, (_, i) => i * k);

/** The h5py-written file the r+ editor changes (every index type, gzip, contiguous). */
let rplusBase: Uint8Array;

/** r+ editor: overwrites chunks (gzip, unfiltered, single-chunk), contiguous data, a resize; flush between edits. */
const rplusEditor: Scenario = {
  async run(store, limit, checkpoint) {
    await store.inner.write(0, rplusBase);
    const f = await openFile(store, { mode: 'r+' });
    store.arm(limit);
    const m: State = {
      gz: { shape: [16, 16], values: ramp(256) },
      ea: { shape: [8, 16], values: ramp(128, 3) },
      bt2: { shape: [8, 8], values: ramp(64) },
      contig: { shape: [64], values: ramp(64) },
      single: { shape: [3, 4], values: ramp(12) },
    };
    await checkpoint(m);
    const ds = async (n: string): Promise<Dataset> => (await f.get(n)) as Dataset;
    const edit = async (n: string, start: number[], block: number[], values: Int16Array | Int32Array | Float64Array): Promise<void> => {
      await (await ds(n)).write(values, selectHyperslab({ start, block }));
      setBox(m[n]!, start, block, values);
    };
    const fill = <T extends Int16Array | Int32Array | Float64Array>(C: new (n: number) => T, n: number, base: number): T => {
      const a = new C(n);
      for (let i = 0; i < n; i++) a[i] = base + i;
      return a;
    };
    // the case: one whole gzip chunk overwritten
    await edit('gz', [4, 4], [4, 4], fill(Int32Array, 16, 1000));
    await f.flush();
    await checkpoint(m);
    // partial writes into two stored unfiltered chunks (v2 B-tree)
    await edit('bt2', [1, 1], [2, 5], fill(Int16Array, 10, 500));
    await f.flush();
    await checkpoint(m);
    // two objects in one flush: gzip rows (extensible array) and contiguous data
    await edit('ea', [3, 0], [2, 16], fill(Int32Array, 32, 2000));
    await edit('contig', [10], [10], fill(Float64Array, 10, 0.5));
    await f.flush();
    await checkpoint(m);
    // the single-chunk index keeps its record in the layout message
    await edit('single', [1, 1], [1, 2], fill(Int32Array, 2, 3000));
    await f.flush();
    await checkpoint(m);
    // the same gzip chunk again, and a grown extensible-array dataset
    await edit('gz', [5, 5], [2, 2], fill(Int32Array, 4, 4000));
    await (await ds('ea')).resize([10, 16]);
    growRows(m.ea!, 10);
    await edit('ea', [8, 0], [2, 16], fill(Int32Array, 32, 5000));
    await f.flush();
    await checkpoint(m);
  },
};

/** Our own file: nested groups; per flush a growing gzip dataset, a contiguous one, a chunked one, a group attribute, and (every other flush) a new dataset deep in the tree change. */
const nestedOwn: Scenario = {
  async run(store, limit, checkpoint) {
    const f = await createFile(store);
    const x = await f.createDataset('a/b/x', { dtype: 'int16', shape: [0, 4], maxShape: [null, 4], chunks: [2, 4], compression: 'gzip' });
    const y = await f.createDataset('a/y', { dtype: 'int32', shape: [8], data: Int32Array.from(ramp(8)) });
    const z = await f.createDataset('c/z', { dtype: 'float64', shape: [4, 4], chunks: [2, 2] });
    await f.createGroup('c/d/e');
    await f.flush();
    store.arm(limit);
    const m: State = { 'a/b/x': { shape: [0, 4], values: [] }, 'a/y': { shape: [8], values: ramp(8) }, 'c/z': { shape: [4, 4], values: new Array<number>(16).fill(0) } };
    const attrs: Record<string, Record<string, number[]>> = {};
    await checkpoint(m, attrs);
    for (let i = 0; i < 4; i++) {
      await x.resize([i + 1, 4]);
      const row = Int16Array.from([i, i + 10, i + 20, i + 30]);
      await x.write(row, selectHyperslab({ start: [i, 0], block: [1, 4] }));
      growRows(m['a/b/x']!, i + 1);
      setBox(m['a/b/x']!, [i, 0], [1, 4], row);
      await y.write(Int32Array.from([-i - 1]), selectHyperslab({ start: [i], block: [1] }));
      m['a/y']!.values[i] = -i - 1;
      await z.write(Float64Array.from([i + 0.5]), selectHyperslab({ start: [i, 3 - i], block: [1, 1] }));
      m['c/z']!.values[i * 4 + 3 - i] = i + 0.5;
      await ((await f.get('a/b')) as Group).attrs.set('frame', i);
      attrs['a/b'] = { frame: [i] };
      if (i % 2 === 1) {
        await f.createDataset(`c/d/e/n${i}`, { dtype: 'int32', shape: [2], data: Int32Array.from([i, -i]) });
        m[`c/d/e/n${i}`] = { shape: [2], values: [i, -i] };
      }
      await f.flush();
      await checkpoint(m, attrs);
    }
  },
};

/** The h5py-written file of the guard scenario: 'a' is hard-linked twice (/a and /g/a2). */
let guardBase: Uint8Array;

/** Guard: the hard-linked 'a' (reference count 2) is written in place, 'c' and 'g/h' move; all three change in each flush. */
const hardLinked: Scenario = {
  pinned: ['a', 'g/a2'],
  async run(store, limit, checkpoint) {
    await store.inner.write(0, guardBase);
    const f = await openFile(store, { mode: 'r+' });
    store.arm(limit);
    const m: State = { a: { shape: [16], values: ramp(16) }, 'g/a2': { shape: [16], values: ramp(16) }, c: { shape: [8], values: ramp(8) }, 'g/h': { shape: [4], values: ramp(4) } };
    await checkpoint(m);
    for (let i = 0; i < 3; i++) {
      const put = async (n: string, at: number, v: number): Promise<void> => {
        await ((await f.get(n)) as Dataset).write(Int32Array.from([v]), selectHyperslab({ start: [at], block: [1] }));
        m[n]!.values[at] = v;
      };
      await put('a', 5 * i, 100 + i);
      m['g/a2']!.values[5 * i] = 100 + i;
      await put('c', i, 200 + i);
      await put('g/h', i, 300 + i);
      await f.flush();
      await checkpoint(m);
    }
  },
};

describe('crash consistency: a kill after any write leaves the last flushed state (chunkform and h5py)', () => {
  beforeAll(() => {
    requireH5py();
    const path = join(dir, 'rplus-base.h5');
    const r = spawnSync(
      PYTHON,
      [
        '-c',
        `import h5py, numpy as np, sys
with h5py.File(sys.argv[1], 'w', libver='latest') as f:
    f.create_dataset('gz', data=np.arange(256, dtype='i4').reshape(16, 16), chunks=(4, 4), compression='gzip')
    f.create_dataset('ea', data=(np.arange(128, dtype='i4') * 3).reshape(8, 16), maxshape=(None, 16), chunks=(2, 8), compression='gzip', shuffle=True)
    f.create_dataset('bt2', data=np.arange(64, dtype='i2').reshape(8, 8), maxshape=(None, None), chunks=(4, 4))
    f.create_dataset('contig', data=np.arange(64, dtype='f8'))
    f.create_dataset('single', data=np.arange(12, dtype='i4').reshape(3, 4), chunks=(3, 4), compression='gzip')
`,
        path,
      ],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(r.stderr);
    rplusBase = new Uint8Array(readFileSync(path));
    const guard = join(dir, 'guard-base.h5');
    const g = spawnSync(
      PYTHON,
      [
        '-c',
        `import h5py, numpy as np, sys
with h5py.File(sys.argv[1], 'w', libver='latest') as f:
    f.create_dataset('a', data=np.arange(16, dtype='i4'), chunks=(4,), compression='gzip')
    f.create_dataset('c', data=np.arange(8, dtype='i4'))
    g = f.create_group('g')
    g['a2'] = f['a']
    g.create_dataset('h', data=np.arange(4, dtype='i4'))
`,
        guard,
      ],
      { encoding: 'utf8' },
    );
    if (g.status !== 0) throw new Error(g.stderr);
    guardBase = new Uint8Array(readFileSync(guard));
  });

  it('streaming dense writer (gzip, growing, extensible array + implicit index)', async () => {
    await explore('dense', denseStreaming);
  });

  it('sparse writer (point hits, growing) with a contiguous dataset', async () => {
    await explore('sparse', sparseStreaming);
  });

  it('r+ editor of an h5py file (fixed array, extensible array, v2 B-tree, single chunk, contiguous)', async () => {
    await explore('rplus', rplusEditor);
  });

  it('our own file: nested groups, several datasets, a group attribute and new datasets changed in each flush', async () => {
    await explore('nested', nestedOwn);
  });

  it('guard: a hard-linked dataset keeps its address (in-place header write); the rest of the file commits atomically', async () => {
    await explore('guard', hardLinked);
  });

  it('the base files read as h5py wrote them (sanity of the r+ models)', async () => {
    const s = await readAll(new MemoryStore(rplusBase).toBytes());
    expect(typeof s).toBe('object');
    expect((s as Seen).data.gz!.values[17]).toBe(17);
    const g = await readAll(new MemoryStore(guardBase).toBytes());
    expect((g as Seen).tree).toEqual(['a', 'c', 'g', 'g/a2', 'g/h']);
  });
});
