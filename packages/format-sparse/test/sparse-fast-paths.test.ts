/**
 * The write fast paths of sparse chunks (issue #4 throughput): a first write into an empty chunk
 * (sorted requests: one copy; point-like requests: radix sort) must give exactly the chunk — runs,
 * values, canonical selection — and the stored bytes of the general merge; the unfiltered image
 * shares the value buffer (section 0 in the room before it) without touching a caller's buffer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { selectBlocks, selectPoints, selectionRuns, toBlocks, type ChunkRequest } from '@chunkform/core';
import { encodeSelection } from '@chunkform/core';
import { encodeSelectionWithTrailer } from '@chunkform/core/plugin';
import { SparseFormat, runsToBoxes } from '../src/index.js';
import { HEADROOM, allocValues, definedFromPoints, definedFromSorted, headroomOf } from '../src/runs.js';
import { encodeSparseChunk } from '../src/sections.js';
import { emptyChunk, mergeWrite, writeChunk, type SparseChunk } from '../src/sparse-chunk.js';
import { dimsArb, makeContext, requestOf, selectionArb, volume, sameMem } from './support.js';

/** Request run orders: as mapped, reversed, or shuffled and cut into single elements (a point request). */
type Order = 'as-is' | 'reversed' | 'points';

function reorder(req: ChunkRequest, order: Order, seed: number): ChunkRequest {
  const r = req.runs;
  if (order === 'as-is') return req;
  const triples: number[][] = [];
  for (let i = 0; i < r.length; i += 3) {
    if (order === 'points') for (let u = 0; u < r[i + 2]!; u++) triples.push([r[i]! + u, r[i + 1]! + u, 1]);
    else triples.push([r[i]!, r[i + 1]!, r[i + 2]!]);
  }
  if (order === 'reversed') triples.reverse();
  else {
    let x = seed || 1;
    for (let i = triples.length - 1; i > 0; i--) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      const j = x % (i + 1);
      [triples[i], triples[j]] = [triples[j]!, triples[i]!];
    }
  }
  return { ...req, runs: Float64Array.from(triples.flat()) };
}

/** A request writing every element of `sel` once more (duplicates: a later run must win). */
function withDuplicates(req: ChunkRequest): ChunkRequest {
  const r = req.runs;
  const extra: number[] = [];
  for (let i = 0; i < r.length; i += 6) extra.push(r[i]!, req.count + i, 1);
  return { ...req, runs: Float64Array.from([...r, ...extra]), count: req.count + r.length };
}

