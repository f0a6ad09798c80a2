/**
 * Window reads from small chunks (issue #11): random rectangular windows (any alignment, so most
 * cross chunk edges; strided ones too) read one by one out of 128×128 deflate tiles that h5py (the
 * HDF5 C library) wrote, with a dataset larger than the chunk cache so tiles are evicted and read
 * again, equal the values h5py stored; the same for unfiltered tiles written here and read with
 * `read` and `readInto`. Mappings of many small windows share run storage that grows block by block
 * (chunk/run-builder.ts): every piece's runs must survive the later pieces of the same mapping.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { xorshift32 } from '../bench/xorshift.js';
import { createFile, openFile, type Dataset } from '../packages/core/src/index.js';
import { selectHyperslab, type Selection } from '../packages/core/src/selection/index.js';
import { mapChunksAt, mapToChunks } from '../packages/core/src/chunk/mapping.js';
import { PYTHON, requireH5py } from './oracle/fixtures.js';

const F = 40;
const N = 512;
const T = 128;

let dir: string;
let data: Uint16Array;
let h5pyFile: string;

/** The values of `[f, y0 : y0 + h : sy, x0 : x0 + w : sx]` of `data` (C order). */
function windowOf(f: number, y0: number, x0: number, h: number, w: number, sy = 1, sx = 1): Uint16Array {
  const out = new Uint16Array(h * w);
  let k = 0;
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) out[k++] = data[(f * N + y0 + y * sy) * N + x0 + x * sx]!;
  return out;
}

/** Index of the first element where `a` and `b` differ (-1: equal, also in length). */
function firstDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

interface Win {
  sel: Selection;
  expected: Uint16Array;
}

function randomWindows(n: number, seed: number): Win[] {
  const r = xorshift32(seed);
  const out: Win[] = [];
  for (let i = 0; i < n; i++) {
    const f = r() % F;
    const strided = i % 5 === 4;
    const sy = strided ? 1 + (r() % 3) : 1;
    const sx = strided ? 1 + (r() % 3) : 1;
    const h = 1 + (r() % 90);
    const w = 1 + (r() % 90);
    const y0 = r() % (N - (h - 1) * sy);
    const x0 = r() % (N - (w - 1) * sx);
    out.push({
      sel: selectHyperslab({ start: [f, y0, x0], stride: [1, sy, sx], count: [1, h, w], block: [1, 1, 1] }),
      expected: windowOf(f, y0, x0, h, w, sy, sx),
    });
  }
  return out;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chunkform-windows-'));
  const r = xorshift32(0xc0ffee);
  data = new Uint16Array(F * N * N);
  for (let i = 0; i < data.length; i++) data[i] = r() & 0x3fff;
  const raw = join(dir, 'data.u16');
  writeFileSync(raw, new Uint8Array(data.buffer));
  h5pyFile = join(dir, 'h5py-tiles.h5');
  requireH5py();
  execFileSync(PYTHON, [
    '-c',
    `import sys, h5py, numpy as np
a = np.fromfile(sys.argv[1], dtype="<u2").reshape(${F}, ${N}, ${N})
with h5py.File(sys.argv[2], "w") as f:
    f.create_dataset("frames", data=a, chunks=(1, ${T}, ${T}), compression="gzip", compression_opts=1)`,
    raw,
    h5pyFile,
  ]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('window reads from small chunks', () => {
  it('reads 400 random windows (some strided) from h5py deflate tiles larger than the chunk cache', async () => {
    const f = await openFile(h5pyFile);
    try {
      const ds = (await f.get('frames')) as Dataset;
      // twice: the second pass finds some tiles in the cache and reads evicted ones again
      for (const seed of [1, 1, 2]) {
        for (const w of randomWindows(200, seed)) expect(firstDiff((await ds.read(w.sel)) as Uint16Array, w.expected)).toBe(-1);
      }
    } finally {
      await f.close();
    }
  });

  it('reads unfiltered tiles written here with read and readInto', async () => {
    const path = join(dir, 'ours-tiles.h5');
    const g = await createFile(path);
    await g.createDataset('frames', { dtype: 'uint16', shape: [F, N, N], chunks: [1, T, T], data });
    await g.close();
    const f = await openFile(path);
    try {
      const ds = (await f.get('frames')) as Dataset;
      for (const w of randomWindows(200, 3)) {
        expect(firstDiff((await ds.read(w.sel)) as Uint16Array, w.expected)).toBe(-1);
        const into = new Uint16Array(w.expected.length).fill(7);
        expect(firstDiff(await ds.readInto(into, w.sel), w.expected)).toBe(-1);
      }
      const all = new Uint16Array(data.length);
      await ds.readInto(all);
      expect(firstDiff(all, data)).toBe(-1);
    } finally {
      await f.close();
    }
  });

  it('keeps every piece of a mapping intact while its run storage grows (small and large pieces)', () => {
    const dims = [F, N, N];
    const chunk = [1, 16, 16];
    // windows of growing size in one mapping each, and many chunks mapped with one shared slab
    for (const [h, w] of [
      [3, 5],
      [40, 70],
      [300, 500],
    ] as const) {
      const sel = selectHyperslab({ start: [2, 7, 9], block: [3, h, w] });
      const pieces = mapToChunks(sel, dims, chunk);
      const seen = new Uint8Array(3 * h * w);
      for (const p of pieces) {
        for (let t = 0; t < p.runs.length; t += 3) {
          const [c, b, n] = [p.runs[t]!, p.runs[t + 1]!, p.runs[t + 2]!];
          for (let u = 0; u < n; u++) {
            // chunk offset → dataset coordinates → buffer offset
            const cy = Math.floor((c + u) / chunk[2]!) % chunk[1]!;
            const cx = (c + u) % chunk[2]!;
            const fy = p.coords[1]! * chunk[1]! + cy - 7;
            const fx = p.coords[2]! * chunk[2]! + cx - 9;
            const ff = p.coords[0]! - 2;
            if (ff * h * w + fy * w + fx !== b + u) expect.fail(`chunk [${p.coords.join(', ')}] run ${t / 3}: buffer offset ${b + u}, expected ${ff * h * w + fy * w + fx}`);
            seen[b + u]!++;
          }
        }
      }
      expect(seen.every((x) => x === 1)).toBe(true);
      // the same chunks asked for one by one (one shared slab) give the same runs
      const at = mapChunksAt(sel, dims, chunk, pieces.map((p) => p.coords))!;
      expect(at.map((p) => [p.coords, Array.from(p.runs)])).toEqual(pieces.map((p) => [p.coords, Array.from(p.runs)]));
    }
  });
});
