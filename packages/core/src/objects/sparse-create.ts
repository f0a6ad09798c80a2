/**
 * The object header messages of a new sparse (structured-chunk) dataset, in the order the HDF
 * Group prototype writes them (notes/sparse-format.md §2): dataspace, datatype, fill value, the
 * per-section filter pipelines (filter pipeline message v3 or the STC message 0x0019, §4), and a
 * version-5 class-4 layout message (§3) with the index the prototype would choose (§3.3).
 * @module
 */
import { FilterError, ValueError } from '../errors.js';
import { ByteWriter, UNDEFINED_ADDRESS } from '../format/bytes.js';
import { datatypeSize, encodeDatatype, type Datatype } from '../format/messages/datatype.js';
import { encodeDataspace } from '../format/messages/dataspace.js';
import { encodeFillValue } from '../format/messages/fill-value.js';
import type { FilterPipeline } from '../format/messages/filter-pipeline.js';
import { encodeFilterPipelineV3 } from '../format/messages/filter-pipeline-v3.js';
import { encodeStcFilterPipeline } from '../format/messages/stc-filter-pipeline.js';
import { encodeLayout, LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS, LAYOUT_FLAG_SINGLE_INDEX_WITH_FILTER } from '../format/messages/layout.js';
import { STRUCTURED_CHUNK_SPARSE, type StructuredChunkLayout } from '../format/messages/layout-structured.js';
import { DATASPACE, DATATYPE, FILL_VALUE, FILTER_PIPELINE, LAYOUT, STC_FILTER_PIPELINE } from '../format/messages/message-types.js';
import { chooseStructuredChunkIndex } from '../chunk/choose-index.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderMessage } from '../file/header-model.js';
import { checkShape } from './dataset.js';
import { encodeFill } from './dataset-create.js';
import { hasVlen } from './values-io.js';
import { chunkGeometry, completePipeline } from './chunked-create.js';
import { blockRecordSize } from '../selection/serialize/hyperslab.js';
import { widthFor } from '../selection/serialize/uint.js';

const CONSTANT = 0x01;
/** Filter id of shuffle. */
const SHUFFLE = 2;
/** Sections of a fixed-size sparse chunk: 0 = encoded selection, 1 = values. */
const SECTIONS = 2;

/** What a sparse dataset is created from. */
export interface SparsePlan {
  path: string;
  dtype: Datatype;
  shape: number[];
  maxShape?: (number | null)[] | undefined;
  chunks?: number[] | true | undefined;
  fillValue?: unknown;
  /** Only 'incremental' (or absent): a sparse chunk is stored when it first holds a defined element. */
  allocTime?: 'early' | 'late' | 'incremental' | undefined;
  dontFilterPartialChunks?: boolean | undefined;
  /** One pipeline per section. */
  pipelines: FilterPipeline[];
  /** Order in which sections were given filters (recorded in the pipeline message). */
  order?: number[] | undefined;
  /** 'v3' (filter pipeline message version 3, the default) or 'stc' (message 0x0019). */
  pipelineMessage?: 'v3' | 'stc' | undefined;
  /**
   * Index in the selection pipeline of a shuffle whose element size is one block record of the
   * chunk's encoded selection rather than the datatype size (selection filter presets).
   */
  selectionRecordShuffle?: number | undefined;
}

/**
 * Element size for a shuffle of the selection section: one block of a hyperslab v3 block list
 * (start and end corner) at the coordinate width of the chunk's dims (what `smallest` encodes
 * with, unless a chunk has more than 65,535 blocks).
 */
export function selectionRecordSize(chunkDims: readonly number[]): number {
  let high = 0;
  for (const c of chunkDims) if (c - 1 > high) high = c - 1;
  return blockRecordSize(chunkDims.length, widthFor(high));
}

/**
 * Filters that cannot filter a section of a sparse chunk: their parameters (set at creation) describe
 * a chunk of exactly `chunkDims` elements, but a sparse chunk stores only its defined elements
 * (values section) and their encoded selection (selection section), whose lengths vary per chunk.
 */
const NOT_FOR_SECTIONS: Readonly<Record<number, string>> = { 5: 'n-bit', 6: 'scale-offset' };
const SECTION_NAMES = ['selection', 'values'];

