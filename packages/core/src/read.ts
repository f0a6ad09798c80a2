/**
 * @packageDocumentation
 * `@chunkform/core/read`: read-only HDF5 for apps that only read (a web viewer, a dashboard). Its
 * `openFile` gives read-only files, groups, datasets and attributes ({@link ReadFile},
 * {@link ReadGroup}, {@link ReadDataset}, {@link ReadAttributes}) whose modules do not import the
 * write path — creation, flush, encoders, the background write queue — so a bundler leaves it out.
 * The same files open with `openFile` of `@chunkform/core`, whose classes extend these.
 * Register the chunk formats, indexes and filters the files use, one by one, from their packages
 * in their read-only forms where there is one (e.g. `registerDenseReadOnly`, `registerFixedArrayReadOnly`,
 * `registerInflate`: deflate without the compressor).
 *
 * @example
 * import { openFile, ReadDataset } from '@chunkform/core/read';
 * import { registerDenseReadOnly } from '@chunkform/format-dense';
 * import { registerFixedArrayReadOnly } from '@chunkform/indexes';
 * import { registerInflate } from '@chunkform/filters';
 * registerDenseReadOnly(); registerFixedArrayReadOnly(); registerInflate();
 * const f = await openFile('https://example.org/scan.h5');
 * const d = await f.get('/entry/data');
 * if (d instanceof ReadDataset) console.log(d.shape, await d.read());
 */
export * from './errors.js';
export { openFile, ReadFile, type ReadOpenOptions } from './objects/read-file.js';
export { ReadGroup, ReadCommittedDatatype, ExternalLink, type LinkInfo, type ReadNode } from './objects/read-group.js';
export { ReadDataset, UNLIMITED, type DatasetAccessOptions, type ReadIntoOptions, type ReadOptions } from './objects/read-dataset.js';
export { ReadAttributes } from './objects/read-attributes.js';
export { MemoryStore, isByteStore, type ByteSource, type ByteStore, type LocalFile } from './io/byte-store.js';
export { HttpRangeSource, type HttpRangeOptions, type HttpRangeStats } from './io/http-range.js';
export { BlobSource } from './io/blob-source.js';
export type { FileSourceInput } from './io/source-input.js';
export type {
  Datatype,
  ByteOrder,
  IntegerType,
  FloatType,
  StringType,
  EnumType,
  CompoundType,
  ArrayType,
  VlenSequenceType,
  OpaqueType,
  BitfieldType,
  ReferenceType,
  TimeType,
} from './format/messages/datatype.js';
export type { Dataspace } from './format/messages/dataspace.js';
export type { DataLayout } from './format/messages/layout.js';
export type { FilterPipeline } from './format/messages/filter-pipeline.js';
export type { FillValue } from './format/messages/fill-value.js';
export type { Values } from './values/types.js';
export { CASTINGS, type Casting } from './values/cast.js';
export type { ChunkImage } from './chunk/chunk-format.js';
export type { ChunkInfo } from './storage/chunked-storage.js';
export type { StructChunkInfo } from './structured/sections.js';
export type { ChunkCacheOptions } from './chunk/cache.js';
export { defaultContainer, createContainer, type Container } from './di/container.js';
export * from './selection/index.js';