describe('first write into an empty chunk', () => {
  it('gives the same chunk and the same stored bytes as the general merge (1–4-D, any order, duplicates)', async () => {
    await fc.assert(
      fc.asyncProperty(
        dimsArb.chain((dims) =>
          fc.tuple(
            fc.constant(dims),
            selectionArb(dims),
            fc.constantFrom<Order>('as-is', 'reversed', 'points'),
            fc.boolean(),
            fc.constantFrom(1, 2, 4),
            fc.integer({ min: 0, max: 1 << 20 }),
          ),
        ),
        async ([dims, sel, order, dup, es, seed]) => {
          let req = reorder(requestOf(sel, dims), order, seed);
          if (dup) req = withDuplicates(req);
          let maxB = 0;
          for (let i = 0; i < req.runs.length; i += 3) maxB = Math.max(maxB, req.runs[i + 1]! + req.runs[i + 2]!);
          const src = Uint8Array.from({ length: maxB * es }, (_, i) => (seed + 7 * i) & 0xff);
          const fast = emptyChunk();
          writeChunk(fast, req, src, es, dims);
          const slow = emptyChunk();
          mergeWrite(slow, req, src, es, dims);
          sameMem(fast, slow);
          const ctx = makeContext(dims, es);
          const a = await encodeSparseChunk(fast, ctx, dims.map(() => 0));
          const b = await encodeSparseChunk(slow, ctx, dims.map(() => 0));
          expect(Array.from(a.bytes)).toEqual(Array.from(b.bytes));
          expect(a.sections).toEqual(b.sections);
          // the values survive the image being built in the room before them
          expect(Array.from(fast.values)).toEqual(Array.from(slow.values));
        },
      ),
      { numRuns: 600 },
    );
  });

  it('takes the fast paths: sorted requests copy once, point requests sort', () => {
    const dims = [1, 64, 64];
    const src = Uint8Array.from({ length: 2 * 64 * 64 }, (_, i) => i & 0xff);
    const sorted = requestOf(toBlocks(selectPoints([[0, 3, 4], [0, 3, 5], [0, 9, 1]]), dims), dims);
    expect(definedFromSorted(sorted.runs, src, 2)).not.toBeNull();
    // a point request in any order, with a duplicate of offset 3·64+4 (the later one, buffer 3, wins)
    const pts = Float64Array.from([9 * 64 + 1, 0, 1, 3 * 64 + 4, 1, 2, 3 * 64 + 4, 3, 1]);
    expect(definedFromSorted(pts, src, 2)).toBeNull();
    const d = definedFromPoints(pts, src, 2)!;
    expect(Array.from(d.runs)).toEqual([3 * 64 + 4, 2, 0, 9 * 64 + 1, 1, 2]);
    expect(Array.from(d.values)).toEqual([6, 7, 4, 5, 0, 1]);
    // long runs are merged, not expanded
    expect(definedFromPoints(Float64Array.from([100, 0, 50, 0, 50, 10]), src, 2)).toBeNull();
  });

  it('radix-sorts offsets past 2^24 (several passes) and keeps duplicates in request order', () => {
    const offs = [0x1234567, 5, 0x1234567, 0xfffff, 6, 0x1000000, 5];
    const req = Float64Array.from(offs.flatMap((o, i) => [o, i, 1]));
    const src = Uint8Array.from(offs.map((_, i) => 10 + i));
    const d = definedFromPoints(req, src, 1)!;
    expect(Array.from(d.runs)).toEqual([5, 2, 0, 0xfffff, 1, 2, 0x1000000, 1, 3, 0x1234567, 1, 4]);
    expect(Array.from(d.values)).toEqual([16, 14, 13, 15, 12]);
  });

  it('sorts clustered offsets (a full bucket falls back to the radix sort) the same way', () => {
    for (const n of [40, 300, 5000]) {
      // n offsets packed near 0 (one bucket) in reverse order, each written twice, plus one far away
      const offs: number[] = [];
      for (let i = n - 1; i >= 0; i--) offs.push(3 * i, 3 * i);
      offs.push(0xabcdef);
      const req = Float64Array.from(offs.flatMap((o, i) => [o, i, 1]));
      const src = Uint8Array.from(offs.map((_, i) => i & 0xff));
      const d = definedFromPoints(req, src, 1)!;
      const fast = emptyChunk();
      const slow = emptyChunk();
      writeChunk(fast, { coords: [0], runs: req, count: offs.length, full: false }, src, 1, [0xabcdef + 1]);
      mergeWrite(slow, { coords: [0], runs: req, count: offs.length, full: false }, src, 1, [0xabcdef + 1]);
      sameMem(fast, slow);
      expect(Array.from(d.values)).toEqual(Array.from(slow.values));
      expect(d.runs.length / 3).toBe(n + 1);
    }
  });
});

