/**
 * The registry seam both public entries publish (`@chunkform/core` for apps, `@chunkform/core/plugin`
 * for plug-in packages): the registries, and the interfaces a chunk format, a chunk index or a filter
 * implements with the records and defaults they exchange.
 * @module
 */
export {
  defaultContainer,
  createContainer,
  registerFilter,
  registerChunkIndex,
  registerChunkFormat,
  resolveFilter,
  resolveChunkIndex,
  resolveChunkIndexCode,
  resolveChunkFormat,
  resolveChunkFormatByName,
  layoutFormatKey,
  type Container,
  type RegisterOptions,
} from './di/container.js';
export {
  formatKey,
  KNOWN_FORMAT_PACKAGES,
  type ChunkFormat,
  type ChunkFormatContext,
  type ChunkFormatProvider,
  type ChunkImage,
  type ChunkRequest,
  type RawIO,
} from './chunk/chunk-format.js';
export type { RowRuns } from './chunk/chunk-grid.js';
export type {
  ChunkIndex,
  ChunkIndexContext,
  ChunkIndexProvider,
  ChunkRecord,
  IndexStorage,
  StructuredChunkSections,
  StructuredIndexContext,
} from './chunk/chunk-index.js';
export {
  chooseChunkIndex,
  chooseStructuredChunkIndex,
  DEFAULT_BTREE2_INDEX_INFO,
  DEFAULT_EXTENSIBLE_ARRAY_INFO,
  DEFAULT_FIXED_ARRAY_INFO,
} from './chunk/choose-index.js';
export type { ChunkIndexInfo, ExternalIndexInfo, BuiltInIndexType } from './format/messages/layout-index.js';
export type { StructuredChunkLayout } from './format/messages/layout-structured.js';
export { KNOWN_FILTER_PACKAGES, type Filter, type FilterContext } from './filter/filter.js';
export { decodeChunk, encodeChunk, setLocalPipeline } from './filter/pipeline.js';
export { lookup3 } from './format/checksum/lookup3.js';
