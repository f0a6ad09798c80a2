/**
 * The chunk grid of a chunked dataset (HDF5's scaled chunk coordinates, spec IV.A.2.i layout
 * message): chunks per dimension, grid and in-chunk strides, and the pieces of a selection that
 * fall into each chunk (what chunk mapping produces).
 * @module
 */
import { ValueError } from '../errors.js';

/** The part of a selection that falls in one chunk. */
export interface ChunkPiece {
  /** Scaled chunk coordinates (element offset of the chunk / chunk dims). */
  coords: number[];
  /**
   * Flat triples `[chunkElementOffset, bufferElementOffset, length, ...]`: `chunkElementOffset` is
   * the C-order offset inside a *whole* chunk (dims = chunk dims, also for edge chunks),
   * `bufferElementOffset` the position in the selection's iteration order. Runs are maximal
   * (both sides contiguous) and in buffer order for hyperslab-like selections.
   */
  runs: Float64Array;
  /** Number of selected elements in this chunk (point duplicates counted). */
  count: number;
  /** True when every element of the chunk that lies inside the dataset is selected. */
  full: boolean;
  /**
   * The same runs as one strided pattern, when mapping was asked for it and they are one: `runs`
   * is then built only when read (a whole-dataset write of 256×256 tiles skips 6 MB of run lists).
   */
  rows?: RowRuns;
}

/**
 * Runs that are `n` rows of `len` elements, row k at chunk element offset `c + k·cs` and buffer
 * element offset `b + k·bs` (e.g. a whole 2-D tile of a larger buffer: its rows, one frame row apart).
 */
export interface RowRuns {
  readonly n: number;
  readonly len: number;
  readonly c: number;
  readonly cs: number;
  readonly b: number;
  readonly bs: number;
}

/** The chunk grid of a dataset: chunks per dimension and the strides of grid and chunk. */
export interface Grid {
  r: number;
  dims: readonly number[];
  chunk: readonly number[];
  /** Chunks per dimension. */
  n: number[];
  /** C-order strides of the chunk grid. */
  gStride: number[];
  /** C-order element strides inside a whole chunk. */
  cStride: number[];
}

/** The chunk grid of `dims` in chunks of `chunkDims` (validated). */
export function makeGrid(dims: readonly number[], chunkDims: readonly number[]): Grid {
  const r = dims.length;
  if (chunkDims.length !== r) {
    throw new ValueError(`chunk dims [${chunkDims.join(', ')}] do not match the rank of the dataspace [${dims.join(', ')}]`);
  }
  for (let d = 0; d < r; d++) {
    const c = chunkDims[d]!;
    if (!Number.isSafeInteger(c) || c < 1) throw new ValueError(`chunk dimension ${d} has invalid size ${c}`);
  }
  const n = dims.map((x, d) => Math.ceil(x / chunkDims[d]!));
  const gStride = new Array<number>(r);
  const cStride = new Array<number>(r);
  let g = 1;
  let c = 1;
  for (let d = r - 1; d >= 0; d--) {
    gStride[d] = g;
    cStride[d] = c;
    g *= Math.max(1, n[d]!);
    c *= chunkDims[d]!;
  }
  if (!Number.isSafeInteger(g) || !Number.isSafeInteger(c)) {
    throw new ValueError(`chunk grid of [${dims.join(', ')}] by [${chunkDims.join(', ')}] is too large`);
  }
  return { r, dims, chunk: chunkDims, n, gStride, cStride };
}

/** Elements of chunk `q` (scaled coords) that lie inside the dataset. */
export function insideCount(g: Grid, q: readonly number[]): number {
  let v = 1;
  for (let d = 0; d < g.r; d++) v *= Math.min(g.chunk[d]!, g.dims[d]! - q[d]! * g.chunk[d]!);
  return v;
}

/** C-order comparison of chunk coordinates. */
export function compareCoords(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
