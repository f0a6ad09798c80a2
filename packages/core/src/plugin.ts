/**
 * @packageDocumentation
 * `@chunkform/core/plugin`: the curated API for plug-in packages — chunk formats, chunk indexes,
 * filters and tools built on chunkform (`@chunkform/format-*`, `@chunkform/indexes`,
 * `@chunkform/filters`, the CLI, third-party packages). It holds what such a package needs beyond
 * the app-facing `@chunkform/core`: byte readers and writers, file addresses, the typed errors, the
 * chunk format / chunk index / filter interfaces and their record types, checksums, the on-disk codecs
 * of the structures an index or format stores (layout message, B-trees, datatypes, selections), and
 * the registries. Packages must not import `@chunkform/core/internal/*` (it is not published).
 * @module
 */

// ---- registries, and the chunk format / chunk index / filter interfaces (shared with `@chunkform/core`)
export * from './registry-seam.js';
export { indexTypeLookup } from './di/container.js';

// ---- errors ------------------------------------------------------------------------------------
export * from './errors.js';

// ---- bytes, addresses, checksums -----------------------------------------------------------------
export { ByteReader, ByteWriter, DEFAULT_SIZES, UNDEFINED_ADDRESS, isDefinedAddress, sameNumbers, type SizeContext } from './format/bytes.js';
export { SourceMetadataReader, type MetadataReader } from './file/metadata-reader.js';
export { lookup3Pair } from './format/checksum/lookup3.js';

// ---- chunk formats -------------------------------------------------------------------------------
export type { ChunkStore } from './chunk/chunk-format.js';
export { ownedCopy, type Holder } from './chunk/write-queue.js';
export { anySectionFiltered, chunkLabel, isPartialEdgeChunk, sectionPipeline, selectionExtentMaxDims } from './chunk/format-context.js';
export { installDefinedReads } from './chunk/defined.js';

// ---- chunk indexes -------------------------------------------------------------------------------
export {
  V1_MAX_LEVEL,
  iterateV1BTree,
  readV1Node,
  v1NodeSize,
  type V1ChunkKey,
  type V1Node,
} from './format/btree/v1.js';
export {
  V2_MAX_DEPTH,
  computeV2NodeInfo,
  decodeV2BTreeNode,
  encodeV2BTreeHeader,
  encodeV2BTreeNode,
  iterateV2BTree,
  openV2BTree,
  v2HeaderSize,
  v2NodeUsedSize,
  type V2BTreeHeader,
} from './format/btree/v2.js';
export { V2Tree, type V2RecordClass, type V2TreeParams } from './btree2/tree.js';
export { V2RecordType, decodeChunkRecord, decodeFilteredChunkRecord, encodeChunkRecord, encodeFilteredChunkRecord } from './format/btree/v2-records.js';

// ---- filters -------------------------------------------------------------------------------------
export type { ChunkWhere, FilterResolver, PipelineContext } from './filter/pipeline.js';
export { pipelineOffload, setPipelineOffload, type EncodedSections, type OffloadContext, type OffloadSection, type OffloadTask, type OffloadTaskResult, type PipelineOffload } from './filter/offload.js';
export { copyChunkRuns, decodeChunkInto, decodeChunkShared, isShared, sharedInput, type DecodeTarget, type StoredBytes } from './filter/decode-into.js';
export { encodeFilterPipeline, type FilterPipeline } from './format/messages/filter-pipeline.js';
export { DATASPACE, DATATYPE, FILL_VALUE, FILTER_PIPELINE, LAYOUT, STC_FILTER_PIPELINE } from './format/messages/message-types.js';
export { hasVlen } from './objects/values-io.js';
export type { HeaderMessage } from './file/header-model.js';

// ---- values (element bytes ↔ JS values) ---------------------------------------------------------
export { encodeValues } from './values/encode.js';
export { decodeValues } from './values/decode.js';

// ---- messages a format or index reads or writes --------------------------------------------------
export {
  decodeLayout,
  encodeLayout,
  floorLog2,
  CHUNK_INDEX_TYPES,
  LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS,
  STRUCTURED_CHUNK_SPARSE,
  STRUCTURED_CHUNK_VL,
  structuredChunkSizeLength,
  type ChunkedLayout,
  type DataLayout,
  type ExtensibleArrayIndexInfo,
  type FixedArrayIndexInfo,
  type BTree2IndexInfo,
  type IndexTypeLookup,
  type StructuredSingleChunkInfo,
} from './format/messages/layout.js';
export { datatypeSize, type Datatype } from './format/messages/datatype.js';
export { encodeDatatype } from './format/messages/datatype-encode.js';

// ---- selections ----------------------------------------------------------------------------------
export * from './selection/index.js';
export { blocksFromCanonical, trustSelection } from './selection/selection.js';
export { pointOffsets } from './selection/points.js';
export { encodeSelectionWithTrailer } from './selection/serialize/index.js';
export { blockRecordSize, spareBlockList } from './selection/serialize/hyperslab.js';
export { widthFor, type UintWidth } from './selection/serialize/uint.js';

// ---- tools (statistics, inspection) --------------------------------------------------------------
export { ChunkedStorage, type ChunkInfo } from './storage/chunked-storage.js';
