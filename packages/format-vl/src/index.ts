/**
 * @packageDocumentation
 * `@chunkform/format-vl`: variable-length data inside structured chunks (layout class 4, structured
 * chunk type 1) for `@chunkform/core` — dense VL chunks (entries + heap) and sparse VL chunks
 * (selection + entries + heap), each section with its own filter pipeline (docs/format-vl.md).
 * Register it once with {@link registerVlFormat}; create datasets with {@link createVlDataset}.
 */
import {
  registerChunkFormat,
  type ChunkFormatProvider,
  type Container,
  type RegisterOptions,
  type CreateDatasetOptions,
  type DatasetCreator,
  type Dataset,
  type Group,
} from '@chunkform/core';
import { installDefinedReads, STRUCTURED_CHUNK_VL } from '@chunkform/core/plugin';
import { SPARSE_SECTIONS } from './vl-sections.js';
import { VlFormat } from './vl-format.js';
import { vlCreator, type VlDatasetOptions } from './vl-create.js';

export { VlFormat } from './vl-format.js';
export type { VlChunk } from './vl-chunk.js';
export { VLStrings, type VLOffsets } from './vl-strings.js';
export { vlCreator, vlDatasetMessages, type VlDatasetOptions, type VlSectionFilters } from './vl-create.js';
export { ENTRY_SIZE, DENSE_SECTIONS, SPARSE_SECTIONS } from './vl-sections.js';

/** Structured chunk type of VL chunks (the seeds' "variable-length" type, stored as the value 1). */
export const VL_CHUNK_TYPE = STRUCTURED_CHUNK_VL;

/** The VL provider: core's `ChunkFormatProvider` plus the keyed-registry fields of the seam contract. */
export interface VlFormatProvider extends ChunkFormatProvider {
  readonly layoutClass: 'structured';
  readonly chunkType: number;
  readonly packageName: string;
  readonly creator: DatasetCreator;
}

/** Structured-chunk layouts of type 1: dense (2 sections) or sparse (3 sections) VL chunks. */
export const vlFormatProvider: VlFormatProvider = {
  name: 'vl',
  layoutClass: 'structured',
  chunkType: STRUCTURED_CHUNK_VL,
  packageName: '@chunkform/format-vl',
  creator: vlCreator,
  // the number of sections tells sparse VL chunks from dense ones
  create: (ctx, layout) => new VlFormat(ctx, layout.class === 'structured' && layout.sectionCount === SPARSE_SECTIONS),
};

/** Registers the VL format in `container` (default: the process-wide one). */
export function registerVlFormat(opts?: Container | RegisterOptions): void {
  registerChunkFormat(vlFormatProvider, opts);
  installDefinedReads();
}

/**
 * Creates a dataset of variable-length strings or sequences stored in VL structured chunks
 * (`sparse: true` for sparse VL). Needs {@link registerVlFormat} and the indexes registered.
 * @example
 * const d = await createVlDataset(file, 'log/lines', { dtype: 'string', shape: [1000], chunks: [100], compression: 'gzip' });
 * await d.write(['first line', 'second line'], selectHyperslab({ start: [0], count: [2] }));
 */
export function createVlDataset(group: Group, path: string, opts: VlDatasetOptions): Promise<Dataset> {
  return group.createDataset(path, { ...opts, format: 'vl' } as CreateDatasetOptions);
}
