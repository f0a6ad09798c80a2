/**
 * The object header messages of a new variable-length chunked dataset (docs/format-vl.md §1):
 * dataspace, datatype, fill value (incremental allocation, no fill value: an unwritten element is
 * the empty value), the per-section filter pipelines when any section is filtered (filter pipeline
 * message v3, or the STC message 0x0019), and a version-5 class-4 layout message of structured
 * chunk type 1 whose composition tells dense (2 sections) from sparse (3 sections) VL chunks.
 * @module
 */
import {
  ValueError,
  type ChunkCacheOptions,
  type CreateDatasetCommon,
  type DatasetCreateContext,
  type DatasetCreator,
  type DtypeSpec,
  type FilterSpec,
  structuredDatasetMessages,
} from '@chunkform/core';
import { STRUCTURED_CHUNK_VL, type FilterPipeline, type HeaderMessage } from '@chunkform/core/plugin';
import { vlBaseOf } from './vl-values.js';

/** Per-section filters of a VL dataset (each a pipeline, in order). */
export interface VlSectionFilters {
  /** Sparse VL only: the encoded selection of the defined elements (section 0). */
  selection?: FilterSpec[];
  /** The (heap offset, length) entries (section 0 dense, 1 sparse). */
  entries?: FilterSpec[];
  /** The value heap (section 1 dense, 2 sparse). */
  heap?: FilterSpec[];
}

/** Options of a variable-length chunked dataset (see {@link createVlDataset}). */
export interface VlDatasetOptions {
  /** A variable-length string (`'string'`, `'str(ascii)'`) or a sequence of numbers (`'vlen<i4>'`, `'vlen<f8>'`), or such a Datatype. */
  dtype: DtypeSpec;
  shape: number[];
  /** Initial values: one string (or array / TypedArray of numbers) per element, flat in C order. */
  data?: unknown;
  /** Maximum shape (`null` = unlimited). */
  maxShape?: (number | null)[];
  /** Chunk shape (`true` or absent: guessed as h5py does). */
  chunks?: number[] | true;
  /** Sparse VL: elements are undefined until written and can be erased (three sections per chunk). */
  sparse?: boolean;
  /** Filters of the heap section, h5py-style shorthand: 'gzip' (deflate) or a filter id. */
  compression?: 'gzip' | number;
  /** gzip level (default 4) or the client data of another compression filter. */
  compressionOpts?: number | number[];
  /** Per-section filter lists (after the heap shorthand above). */
  filters?: VlSectionFilters;
  /** Store partial edge chunks unfiltered (layout flag). */
  dontFilterPartialChunks?: boolean;
  /** Write the section pipelines as filter pipeline message v3 (default) or the STC message 0x0019. */
  pipelineMessage?: 'v3' | 'stc';
  /** Chunk cache settings. */
  chunkCache?: ChunkCacheOptions;
}

/** What the VL creator receives: core's parsed common options plus the VL options. */
export type VlCreateOptions = CreateDatasetCommon & Omit<VlDatasetOptions, 'dtype' | 'shape' | 'maxShape' | 'chunks' | 'data'>;

/** The section pipelines the options describe, one per section. */
function sectionPipelines(ctx: DatasetCreateContext, o: VlCreateOptions, sparse: boolean, path: string): FilterPipeline[] {
  const f = o.filters ?? {};
  if (typeof f !== 'object' || Array.isArray(f)) throw new ValueError('filters of a VL dataset are given per section: { entries, heap, selection }', { path });
  for (const k of Object.keys(f)) {
    if (k !== 'entries' && k !== 'heap' && k !== 'selection') throw new ValueError(`unknown VL section "${k}" in filters (entries, heap${sparse ? ', selection' : ''})`, { path });
  }
  if (f.selection && !sparse) throw new ValueError('dense VL chunks have no selection section (filters.selection needs sparse: true)', { path });
  const heap = ctx.pipelineFromOptions({ ...(o.compression !== undefined ? { compression: o.compression } : {}), ...(o.compressionOpts !== undefined ? { compressionOpts: o.compressionOpts } : {}), filters: f.heap ?? [] }, path);
  const entries = ctx.pipelineFromOptions({ filters: f.entries ?? [] }, path);
  if (!sparse) return [entries, heap];
  return [ctx.pipelineFromOptions({ filters: f.selection ?? [] }, path), entries, heap];
}

/** The messages of a new VL dataset's object header (structured chunk type 1; docs/format-vl.md). */
export function vlDatasetMessages(ctx: DatasetCreateContext, o: VlCreateOptions): HeaderMessage[] {
  const { path, dtype, shape } = o;
  vlBaseOf(dtype, path);
  if (o.fillValue !== undefined) throw new ValueError('VL chunked datasets take no fill value: an element never written reads as the empty value', { path });
  if (shape.length === 0) throw new ValueError('VL chunked datasets need a shape of at least one dimension', { path });
  const sparse = o.sparse === true;
  const pipelines = sectionPipelines(ctx, o, sparse, path);
  return structuredDatasetMessages(ctx, o, {
    chunkType: STRUCTURED_CHUNK_VL,
    sectionNames: sparse ? ['selection', 'entries', 'heap'] : ['entries', 'heap'],
    // every section of a VL chunk holds metadata (entries reference the heap; the heap has its header)
    metadataSections: sparse ? [0, 1, 2] : [0, 1],
    pipelines,
    order: pipelines.map((_, i) => i).filter((i) => pipelines[i]!.filters.length > 0),
    pipelineMessage: o.pipelineMessage,
  });
}

/** The VL format's dataset creator (`createDataset(path, { format: 'vl', … })`). */
export const vlCreator: DatasetCreator = {
  plan: (opts, ctx) => ({ messages: vlDatasetMessages(ctx, opts as VlCreateOptions) }),
};
