/**
 * Creating sparse datasets (`createDataset(path, { format: 'sparse', … })`, also `layout: 'sparse'`):
 * the sparse format's {@link DatasetCreator}. A sparse chunk has two sections — 0 the encoded
 * selection of its defined elements, 1 their values — each with its own filter pipeline; the header
 * messages come from core's structured-chunk base with structured chunk type 0.
 * @module
 */
import {
  ValueError,
  sectionPipelinesFromOptions,
  structuredDatasetMessages,
  type CreateDatasetCommon,
  type DatasetCreateContext,
  type DatasetCreator,
  type DatasetPlan,
  type FilterOptions,
  type FilterPipeline,
  type FilterSpec,
  type SectionPipelineChoice,
} from '@chunkform/core';
import { STRUCTURED_CHUNK_SPARSE, blockRecordSize, widthFor, hasVlen } from '@chunkform/core/plugin';
import { checkSelectionEncoding } from './sections.js';

/** Filter id of shuffle. */
const SHUFFLE = 2;
/** Section names of a sparse chunk, in section order. */
export const SPARSE_SECTION_NAMES = ['selection', 'values'] as const;

/**
 * Ready-made pipelines for the selection section (section 0) of a sparse dataset, for chunks that
 * hold few, scattered elements (e.g. photon hits): shuffle (id 2) with its element size set to one
 * block record of the encoded selection (start + end corner: `2 · rank · width` bytes, width 2 for
 * chunk dims ≤ 65,536) instead of the datatype size, so each coordinate field becomes its own byte
 * stream, then a compressor:
 * - `'compact'`: deflate level 9 (id 1), readable wherever HDF5 is;
 * - `'compact-zstd'`: zstd level 19 (id 32015, needs the zstd filter registered), ≈ 8 % smaller.
 *
 * Both are standard filters with standard parameters: readers take shuffle's element size from the
 * stored client data. On the LCLS-II point-group benchmark (561 px per 2048² frame) they store the
 * coordinates in 1.79 / 1.67 B per defined pixel, against 2.24 with deflate 4 (BENCHMARKS.md).
 */
export type SelectionFilterPreset = 'compact' | 'compact-zstd';

/** Per-section filters of a sparse dataset (section 0 holds the encoded selection, section 1 the values). */
export type SectionFilterSpecs = {
  /** Filters of the selection section, or a {@link SelectionFilterPreset}. */
  selection?: FilterSpec[] | SelectionFilterPreset;
  values?: FilterSpec[];
};

/** The filters of each selection preset; the first (shuffle) gets the block-record element size. */
const SELECTION_PRESETS: Record<SelectionFilterPreset, FilterSpec[]> = {
  compact: [{ id: 2 }, { id: 1, clientData: [9] }],
  'compact-zstd': [{ id: 2 }, { id: 32015, clientData: [19] }],
};

/**
 * Options of a sparse dataset besides the common ones: filters per section (the shorthands
 * `compression`, `shuffle`, `fletcher32` apply to both sections; `filters: { selection, values }`
 * filters them differently; n-bit and scale-offset cannot filter a section and are refused).
 */
export interface SparseCreateOptions extends Omit<FilterOptions, 'filters'> {
  filters?: FilterSpec[] | SectionFilterSpecs;
  /** Write the per-section pipelines as filter pipeline message v3 (default) or the STC message 0x0019. */
  pipelineMessage?: 'v3' | 'stc';
  /** 'smallest' (default) or 'prototype' encoding of each chunk's defined elements. */
  selectionEncoding?: 'smallest' | 'prototype';
}

/** What {@link sparseSectionPipelines} returns. */
export interface SparseSectionPipelines {
  /** One pipeline per section (0 = selection, 1 = values). */
  pipelines: FilterPipeline[];
  /** Order in which sections were given filters. */
  order: number[];
  /** Index in the selection pipeline of the shuffle of a {@link SelectionFilterPreset}; absent otherwise. */
  selectionRecordShuffle?: number;
}

/**
 * The per-section pipelines of a sparse dataset — the shorthands on every section, then each
 * section's own filters — and the order in which sections were given filters (the key order of
 * `filters: { values, selection }`; shorthands first, for all sections), which the pipeline message
 * records.
 */
export function sparseSectionPipelines(o: FilterOptions, path: string): SparseSectionPipelines {
  const choice: SectionPipelineChoice = sectionPipelinesFromOptions(o, SPARSE_SECTION_NAMES, path, { selection: SELECTION_PRESETS });
  const preset = choice.presets.get(0);
  return { pipelines: choice.pipelines, order: choice.order, ...(preset ? { selectionRecordShuffle: preset.at } : {}) };
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

/** The sparse format's creator. */
export const sparseCreator: DatasetCreator = {
  plan(opts: Readonly<Record<string, unknown>> & CreateDatasetCommon, ctx: DatasetCreateContext): DatasetPlan {
    const { path, dtype } = opts;
    if (hasVlen(dtype)) throw new ValueError('sparse datasets need a fixed-size datatype', { path });
    if (opts.shape.length === 0) throw new ValueError('sparse datasets need at least one dimension', { path });
    if (opts.allocTime !== undefined && opts.allocTime !== 'incremental') {
      throw new ValueError(
        `allocTime '${String(opts.allocTime)}' has no meaning for a sparse dataset: a sparse chunk is stored when it first ` +
          "holds a defined element (there is nothing to allocate or fill before); omit allocTime or use 'incremental'",
        { path },
      );
    }
    const o = opts as CreateDatasetCommon & SparseCreateOptions;
    if (o.pipelineMessage !== undefined && o.pipelineMessage !== 'v3' && o.pipelineMessage !== 'stc') {
      throw new ValueError(`unknown pipelineMessage ${JSON.stringify(o.pipelineMessage)}; use 'v3' or 'stc'`, { path });
    }
    checkSelectionEncoding(o.selectionEncoding, path);
    const sections = sparseSectionPipelines(o as FilterOptions, path);
    const at = sections.selectionRecordShuffle;
    const messages = structuredDatasetMessages(ctx, opts, {
      chunkType: STRUCTURED_CHUNK_SPARSE,
      sectionNames: SPARSE_SECTION_NAMES,
      metadataSections: [0],
      pipelines: sections.pipelines,
      order: sections.order,
      pipelineMessage: o.pipelineMessage,
      ...(at !== undefined
        ? {
            // Shuffle stores its element size as client data 0 and every reader uses the stored value.
            adjustPipelines: (pipelines: FilterPipeline[], chunkDims: readonly number[]) => {
              const f = pipelines[0]?.filters[at];
              if (!f || f.id !== SHUFFLE) throw new ValueError(`internal error: no shuffle at position ${at} of the selection pipeline`, { path });
              const size = selectionRecordSize(chunkDims);
              return [{ ...pipelines[0]!, filters: pipelines[0]!.filters.map((g, i) => (i === at ? { ...g, clientData: [size] } : g)) }, ...pipelines.slice(1)];
            },
          }
        : {}),
    });
    return { messages, ...(o.selectionEncoding ? { access: { selectionEncoding: o.selectionEncoding } } : {}) };
  },
};
