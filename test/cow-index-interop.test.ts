/**
 * Copy-on-write chunk indexes through the whole library, checked by HDF5 (h5py): a file written by
 * chunkform is appended to and partly overwritten in several `r+` sessions. Each session starts with
 * every index structure in flushed space, so every change moves structures to new space (fixed
 * array, extensible array — paged and with super blocks — and v2 B-tree, filtered and not). After
 * every session h5py must read exactly what was written, and the index must be what HDF5 expects.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, openFile, selectHyperslab, type Dataset } from '../packages/core/src/index.js';
import { PYTHON, requireH5py } from './oracle/fixtures.js';

requireH5py();

interface Spec {
  name: string;
  shape: number[];
  maxShape: (number | null)[];
  chunks: number[];
  gzip: boolean;
  /** Index type chunkform chooses (as HDF5 does). */
  index: string;
}

const SPECS: Spec[] = [
  { name: 'fa', shape: [64, 80], maxShape: [64, 80], chunks: [2, 2], gzip: false, index: 'fixed-array' },
  { name: 'fa_gzip', shape: [32, 8], maxShape: [32, 8], chunks: [4, 4], gzip: true, index: 'fixed-array' },
  { name: 'ea', shape: [0, 6], maxShape: [null, 6], chunks: [1, 3], gzip: false, index: 'extensible-array' },
  { name: 'ea_gzip', shape: [0, 6], maxShape: [null, 6], chunks: [1, 6], gzip: true, index: 'extensible-array' },
  { name: 'bt2', shape: [0, 0], maxShape: [null, null], chunks: [2, 2], gzip: false, index: 'btree2' },
  { name: 'bt2_gzip', shape: [0, 0], maxShape: [null, null], chunks: [2, 2], gzip: true, index: 'btree2' },
];

/** What h5py must read: the model of every dataset (row-major int32 values and shape). */
const model = new Map<string, { shape: number[]; values: Int32Array }>();

function put(name: string, shape: number[], start: number[], count: number[], seed: number): Int32Array {
  const m = model.get(name)!;
  if (shape.join() !== m.shape.join()) {
    const next = new Int32Array(shape.reduce((a, b) => a * b, 1));
    for (let i = 0; i < Math.min(m.shape[0]!, shape[0]!); i++) {
      for (let j = 0; j < Math.min(m.shape[1]!, shape[1]!); j++) next[i * shape[1]! + j] = m.values[i * m.shape[1]! + j]!;
    }
    m.shape = shape.slice();
    m.values = next;
  }
  const data = new Int32Array(count[0]! * count[1]!);
  for (let i = 0; i < count[0]!; i++) {
    for (let j = 0; j < count[1]!; j++) {
      const v = seed * 100003 + i * 977 + j * 31;
      data[i * count[1]! + j] = v;
      m.values[(start[0]! + i) * shape[1]! + start[1]! + j] = v;
    }
  }
  return data;
}

async function write(d: Dataset, start: number[], count: number[], seed: number): Promise<void> {
  const need = d.shape.map((s, i) => Math.max(s, start[i]! + count[i]!));
  if (need.join() !== d.shape.join()) await d.resize(need);
  const data = put(d.name, need, start, count, seed);
  await d.write(data, selectHyperslab({ start, count }));
}

function h5pyReport(path: string): Record<string, { shape: number[]; values: number[] }> {
  const script = `
import sys, json, h5py
out = {}
with h5py.File(sys.argv[1], 'r') as f:
    for name in f:
        d = f[name]
        out[name] = {'shape': list(d.shape), 'values': [int(v) for v in d[()].ravel()]}
print(json.dumps(out))
`;
  const r = spawnSync(PYTHON, ['-c', script, path], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`h5py failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, { shape: number[]; values: number[] }>;
}

describe('copy-on-write chunk indexes across r+ sessions (h5py)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chunkform-cow-index-'));
  const path = join(dir, 'cow.h5');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('every session moves the changed index structures; h5py reads every state', async () => {
    const f = await createFile(path);
    for (const s of SPECS) {
      await f.createDataset(s.name, { dtype: '<i4', shape: s.shape, maxShape: s.maxShape, chunks: s.chunks, fillValue: 0, ...(s.gzip ? { compression: 'gzip' as const } : {}) });
      model.set(s.name, { shape: s.shape.slice(), values: new Int32Array(s.shape.reduce((a, b) => a * b, 1)) });
    }
    await f.close();
    const headers = new Map<string, number>();
    for (let session = 0; session < 6; session++) {
      const g = await openFile(path, { mode: 'r+' });
      for (const s of SPECS) {
        const d = (await g.get(s.name)) as Dataset;
        for (let k = 0; k < 3; k++) {
          const seed = session * 10 + k + 1;
          if (s.maxShape[0] !== null) {
            // fixed array: scattered blocks, some overwriting earlier ones
            const r0 = (seed * 7) % (s.shape[0]! - 4);
            const c0 = (seed * 3) % (s.shape[1]! - 4);
            await write(d, [r0, c0], [4, 4], seed);
          } else if (s.maxShape[1] !== null) {
            // extensible array: append 9 rows, overwrite one old row
            await write(d, [d.shape[0]!, 0], [9, 6], seed);
            if (d.shape[0]! > 20) await write(d, [seed % 20, 0], [1, 6], seed + 1000);
          } else {
            // v2 B-tree: grow in both dimensions, overwrite a corner
            const n = d.shape[0]!;
            await write(d, [n, 0], [3, n + 3], seed);
            await write(d, [0, n], [n, 3], seed + 500);
            await write(d, [0, 0], [2, 2], seed + 2000);
          }
        }
        await g.flush();
      }
      await g.close();
      const rep = h5pyReport(path);
      for (const s of SPECS) {
        const m = model.get(s.name)!;
        expect(rep[s.name]?.shape, `${s.name} after session ${session}`).toEqual(m.shape);
        expect(rep[s.name]?.values, `${s.name} after session ${session}`).toEqual([...m.values]);
      }
      // The index header moved: the session's changes went to new space, nothing was rewritten in place.
      const again = await openFile(path);
      for (const s of SPECS) {
        const d = (await again.get(s.name)) as Dataset;
        const layout = d.layout;
        if (layout.class !== 'chunked') throw new Error(`${s.name} is not chunked`);
        expect(layout.index.type, s.name).toBe(s.index);
        if (session > 0) expect(layout.address, `${s.name}: index header address after session ${session}`).not.toBe(headers.get(s.name));
        headers.set(s.name, layout.address);
      }
      await again.close();
    }
  });
});
