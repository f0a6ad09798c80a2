/**
 * @packageDocumentation
 * `@chunkform/core`: read and write HDF5 files from TypeScript — the file container (superblock,
 * object headers, groups, attributes, datatypes, dataspaces), compact and contiguous datasets, and
 * the h5py-like object API. Browser-safe: local paths are opened through Node only when running in Node.
 *
 * @example
 * import { createFile, openFile } from '@chunkform/core';
 * const f = await createFile('run.h5');
 * await f.createDataset('frames/count', { dtype: 'uint32', shape: [3], data: [1, 2, 3] });
 * await f.attrs.set('instrument', 'LCLS-II');
 * await f.close();
 */
// Everything `@chunkform/core/read` exports: the errors, the read-only classes the full ones below
// extend, byte sources, datatype and message types, selections; its read-only `openFile` is replaced
// by the full one below (an explicit export wins over `export *`).
export * from './read.js';
export { openFile, createFile, H5File, FILE_MODES, type FileMode, type OpenOptions, type CreateOptions } from './objects/file.js';
export type { FlushOptions } from './file/file-writer.js';
export { Group, CommittedDatatype, type H5Node, type CreateGroupOptions, type CreateDatasetOptions } from './objects/group.js';
export { Dataset } from './objects/dataset.js';
export { Attributes, type SetAttributeOptions } from './objects/attributes.js';
export { parseDtype, dtypeToString, type DtypeSpec } from './values/dtype.js';
export { lookup3 } from './format/checksum/lookup3.js';

// ---- chunked storage: the chunk format layer, indexes, filters, DI ----------------------------
export type {
  ChunkFormat,
  ChunkFormatContext,
  ChunkFormatProvider,
  ChunkImage,
  ChunkRequest,
  RawIO,
} from './chunk/chunk-format.js';
export type { RowRuns } from './chunk/chunk-grid.js';
export { laneOf, type ObjectLane, type ObjectValues, type ColumnarValues } from './chunk/object-lane.js';
export type {
  ChunkIndex,
  ChunkIndexContext,
  ChunkIndexProvider,
  ChunkRecord,
  IndexStorage,
  StructuredChunkSections,
} from './chunk/chunk-index.js';
export { ChunkCache, DEFAULT_CHUNK_CACHE_BYTES, type ChunkCacheOptions } from './chunk/cache.js';
export {
  chooseChunkIndex,
  DEFAULT_FIXED_ARRAY_INFO,
  DEFAULT_EXTENSIBLE_ARRAY_INFO,
  DEFAULT_BTREE2_INDEX_INFO,
  type AllocTime,
  type ChunkIndexChoice,
} from './chunk/choose-index.js';
export { guessChunks } from './chunk/guess-chunks.js';
export type { ChunkIndexInfo, ExternalIndexInfo, BuiltInIndexType } from './format/messages/layout-index.js';
export type { Filter, FilterContext } from './filter/filter.js';
export { KNOWN_FILTER_PACKAGES } from './filter/filter.js';
export { decodeChunk, encodeChunk, setLocalPipeline } from './filter/pipeline.js';
export {
  defaultContainer,
  createContainer,
  registerFilter,
  registerChunkIndex,
  registerChunkFormat,
  resolveFilter,
  resolveChunkIndex,
  resolveChunkFormat,
  resolveChunkFormatByName,
  resolveChunkIndexCode,
  layoutFormatKey,
  type Container,
  type RegisterOptions,
} from './di/container.js';
export { formatKey, KNOWN_FORMAT_PACKAGES, KNOWN_FORMAT_NAMES } from './chunk/chunk-format.js';
export type { ChunkInfo } from './storage/chunked-storage.js';
export type { DatasetAccessOptions, ReadIntoOptions, ReadOptions } from './objects/dataset.js';
export type { FilterOptions, FilterSpec } from './objects/filter-options.js';
export type { StructChunkInfo, StructChunkWriteInfo } from './structured/sections.js';
export { chooseStructuredChunkIndex, type StructuredChunkIndexChoice } from './chunk/choose-index.js';
export type { StructuredIndexContext } from './chunk/chunk-index.js';
export type { SectionPipelines } from './format/messages/filter-pipeline-v3.js';
export type { StructuredChunkLayout } from './format/messages/layout-structured.js';
export type { SectionFilterMap } from './objects/filter-options.js';

// ---- creation through the format package (DatasetCreator) and the structured-chunk base --------
export type {
  CreateAllocTime,
  CreateDatasetCommon,
  DatasetCreateContext,
  DatasetCreator,
  DatasetPlan,
  IndexLayoutClass,
  IndexRequest,
} from './chunk/dataset-creator.js';
export { CHUNK_INDEX_OPTIONS, chooseIndexWithOption, type ChunkIndexOption } from './chunk/index-option.js';
export { joinSections, splitSections, structInfo } from './structured/sections.js';
export { sectionPipelinesFromOptions, type SectionPipelineChoice, type SectionPresets } from './structured/section-filters.js';
export { checkSectionFilters, structuredDatasetMessages, type StructuredCreatePlan } from './structured/structured-create.js';
