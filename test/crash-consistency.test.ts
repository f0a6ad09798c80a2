/**
 * Crash consistency (issue #10): a writer killed at any point leaves the file in its last flushed
 * state. Each scenario runs once on a {@link DyingStore} to count its writes and record the state
 * after every flush; then, for every write index k, it runs again on a store that dies after k
 * writes, and the bytes the "killed" writer left must read — in chunkform, and in h5py (all k in one
 * Python run per scenario) — as the state of the last flush that completed.
 *
 * A flush's commit writes (the superblock, then chunk 0 of each changed object header that existed
 * before, one in-place write each) are where a kill can land between "old" and "new": killed after
 * the superblock but before the headers, the file is the old state; killed between two header
 * writes, each object is whole but some objects are new and others old. So within a commit window
 * every dataset must equal its old or its new value; outside, the file must equal the last flushed
 * state exactly. Several scenarios change two headers in one flush (multi-object flushes) and the
 * test counts the mixed states it saw.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, MemoryStore, openFile, selectHyperslab, selectPoints, type Dataset } from '../packages/core/src/index.js';
import { PYTHON, requireH5py } from './oracle/fixtures.js';
import { DyingStore } from './oracle/dying-store.js';

interface DatasetState {
  shape: number[];
  values: number[];
}
type State = Record<string, DatasetState>;

interface Scenario {
  /** Runs the scenario: setup (writes not counted), then `store.arm(limit)`, then `checkpoint` after every flush (and once after arming). */
  run(store: DyingStore, limit: number, checkpoint: (s: State) => void): Promise<void>;
  /** Datasets compared in chunkform. */
  names: string[];
  /** Datasets compared in h5py (it cannot read sparse datasets). */
  h5pyNames: string[];
  /** Links of the root group h5py must list. */
  keys: string[];
}