/** @throws FilterError a section pipeline holds a filter from {@link NOT_FOR_SECTIONS} (before anything is stored). */
function checkSectionFilters(pipelines: readonly FilterPipeline[], chunkDims: readonly number[], path: string): void {
  pipelines.forEach((pl, section) => {
    for (const f of pl.filters) {
      const name = NOT_FOR_SECTIONS[f.id];
      if (name === undefined) continue;
      const n = chunkDims.reduce((a, b) => a * b, 1);
      throw new FilterError(
        `${name} (filter ${f.id}) cannot filter the ${SECTION_NAMES[section] ?? `#${section}`} section of a sparse dataset: ` +
          `its parameters describe whole chunks of ${n} elements, but a sparse chunk stores only its defined elements ` +
          'and their encoded selection; use a compressor (deflate, zstd, lz4, bitshuffle, shuffle) in filters: { selection, values }, ' +
          'or a dense dataset for ' + name,
        { filterId: f.id, filterName: name },
        { path },
      );
    }
  });
}

/** The messages of a new sparse dataset's object header. */
export function sparseDatasetMessages(ctx: FileContext, p: SparsePlan): HeaderMessage[] {
  const { path, dtype, shape } = p;
  if (hasVlen(dtype)) throw new ValueError('sparse datasets need a fixed-size datatype', { path });
  if (shape.length === 0) throw new ValueError('sparse datasets need at least one dimension', { path });
  if (p.allocTime !== undefined && p.allocTime !== 'incremental') {
    throw new ValueError(
      `allocTime '${String(p.allocTime)}' has no meaning for a sparse dataset: a sparse chunk is stored when it first ` +
        "holds a defined element (there is nothing to allocate or fill before); omit allocTime or use 'incremental'",
      { path },
    );
  }
  checkShape(shape, p.maxShape, path);
  const es = datatypeSize(dtype, ctx.sizes);
  const { maxDims, chunkDims } = chunkGeometry(shape, p.maxShape, p.chunks, es, path);
  const fill = encodeFill(ctx, dtype, p.fillValue, path);
  checkSectionFilters(p.pipelines, chunkDims, path);
  const pipelines = p.pipelines.map((pl) => completePipeline(ctx, pl, dtype, es, chunkDims, fill, path));
  const at = p.selectionRecordShuffle;
  if (at !== undefined) {
    const f = pipelines[0]?.filters[at];
    if (!f || f.id !== SHUFFLE) throw new ValueError(`internal error: no shuffle at position ${at} of the selection pipeline`, { path });
    // Shuffle stores its element size as client data 0 and every reader uses the stored value.
    pipelines[0] = { ...pipelines[0]!, filters: pipelines[0]!.filters.map((g, i) => (i === at ? { ...g, clientData: [selectionRecordSize(chunkDims)] } : g)) };
  }
  const filtered = pipelines.some((pl) => pl.filters.length > 0);
  const index = chooseStructuredChunkIndex({ dims: shape, maxDims, chunkDims, sections: SECTIONS, filtered });
  const layout: StructuredChunkLayout = {
    class: 'structured',
    version: 5,
    propertyVersion: 0,
    chunkType: STRUCTURED_CHUNK_SPARSE,
    flags:
      (p.dontFilterPartialChunks ? LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS : 0) |
      (index.type === 'single' && filtered ? LAYOUT_FLAG_SINGLE_INDEX_WITH_FILTER : 0),
    chunkDims,
    elementSize: es,
    offsetSize: 8,
    sectionCount: SECTIONS,
    metadataSections: [0],
    index,
    address: UNDEFINED_ADDRESS,
  };
  const dt = new ByteWriter(ctx.sizes);
  encodeDatatype(dt, dtype);
  const messages: HeaderMessage[] = [
    { type: DATASPACE, flags: 0, body: encodeDataspace({ kind: 'simple', dims: shape.slice(), maxDims: p.maxShape ? maxDims : null }, ctx.sizes) },
    { type: DATATYPE, flags: CONSTANT, body: dt.finish().slice() },
    { type: FILL_VALUE, flags: CONSTANT, body: encodeFillValue({ allocTime: 'incremental', fillTime: 'ifset', defined: fill !== null, value: fill }) },
  ];
  if (filtered) {
    const sections = { sections: pipelines, ...(p.order && p.order.length ? { order: p.order } : {}) };
    messages.push(
      p.pipelineMessage === 'stc'
        ? { type: STC_FILTER_PIPELINE, flags: CONSTANT, body: encodeStcFilterPipeline(sections) }
        : { type: FILTER_PIPELINE, flags: CONSTANT, body: encodeFilterPipelineV3(sections) },
    );
  }
  messages.push({ type: LAYOUT, flags: 0, body: encodeLayout(layout, ctx.sizes) });
  return messages;
}
