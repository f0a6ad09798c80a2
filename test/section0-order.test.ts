/**
 * Issue 10 item 6: section 0 of a sparse chunk (the encoded selection) stores the blocks of a
 * hyperslab block list sorted by their start corner in C order, as HDF5 writes them, under every
 * `selectionEncoding` policy — for the LCLS example (`/run/reduced`), rank-3 photon-hit clusters
 * (where the smallest cover is built group by group) and random point sets; and sorting costs no
 * byte (the section has the size `encodedSelectionSize` plans).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, MemoryStore, openFile, selectBlocks, selectionCount, selectPoints, type Dataset } from '../packages/core/src/index.js';
import { ByteReader, DEFAULT_SIZES } from '../packages/core/src/format/bytes.js';
import { decodeExtent } from '../packages/core/src/selection/serialize/extent.js';
import { decodeSelection, encodedSelectionSize } from '../packages/core/src/selection/serialize/index.js';
import { sortBoxesByStart } from '../packages/core/src/selection/serialize/cover.js';

const TMP = mkdtempSync(join(tmpdir(), 'chunkform-sec0-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** The start corners of a stored hyperslab block list, in stored order (null for other encodings). */
function storedBlockStarts(bytes: Uint8Array): number[][] | null {
  const r = new ByteReader(bytes, { sizes: DEFAULT_SIZES, structure: 'test' });
  decodeExtent(r);
  if (r.u32() !== 2) return null; // not a hyperslab
  const version = r.u32();
  let width: number;
  if (version === 1) {
    r.skip(8);
    width = 4;
  } else if (version === 3) {
    if (r.u8() & 1) return null; // regular form
    width = r.u8();
  } else return null;
  const rank = r.u32();
  const read = (w: number): number => {
    let v = 0;
    for (let i = 0; i < w; i++) v += r.u8() * 2 ** (8 * i);
    return v;
  };
  const n = read(width);
  const starts: number[][] = [];
  for (let b = 0; b < n; b++) {
    const s: number[] = [];
    for (let d = 0; d < rank; d++) s.push(read(width));
    for (let d = 0; d < rank; d++) read(width);
    starts.push(s);
  }
  return starts;
}

function isRowMajorSorted(starts: number[][]): boolean {
  for (let i = 1; i < starts.length; i++) {
    const a = starts[i - 1]!;
    const b = starts[i]!;
    const d = a.findIndex((v, k) => v !== b[k]);
    if (d < 0 || a[d]! > b[d]!) return false;
  }
  return true;
}

/** Checks every stored chunk of a sparse dataset; returns how many chunks store a block list. */
async function checkChunks(d: Dataset, encoding: 'smallest' | 'prototype'): Promise<number> {
  const deflated = (d.sectionFilters?.[0]?.filters ?? []).map((f) => f.id);
  expect(deflated.every((id) => id === 1)).toBe(true); // the tests use deflate or nothing on section 0
  let blockLists = 0;
  const offsets: number[][] = [];
  await d.iterateStructChunks((c) => void offsets.push(c.offset));
  for (const off of offsets) {
    const { sections } = await d.readStructChunk(off);
    const stored = deflated.length ? inflateSync(sections[0]!) : sections[0]!;
    const sec0 = stored.subarray(0, stored.length - 4); // lookup3 checksum trailer
    const starts = storedBlockStarts(sec0);
    if (!starts) continue;
    blockLists++;
    expect(isRowMajorSorted(starts), `chunk at [${off.join(', ')}] of ${d.path}`).toBe(true);
    // no byte cost: the stored size is the planned size of the same selection
    const { selection, extent } = decodeSelection(sec0);
    expect(encodedSelectionSize(selection, { dims: extent.dims, maxDims: extent.maxDims }, { encoding })).toBe(sec0.length);
  }
  return blockLists;
}

/** Clusters of 5–9 pixels (photon hits) in a [n, h, w] chunk grid: rank-3 coordinates. */
function hits(frames: number, h: number, w: number, seed: number): number[][] {
  let s = seed >>> 0;
  const rnd = (): number => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0), s >>> 8);
  const seen = new Set<number>();
  for (let f = 0; f < frames; f++) {
    for (let g = 0; g < 25; g++) {
      let y = 1 + (rnd() % (h - 2));
      let x = 1 + (rnd() % (w - 2));
      for (let k = 0; k < 5 + (rnd() % 5); k++) {
        seen.add((f * h + y) * w + x);
        const m = rnd() & 3;
        if (m === 0 && x + 1 < w) x++;
        else if (m === 1 && x > 0) x--;
        else if (m === 2 && y + 1 < h) y++;
        else if (y > 0) y--;
      }
    }
  }
  return [...seen].sort((a, b) => a - b).map((p) => [Math.floor(p / (h * w)), Math.floor(p / w) % h, p % w]);
}

describe('section 0 block lists are sorted by start corner (issue 10, item 6)', () => {
  it('sortBoxesByStart orders disjoint boxes by C-order start and keeps sorted input as it is', () => {
    const boxes = new Float64Array([2, 3, 0, 1, /**/ 0, 1, 5, 6, /**/ 0, 2, 0, 2]);
    const out = sortBoxesByStart(boxes, 2, [4, 8]);
    expect(Array.from(out)).toEqual([0, 2, 0, 2, 0, 1, 5, 6, 2, 3, 0, 1]);
    expect(sortBoxesByStart(out, 2, [4, 8])).toBe(out);
  });

  for (const encoding of ['smallest', 'prototype'] as const) {
    it(`rank-3 photon-hit clusters and random points, selectionEncoding '${encoding}'`, async () => {
      const store = new MemoryStore();
      const f = await createFile(store, { superblockVersion: 3 });
      const a = await f.createDataset('hits', { layout: 'sparse', dtype: 'uint16', shape: [6, 64, 64], chunks: [2, 64, 64], selectionEncoding: encoding });
      const pts = hits(6, 64, 64, 7);
      await a.write(Uint16Array.from(pts, (_, i) => i % 65521), selectPoints(pts));
      const b = await f.createDataset('rand', { layout: 'sparse', dtype: 'int32', shape: [8, 9, 10, 11], chunks: [4, 9, 5, 11], selectionEncoding: encoding });
      // random small boxes: a block list wins over points and over one regular hyperslab
      let s = 99;
      const rnd = (n: number): number => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), (s >>> 8) % n);
      const dims = [8, 9, 10, 11];
      const boxes = Array.from({ length: 40 }, () => {
        const start = dims.map((n) => rnd(n - 2));
        return { start, end: start.map((v) => v + 1 + rnd(3)) };
      });
      const sel = selectBlocks(boxes);
      const n = selectionCount(sel, dims);
      await b.write(Int32Array.from({ length: n }, (_, i) => i), sel);
      await f.close();
      const g = await openFile(store.toBytes());
      expect(await checkChunks((await g.get('hits')) as Dataset, encoding)).toBeGreaterThan(0);
      expect(await checkChunks((await g.get('rand')) as Dataset, encoding)).toBeGreaterThan(0);
      await g.close();
    });
  }

  it('the LCLS example (pnpm example:lcls): every chunk of /run/reduced', async () => {
    const path = join(TMP, 'lcls.h5');
    execFileSync(process.execPath, ['--import', 'tsx', 'examples/lcls.ts', path, '4', '128'], { stdio: 'pipe' });
    const f = await openFile(path);
    const d = (await f.get('/run/reduced')) as Dataset;
    expect(await checkChunks(d, 'smallest')).toBe(4);
    await f.close();
  }, 60_000);
});
