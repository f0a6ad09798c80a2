/**
 * Which serialisation a selection gets. Two policies:
 * - `prototype`: what the HDF Group prototype (HDF5 develop, API-context low bound EARLIEST)
 *   writes — points v1 / hyperslab v1 block lists, raised only when values exceed 32 bits
 *   (points → v2, regular hyperslab → v2, irregular → v3), with HDF5's width rule (docs/structured-chunk-format.md §7.4).
 * - `smallest`: the smallest encoding HDF5 (≥ 1.12) decodes to the same elements in the same
 *   order, chosen arithmetically among `all`, points v2, hyperslab v3 regular and hyperslab v3
 *   block list (over the smaller of two reduced block covers: vertical merging, or column runs
 *   for small groups — see component-cover.ts — unless it saves under 1/16 of the canonical
 *   blocks, which readers take without normalising), each with its narrowest width.
 * Both write the blocks of a block list sorted by their start corner in C order, as HDF5 does.
 * @module
 */
import { hyperslabIntervals, productToBoxes } from '../hyperslab.js';
import { pointsToBoxes } from '../points.js';
import { selectionRuns } from '../runs.js';
import type { HyperslabSelection, Selection } from '../selection.js';
import { canonicalBoxes } from './canonical.js';
import { componentCover } from './component-cover.js';
import {
  boxesMaxHigh,
  elementCoords,
  normalizeRegular,
  pointsAreSorted,
  regularBlockCount,
  regularElementCount,
  regularFromBoxes,
  regularHigh,
  sortBoxesByStart,
  verticalCover,
} from './cover.js';
import { blockListSize, regularSize, type RegularParams } from './hyperslab.js';
import { pointsSize } from './points.js';
import { widthFor, type UintWidth } from './uint.js';

/** Encoding policy of {@link encodeSelection}. */
export type SelectionEncoding = 'smallest' | 'prototype';

/** The selection part of an encoding, fully decided. */
export type SelectionBody =
  | { kind: 'none' }
  | { kind: 'all' }
  | { kind: 'points'; version: 1 | 2; width: UintWidth; rank: number; coords: Float64Array }
  | { kind: 'regular'; version: 2 | 3; width: UintWidth; params: RegularParams }
  | { kind: 'blocks'; version: 1 | 3; width: UintWidth; rank: number; boxes: Float64Array };

const U32 = 0xffffffff;

/** Size in bytes of a selection body. */
export function bodySize(b: SelectionBody): number {
  switch (b.kind) {
    case 'none':
    case 'all':
      return 16;
    case 'points':
      return pointsSize(b.version, b.rank, b.coords.length / b.rank, b.width);
    case 'regular':
      return regularSize(b.version, b.params.start.length, b.width);
    case 'blocks':
      return blockListSize(b.version, b.rank, b.boxes.length / (2 * b.rank), b.width);
  }
}

function maxOf(a: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) if (a[i]! > m) m = a[i]!;
  return m;
}

function regularBoxes(p: RegularParams): Float64Array {
  const h: HyperslabSelection = { kind: 'hyperslab', rank: p.start.length, ...p };
  return productToBoxes(p.start.map((_, d) => hyperslabIntervals(h, d)));
}

/** The selection body the prototype writes (docs/structured-chunk-format.md §7.4; HDF5 H5S__point/hyper_get_version_enc_size). */
export function prototypeBody(sel: Selection): SelectionBody {
  switch (sel.kind) {
    case 'none':
    case 'all':
      return { kind: sel.kind };
    case 'points': {
      const n = sel.pointCount;
      if (n === 0) return { kind: 'none' };
      const high = maxOf(sel.coords);
      if (n <= U32 && high <= U32) return { kind: 'points', version: 1, width: 4, rank: sel.rank, coords: sel.coords };
      return { kind: 'points', version: 2, width: widthFor(Math.max(n, high)), rank: sel.rank, coords: sel.coords };
    }
    case 'hyperslab': {
      const p = normalizeRegular(sel);
      return p ? prototypeRegular(p) : { kind: 'none' };
    }
    case 'blocks': {
      const p = regularFromBoxes(sel.boxes, sel.rank);
      if (p) return prototypeRegular(p);
      const nb = sel.boxCount;
      const high = boxesMaxHigh(sel.boxes, sel.rank);
      if (nb <= U32 && high <= U32) return { kind: 'blocks', version: 1, width: 4, rank: sel.rank, boxes: sel.boxes };
      return { kind: 'blocks', version: 3, width: widthFor(Math.max(nb, high)), rank: sel.rank, boxes: sel.boxes };
    }
  }
}

