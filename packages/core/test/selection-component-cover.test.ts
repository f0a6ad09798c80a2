/**
 * The component cover of the `smallest` selection encoding (selection/serialize/component-cover.ts):
 * exact cover (same set, disjoint), fewer blocks than the canonical boxes whenever it is used, null
 * when it would not help, leading dimensions, and the encoded block list decoding — in our decoder
 * and in HDF5 1.10.8 (h5py) — to the same selection with its values in C order whatever the block
 * order.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ByteWriter, DEFAULT_SIZES } from '../src/format/bytes.js';
import { selectionRuns } from '../src/selection/runs.js';
import { selectPoints, type Selection } from '../src/selection/selection.js';
import { pointsToBoxes } from '../src/selection/points.js';
import { canonicalBoxes } from '../src/selection/serialize/canonical.js';
import { componentCover } from '../src/selection/serialize/component-cover.js';
import { encodeBlockList } from '../src/selection/serialize/hyperslab.js';
import { decodeSelection, encodeSelection } from '../src/selection/serialize/index.js';
import { PYTHON, requireH5py } from '../../../test/oracle/fixtures.js';

/** xorshift32, deterministic. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>>= 0);
  };
}

/** Linear indices of `groups` random 4-connected groups of up to `size` elements in an h×w plane. */
function groups(seed: number, h: number, w: number, count: number, size: number): number[] {
  const r = rng(seed);
  const set = new Set<number>();
  const step = [1, -1, w, -w];
  for (let g = 0; g < count; g++) {
    let p = (r() % h) * w + (r() % w);
    for (let k = 0; k < size; k++) {
      set.add(p);
      const q = p + step[r() & 3]!;
      if (q >= 0 && q < h * w && Math.abs((q % w) - (p % w)) <= 1) p = q;
    }
  }
  return [...set].sort((a, b) => a - b);
}

/** Canonical boxes of the points `lin` of plane `lead` in a dataspace [..leadDims, h, w]. */
function canonicalOf(lin: number[], w: number, lead: number[]): { boxes: Float64Array; rank: number; sel: Selection } {
  const rank = lead.length + 2;
  const coords = new Float64Array(lin.length * rank);
  lin.forEach((p, i) => {
    lead.forEach((v, d) => (coords[i * rank + d] = v));
    coords[i * rank + rank - 2] = Math.floor(p / w);
    coords[i * rank + rank - 1] = p % w;
  });
  return { boxes: canonicalBoxes(pointsToBoxes(coords, rank), rank), rank, sel: selectPoints(coords, rank) };
}

/** The elements of a box list as sorted linear indices in `dims` (checks disjointness). */
function elementsOf(boxes: Float64Array, rank: number, dims: number[]): number[] {
  const out: number[] = [];
  for (let b = 0; b < boxes.length; b += 2 * rank) {
    const idx = new Array<number>(rank);
    const rec = (d: number): void => {
      if (d === rank) {
        let lin = 0;
        for (let k = 0; k < rank; k++) lin = lin * dims[k]! + idx[k]!;
        out.push(lin);
        return;
      }
      for (let v = boxes[b + 2 * d]!; v < boxes[b + 2 * d + 1]!; v++) {
        idx[d] = v;
        rec(d + 1);
      }
    };
    rec(0);
  }
  out.sort((a, b) => a - b);
  for (let i = 1; i < out.length; i++) expect(out[i]).not.toBe(out[i - 1]);
  return out;
}

