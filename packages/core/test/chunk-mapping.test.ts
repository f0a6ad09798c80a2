import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapToChunks, type ChunkPiece } from '../src/chunk/mapping.js';
import { SelectionError, ValueError } from '../src/errors.js';
import {
  selectAll,
  selectBlocks,
  selectHyperslab,
  selectNone,
  selectPoints,
  selectionCount,
  subtract,
  union,
  type Selection,
} from '../src/selection/index.js';
import { dimsArb, modelledArb, ravel, unravel, type Modelled } from './support/selection-model.js';

/** Checks pieces against the model: every buffer element once, at the right dataset element. */
function checkPieces(pieces: ChunkPiece[], m: Modelled, dims: number[], chunk: number[], sorted: boolean): void {
  const seen = new Uint8Array(m.order.length);
  const chunkVol = chunk.reduce((a, b) => a * b, 1);
  for (let p = 0; p < pieces.length; p++) {
    const { coords, runs, count, full } = pieces[p]!;
    if (p > 0) expect(ravel(pieces[p - 1]!.coords, dims.map((n, d) => Math.ceil(n / chunk[d]!)))).toBeLessThan(ravel(coords, dims.map((n, d) => Math.ceil(n / chunk[d]!))));
    let total = 0;
    for (let k = 0; k < runs.length; k += 3) {
      const [c, b, len] = [runs[k]!, runs[k + 1]!, runs[k + 2]!];
      expect(len).toBeGreaterThan(0);
      if (k > 0) {
        const [pc, pb, pl] = [runs[k - 3]!, runs[k - 2]!, runs[k - 1]!];
        expect(pc + pl === c && pb + pl === b, 'runs are maximal').toBe(false);
        if (sorted) expect(b).toBeGreaterThan(pb);
      }
      for (let u = 0; u < len; u++) {
        expect(c + u).toBeLessThan(chunkVol);
        const local = unravel(c + u, chunk);
        const global = local.map((x, d) => coords[d]! * chunk[d]! + x);
        global.forEach((x, d) => expect(x).toBeLessThan(dims[d]!));
        expect(ravel(global, dims), `${m.label} buffer ${b + u}`).toBe(m.order[b + u]);
        expect(seen[b + u]).toBe(0);
        seen[b + u] = 1;
      }
      total += len;
    }
    expect(count).toBe(total);
    // full: every element of the chunk inside the dataset is selected
    let allIn = true;
    for (let o = 0; o < chunkVol && allIn; o++) {
      const g = unravel(o, chunk).map((x, d) => coords[d]! * chunk[d]! + x);
      if (g.every((x, d) => x < dims[d]!)) allIn = m.mask[ravel(g, dims)] === 1;
    }
    expect(full, `${m.label} chunk ${coords}`).toBe(allIn);
  }
  expect(seen.every((x) => x === 1), m.label).toBe(true);
}

const chunkArb = (dims: number[]): fc.Arbitrary<number[]> => fc.tuple(...dims.map((n) => fc.integer({ min: 1, max: n + 2 })));

