/**
 * @packageDocumentation
 * `@chunkform/indexes`: the HDF5 chunk indexes — single chunk, implicit, fixed array, extensible
 * array, v2 B-tree (read and write) and v1 B-tree (read) — behind `@chunkform/core`'s `ChunkIndex`
 * interface. Register them once with {@link registerIndexes}.
 */
import { registerChunkIndex, type Container, type RegisterOptions } from '@chunkform/core';
import { FixedArrayProvider } from './fixed-array/fixed-array-index.js';
import { FixedArrayReadOnlyProvider } from './fixed-array/fixed-array-reader.js';
import { ExtensibleArrayProvider } from './extensible-array/extensible-array-index.js';
import { singleChunkIndexProvider } from './single-chunk/single-chunk-index.js';
import { implicitIndexProvider } from './implicit/implicit-index.js';
import { btree2IndexProvider } from './btree2/btree2-index.js';
import { btree1IndexProvider } from './btree1/btree1-index.js';

/** The fixed array index provider (index type 3) with default options. */
export const fixedArrayIndexProvider = /* @__PURE__ */ new FixedArrayProvider();
/**
 * The read-only fixed array index provider (index type 3) with default options: chunked (dense)
 * datasets only; creating an index or writing a chunk through it is an `UnsupportedError`.
 */
export const fixedArrayReadOnlyProvider = /* @__PURE__ */ new FixedArrayReadOnlyProvider();
/** The extensible array index provider (index type 4) with default options. */
export const extensibleArrayIndexProvider = /* @__PURE__ */ new ExtensibleArrayProvider();

// One registration function per index type, so a read-only app bundles only the indexes it registers.
// `opts`: the container (default: chunkform's own) or `{ container, replace }`; calling one again does nothing.

/** Registers the v1 B-tree index (layout versions 1–3; read only). */
export function registerBTree1Index(opts?: Container | RegisterOptions): void {
  registerChunkIndex(btree1IndexProvider, opts);
}
/** Registers the single-chunk index (index type 1). */
export function registerSingleChunkIndex(opts?: Container | RegisterOptions): void {
  registerChunkIndex(singleChunkIndexProvider, opts);
}
/** Registers the implicit index (index type 2). */
export function registerImplicitIndex(opts?: Container | RegisterOptions): void {
  registerChunkIndex(implicitIndexProvider, opts);
}
/** Registers the fixed array index (index type 3). */
export function registerFixedArrayIndex(opts?: Container | RegisterOptions): void {
  registerChunkIndex(fixedArrayIndexProvider, opts);
}
/**
 * Registers the fixed array index for reading only ({@link fixedArrayReadOnlyProvider}: it opens
 * fixed arrays of chunked (dense) datasets and neither creates nor changes them, so a bundle leaves
 * the writing code, the encoders and the structured-chunk element codecs out, ≈ 2.5 KB min+gzip).
 * Use it or {@link registerFixedArrayIndex} per container (the other then needs `{ replace: true }`).
 */
export function registerFixedArrayReadOnly(opts?: Container | RegisterOptions): void {
  registerChunkIndex(fixedArrayReadOnlyProvider, opts);
}
/** Registers the extensible array index (index type 4). */
export function registerExtensibleArrayIndex(opts?: Container | RegisterOptions): void {
  registerChunkIndex(extensibleArrayIndexProvider, opts);
}
/** Registers the v2 B-tree index (index type 5). */
export function registerBTree2Index(opts?: Container | RegisterOptions): void {
  registerChunkIndex(btree2IndexProvider, opts);
}

/** Registers every chunk index provider of this package (default container: chunkform's own). */
export function registerIndexes(opts?: Container | RegisterOptions): void {
  registerBTree1Index(opts);
  registerSingleChunkIndex(opts);
  registerImplicitIndex(opts);
  registerFixedArrayIndex(opts);
  registerExtensibleArrayIndex(opts);
  registerBTree2Index(opts);
}
// Fixed array (index type 3) and extensible array (index type 4) chunk indexes.
export { FixedArrayIndex, FixedArrayProvider, DEFAULT_FIXED_ARRAY_PAGE_BITS } from './fixed-array/fixed-array-index.js';
export { FixedArrayReader, FixedArrayReadOnlyProvider, type FixedArrayParts } from './fixed-array/fixed-array-reader.js';
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
  chunkElementDecoderFactory,
  ChunkElementColumns,
  ChunkElementDecoder,
  type ElementColumns,
  type ElementDecoder,
  type ElementDecoderFactory,
  chunkSizeFieldLength,
  CLIENT_UNFILTERED_CHUNKS,
  CLIENT_FILTERED_CHUNKS,
  type ElementCodec,
  type ElementCodecFactory,
  type ElementTable,
  type ElementValue,
  type ArrayIndexOptions,
  defaultCreateClientId,
  defaultCreateVersion,
} from './array-element/element-codec.js';
// Structured-chunk (sparse) elements: array client ids 2 and 3.
export {
  StructuredElementCodec,
  StructuredElementTable,
  structuredElementCodecFactory,
  CLIENT_STRUCTURED_CHUNKS,
  CLIENT_FILTERED_STRUCTURED_CHUNKS,
  STRUCTURED_ARRAY_VERSION,
  DEFAULT_SECTION_OFFSET_SIZE,
} from './array-element/structured-element-codec.js';
export { decodeDataBlockPage, encodeDataBlockPage, dataBlockPageSize } from './array-element/data-block-page.js';
export { fixedArrayGrid, extensibleArrayGrid, type ChunkGrid } from './array-element/chunk-grid.js';
// Single chunk (type 1), implicit (type 2), v2 B-tree (type 5) and v1 B-tree (layout v3) chunk indexes; the writer's index choice.
export { SingleChunkIndex, SingleChunkIndexProvider, singleChunkIndexProvider } from './single-chunk/single-chunk-index.js';
export { ImplicitIndex, ImplicitIndexProvider, implicitIndexProvider } from './implicit/implicit-index.js';
export { BTree2ChunkIndex, BTree2IndexProvider, btree2IndexProvider } from './btree2/btree2-index.js';
export {
  chunkRecordClass,
  chunkRecordSize,
  compareScaledCoords,
  structuredChunkRecordClass,
  structuredChunkRecordSize,
  STRUCTURED_CHUNK_RECORD_TYPE,
  FILTERED_STRUCTURED_CHUNK_RECORD_TYPE,
  STRUCTURED_BTREE2_HEADER_VERSION,
  type StructuredRecordShape,
} from './btree2/chunk-records.js';
export { V2Tree, type V2RecordClass, type V2TreeParams } from '@chunkform/core/plugin';
export { BTree1ChunkIndex, BTree1IndexProvider, btree1IndexProvider, DEFAULT_CHUNK_BTREE_K } from './btree1/btree1-index.js';
