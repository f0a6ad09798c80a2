/**
 * Which chunk index a new chunked dataset gets: the choice HDF5 1.10+ makes with the latest file
 * format (H5Dlayout.c `H5D__layout_set_latest_indexing`; notes/sparse-format.md §3.3), with
 * HDF5's default index parameters (H5Dpkg.h).
 * @module
 */
import type { ChunkIndexInfo } from '../format/messages/layout-index.js';

/** Inputs of {@link chooseChunkIndex}. */
export interface IndexChoiceInput {
  dims: readonly number[];
  /** Maximum dims, -1 = unlimited. */
  maxDims: readonly number[];
  chunkDims: readonly number[];
  filtered: boolean;
  allocTime: 'early' | 'late' | 'incremental';
}

/** HDF5's default fixed array parameters. */
export const DEFAULT_FIXED_ARRAY = { type: 'fixed-array', pageBits: 10 } as const satisfies ChunkIndexInfo;
/** HDF5's default extensible array parameters. */
export const DEFAULT_EXTENSIBLE_ARRAY = {
  type: 'extensible-array',
  maxBits: 32,
  indexElements: 4,
  minPointers: 4,
  minElements: 16,
  pageBits: 10,
} as const satisfies ChunkIndexInfo;
/** HDF5's default v2 B-tree parameters. */
export const DEFAULT_BTREE2 = { type: 'btree2', nodeSize: 2048, splitPercent: 100, mergePercent: 40 } as const satisfies ChunkIndexInfo;

/** The index HDF5 would create for a dataset with these properties. */
export function chooseChunkIndex(p: IndexChoiceInput): ChunkIndexInfo {
  const unlimited = p.maxDims.filter((m) => m === -1).length;
  if (unlimited === 1) return { ...DEFAULT_EXTENSIBLE_ARRAY };
  if (unlimited > 1) return { ...DEFAULT_BTREE2 };
  const single = p.dims.every((d, i) => d === p.maxDims[i] && d === p.chunkDims[i]);
  if (single) return { type: 'single' };
  if (!p.filtered && p.allocTime === 'early') return { type: 'implicit' };
  return { ...DEFAULT_FIXED_ARRAY };
}
