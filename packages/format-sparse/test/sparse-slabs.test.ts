/**
 * Chunks of several frames (issue #11 point groups): writes that only add elements after the last
 * defined one extend the chunk in place (./src/slabs.ts) and must give exactly the chunk — runs,
 * values, canonical selection, stored bytes — of the general merge; reads of a slab of dimension 0
 * (one frame) must give the defined elements of that slab and their values, as the general
 * intersection does, also when boxes of the chunk cross the slab's edges.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { intersect, selectBlocks, selectHyperslab, selectionRuns, toBlocks, type Selection } from '@chunkform/core';
import { encodeSparseChunk } from '../src/sections.js';
import { boxesElements, boxesInSlab, boxesRows } from '../src/slabs.js';
import { definedValuesWithin, emptyChunk, mergeWrite, shareChunk, writeChunk, type SparseChunk } from '../src/sparse-chunk.js';
import { makeContext, requestOf, selectionArb, volume, sameMem } from './support.js';

/** Chunk dims of rank 2–4 with at least 2 in dimension 0. */
const slabDimsArb = fc.integer({ min: 2, max: 4 }).chain((r) =>
  fc.tuple(fc.integer({ min: 2, max: 6 }), fc.array(fc.integer({ min: 1, max: r > 2 ? 4 : 7 }), { minLength: r - 1, maxLength: r - 1 })).map(([n0, rest]) => [n0, ...rest]),
);

/** `sel` restricted to dimension-0 index `f` (a frame) and rows `[lo, hi)` of dimension 1, or null when it has nothing there. */
function frameOf(sel: Selection, dims: readonly number[], f: number, lo = 0, hi = dims[1]!): Selection | null {
  const box = selectBlocks([{ start: dims.map((_, d) => (d === 0 ? f : d === 1 ? lo : 0)), end: dims.map((n, d) => (d === 0 ? f + 1 : d === 1 ? hi : n)) }]);
  const part = toBlocks(intersect(sel, box, dims), dims);
  return part.kind === 'none' ? null : part;
}

/** Defined element offsets of a chunk with their values (element-sized byte arrays joined as strings). */
function elements(mem: SparseChunk, es: number): Map<number, string> {
  const out = new Map<number, string>();
  const r = mem.runs;
  for (let i = 0; i < r.length; i += 3) {
    for (let k = 0; k < r[i + 1]!; k++) out.set(r[i]! + k, Array.from(mem.values.subarray((r[i + 2]! + k) * es, (r[i + 2]! + k + 1) * es)).join(','));
  }
  return out;
}

