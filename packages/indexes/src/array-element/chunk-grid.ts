/**
 * How the fixed and extensible array chunk indexes number chunks (HDF5 spec IV.A.2.i; H5Dfarray.c
 * `H5D__farray_idx_get_addr`, H5Dearray.c `H5D__earray_idx_get_addr` / `_resize`).
 *
 * - Fixed array: row-major linear index of the scaled coordinates over the chunk grid of the
 *   *maximum* dimensions (`max_down_chunks`), so resizing never renumbers chunks.
 * - Extensible array (exactly one unlimited dimension): the unlimited dimension is "swizzled" to
 *   the front, then row-major over the chunk counts of the other (fixed) maximum dimensions
 *   (`swizzled_max_down_chunks`).
 * @module
 */
import { FormatError, ValueError } from '@chunkform/core/plugin';

/** A bijection between scaled chunk coordinates and array indexes. */
export interface ChunkGrid {
  /** Number of dimensions. */
  readonly rank: number;
  /** Chunks per dimension over the maximum dimensions (`Infinity` for the unlimited one). */
  readonly maxChunks: readonly number[];
  /** Number of array elements the grid spans (`Infinity` with an unlimited dimension). */
  readonly count: number;
  /** Array index of `coords`, or -1 when they lie outside the grid. Throws on a wrong rank. */
  index(coords: readonly number[]): number;
  /** Scaled coordinates of array index `idx`. */
  coords(idx: number): number[];
}

class Grid implements ChunkGrid {
  readonly rank: number;
  readonly count: number;
  /** Dimension order (slowest first) used for linearisation. */
  private readonly order: number[];
  /** "down" multiplier of each position in `order`. */
  private readonly down: number[];

  constructor(
    readonly maxChunks: number[],
    order: number[],
  ) {
    this.rank = maxChunks.length;
    this.order = order;
    this.down = new Array<number>(order.length);
    let acc = 1;
    for (let k = order.length - 1; k >= 0; k--) {
      this.down[k] = acc;
      acc *= maxChunks[order[k]!]!;
    }
    this.count = Number.isNaN(acc) ? 0 : acc;
  }

  index(coords: readonly number[]): number {
    if (coords.length !== this.rank) {
      throw new ValueError(`chunk coordinates have rank ${coords.length}, the dataset has rank ${this.rank}`);
    }
    let idx = 0;
    for (let k = 0; k < this.order.length; k++) {
      const d = this.order[k]!;
      const c = coords[d]!;
      if (!Number.isSafeInteger(c) || c < 0 || c >= this.maxChunks[d]!) return -1;
      idx += c * this.down[k]!;
    }
    return Number.isSafeInteger(idx) ? idx : -1;
  }

  coords(idx: number): number[] {
    const out = new Array<number>(this.rank);
    let rem = idx;
    for (let k = 0; k < this.order.length; k++) {
      const dn = this.down[k]!;
      const q = Math.floor(rem / dn);
      out[this.order[k]!] = q;
      rem -= q * dn;
    }
    return out;
  }
}

function checkShapes(maxDims: readonly number[], chunkDims: readonly number[], path: string): void {
  if (maxDims.length !== chunkDims.length || maxDims.length === 0) {
    throw new FormatError(`chunk rank ${chunkDims.length} does not match dataset rank ${maxDims.length}`, {
      path,
      structure: 'chunk index',
    });
  }
  for (const c of chunkDims) {
    if (!Number.isSafeInteger(c) || c <= 0) throw new FormatError(`invalid chunk dimension ${c}`, { path, structure: 'chunk index' });
  }
}

/** The chunk grid of a fixed array index: every maximum dimension must be fixed. */
export function fixedArrayGrid(maxDims: readonly number[], chunkDims: readonly number[], path: string): ChunkGrid {
  checkShapes(maxDims, chunkDims, path);
  const maxChunks = maxDims.map((m, i) => {
    if (!Number.isSafeInteger(m) || m < 0) {
      throw new FormatError(`a fixed array index needs fixed maximum dimensions (dimension ${i} is ${m < 0 ? 'unlimited' : m})`, {
        path,
        structure: 'fixed array index',
      });
    }
    return Math.ceil(m / chunkDims[i]!);
  });
  const g = new Grid(maxChunks, maxChunks.map((_, i) => i));
  if (!Number.isSafeInteger(g.count)) {
    throw new FormatError(`the chunk grid of ${maxChunks.join('×')} chunks is too large`, { path, structure: 'fixed array index' });
  }
  return g;
}

/** The chunk grid of an extensible array index: exactly one maximum dimension is unlimited (-1). */
export function extensibleArrayGrid(maxDims: readonly number[], chunkDims: readonly number[], path: string): ChunkGrid {
  checkShapes(maxDims, chunkDims, path);
  const unlimited = maxDims.flatMap((m, i) => (m === -1 ? [i] : []));
  if (unlimited.length !== 1) {
    throw new FormatError(`an extensible array index needs exactly one unlimited dimension, found ${unlimited.length}`, {
      path,
      structure: 'extensible array index',
    });
  }
  const u = unlimited[0]!;
  const maxChunks = maxDims.map((m, i) => {
    if (i === u) return Infinity;
    if (!Number.isSafeInteger(m) || m < 0) throw new FormatError(`invalid maximum dimension ${m}`, { path, structure: 'extensible array index' });
    return Math.ceil(m / chunkDims[i]!);
  });
  const order = [u, ...maxChunks.map((_, i) => i).filter((i) => i !== u)];
  return new Grid(maxChunks, order);
}
