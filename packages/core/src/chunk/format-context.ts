/**
 * Helpers over a {@link ChunkFormatContext} that chunk formats share: the label of a chunk for error
 * locations, partial edge chunks, and the per-section pipelines and selection extent of structured
 * chunks (docs/structured-chunk-format.md §4.5, §7.6).
 * @module
 */
import type { ChunkFormatContext } from './chunk-format.js';
import type { FilterPipeline } from '../format/messages/filter-pipeline.js';

/** Value of an unlimited maximum dimension in `ChunkFormatContext.maxDims`. */
const UNLIMITED = -1;

/** Label of the chunk at `coords` for error locations: the dataset path and the chunk coordinates. */
export function chunkLabel(ctx: ChunkFormatContext, coords: readonly number[]): string {
  return `${ctx.datasetPath} (chunk [${coords.join(', ')}])`;
}

/** True when the chunk at (scaled) `coords` sticks out of the dataset's current extent (a partial edge chunk). */
export function isPartialEdgeChunk(ctx: ChunkFormatContext, coords: readonly number[]): boolean {
  const dims = ctx.dims();
  return coords.some((c, i) => (c + 1) * ctx.chunkDims[i]! > dims[i]!);
}

/** The pipeline of structured-chunk section `i` (empty when the section is unfiltered). */
export function sectionPipeline(ctx: ChunkFormatContext, i: number): FilterPipeline {
  return ctx.sectionPipelines?.[i] ?? { filters: [] };
}

/** True when any section has a filter: index records then carry unfiltered sizes and masks (docs/structured-chunk-format.md §5.1). */
export function anySectionFiltered(ctx: ChunkFormatContext): boolean {
  return (ctx.sectionPipelines ?? []).some((p) => p !== undefined && p.filters.length > 0);
}

/**
 * The maximum dimensions of the extent stored with a chunk's encoded selection (docs/structured-chunk-format.md §7.6):
 * the dataset's maximum dimensions (e.g. unlimited) next to the chunk dimensions; without them, or where
 * a maximum is below the chunk size, the chunk dimensions.
 */
export function selectionExtentMaxDims(ctx: ChunkFormatContext): number[] {
  const c = ctx.chunkDims;
  const m = ctx.maxDims;
  if (!m || m.length !== c.length) return [...c];
  return c.map((n, d) => (m[d] === UNLIMITED ? UNLIMITED : Math.max(n, m[d]!)));
}
