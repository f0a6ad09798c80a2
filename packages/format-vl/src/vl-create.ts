/**
 * The object header messages of a new variable-length chunked dataset (docs/format-vl.md §1):
 * dataspace, datatype, fill value (incremental allocation, no fill value: an unwritten element is
 * the empty value), the per-section filter pipelines when any section is filtered (filter pipeline
 * message v3, or the STC message 0x0019), and a version-5 class-4 layout message of structured
 * chunk type 1 whose composition tells dense (2 sections) from sparse (3 sections) VL chunks.
 * @module
 */
import { FilterError, ValueError, parseDtype, type DtypeSpec, type FilterSpec, type ChunkCacheOptions, type DatasetCreator } from '@chunkform/core';
import { ByteWriter, UNDEFINED_ADDRESS, type SizeContext } from '@chunkform/core/internal/format/bytes';
import { datatypeSize, encodeDatatype } from '@chunkform/core/internal/format/messages/datatype';
import { encodeDataspace } from '@chunkform/core/internal/format/messages/dataspace';
import { encodeFillValue } from '@chunkform/core/internal/format/messages/fill-value';
import type { FilterPipeline } from '@chunkform/core/internal/format/messages/filter-pipeline';
import { encodeFilterPipelineV3 } from '@chunkform/core/internal/format/messages/filter-pipeline-v3';
import { encodeStcFilterPipeline } from '@chunkform/core/internal/format/messages/stc-filter-pipeline';
import { encodeLayout, LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS, LAYOUT_FLAG_SINGLE_INDEX_WITH_FILTER } from '@chunkform/core/internal/format/messages/layout';
import { STRUCTURED_CHUNK_VL, type StructuredChunkLayout } from '@chunkform/core/internal/format/messages/layout-structured';
import { DATASPACE, DATATYPE, FILL_VALUE, FILTER_PIPELINE, LAYOUT, STC_FILTER_PIPELINE } from '@chunkform/core/internal/format/messages/message-types';
import { chooseStructuredChunkIndex } from '@chunkform/core/internal/chunk/choose-index';
import type { FileContext } from '@chunkform/core/internal/file/file-context';
import type { HeaderMessage } from '@chunkform/core/internal/file/header-model';
import { checkShape } from '@chunkform/core/internal/objects/dataset';
import { chunkGeometry, completePipeline } from '@chunkform/core/internal/objects/chunked-create';
import { pipelineFromOptions } from '@chunkform/core/internal/objects/filter-options';
import { DENSE_SECTIONS, SPARSE_SECTIONS } from './vl-sections.js';
import { vlBaseOf } from './vl-values.js';

const CONSTANT = 0x01;

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

/** The section pipelines the options describe, one per section. */
function sectionPipelines(o: VlDatasetOptions, sparse: boolean, path: string): FilterPipeline[] {
  const f = o.filters ?? {};
  if (typeof f !== 'object' || Array.isArray(f)) throw new ValueError('filters of a VL dataset are given per section: { entries, heap, selection }', { path });
  for (const k of Object.keys(f)) {
    if (k !== 'entries' && k !== 'heap' && k !== 'selection') throw new ValueError(`unknown VL section "${k}" in filters (entries, heap${sparse ? ', selection' : ''})`, { path });
  }
  if (f.selection && !sparse) throw new ValueError('dense VL chunks have no selection section (filters.selection needs sparse: true)', { path });
  const heap = pipelineFromOptions({ ...(o.compression !== undefined ? { compression: o.compression } : {}), ...(o.compressionOpts !== undefined ? { compressionOpts: o.compressionOpts } : {}), filters: f.heap ?? [] }, path);
  const entries = pipelineFromOptions({ filters: f.entries ?? [] }, path);
  if (!sparse) return [entries, heap];
  return [pipelineFromOptions({ filters: f.selection ?? [] }, path), entries, heap];
}

/** Filters whose parameters describe whole chunks of fixed-size elements: no use on a section. */
const NOT_FOR_SECTIONS: Readonly<Record<number, string>> = { 5: 'n-bit', 6: 'scale-offset' };

/** The messages of a new VL dataset's object header. */
export function vlDatasetMessages(ctx: FileContext, o: VlDatasetOptions, path: string): HeaderMessage[] {
  const dtype = parseDtype(o.dtype);
  vlBaseOf(dtype, path);
  const shape = o.shape;
  if (!Array.isArray(shape) || shape.length === 0) throw new ValueError('VL chunked datasets need a shape of at least one dimension', { path });
  checkShape(shape, o.maxShape, path);
  const sizes: SizeContext = ctx.sizes;
  const es = datatypeSize(dtype, sizes);
  const { maxDims, chunkDims } = chunkGeometry(shape, o.maxShape, o.chunks, es, path);
  const sparse = o.sparse === true;
  const pipelines = sectionPipelines(o, sparse, path).map((pl) => {
    for (const f of pl.filters) {
      const name = NOT_FOR_SECTIONS[f.id];
      if (name) throw new FilterError(`${name} (filter ${f.id}) cannot filter a section of a VL chunk; use a compressor`, { filterId: f.id, filterName: name }, { path });
    }
    return completePipeline(ctx, pl, dtype, es, chunkDims, null, path);
  });
  const n = sparse ? SPARSE_SECTIONS : DENSE_SECTIONS;
  const filtered = pipelines.some((pl) => pl.filters.length > 0);
  const index = chooseStructuredChunkIndex({ dims: shape, maxDims, chunkDims, sections: n, filtered });
  const layout: StructuredChunkLayout = {
    class: 'structured',
    version: 5,
    propertyVersion: 0,
    chunkType: STRUCTURED_CHUNK_VL,
    flags: (o.dontFilterPartialChunks ? LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS : 0) | (index.type === 'single' && filtered ? LAYOUT_FLAG_SINGLE_INDEX_WITH_FILTER : 0),
    chunkDims,
    elementSize: es,
    offsetSize: 8,
    sectionCount: n,
    // every section of a VL chunk holds metadata (entries reference the heap; the heap has its header)
    metadataSections: sparse ? [0, 1, 2] : [0, 1],
    index,
    address: UNDEFINED_ADDRESS,
  };
  const dt = new ByteWriter(sizes);
  encodeDatatype(dt, dtype);
  const messages: HeaderMessage[] = [
    { type: DATASPACE, flags: 0, body: encodeDataspace({ kind: 'simple', dims: shape.slice(), maxDims: o.maxShape ? maxDims : null }, sizes) },
    { type: DATATYPE, flags: CONSTANT, body: dt.finish().slice() },
    { type: FILL_VALUE, flags: CONSTANT, body: encodeFillValue({ allocTime: 'incremental', fillTime: 'ifset', defined: false, value: null }) },
  ];
  if (filtered) {
    const order = pipelines.map((_, i) => i).filter((i) => pipelines[i]!.filters.length > 0);
    const body = { sections: pipelines, order };
    messages.push(
      o.pipelineMessage === 'stc'
        ? { type: STC_FILTER_PIPELINE, flags: CONSTANT, body: encodeStcFilterPipeline(body) }
        : { type: FILTER_PIPELINE, flags: CONSTANT, body: encodeFilterPipelineV3(body) },
    );
  }
  messages.push({ type: LAYOUT, flags: 0, body: encodeLayout(layout, sizes) });
  return messages;
}

/** The VL format's dataset creator (core's `DatasetCreator`). */
export const vlCreator: DatasetCreator = {
  plan: (opts, ctx, path) => ({ messages: vlDatasetMessages(ctx, opts as unknown as VlDatasetOptions, path) }),
};