describe('mapToChunks against the mask model', () => {
  it('maps random selections onto random chunk grids (rank 1–4)', () => {
    fc.assert(
      fc.property(
        dimsArb.chain((dims) =>
          fc.tuple(fc.constant(dims), modelledArb(dims, ['all', 'none', 'hyperslab', 'blocks', 'points']), chunkArb(dims)),
        ),
        ([dims, m, chunk]) => {
          checkPieces(mapToChunks(m.sel, dims, chunk), m, dims, chunk, m.sel.kind !== 'points');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('maps unions and differences of many blocks', () => {
    const arb = fc
      .tuple(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 30 }))
      .chain(([h, w]) =>
        fc.tuple(
          fc.constant<number[]>([h, w]),
          fc.array(fc.tuple(fc.nat(h), fc.nat(h), fc.nat(w), fc.nat(w)), { minLength: 1, maxLength: 25 }),
          fc.array(fc.tuple(fc.nat(h), fc.nat(h), fc.nat(w), fc.nat(w)), { minLength: 1, maxLength: 8 }),
          chunkArb([h, w]),
        ),
      );
    fc.assert(
      fc.property(arb, ([dims, add, cut, chunk]) => {
        const toBox = ([a, b, c, d]: [number, number, number, number]) => ({
          start: [Math.min(a, b), Math.min(c, d)],
          end: [Math.max(a, b), Math.max(c, d)],
        });
        const sel = subtract(selectBlocks(add.map(toBox)), selectBlocks(cut.map(toBox)));
        const mask = new Uint8Array(dims[0]! * dims[1]!);
        for (const b of add.map(toBox)) for (let y = b.start[0]!; y < b.end[0]!; y++) for (let x = b.start[1]!; x < b.end[1]!; x++) mask[y * dims[1]! + x] = 1;
        for (const b of cut.map(toBox)) for (let y = b.start[0]!; y < b.end[0]!; y++) for (let x = b.start[1]!; x < b.end[1]!; x++) mask[y * dims[1]! + x] = 0;
        const order: number[] = [];
        mask.forEach((v, i) => v && order.push(i));
        checkPieces(mapToChunks(sel, dims, chunk), { sel, mask, order, label: 'blocks' }, dims, chunk, true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('mapToChunks: cases', () => {
  it('maps a whole 100×1024×1024 dataset onto 1×256×256 chunks', () => {
    // Measured on a shared 2-CPU machine: ~20–30 ms for the first call (cold JIT), ~4–8 ms warm;
    // 1600 pieces × 256 runs (one per chunk row: rows are not contiguous in the 1024-wide buffer).
    const pieces = mapToChunks(selectAll(), [100, 1024, 1024], [1, 256, 256]);
    expect(pieces.length).toBe(1600);
    expect(pieces[0]!.coords).toEqual([0, 0, 0]);
    expect(pieces[5]!.coords).toEqual([0, 1, 1]);
    expect(pieces.every((p) => p.full && p.count === 65536 && p.runs.length === 256 * 3)).toBe(true);
    expect(Array.from(pieces[5]!.runs.subarray(0, 6))).toEqual([0, 256 * 1024 + 256, 256, 256, 257 * 1024 + 256, 256]);
    // a whole frame on frame-sized chunks is one run per chunk
    const frames = mapToChunks(selectAll(), [100, 1024, 1024], [1, 1024, 1024]);
    expect(Array.from(frames[3]!.runs)).toEqual([0, 3 * 1024 * 1024, 1024 * 1024]);
  });

  it('merges rows when both the chunk and the buffer stay contiguous', () => {
    const band = selectHyperslab({ start: [1, 0], count: [1, 1], block: [7, 6] });
    const pieces = mapToChunks(band, [8, 6], [4, 6]);
    expect(pieces.map((p) => [p.coords, Array.from(p.runs), p.full])).toEqual([
      [[0, 0], [6, 0, 18], false],
      [[1, 0], [0, 18, 24], true],
    ]);
    const blocks = union(band, selectBlocks([{ start: [0, 0], end: [1, 2] }]));
    expect(mapToChunks(blocks, [8, 6], [4, 6]).map((p) => Array.from(p.runs))).toEqual([[0, 0, 2, 6, 2, 18], [0, 20, 24]]);
  });

  it('addresses edge chunks with whole-chunk offsets', () => {
    const pieces = mapToChunks(selectAll(), [5, 7], [2, 3]);
    expect(pieces.length).toBe(9);
    const corner = pieces[8]!;
    expect(corner).toEqual({ coords: [2, 2], runs: Float64Array.of(0, 34, 1), count: 1, full: true });
    expect(Array.from(pieces[2]!.runs)).toEqual([0, 6, 1, 3, 13, 1]);
  });

  it('groups points by chunk, keeping their buffer positions', () => {
    const p = selectPoints([[3, 3], [0, 0], [0, 1], [3, 2], [1, 1], [0, 0], [0, 1]]);
    const pieces = mapToChunks(p, [4, 4], [2, 2]);
    expect(pieces.map((x) => [x.coords, Array.from(x.runs), x.count, x.full])).toEqual([
      [[0, 0], [0, 1, 2, 3, 4, 1, 0, 5, 2], 5, false], // 5 points but only 3 distinct of 4 elements
      [[1, 1], [3, 0, 1, 2, 3, 1], 2, false],
    ]);
    const dup = selectPoints([[0, 0], [0, 1], [1, 1], [1, 0], [0, 0]]);
    expect(mapToChunks(dup, [4, 4], [2, 2])[0]).toMatchObject({ count: 5, full: true });
    const all4 = selectPoints([[1, 1], [0, 0], [0, 1], [1, 0]]);
    expect(mapToChunks(all4, [4, 4], [2, 2])[0]!.full).toBe(true);
  });

  it('maps a sparse 2048×2048 frame (10 % rectangle + 100 small groups)', () => {
    let seed = 11;
    const rnd = (n: number): number => Math.floor(((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * n);
    const boxes = [{ start: [700, 700], end: [1348, 1348] }];
    for (let i = 0; i < 100; i++) {
      const y = rnd(2040);
      const x = rnd(2040);
      boxes.push({ start: [y, x], end: [y + 1 + rnd(3), x + 2 + rnd(3)] });
    }
    const sel = selectBlocks(boxes);
    // Measured (min of 200, shared machine): 0.19 ms with 256×256 chunks, 0.6 ms with 64×64 chunks.
    for (const chunk of [[256, 256], [64, 64], [2048, 2048]]) {
      const pieces = mapToChunks(sel, [2048, 2048], chunk);
      const total = selectionCount(sel, [2048, 2048]);
      expect(pieces.reduce((a, p) => a + p.count, 0)).toBe(total);
      const seen = new Uint8Array(total);
      for (const p of pieces) {
        for (let k = 0; k < p.runs.length; k += 3) seen.fill(seen[p.runs[k + 1]!]! + 1, p.runs[k + 1]!, p.runs[k + 1]! + p.runs[k + 2]!);
      }
      expect(seen.every((x) => x === 1)).toBe(true);
    }
    const inner = mapToChunks(sel, [2048, 2048], [256, 256]).filter((p) => p.coords.every((c) => c >= 3 && c <= 4));
    expect(inner.every((p) => p.full)).toBe(true);
  });

  it('validates the selection and the chunk dims', () => {
    expect(() => mapToChunks(selectPoints([[4, 0]]), [4, 4], [2, 2])).toThrow(SelectionError);
    expect(() => mapToChunks(selectAll(), [4, 4], [2])).toThrow(ValueError);
    expect(() => mapToChunks(selectAll(), [4, 4], [0, 2])).toThrow(ValueError);
    expect(mapToChunks(selectNone(), [4, 4], [2, 2])).toEqual([]);
    expect(mapToChunks(selectAll(), [0, 4], [2, 2])).toEqual([]);
    expect(mapToChunks(selectHyperslab({ start: [0, 0], count: [0, 1] }), [4, 4], [2, 2])).toEqual([]);
    const scalar: Selection = selectAll();
    expect(mapToChunks(scalar, [], [])).toEqual([{ coords: [], runs: Float64Array.of(0, 0, 1), count: 1, full: true }]);
  });
});