describe('chunks written frame by frame', () => {
  it('appending frames gives the chunk and stored bytes of the general merge, and shared handles keep their state', async () => {
    await fc.assert(
      fc.asyncProperty(
        slabDimsArb.chain((dims) => fc.tuple(fc.constant(dims), selectionArb(dims), fc.constantFrom(1, 2), fc.integer({ min: 0, max: 1 << 20 }), fc.nat(5), fc.nat(dims[1]!))),
        async ([dims, sel, es, seed, shareAt, cut]) => {
          const fast = emptyChunk();
          const slow = emptyChunk();
          let frozen: { handle: SparseChunk; runs: number[]; values: number[] } | null = null;
          // each frame in two writes (rows before `cut`, then the rest): appends within a frame too
          const steps = Array.from({ length: dims[0]! }, (_, f) => [frameOf(sel, dims, f, 0, cut), frameOf(sel, dims, f, cut)]).flat();
          for (let f = 0; f < steps.length; f++) {
            const part = steps[f];
            if (!part) continue;
            const req = requestOf(part, dims);
            const src = Uint8Array.from({ length: req.count * es }, (_, i) => (seed + 31 * f + 7 * i) & 0xff);
            writeChunk(fast, req, src, es, dims);
            mergeWrite(slow, req, src, es, dims);
            sameMem(fast, slow);
            if (f === shareAt) {
              const handle = shareChunk(fast);
              frozen = { handle, runs: Array.from(handle.runs), values: Array.from(handle.values) };
            }
          }
          // a handle taken before later appends still shows the chunk as it was then
          if (frozen) {
            expect(Array.from(frozen.handle.runs)).toEqual(frozen.runs);
            expect(Array.from(frozen.handle.values)).toEqual(frozen.values);
          }
          const ctx = makeContext(dims, es);
          const a = await encodeSparseChunk(fast, ctx, dims.map(() => 0));
          const b = await encodeSparseChunk(slow, ctx, dims.map(() => 0));
          expect(Array.from(a.bytes)).toEqual(Array.from(b.bytes));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('grows in place: many appends keep the values and runs of every earlier frame', () => {
    const dims = [200, 8, 8];
    const mem = emptyChunk();
    const buffers = new Set<ArrayBufferLike>();
    for (let f = 0; f < 200; f++) {
      const sel = selectHyperslab({ start: [f, f % 5, 1], count: [1, 2, 3], stride: [1, 3, 2], block: [1, 1, 1] });
      const req = requestOf(sel, dims);
      writeChunk(mem, req, Uint8Array.from({ length: req.count }, (_, i) => (f + i) & 0xff), 1, dims);
      buffers.add(mem.values.buffer);
    }
    // room doubles as it fills: few reallocations, not one per frame
    expect(buffers.size).toBeLessThan(12);
    const el = elements(mem, 1);
    expect(el.size).toBe(200 * 6);
    for (let f = 0; f < 200; f++) {
      const base = f * 64 + (f % 5) * 8 + 1;
      expect(el.get(base)).toBe(String(f & 0xff));
      expect(el.get(base + 3 * 8 + 4)).toBe(String((f + 5) & 0xff));
    }
    expect(selectionRuns(mem.selection, dims).length / 2).toBe(200 * 6);
  });
});

describe('reads of a slab of dimension 0', () => {
  it('give the defined elements of the slab and their values, as the general intersection', () => {
    fc.assert(
      fc.property(
        slabDimsArb.chain((dims) => fc.tuple(fc.constant(dims), selectionArb(dims), fc.nat(), fc.nat(), fc.boolean())),
        ([dims, sel, x, y, appended]) => {
          const es = 2;
          const mem = emptyChunk();
          const whole = requestOf(sel, dims);
          const src = Uint8Array.from({ length: whole.count * es }, (_, i) => (5 + 3 * i) & 0xff);
          if (appended) {
            for (let f = 0; f < dims[0]!; f++) {
              const part = frameOf(sel, dims, f);
              if (part) writeChunk(mem, requestOf(part, dims), src, es, dims);
            }
          } else writeChunk(mem, whole, src, es, dims);
          const a = x % dims[0]!;
          const b = a + 1 + (y % (dims[0]! - a));
          const slab = selectHyperslab({ start: dims.map((_, d) => (d === 0 ? a : 0)), block: dims.map((n, d) => (d === 0 ? b - a : n)) });
          const got = definedValuesWithin(mem, slab, es, dims);
          const inner = volume(dims.slice(1));
          const all = elements(mem, es);
          const want = [...all.entries()].filter(([o]) => o >= a * inner && o < b * inner);
          const gotOffsets: number[] = [];
          const pairs = selectionRuns(got.selection, dims);
          for (let i = 0; i < pairs.length; i += 2) for (let k = 0; k < pairs[i + 1]!; k++) gotOffsets.push(pairs[i]! + k);
          expect(gotOffsets).toEqual(want.map(([o]) => o));
          const gotValues = gotOffsets.map((_, i) => Array.from(got.values.subarray(i * es, (i + 1) * es)).join(','));
          expect(gotValues).toEqual(want.map(([, v]) => v));
          // canonical: equal to the general intersection's selection
          if (got.selection.kind === 'blocks') expect(got.selection).toEqual(toBlocks(intersect(mem.selection, slab, dims), dims));
        },
      ),
      { numRuns: 600 },
    );
  });

  it('finds whole groups of boxes by binary search, and the place of a cut group\'s elements', () => {
    // rank 2, boxes [0,1)×[0,2), [1,3)×[1,2), [3,4)×[0,1): the second crosses 2
    const boxes = Float64Array.of(0, 1, 0, 2, 1, 3, 1, 2, 3, 4, 0, 1);
    expect(boxesInSlab(boxes, 2, 0, 1)).toEqual({ from: 0, to: 1, first: 0, count: 2, clip: false });
    expect(boxesInSlab(boxes, 2, 1, 3)).toEqual({ from: 1, to: 2, first: 2, count: 2, clip: false });
    expect(boxesInSlab(boxes, 2, 3, 4)).toEqual({ from: 2, to: 3, first: 4, count: 1, clip: false });
    // the second box's row 2 (its second cross-section) and row 1 (its first)
    expect(boxesInSlab(boxes, 2, 2, 3)).toEqual({ from: 1, to: 2, first: 3, count: 1, clip: true });
    expect(boxesInSlab(boxes, 2, 1, 2)).toEqual({ from: 1, to: 2, first: 2, count: 1, clip: true });
    expect(boxesInSlab(boxes, 2, 0, 4)).toEqual({ from: 0, to: 3, first: 0, count: 5, clip: false });
    expect(boxesInSlab(boxes, 2, 4, 5)).toEqual({ from: 3, to: 3, first: 5, count: 0, clip: false });
  });
});

describe('counts of a canonical box list (one pass)', () => {
  it('give the element count, the rows (runs along the last dimension at most) and the prefix sums the slab lookups use', () => {
    fc.assert(
      fc.property(slabDimsArb.chain((dims) => fc.tuple(fc.constant(dims), selectionArb(dims))), ([dims, sel]) => {
        const b = toBlocks(sel, dims);
        if (b.kind !== 'blocks') return;
        const w = 2 * b.rank;
        let elements = 0;
        let rows = 0;
        for (let i = 0; i < b.boxes.length; i += w) {
          let r = 1;
          for (let k = i; k < i + w - 2; k += 2) r *= b.boxes[k + 1]! - b.boxes[k]!;
          rows += r;
          elements += r * (b.boxes[i + w - 1]! - b.boxes[i + w - 2]!);
        }
        expect(boxesElements(b.boxes, b.rank)).toBe(elements);
        expect(boxesRows(b.boxes, b.rank)).toBe(rows);
        // the whole chunk as one slab: every box, every element, first at 0
        expect(boxesInSlab(b.boxes, b.rank, 0, dims[0]!)).toEqual({ from: 0, to: b.boxCount, first: 0, count: elements, clip: false });
        // the runs of the list: never more than its rows (what sizes a cache entry before they are derived)
        expect(selectionRuns(b, dims).length / 2).toBeLessThanOrEqual(rows);
      }),
      { numRuns: 150 },
    );
    expect(boxesElements(Float64Array.of(2, 5, 7, 9), 1)).toBe(5);
    expect(boxesRows(Float64Array.of(2, 5, 7, 9), 1)).toBe(2);
    expect(boxesRows(Float64Array.of(0, 2, 1, 4), 2)).toBe(2);
  });
});
