/**
 * The writer's chunk index choice, exactly as HDF5 1.10+ makes it for layout message version 4
 * (H5Dlayout.c `H5D__layout_set_latest_indexing`), with the library's hard-coded parameters
 * (H5Dpkg.h): fixed array page bits 10; extensible array max bits 32, index block elements 4,
 * super block min data pointers 4, data block min elements 16, page bits 10; v2 B-tree node
 * size 2048, split 100 %, merge 40 %.
 * @module
 */
import { ValueError } from '../errors.js';
import type {
  BTree2IndexInfo,
  ChunkIndexInfo,
  ExtensibleArrayIndexInfo,
  FixedArrayIndexInfo,
} from '../format/messages/layout-index.js';
import type { StructuredChunkIndexInfo, StructuredSingleChunkInfo } from '../format/messages/layout-structured.js';

/** HDF5's fixed array parameters (`H5D_FARRAY_MAX_DBLK_PAGE_NELMTS_BITS`). */
export const DEFAULT_FIXED_ARRAY_INFO: Readonly<FixedArrayIndexInfo> = Object.freeze({ type: 'fixed-array', pageBits: 10 });
/** HDF5's extensible array parameters (`H5D_EARRAY_*`). */
export const DEFAULT_EXTENSIBLE_ARRAY_INFO: Readonly<ExtensibleArrayIndexInfo> = Object.freeze({
  type: 'extensible-array',
  maxBits: 32,
  indexElements: 4,
  minPointers: 4,
  minElements: 16,
  pageBits: 10,
});
/** HDF5's v2 B-tree parameters (`H5D_BT2_*`). */
export const DEFAULT_BTREE2_INDEX_INFO: Readonly<BTree2IndexInfo> = Object.freeze({ type: 'btree2', nodeSize: 2048, splitPercent: 100, mergePercent: 40 });

/** Space allocation time of a dataset (HDF5's H5D_ALLOC_TIME_*; chunked datasets default to incremental). */
export type AllocTime = 'default' | 'early' | 'late' | 'incremental';

/** What decides the index of a new chunked dataset. */
export interface ChunkIndexChoice {
  /** Current dimensions. */
  dims: readonly number[];
  /** Maximum dimensions; `-1` or `null` = unlimited. Defaults to `dims`. */
  maxDims?: readonly (number | null)[] | null;
  /** Chunk dimensions (without the element size). */
  chunkDims: readonly number[];
  /** True when the dataset has a filter pipeline with at least one filter. */
  filtered: boolean;
  /** Allocation time; only `early` matters (implicit index). */
  allocTime?: AllocTime;
}

/**
 * The chunk index HDF5 1.10+ (latest format) would use for a new dataset: single chunk when
 * dims = max dims = chunk dims; otherwise, without unlimited dimensions, implicit for early
 * allocation without filters and fixed array else; extensible array for exactly one unlimited
 * dimension; v2 B-tree for more. Returns a fresh object.
 */
export function chooseChunkIndex(choice: ChunkIndexChoice): ChunkIndexInfo {
  const { dims, chunkDims } = choice;
  const maxDims = choice.maxDims ?? dims;
  if (dims.length === 0 || chunkDims.length !== dims.length || maxDims.length !== dims.length) {
    throw new ValueError(`chunked datasets need matching ranks ≥ 1 (dims ${dims.length}, max dims ${maxDims.length}, chunk dims ${chunkDims.length})`);
  }
  let unlimited = 0;
  let single = true;
  for (let i = 0; i < dims.length; i++) {
    const max = maxDims[i];
    const isUnlimited = max === null || max === -1;
    if (isUnlimited) unlimited++;
    if (isUnlimited || dims[i] !== max || dims[i] !== chunkDims[i]) single = false;
  }
  if (unlimited === 1) return { ...DEFAULT_EXTENSIBLE_ARRAY_INFO };
  if (unlimited > 1) return { ...DEFAULT_BTREE2_INDEX_INFO };
  if (single) return { type: 'single' };
  if (!choice.filtered && choice.allocTime === 'early') return { type: 'implicit' };
  return { ...DEFAULT_FIXED_ARRAY_INFO };
}

/** What decides the index of a new structured-chunk (sparse) dataset. */
export interface StructuredChunkIndexChoice {
  /** Current dimensions. */
  dims: readonly number[];
  /** Maximum dimensions; `-1` or `null` = unlimited. Defaults to `dims`. */
  maxDims?: readonly (number | null)[] | null;
  /** Chunk dimensions (without the element size). */
  chunkDims: readonly number[];
  /** Sections per chunk (default 2, sparse data): sizes the single-chunk record. */
  sections?: number;
  /** True when any section has a filter: the single-chunk record then has unfiltered sizes and masks. */
  filtered?: boolean;
}

/**
 * The chunk index the sparse prototype uses for a new structured-chunk dataset
 * (docs/structured-chunk-format.md §3.3, H5Dlayout.c `H5D__layout_set_latest_indexing`): extensible
 * array for exactly one unlimited dimension, v2 B-tree for more, single chunk when dims = max dims
 * = chunk dims, fixed array otherwise — never implicit, whatever the allocation time. A single-chunk
 * choice comes with an empty record (no chunk; sizes, offsets and masks 0, docs/structured-chunk-format.md §3.4). Returns a
 * fresh object with HDF5's default parameters.
 */
export function chooseStructuredChunkIndex(choice: StructuredChunkIndexChoice): StructuredChunkIndexInfo {
  const info = chooseChunkIndex({ dims: choice.dims, maxDims: choice.maxDims ?? null, chunkDims: choice.chunkDims, filtered: true });
  if (info.type !== 'single') return info as StructuredChunkIndexInfo;
  const n = choice.sections ?? 2;
  if (!Number.isInteger(n) || n < 1 || n > 255) throw new ValueError(`invalid number of sections ${n}`);
  const single: StructuredSingleChunkInfo = { type: 'single', chunkSize: 0, sectionOffsets: new Array<number>(n - 1).fill(0) };
  if (choice.filtered) {
    single.unfilteredSizes = new Array<number>(n).fill(0);
    single.filterMasks = new Array<number>(n).fill(0);
  }
  return single;
}
