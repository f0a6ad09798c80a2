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

// ---- chunked storage: the chunk format layer, indexes, filters, DI ----------------------------
// The registries and the chunk format / chunk index / filter interfaces (shared with `/plugin`).
export * from './registry-seam.js';
export { laneOf, type ObjectLane, type ObjectValues, type ColumnarValues } from './chunk/object-lane.js';
export { ChunkCache, DEFAULT_CHUNK_CACHE_BYTES, type ChunkCacheOptions } from './chunk/cache.js';
export { type AllocTime, type ChunkIndexChoice, type StructuredChunkIndexChoice } from './chunk/choose-index.js';
export { guessChunks } from './chunk/guess-chunks.js';
export { KNOWN_FORMAT_NAMES } from './chunk/chunk-format.js';
export type { ChunkInfo } from './storage/chunked-storage.js';
export type { DatasetAccessOptions, ReadIntoOptions, ReadOptions } from './objects/dataset.js';
export type { FilterOptions, FilterSpec } from './objects/filter-options.js';
export type { StructChunkInfo, StructChunkWriteInfo } from './structured/sections.js';
export type { SectionPipelines } from './format/messages/filter-pipeline-v3.js';
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