function prototypeRegular(p: RegularParams): SelectionBody {
  const nb = regularBlockCount(p);
  if (nb > U32 || regularHigh(p).some((h) => h > U32)) return { kind: 'regular', version: 2, width: 8, params: p };
  return { kind: 'blocks', version: 1, width: 4, rank: p.start.length, boxes: regularBoxes(p) };
}

/** Narrowest width of a regular hyperslab (HDF5: count/block + 1 for the unlimited marker). */
function regularWidth(p: RegularParams): UintWidth {
  const a = Math.max(maxOf(p.count), maxOf(p.block)) + 1;
  const b = Math.max(maxOf(p.start), maxOf(p.stride));
  return widthFor(Math.max(a, b));
}

interface Candidate {
  size: number;
  make: () => SelectionBody;
}

/**
 * The smallest body for `sel` in a dataspace of shape `dims` (the selection must be valid there).
 * Point lists not in strictly increasing C order keep their order (points only).
 */
export function smallestBody(sel: Selection, dims: readonly number[]): SelectionBody {
  if (sel.kind === 'none' || sel.kind === 'all') return { kind: sel.kind };
  const rank = sel.rank;
  if (sel.kind === 'points') {
    const n = sel.pointCount;
    if (n === 0) return { kind: 'none' };
    if (!pointsAreSorted(sel.coords, dims)) {
      return { kind: 'points', version: 2, width: widthFor(Math.max(n, maxOf(sel.coords))), rank, coords: sel.coords };
    }
  }
  let total = 1;
  for (const n of dims) total *= n;
  const cands: Candidate[] = [];
  let count: number;
  let high: number;
  let regular: RegularParams | null = null;
  let boxes: (() => Float64Array) | null = null;
  let nboxes = 0;
  if (sel.kind === 'hyperslab') {
    regular = normalizeRegular(sel);
    if (!regular) return { kind: 'none' };
    count = regularElementCount(regular);
    high = maxOf(regularHigh(regular));
    nboxes = regularBlockCount(regular);
    const p = regular;
    boxes = () => regularBoxes(p);
  } else {
    const canonical = sel.kind === 'blocks' ? sel.boxes : canonicalBoxes(pointsToBoxes(sel.coords, rank), rank);
    // element count and largest coordinate in one pass
    count = 0;
    high = 0;
    const w = 2 * rank;
    for (let i = 0; i < canonical.length; i += w) {
      let v = 1;
      for (let k = i; k < i + w; k += 2) {
        const e = canonical[k + 1]!;
        v *= e - canonical[k]!;
        if (e - 1 > high) high = e - 1;
      }
      count += v;
    }
    if (sel.kind === 'points') count = sel.pointCount;
    regular = regularFromBoxes(canonical, rank);
    const vertical = verticalCover(canonical, rank);
    const grouped = componentCover(canonical, rank);
    const smaller = grouped && grouped.length < vertical.length ? grouped : vertical;
    // A cover saving under 1/16 of the blocks is not worth what it costs readers: ours skip the
    // normalisation of a canonical list (a point-group chunk: one box repeated over two frames).
    const cover = smaller.length > canonical.length - (canonical.length >> 4) ? canonical : smaller;
    nboxes = cover.length / (2 * rank);
    // Blocks in HDF5's order (by start corner, C order); the cover's own order is its build order.
    boxes = () => sortBoxesByStart(cover, rank, dims);
  }
  if (count === total) return { kind: 'all' };
  if (regular) {
    const p = regular;
    const width = regularWidth(p);
    cands.push({ size: regularSize(3, rank, width), make: () => ({ kind: 'regular', version: 3, width, params: p }) });
  }
  {
    const width = widthFor(Math.max(nboxes, high));
    const make = boxes;
    cands.push({ size: blockListSize(3, rank, nboxes, width), make: () => ({ kind: 'blocks', version: 3, width, rank, boxes: make() }) });
  }
  {
    const width = widthFor(Math.max(count, high));
    cands.push({
      size: pointsSize(2, rank, count, width),
      make: () => ({
        kind: 'points',
        version: 2,
        width,
        rank,
        coords: sel.kind === 'points' ? sel.coords : elementCoords(selectionRuns(sel, dims), dims, count),
      }),
    });
  }
  let best = cands[0]!;
  for (const c of cands) if (c.size < best.size) best = c;
  return best.make();
}