describe('chunk images without copying the values', () => {
  it('puts section 0 in the room before a fresh value array: the image is a view of it', async () => {
    const dims = [1, 32, 32];
    const fmt = new SparseFormat(makeContext(dims, 2));
    const mem = fmt.fill();
    const req = requestOf(toBlocks(selectPoints([[0, 1, 1], [0, 1, 2], [0, 2, 1], [0, 2, 2]]), dims), dims);
    fmt.memWrite(mem, req, Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8));
    expect(headroomOf(mem.values)).toBe(HEADROOM);
    const img = await fmt.memToFile(mem, [0, 0, 0]);
    expect(img.bytes.buffer).toBe(mem.values.buffer);
    const s0 = img.sections!.offsets[0]!;
    expect(Array.from(img.bytes.subarray(s0))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(Array.from(mem.values)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('never writes before a value array borrowed from the caller (whole-chunk write)', async () => {
    const dims = [4, 4];
    const fmt = new SparseFormat(makeContext(dims, 1));
    const buf = Uint8Array.from({ length: 64 }, (_, i) => i);
    const src = buf.subarray(32, 48);
    const req = requestOf(toBlocks(selectPoints(Array.from({ length: 16 }, (_, i) => [i >> 2, i & 3])), dims), dims);
    const mem = fmt.fromRequest(req, src);
    const img = await fmt.memToFile(mem, [0, 0]);
    expect(img.bytes.buffer).not.toBe(buf.buffer);
    expect(Array.from(buf)).toEqual(Array.from({ length: 64 }, (_, i) => i));
  });

  it('a section 0 larger than the room is joined by copying', async () => {
    const dims = [64, 64];
    const ctx = makeContext(dims, 1);
    const mem = emptyChunk();
    const offs = Array.from({ length: 200 }, (_, i) => (i * 97) % 4096);
    const req: ChunkRequest = { coords: [0, 0], runs: Float64Array.from(offs.flatMap((o, i) => [o, i, 1])), count: 200, full: false };
    // a general merge allocates the default room, too small for 200 scattered points
    mergeWrite(mem, req, Uint8Array.from(offs, (o) => o & 0xff), 1, dims);
    const img = await encodeSparseChunk(mem, ctx, [0, 0]);
    expect(img.bytes.buffer).not.toBe(mem.values.buffer);
    expect(Array.from(img.bytes.subarray(img.sections!.offsets[0]!))).toEqual(Array.from(mem.values));
  });

  it('allocValues leaves room before the values; other arrays have none', () => {
    const v = allocValues(10, 40);
    expect(v.length).toBe(10);
    expect(v.byteOffset).toBe(40);
    expect(headroomOf(v)).toBe(40);
    expect(headroomOf(new Uint8Array(10))).toBe(0);
    expect(headroomOf(v.subarray(1))).toBe(0);
  });
});

describe('selection encoding helpers', () => {
  it('encodeSelectionWithTrailer is encodeSelection plus zeroed trailer bytes', () => {
    fc.assert(
      fc.property(
        dimsArb.chain((dims) => fc.tuple(fc.constant(dims), selectionArb(dims), fc.constantFrom<'smallest' | 'prototype'>('smallest', 'prototype'))),
        ([dims, sel, encoding]) => {
          const a = encodeSelection(sel, { dims }, { encoding });
          const b = encodeSelectionWithTrailer(sel, { dims }, { encoding }, 4);
          expect(Array.from(b)).toEqual([...a, 0, 0, 0, 0]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('runsToBoxes of chunks with leading dimensions of size 1 gives the canonical boxes', () => {
    for (const dims of [[1, 6, 7], [1, 1, 5, 4], [1, 1, 3, 3]]) {
      const sel = selectPoints([[...dims.slice(0, -2).map(() => 0), 0, 1], [...dims.slice(0, -2).map(() => 0), 1, 1], [...dims.slice(0, -2).map(() => 0), 2, 0], [...dims.slice(0, -2).map(() => 0), 2, 2]]);
      const blocks = toBlocks(sel, dims);
      expect(Array.from(runsToBoxes(selectionRuns(blocks, dims), 2, dims))).toEqual(blocks.kind === 'blocks' ? Array.from(blocks.boxes) : []);
    }
    expect(volume([1, 1])).toBe(1);
  });

  it('runsToBoxes of one region of a frame (same columns of consecutive rows) and of near misses gives the canonical boxes', () => {
    const cases: [number[], [number[], number[]][]][] = [
      [[1, 16, 20], [[[0, 3, 4], [1, 9, 11]]]], // one box
      [[16, 20], [[[0, 0], [16, 20]]]], // the whole chunk: one run
      [[12, 10], [[[2, 0], [7, 10]]]], // full rows: one run
      [[1, 1, 8, 9], [[[0, 0, 5, 8], [1, 1, 8, 9]]]], // the last column of the last rows
      [[1, 16, 20], [[[0, 3, 4], [1, 9, 11]], [[0, 9, 5], [1, 10, 11]]]], // the next row a column off
      [[1, 16, 20], [[[0, 3, 4], [1, 9, 11]], [[0, 10, 4], [1, 11, 10]]]], // the next row shorter
      [[1, 16, 20], [[[0, 3, 4], [1, 6, 11]], [[0, 7, 4], [1, 9, 11]]]], // a row missing between
    ];
    for (const [dims, boxes] of cases) {
      const sel = toBlocks(selectBlocks(boxes.map(([start, end]) => ({ start, end }))), dims);
      expect(Array.from(runsToBoxes(selectionRuns(sel, dims), 2, dims))).toEqual(sel.kind === 'blocks' ? Array.from(sel.boxes) : []);
    }
  });
});

describe('decoded chunk reuse and shared values', () => {
  const dims = [8, 8];
  const rec = (img: { bytes: Uint8Array; sections?: unknown }, address: number) =>
    ({ coords: [0, 0], address, size: img.bytes.length, filterMask: 0, sections: img.sections }) as never;

  it('a second fileToMem of the same bytes shares the decode; writes through either handle copy first', async () => {
    const fmt = new SparseFormat(makeContext(dims, 1));
    const mem = fmt.fill();
    fmt.memWrite(mem, requestOf(toBlocks(selectPoints([[1, 1], [1, 2], [5, 5]]), dims), dims), Uint8Array.of(1, 2, 3));
    const img = await fmt.memToFile(mem, [0, 0]);
    const bytes = img.bytes.slice();
    const a = await fmt.fileToMem(bytes, rec(img, 64));
    const b = await fmt.fileToMem(bytes.slice(), rec(img, 64));
    expect(b.values.buffer).toBe(a.values.buffer);
    // an in-place write (same defined set) through a must not show through b or a later decode
    fmt.memWrite(a, requestOf(selectPoints([[1, 2]]), dims), Uint8Array.of(9));
    expect(Array.from(a.values)).toEqual([1, 9, 3]);
    expect(Array.from(b.values)).toEqual([1, 2, 3]);
    expect(Array.from((await fmt.fileToMem(bytes, rec(img, 64))).values)).toEqual([1, 2, 3]);
    // other bytes at the same address are decoded afresh
    const other = await fmt.memToFile(a, [0, 0]);
    expect(Array.from((await fmt.fileToMem(other.bytes.slice(), rec(other, 64))).values)).toEqual([1, 9, 3]);
  });

  it('an image that is a view of the values stays intact when the chunk is written again in place', async () => {
    const fmt = new SparseFormat(makeContext(dims, 1));
    const mem = fmt.fill();
    fmt.memWrite(mem, requestOf(toBlocks(selectPoints([[2, 2], [2, 3]]), dims), dims), Uint8Array.of(4, 5));
    const img = await fmt.memToFile(mem, [0, 0]);
    expect(img.bytes.buffer).toBe(mem.values.buffer);
    const before = Array.from(img.bytes);
    fmt.memWrite(mem, requestOf(selectPoints([[2, 3]]), dims), Uint8Array.of(7));
    expect(Array.from(img.bytes)).toEqual(before);
    expect(Array.from(mem.values)).toEqual([4, 7]);
  });
});

