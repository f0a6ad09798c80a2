/**
 * @packageDocumentation
 * `@chunkform/indexes`: HDF5 chunk indexes (single chunk, implicit, fixed array, extensible array, v1/v2 B-trees) — arrives with chunked storage (issue #3).
 * The package exists now so the workspace has its final shape; it exports nothing yet.
 */
export {};
// Fixed array (index type 3) and extensible array (index type 4) chunk indexes.
export { FixedArrayIndex, FixedArrayProvider, DEFAULT_FIXED_ARRAY_PAGE_BITS } from './fixed-array/fixed-array-index.js';
export * from './fixed-array/header.js';
export * from './fixed-array/data-block.js';
export { ExtensibleArrayIndex, ExtensibleArrayProvider } from './extensible-array/extensible-array-index.js';
export * from './extensible-array/header.js';
export * from './extensible-array/index-block.js';
export * from './extensible-array/super-block.js';
export * from './extensible-array/data-block.js';
export { ExtensibleArrayGeometry, checkExtensibleArrayParams, type ExtensibleArrayParams, type SuperBlockInfo, type ElementLocation } from './extensible-array/geometry.js';
export {
  ChunkElementCodec,
  ChunkElementTable,
  defaultElementCodecFactory,
  chunkSizeFieldLength,
  CLIENT_UNFILTERED_CHUNKS,
  CLIENT_FILTERED_CHUNKS,
  type ElementCodec,
  type ElementCodecFactory,
  type ElementTable,
  type ElementValue,
  type ArrayIndexOptions,
} from './array-element/element-codec.js';
export { decodeDataBlockPage, encodeDataBlockPage, dataBlockPageSize } from './array-element/data-block-page.js';
export { fixedArrayGrid, extensibleArrayGrid, type ChunkGrid } from './array-element/chunk-grid.js';