describe('componentCover', () => {
  it('covers exactly the canonical set with fewer, disjoint blocks, or returns null', () => {
    let used = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const h = 20 + (seed % 7) * 9;
      const w = 24 + (seed % 5) * 11;
      const lin = groups(seed, h, w, 1 + (seed % 12), 2 + (seed % 9));
      const { boxes, rank } = canonicalOf(lin, w, []);
      const cover = componentCover(boxes, rank);
      if (!cover) continue;
      used++;
      expect(cover.length).toBeLessThan(boxes.length);
      expect(elementsOf(cover, rank, [h, w])).toEqual(elementsOf(boxes, rank, [h, w]));
    }
    expect(used).toBeGreaterThan(10);
  });

  it('writes a component as column runs only when they are fewer than its canonical boxes', () => {
    // A vertical bar (one canonical box, rows merged) and a horizontal bar: nothing to gain.
    const bars = canonicalOf([1, 11, 21, 31, 53, 54, 55, 56], 10, []);
    expect(bars.boxes.length / 4).toBe(2);
    expect(componentCover(bars.boxes, bars.rank)).toBeNull();
    // An "H": 5 canonical boxes (rows 0 and 2 have two each), 3 column runs.
    const h = canonicalOf([0, 2, 10, 11, 12, 20, 22], 10, []);
    expect(h.boxes.length / 4).toBe(5);
    expect(Array.from(componentCover(h.boxes, h.rank)!)).toEqual([0, 3, 0, 1, 1, 2, 1, 2, 0, 3, 2, 3]);
    // A sideways T next to a 2×2 square: the square keeps its box and comes first.
    const t = canonicalOf([1, 10, 11, 21, 66, 67, 76, 77], 10, []);
    expect(t.boxes.length / 4).toBe(4);
    expect(Array.from(componentCover(t.boxes, t.rank)!)).toEqual([6, 8, 6, 8, 1, 2, 0, 1, 0, 3, 1, 2]);
  });

  it('keeps leading dimensions, and leaves boxes that span them alone', () => {
    const shape = [0, 2, 10, 11, 12, 20, 22]; // an "H"
    const a = canonicalOf(shape, 10, [0, 3]);
    const cover = componentCover(a.boxes, a.rank)!;
    expect(cover.length / 8).toBe(3);
    for (let b = 0; b < cover.length; b += 8) expect(Array.from(cover.subarray(b, b + 4))).toEqual([0, 1, 3, 4]);
    expect(elementsOf(cover, 4, [1, 5, 10, 10])).toEqual(elementsOf(a.boxes, 4, [1, 5, 10, 10]));
    // The same "H" in planes 0 and 1 of dimension 0: canonical merges them into boxes spanning 2.
    const c2 = new Float64Array(shape.length * 2 * 3);
    [0, 1].forEach((z, k) => shape.forEach((p, i) => c2.set([z, Math.floor(p / 10), p % 10], (k * shape.length + i) * 3)));
    const merged = canonicalBoxes(pointsToBoxes(c2, 3), 3);
    expect(componentCover(merged, 3)).toBeNull();
  });

  it('makes `smallest` smaller on point groups, and the encoding decodes to the same selection', () => {
    const dims = [1, 256, 256];
    let fewer = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const lin = groups(seed * 7919, 256, 256, 40, 8);
      const { sel } = canonicalOf(lin, 256, [0]);
      const bytes = encodeSelection(sel, { dims });
      const back = decodeSelection(bytes).selection;
      expect(Array.from(selectionRuns(back, dims))).toEqual(Array.from(selectionRuns(sel, dims)));
      // Header (7) + extent v2 with 2-byte sizes (10), then a hyperslab v3 block list of width 2.
      const v = new DataView(bytes.buffer, bytes.byteOffset);
      expect([v.getUint32(17, true), v.getUint32(21, true), bytes[26]]).toEqual([2, 3, 2]);
      const nblocks = v.getUint16(31, true);
      const canonical = canonicalOf(lin, 256, [0]).boxes.length / 6;
      expect(nblocks).toBeLessThanOrEqual(canonical);
      if (nblocks < canonical) fewer++;
    }
    expect(fewer).toBeGreaterThan(20);
  });
});

describe('HDF5 reads a block list in component-cover order', () => {
  it('h5py (HDF5 1.10.8) decodes it to the same elements, values in C order', () => {
    requireH5py();
    const lin = [0, 2, 10, 11, 12, 20, 22, 77, 78, 87, 88]; // an "H" and a 2×2 square
    const { boxes, rank, sel } = canonicalOf(lin, 10, [0]);
    const cover = componentCover(boxes, rank)!;
    // The square's box comes before the column runs of the "H", so the list is not in C order.
    expect(Array.from(cover.subarray(0, 6))).toEqual([0, 1, 7, 9, 7, 9]);
    // Hyperslab v1 (what HDF5 1.10 decodes), extent v1 [1, 10, 10] with 8-byte sizes.
    const w = new ByteWriter(DEFAULT_SIZES);
    w.u8(1).u8(0).u8(8).u32(8 + 8 * 3 * 2);
    w.u8(1).u8(3).u8(1).zeros(5);
    for (const n of [1, 10, 10, 1, 10, 10]) w.u32(n).u32(0);
    encodeBlockList(w, cover, rank, 1, 4);
    const buf = w.finish();
    expect(Array.from(selectionRuns(decodeSelection(buf).selection, [1, 10, 10]))).toEqual(Array.from(selectionRuns(sel, [1, 10, 10])));
    const script = [
      'import sys, numpy as np, h5py',
      'from h5py import h5s',
      'sp = h5s.decode(bytes.fromhex(sys.argv[1]))',
      'n = sp.get_select_npoints()',
      "f = h5py.File('order.h5', 'w', driver='core', backing_store=False)",
      "d = f.create_dataset('a', data=np.arange(100).reshape(1, 10, 10))",
      "out = np.zeros(n, dtype='i8')",
      'd.id.read(h5s.create_simple((n,)), sp, out)',
      "print(' '.join(map(str, out.tolist())))",
    ].join('\n');
    const hex = Buffer.from(buf).toString('hex');
    const got = execFileSync(PYTHON, ['-c', script, hex], { encoding: 'utf8' }).trim().split(' ').map(Number);
    expect(got).toEqual(lin);
  });
});
