/**
 * Brute-force model of selections for property tests: boolean masks over small dataspaces and the
 * list of selected linear offsets in iteration order. Plus fast-check arbitraries for dims,
 * hyperslabs, boxes and points.
 */
import fc from 'fast-check';
import {
  selectAll,
  selectBlocks,
  selectHyperslab,
  selectNone,
  selectPoints,
  type Box,
  type HyperslabSpec,
  type Selection,
} from '../../src/selection/selection.js';

export function volume(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

export function unravel(i: number, dims: readonly number[]): number[] {
  const c = new Array<number>(dims.length);
  for (let d = dims.length - 1; d >= 0; d--) {
    c[d] = i % dims[d]!;
    i = Math.floor(i / dims[d]!);
  }
  return c;
}

export function ravel(c: readonly number[], dims: readonly number[]): number {
  let off = 0;
  for (let d = 0; d < dims.length; d++) off = off * dims[d]! + c[d]!;
  return off;
}

export function hyperslabMask(h: HyperslabSpec, dims: readonly number[]): Uint8Array {
  const m = new Uint8Array(volume(dims));
  const r = dims.length;
  for (let i = 0; i < m.length; i++) {
    const c = unravel(i, dims);
    let inside = true;
    for (let d = 0; d < r && inside; d++) {
      const rel = c[d]! - h.start[d]!;
      const stride = h.stride?.[d] ?? 1;
      const count = h.count?.[d] ?? 1;
      const block = h.block?.[d] ?? 1;
      inside = rel >= 0 && Math.floor(rel / stride) < count && rel % stride < block;
    }
    if (inside) m[i] = 1;
  }
  return m;
}

export function boxesMask(boxes: readonly Box[], dims: readonly number[]): Uint8Array {
  const m = new Uint8Array(volume(dims));
  for (let i = 0; i < m.length; i++) {
    const c = unravel(i, dims);
    if (boxes.some((b) => c.every((x, d) => x >= b.start[d]! && x < b.end[d]!))) m[i] = 1;
  }
  return m;
}

export function pointsMask(points: readonly number[][], dims: readonly number[]): Uint8Array {
  const m = new Uint8Array(volume(dims));
  for (const p of points) m[ravel(p, dims)] = 1;
  return m;
}

/** Selected offsets of a mask in C order. */
export function maskOrder(m: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < m.length; i++) if (m[i]) out.push(i);
  return out;
}

/** Expands `[start, length, ...]` runs into offsets. */
export function expandRuns(runs: Float64Array): number[] {
  const out: number[] = [];
  for (let k = 0; k < runs.length; k += 2) for (let u = 0; u < runs[k + 1]!; u++) out.push(runs[k]! + u);
  return out;
}

export function maskBounds(m: Uint8Array, dims: readonly number[]): { start: number[]; end: number[] } | null {
  const sel = maskOrder(m);
  if (sel.length === 0) return null;
  const start = dims.map(() => Infinity);
  const end = dims.map(() => -Infinity);
  for (const i of sel) {
    unravel(i, dims).forEach((x, d) => {
      start[d] = Math.min(start[d]!, x);
      end[d] = Math.max(end[d]!, x + 1);
    });
  }
  return { start, end };
}

/** Dims of rank 1–4 with at most ~400 elements (sizes 1..max). */
export const dimsArb = fc
  .integer({ min: 1, max: 4 })
  .chain((r) => fc.array(fc.integer({ min: 1, max: [0, 24, 14, 7, 5][r]! }), { minLength: r, maxLength: r }));

/** A valid hyperslab inside `dims` (count may be 0). */
export function hyperslabArb(dims: readonly number[]): fc.Arbitrary<HyperslabSpec> {
  const perDim = dims.map((n) =>
    fc
      .record({ start: fc.integer({ min: 0, max: n - 1 }), block: fc.integer({ min: 1, max: n }), extra: fc.integer({ min: 0, max: 3 }) })
      .chain(({ start, block, extra }) => {
        const b = Math.min(block, n - start);
        const stride = b + extra;
        const maxCount = Math.floor((n - start - b) / stride) + 1;
        return fc.integer({ min: 0, max: maxCount }).map((count) => ({ start, stride, count, block: b }));
      }),
  );
  return fc.tuple(...perDim).map((ds) => ({
    start: ds.map((x) => x.start),
    stride: ds.map((x) => x.stride),
    count: ds.map((x) => x.count),
    block: ds.map((x) => x.block),
  }));
}

/** Up to `max` boxes inside `dims` (possibly empty or overlapping). */
export function boxesArb(dims: readonly number[], max = 6): fc.Arbitrary<Box[]> {
  const box = fc
    .tuple(...dims.map((n) => fc.tuple(fc.integer({ min: 0, max: n }), fc.integer({ min: 0, max: n }))))
    .map((ps) => ({ start: ps.map(([a, b]) => Math.min(a, b)), end: ps.map(([a, b]) => Math.max(a, b)) }));
  return fc.array(box, { minLength: 1, maxLength: max });
}

/** Up to `max` points inside `dims` (duplicates possible). */
export function pointsArb(dims: readonly number[], max = 12): fc.Arbitrary<number[][]> {
  return fc.array(fc.tuple(...dims.map((n) => fc.integer({ min: 0, max: n - 1 }))), { minLength: 1, maxLength: max });
}

/** A selection together with its model: mask and selected offsets in iteration order. */
export interface Modelled {
  sel: Selection;
  mask: Uint8Array;
  order: number[];
  label: string;
}

/** A random selection of any kind inside `dims`, with its brute-force model. */
export function modelledArb(dims: readonly number[], kinds: ('all' | 'none' | 'hyperslab' | 'blocks' | 'points')[]): fc.Arbitrary<Modelled> {
  const n = volume(dims);
  const arbs: fc.Arbitrary<Modelled>[] = [];
  for (const k of kinds) {
    if (k === 'all') {
      const mask = new Uint8Array(n).fill(1);
      arbs.push(fc.constant({ sel: selectAll(), mask, order: maskOrder(mask), label: 'all' }));
    } else if (k === 'none') {
      arbs.push(fc.constant({ sel: selectNone(), mask: new Uint8Array(n), order: [], label: 'none' }));
    } else if (k === 'hyperslab') {
      arbs.push(
        hyperslabArb(dims).map((h) => {
          const mask = hyperslabMask(h, dims);
          return { sel: selectHyperslab(h), mask, order: maskOrder(mask), label: `hyperslab ${JSON.stringify(h)}` };
        }),
      );
    } else if (k === 'blocks') {
      arbs.push(
        boxesArb(dims).map((b) => {
          const mask = boxesMask(b, dims);
          return { sel: selectBlocks(b), mask, order: maskOrder(mask), label: `blocks ${JSON.stringify(b)}` };
        }),
      );
    } else {
      arbs.push(
        pointsArb(dims).map((p) => ({
          sel: selectPoints(p),
          mask: pointsMask(p, dims),
          order: p.map((c) => ravel(c, dims)),
          label: `points ${JSON.stringify(p)}`,
        })),
      );
    }
  }
  return fc.oneof(...arbs);
}