const dir = mkdtempSync(join(tmpdir(), 'chunkform-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const clone = (s: State): State => JSON.parse(JSON.stringify(s)) as State;
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

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

/** The datasets `names` as chunkform reads them from `bytes` (or the error). */
async function readState(bytes: Uint8Array, names: string[]): Promise<State | string> {
  try {
    const f = await openFile(bytes);
    const out: State = {};
    for (const n of names) {
      const d = (await f.get(n)) as Dataset;
      out[n] = { shape: [...d.shape], values: Array.from((await d.read()) as ArrayLike<number>) };
    }
    await f.close();
    return out;
  } catch (e) {
    return `chunkform: ${e instanceof Error ? e.message : String(e)}`;
  }
}

const H5PY_READ = `
import h5py, json, sys
names = json.loads(sys.argv[1])
out = {}
for p in sys.argv[2:]:
    try:
        with h5py.File(p, 'r') as f:
            r = {'__keys__': sorted(f.keys())}
            for n in names:
                d = f[n]
                r[n] = {'shape': list(d.shape), 'values': d[()].ravel().tolist()}
        out[p] = r
    except Exception as e:
        out[p] = 'h5py: ' + repr(e)
print(json.dumps(out))
`;

/** What the file left at write index k must be, and whether it was. */
function judge(got: State | string, prev: State, next: State | undefined, inCommit: boolean, names: string[]): { problem: string | null; mixed: boolean } {
  if (typeof got === 'string') return { problem: got, mixed: false };
  const pick = (s: State): State => Object.fromEntries(names.map((n) => [n, s[n]!]));
  const g = pick(got);
  if (same(g, pick(prev))) return { problem: null, mixed: false };
  if (!inCommit || !next) {
    const differ = names.filter((n) => !same(g[n], prev[n])).join(', ');
    const isNext = next !== undefined && names.every((n) => same(g[n], next[n]));
    return { problem: `differs from the last flushed state in ${differ}${isNext ? ' (it is the next state)' : ''}`, mixed: false };
  }
  if (same(g, pick(next))) return { problem: null, mixed: false };
  const bad = names.filter((n) => !same(g[n], prev[n]) && !same(g[n], next[n]));
  return bad.length ? { problem: `${bad.join(', ')} equal neither the old nor the new flushed state`, mixed: false } : { problem: null, mixed: true };
}

async function explore(name: string, sc: Scenario): Promise<void> {
  const counting = new DyingStore();
  const cps: { writes: number; state: State }[] = [];
  await sc.run(counting, Infinity, (s) => cps.push({ writes: counting.writes, state: clone(s) }));
  const total = counting.writes;
  const commits = [...counting.superblockWrites];
  // one superblock write per flush after arming, each a flush's first commit write
  expect(commits.length).toBe(cps.length - 1);
  const problems: string[] = [];
  let mixed = 0;
  const files: { k: number; path: string; prev: State; next: State | undefined; inCommit: boolean }[] = [];
  for (let k = 0; k <= total; k++) {
    const store = new DyingStore();
    try {
      await sc.run(store, k, () => undefined);
    } catch (e) {
      if (!store.dead) throw e;
    }
    expect(store.dead).toBe(k < total);
    let j = 0;
    while (j + 1 < cps.length && cps[j + 1]!.writes <= k) j++;
    const prev = cps[j]!.state;
    const next = cps[j + 1]?.state;
    // the flush after checkpoint j wrote its superblock (write index commits[j]) before dying
    const inCommit = j < commits.length && k > commits[j]!;
    const bytes = store.bytes();
    const v = judge(await readState(bytes, sc.names), prev, next, inCommit, sc.names);
    if (v.problem) problems.push(`killed after ${k} of ${total} writes (chunkform): ${v.problem}`);
    if (v.mixed) mixed++;
    const path = join(dir, `${name}-${k}.h5`);
    writeFileSync(path, bytes);
    files.push({ k, path, prev, next, inCommit });
  }
  requireH5py();
  const r = spawnSync(PYTHON, ['-c', H5PY_READ, JSON.stringify(sc.h5pyNames), ...files.map((f) => f.path)], { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(r.stderr);
  const seen = JSON.parse(r.stdout) as Record<string, (State & { __keys__: string[] }) | string>;
  for (const f of files) {
    const got = seen[f.path]!;
    if (typeof got !== 'string' && !same(got.__keys__, [...sc.keys].sort())) {
      problems.push(`killed after ${f.k} of ${total} writes (h5py): root lists ${JSON.stringify(got.__keys__)}`);
      continue;
    }
    const v = judge(got, f.prev, f.next, f.inCommit, sc.h5pyNames);
    if (v.problem) problems.push(`killed after ${f.k} of ${total} writes (h5py): ${v.problem}`);
  }
  console.log(`${name}: ${total} writes, ${cps.length - 1} flushes, ${total + 1} kill points, ${mixed} mixed old/new states in commit windows`);
  expect(problems).toEqual([]);
  // every scenario changes two pre-existing headers in some flush: kills between them were tried
  expect(mixed).toBeGreaterThan(0);
}

// ---- scenarios ---------------------------------------------------------------------------------

const H = 6;
const W = 5;
const FRAMES = 5;

/** Streaming dense writer: gzip frames into a growing dataset (2 frames per chunk), plus an implicit-index dataset edited per frame; flush per frame. */
const denseStreaming: Scenario = {
  names: ['frames', 'calib'],
  h5pyNames: ['frames', 'calib'],
  keys: ['calib', 'frames'],
  async run(store, limit, checkpoint) {
    const f = await createFile(store);
    const frames = await f.createDataset('frames', { dtype: 'int16', shape: [0, H, W], maxShape: [null, H, W], chunks: [2, H, W], compression: 'gzip', compressionOpts: 1 });
    const calib = await f.createDataset('calib', { dtype: 'int32', shape: [4, 6], maxShape: [4, 6], chunks: [2, 3], allocTime: 'early' });
    await f.flush();
    store.arm(limit);
    const m: State = { frames: { shape: [0, H, W], values: [] }, calib: { shape: [4, 6], values: new Array<number>(24).fill(0) } };
    checkpoint(m);
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
      checkpoint(m);
    }
  },
};

/** Sparse writer: point hits into a growing sparse dataset (2 frames per chunk) and a contiguous dataset edited per frame; flush per frame. */
const sparseStreaming: Scenario = {
  names: ['frames', 'meta'],
  h5pyNames: ['meta'],
  keys: ['frames', 'meta'],
  async run(store, limit, checkpoint) {
    const S = 8;
    const f = await createFile(store, { superblockVersion: 3 });
    const meta = await f.createDataset('meta', { dtype: 'int32', shape: [4], data: Int32Array.from([1, 2, 3, 4]) });
    const sp = await f.createDataset('frames', { layout: 'sparse', dtype: 'uint16', shape: [0, S, S], maxShape: [null, S, S], chunks: [2, S, S] });
    await f.flush();
    store.arm(limit);
    const m: State = { frames: { shape: [0, S, S], values: [] }, meta: { shape: [4], values: [1, 2, 3, 4] } };
    checkpoint(m);
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
      checkpoint(m);
    }
  },
};

/** The h5py-written file the r+ editor changes (every index type, gzip, contiguous). */
let rplusBase: Uint8Array;

/** r+ editor: overwrites chunks (gzip, unfiltered, single-chunk), contiguous data, a resize; flush between edits. */
const rplusEditor: Scenario = {
  names: ['gz', 'ea', 'bt2', 'contig', 'single'],
  h5pyNames: ['gz', 'ea', 'bt2', 'contig', 'single'],
  keys: ['bt2', 'contig', 'ea', 'gz', 'single'],
  async run(store, limit, checkpoint) {
    await store.inner.write(0, rplusBase);
    const f = await openFile(store, { mode: 'r+' });
    store.arm(limit);
    const ramp = (n: number, k = 1): number[] => Array.from({ length: n }, (_, i) => i * k);
    const m: State = {
      gz: { shape: [16, 16], values: ramp(256) },
      ea: { shape: [8, 16], values: ramp(128, 3) },
      bt2: { shape: [8, 8], values: ramp(64) },
      contig: { shape: [64], values: ramp(64) },
      single: { shape: [3, 4], values: ramp(12) },
    };
    checkpoint(m);
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
    checkpoint(m);
    // partial writes into two stored unfiltered chunks (v2 B-tree)
    await edit('bt2', [1, 1], [2, 5], fill(Int16Array, 10, 500));
    await f.flush();
    checkpoint(m);
    // two objects in one flush: gzip rows (extensible array) and contiguous data
    await edit('ea', [3, 0], [2, 16], fill(Int32Array, 32, 2000));
    await edit('contig', [10], [10], fill(Float64Array, 10, 0.5));
    await f.flush();
    checkpoint(m);
    // the single-chunk index keeps its record in the layout message
    await edit('single', [1, 1], [1, 2], fill(Int32Array, 2, 3000));
    await f.flush();
    checkpoint(m);
    // the same gzip chunk again, and a grown extensible-array dataset
    await edit('gz', [5, 5], [2, 2], fill(Int32Array, 4, 4000));
    await (await ds('ea')).resize([10, 16]);
    growRows(m.ea!, 10);
    await edit('ea', [8, 0], [2, 16], fill(Int32Array, 32, 5000));
    await f.flush();
    checkpoint(m);
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

  it('the base file reads as h5py wrote it (sanity of the r+ model)', async () => {
    const s = await readState(new MemoryStore(rplusBase).toBytes(), rplusEditor.names);
    expect(typeof s).toBe('object');
    expect((s as State).gz!.values[17]).toBe(17);
  });
});
