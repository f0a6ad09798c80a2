/**
 * The object header messages of a new structured-chunk dataset (any structured chunk type), in the
 * order the HDF Group sparse prototype writes them: dataspace, datatype, fill value (incremental
 * allocation), the per-section filter pipelines (filter pipeline message v3, or the STC message
 * 0x0019) and a version-5 class-4 layout message (see docs/ for the on-disk format) whose index
 * records hold one size per section. Formats (sparse, VL, third-party) add their own checks.
 * @module
 */
import { FilterError, ValueError } from '../errors.js';
import { UNDEFINED_ADDRESS } from '../format/bytes.js';
import type { FilterPipeline } from '../format/messages/filter-pipeline.js';
import { encodeFilterPipelineV3 } from '../format/messages/filter-pipeline-v3.js';
import { encodeStcFilterPipeline } from '../format/messages/stc-filter-pipeline.js';
import { encodeLayout, LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS, LAYOUT_FLAG_SINGLE_INDEX_WITH_FILTER } from '../format/messages/layout.js';
import type { StructuredChunkLayout } from '../format/messages/layout-structured.js';
import { FILTER_PIPELINE, LAYOUT, STC_FILTER_PIPELINE } from '../format/messages/message-types.js';
import type { HeaderMessage } from '../file/header-model.js';
import type { CreateDatasetCommon, DatasetCreateContext } from '../chunk/dataset-creator.js';

const CONSTANT = 0x01;

/** What a structured-chunk dataset is created from (besides the common create options). */
export interface StructuredCreatePlan {
  /** Structured chunk type code stored in the layout message (0 = sparse). */
  chunkType: number;
  /** Section names, in section order (for messages); their number is the section count. */
  sectionNames: readonly string[];
  /** Numbers of the sections holding metadata. */
  metadataSections: readonly number[];
  /** One pipeline per section, as the options describe it (completed here by each filter's "set local"). */
  pipelines: readonly FilterPipeline[];
  /** Order in which sections were given filters (recorded in the pipeline message). */
  order?: readonly number[] | undefined;
  /** 'v3' (filter pipeline message version 3, the default) or 'stc' (message 0x0019). */
  pipelineMessage?: 'v3' | 'stc' | undefined;
  /** Element size stored in the layout (default: the datatype's size). */
  elementSize?: number;
  /** Last changes to the completed pipelines (e.g. a format-specific shuffle element size), given the chunk dims. */
  adjustPipelines?: (pipelines: FilterPipeline[], chunkDims: readonly number[]) => FilterPipeline[];
}

/**
 * Filters that cannot filter a section of a structured chunk: their parameters (set at creation)
 * describe a chunk of exactly `chunkDims` elements, but sections vary in length from chunk to chunk.
 */
const NOT_FOR_SECTIONS: Readonly<Record<number, string>> = { 5: 'n-bit', 6: 'scale-offset' };

/** @throws FilterError a section pipeline holds a filter from the list of filters that cannot filter a section (n-bit, scale-offset) (before anything is stored). */
export function checkSectionFilters(pipelines: readonly FilterPipeline[], sectionNames: readonly string[], chunkDims: readonly number[], path: string): void {
  pipelines.forEach((pl, section) => {
    for (const f of pl.filters) {
      const name = NOT_FOR_SECTIONS[f.id];
      if (name === undefined) continue;
      const n = chunkDims.reduce((a, b) => a * b, 1);
      throw new FilterError(
        `${name} (filter ${f.id}) cannot filter the ${sectionNames[section] ?? `#${section}`} section of a structured-chunk dataset: ` +
          `its parameters describe whole chunks of ${n} elements, but a section's length varies from chunk to chunk; ` +
          `use a compressor (deflate, zstd, lz4, bitshuffle, shuffle) in filters: { ${sectionNames.join(', ')} }, or a dense dataset for ${name}`,
        { filterId: f.id, filterName: name },
        { path },
      );
    }
  });
}

/** The header messages of a new structured-chunk dataset. */
export function structuredDatasetMessages(ctx: DatasetCreateContext, o: CreateDatasetCommon, p: StructuredCreatePlan): HeaderMessage[] {
  const { path, dtype, shape } = o;
  if (shape.length === 0) throw new ValueError('structured-chunk datasets need at least one dimension', { path });
  const sections = p.sectionNames.length;
  if (p.pipelines.length !== sections) throw new ValueError(`${p.pipelines.length} section pipelines for ${sections} sections`, { path });
  ctx.checkShape(shape, o.maxShape, path);
  const es = p.elementSize ?? ctx.elementSize(dtype);
  const { maxDims, chunkDims } = ctx.chunkGeometry(shape, o.maxShape, o.chunks, es, path);
  const fill = ctx.encodeFill(dtype, o.fillValue, path);
  checkSectionFilters(p.pipelines, p.sectionNames, chunkDims, path);
  let pipelines = p.pipelines.map((pl) => ctx.completePipeline(pl, dtype, es, chunkDims, fill, path));
  if (p.adjustPipelines) pipelines = p.adjustPipelines(pipelines, chunkDims);
  const filtered = pipelines.some((pl) => pl.filters.length > 0);
  const index = ctx.chooseIndex({ layoutClass: 'structured', dims: shape, maxDims, chunkDims, sections, filtered, requested: o.chunkIndex, path });
  const layout: StructuredChunkLayout = {
    class: 'structured',
    version: 5,
    propertyVersion: 0,
    chunkType: p.chunkType,
    flags:
      (o.dontFilterPartialChunks ? LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS : 0) |
      (index.type === 'single' && filtered ? LAYOUT_FLAG_SINGLE_INDEX_WITH_FILTER : 0),
    chunkDims,
    elementSize: es,
    offsetSize: 8,
    sectionCount: sections,
    metadataSections: p.metadataSections.slice(),
    index,
    address: UNDEFINED_ADDRESS,
  };
  const messages = ctx.baseMessages({ dtype, shape, maxDims: o.maxShape ? maxDims : null, fill, allocTime: 'incremental' });
  if (filtered) {
    const body = { sections: pipelines, ...(p.order && p.order.length ? { order: p.order.slice() } : {}) };
    messages.push(
      p.pipelineMessage === 'stc'
        ? { type: STC_FILTER_PIPELINE, flags: CONSTANT, body: encodeStcFilterPipeline(body) }
        : { type: FILTER_PIPELINE, flags: CONSTANT, body: encodeFilterPipelineV3(body) },
    );
  }
  messages.push({ type: LAYOUT, flags: 0, body: encodeLayout(layout, ctx.sizes) });
  return messages;
}
