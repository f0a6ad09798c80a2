/**
 * Small helpers shared by the single-chunk, implicit and B-tree chunk indexes: chunk geometry
 * (bytes per chunk, chunk grids, linear chunk numbers), argument checks and error location.
 * @module
 */
import { H5Error, InvalidStateError, ValueError } from '@chunkform/core';
import {
  type ChunkIndexContext,
  type ChunkRecord,
  type IndexStorage,
  type StructuredChunkSections,
  floorLog2,
} from '@chunkform/core/plugin';

/** Bytes of one unfiltered chunk: product of the chunk dimensions × element size (HDF5's `layout->size`, < 2^32). */
export function chunkByteSize(ctx: Pick<ChunkIndexContext, 'chunkDims' | 'elementSize' | 'datasetPath'>, structure: string): number {
  let n = ctx.elementSize;
  for (const d of ctx.chunkDims) n *= d;
  if (!Number.isSafeInteger(n) || n <= 0 || n > 0xffffffff) {
    throw new ValueError(`chunk of ${ctx.chunkDims.join('×')} elements of ${ctx.elementSize} bytes must be 1 byte to 4 GiB`, {
      path: ctx.datasetPath,
      structure,
    });
  }
  return n;
}

/**
 * Width of the "chunk size" field of filtered index records (FA/EA elements, v2 B-tree type 11):
 * `1 + (floor(log2(chunkBytes)) + 8) / 8`, at most 8 (H5Dbtree2.c `H5D__bt2_crt_context`).
 */
export function filteredChunkSizeWidth(chunkBytes: number): number {
  return Math.min(8, 1 + Math.floor((floorLog2(Math.max(1, chunkBytes)) + 8) / 8));
}

/** Chunks per dimension covering `dims` (ceil(dims / chunkDims)); -1 (unlimited) stays -1. */
export function chunkGrid(dims: readonly number[], chunkDims: readonly number[]): number[] {
  return dims.map((d, i) => (d < 0 ? -1 : Math.ceil(d / chunkDims[i]!)));
}

/** Number of chunks in a grid from {@link chunkGrid} (throws on unlimited or > 2^53). */
export function gridCount(grid: readonly number[], what: string, path: string): number {
  let n = 1;
  for (const g of grid) {
    if (g < 0) throw new ValueError(`${what}: unlimited dimension`, { path });
    n *= g;
  }
  if (!Number.isSafeInteger(n)) throw new ValueError(`${what}: more than 2^53 chunks`, { path });
  return n;
}

/** Throws {@link ValueError} unless `coords` are `rank` non-negative safe integers. */
export function checkCoords(coords: readonly number[], rank: number, structure: string, path: string): void {
  if (coords.length !== rank) {
    throw new ValueError(`chunk coordinates [${coords.join(', ')}] have rank ${coords.length}, the dataset has rank ${rank}`, { path, structure });
  }
  for (const c of coords) {
    if (!Number.isSafeInteger(c) || c < 0) throw new ValueError(`invalid scaled chunk coordinate ${c}`, { path, structure });
  }
}

/** True when every coordinate lies inside `grid` (unlimited dimensions accept anything). */
export function inGrid(coords: readonly number[], grid: readonly number[]): boolean {
  for (let i = 0; i < grid.length; i++) if (grid[i]! >= 0 && coords[i]! >= grid[i]!) return false;
  return true;
}

/** Row-major linear number of the chunk at `coords` in `grid`. */
export function linearChunkIndex(coords: readonly number[], grid: readonly number[]): number {
  let idx = 0;
  for (let i = 0; i < grid.length; i++) idx = idx * grid[i]! + coords[i]!;
  return idx;
}

/** The storage of a writable context, or {@link InvalidStateError} naming the operation. */
export function requireStorage(ctx: ChunkIndexContext, what: string, structure: string): IndexStorage {
  if (!ctx.storage) throw new InvalidStateError(`${what}: the file is not writable`, { path: ctx.datasetPath, structure });
  return ctx.storage;
}

/** Runs `fn`, adding the dataset path to any {@link H5Error} it throws. */
export async function located<T>(path: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw e instanceof H5Error ? e.withPath(path) : e;
  }
}

/** Serialises async operations on one index (mutations must not interleave with node loads). */
export class OpQueue {
  private tail: Promise<unknown> = Promise.resolve();
  /** Runs `fn` after every previously queued operation settled. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/** Where a chunk record check failed (the dataset and the index structure), for its error. */
export interface RecordWhere {
  path?: string;
  structure?: string;
}

/** {@link ValueError} unless `address` is a file address (a safe integer ≥ 0). */
export function checkChunkAddress(address: number, where?: RecordWhere): void {
  if (!Number.isSafeInteger(address) || address < 0) throw new ValueError(`invalid chunk address ${address}`, where);
}

/** {@link ValueError} unless `size` is a chunk size the index can store (1 … `max`). */
export function checkChunkSize(size: number, max: number, where?: RecordWhere): void {
  if (!Number.isSafeInteger(size) || size <= 0 || size > max) throw new ValueError(`chunk size ${size} does not fit the index's chunk size field (1 … ${max})`, where);
}

/** {@link ValueError} unless `mask` is a filter mask (an unsigned 32-bit integer); `what` names it. */
export function checkFilterMask(mask: number, where?: RecordWhere, what = 'filter mask'): void {
  if (!Number.isInteger(mask) || mask < 0 || mask > 0xffffffff) throw new ValueError(`invalid ${what} ${mask}`, where);
}

/**
 * A validated copy of a structured chunk record's section fields (docs/structured-chunk-format.md §5.1):
 * `sections − 1` offsets inside the chunk, and for filtered indexes `sections` unfiltered sizes and
 * filter masks. {@link ValueError} when they are missing or do not fit `offsetSize`-byte fields.
 */
export function checkStructuredSections(
  rec: Pick<ChunkRecord, 'size' | 'sections'>,
  sections: number,
  filtered: boolean,
  offsetSize: number,
  path: string,
  structure: string,
): StructuredChunkSections {
  return checkSectionFields(rec, sections, filtered, offsetSize >= 7 ? Number.MAX_SAFE_INTEGER : 256 ** offsetSize - 1, { path, structure });
}

/**
 * {@link checkStructuredSections} with the largest value of an offset field (`maxField`) given, and
 * where its errors happened (also the check of the fixed and extensible arrays' element tables).
 */
export function checkSectionFields(
  rec: Pick<ChunkRecord, 'size' | 'sections'>,
  n: number,
  filtered: boolean,
  maxField: number,
  where?: RecordWhere,
): StructuredChunkSections {
  const s = rec.sections;
  if (!s || s.offsets.length !== n - 1) throw new ValueError(`a structured chunk record needs ${n - 1} section offsets`, where);
  for (const o of s.offsets) {
    if (!Number.isSafeInteger(o) || o < 0 || o > rec.size || o > maxField) throw new ValueError(`section offset ${o} lies outside the ${rec.size}-byte chunk`, where);
  }
  const out: StructuredChunkSections = { offsets: s.offsets.slice() };
  if (filtered) {
    const us = s.unfilteredSizes;
    const fm = s.filterMasks;
    if (!us || !fm || us.length !== n || fm.length !== n) {
      throw new ValueError(`a filtered structured chunk record needs ${n} unfiltered sizes and ${n} filter masks`, where);
    }
    for (const u of us) if (!Number.isSafeInteger(u) || u < 0 || u > maxField) throw new ValueError(`invalid unfiltered section size ${u}`, where);
    for (const f of fm) checkFilterMask(f, where, 'section filter mask');
    out.unfilteredSizes = us.slice();
    out.filterMasks = fm.slice();
  } else if (s.filterMasks?.some((f) => f !== 0)) {
    throw new ValueError('an unfiltered structured chunk index cannot store section filter masks', where);
  }
  return out;
}
