/**
 * Creation through the format package (issue #13 "the seam"): a chunk format provider's
 * {@link DatasetCreator} turns `createDataset` options into the object header messages of a new
 * dataset (dataspace, datatype, fill value, filter pipeline(s), layout). Core looks the provider up
 * by the `format:` option and never interprets a format's options itself; the
 * {@link DatasetCreateContext} gives creators the helpers every format needs.
 * @module
 */
import type { SizeContext } from '../format/bytes.js';
import type { Datatype } from '../format/messages/datatype.js';
import type { FilterPipeline } from '../format/messages/filter-pipeline.js';
import type { ChunkIndexInfo } from '../format/messages/layout-index.js';
import type { StructuredChunkIndexInfo } from '../format/messages/layout-structured.js';
import type { HeaderMessage } from '../file/header-model.js';
import type { Container } from '../di/container.js';
import type { FilterOptions } from '../objects/filter-options.js';

/** When file space is allocated (HDF5's H5D_ALLOC_TIME_*). */
export type CreateAllocTime = 'early' | 'late' | 'incremental';

/** The options of `createDataset` that core has already checked and parsed, given to every creator. */
export interface CreateDatasetCommon {
  /** Full path of the new dataset (for error messages). */
  readonly path: string;
  /** Parsed element datatype. */
  readonly dtype: Datatype;
  /** Shape (`[]`: scalar). */
  readonly shape: readonly number[];
  /** Maximum shape as given (`null` = unlimited). */
  readonly maxShape?: readonly (number | null)[] | undefined;
  /** Chunk shape as given (`true`: guess). */
  readonly chunks?: readonly number[] | true | undefined;
  /** Fill value as given (a user value). */
  readonly fillValue?: unknown;
  readonly allocTime?: CreateAllocTime | undefined;
  /** Store partial edge chunks unfiltered. */
  readonly dontFilterPartialChunks?: boolean | undefined;
  /** The chunk index asked for (`chunkIndex` option), if any; see {@link DatasetCreateContext.chooseIndex}. */
  readonly chunkIndex?: string | undefined;
}

/** What a creator returns: the new dataset's header messages, and access options to open it with. */
export interface DatasetPlan {
  /** Header messages in file order (dataspace, datatype, fill value, pipeline(s), layout …). */
  messages: HeaderMessage[];
  /** Dataset access options the new dataset is opened with (e.g. a format's encoding choice). */
  access?: Readonly<Record<string, unknown>>;
  /**
   * The allocation time the plan stores (default: the `allocTime` option): for 'early' core
   * allocates (and fills) every chunk before the dataset is linked.
   */
  allocTime?: CreateAllocTime;
}

/** Plans new datasets of one chunk format (`ChunkFormatProvider.creator`). */
export interface DatasetCreator {
  /**
   * Header messages (dataspace, datatype, fill, pipeline(s), layout …) of a new dataset. `opts` holds
   * the user's options (format options included) over the parsed common ones. Pure: nothing in the
   * file changes. Throws typed errors (ValueError, FilterError …) for bad options.
   */
  plan(opts: Readonly<Record<string, unknown>> & CreateDatasetCommon, ctx: DatasetCreateContext): DatasetPlan;
}

/** Layout class a chunk index is chosen for. */
export type IndexLayoutClass = 'chunked' | 'structured';

/** What decides the chunk index of a new dataset (see {@link DatasetCreateContext.chooseIndex}). */
export interface IndexRequest {
  layoutClass: IndexLayoutClass;
  dims: readonly number[];
  /** Maximum dimensions, unlimited = -1 (`UNDEFINED_ADDRESS` accepted too). */
  maxDims: readonly number[];
  chunkDims: readonly number[];
  /** True when chunks (any section) are filtered. */
  filtered: boolean;
  /** Chunked layouts: allocation time (implicit indexes need 'early'). */
  allocTime?: CreateAllocTime | undefined;
  /** Structured layouts: sections per chunk (sizes the single-chunk record). */
  sections?: number;
  /** The `chunkIndex` option (absent: HDF5's own choice). */
  requested?: string | undefined;
  path: string;
}

/** Helpers creators need, bound to the file the dataset is created in. */
export interface DatasetCreateContext {
  /** Offset/length sizes of the file. */
  readonly sizes: SizeContext;
  /** The file's DI container (registered filters, indexes and formats). */
  readonly container: Container;
  /** Bytes per element of `dtype` in this file. */
  elementSize(dtype: Datatype): number;
  /** Checks `shape` against `maxShape` (ranks, sizes). @throws ValueError */
  checkShape(shape: readonly number[], maxShape: readonly (number | null)[] | undefined, path: string): void;
  /**
   * Maximum dimensions (unlimited = `UNDEFINED_ADDRESS`) and validated chunk dimensions (`chunks`
   * absent or `true`: guessed as h5py does). @throws ValueError
   */
  chunkGeometry(
    shape: readonly number[],
    maxShape: readonly (number | null)[] | undefined,
    chunks: readonly number[] | true | undefined,
    elementSize: number,
    path: string,
  ): { maxDims: number[]; chunkDims: number[] };
  /** One element of fill value in file form (null when none is given). */
  encodeFill(dtype: Datatype, fillValue: unknown, path: string): Uint8Array | null;
  /** The pipeline of h5py-style filter options (`compression`, `shuffle`, `fletcher32`, `filters: [...]`). */
  pipelineFromOptions(opts: FilterOptions, path: string): FilterPipeline;
  /** Checks each filter of a new pipeline is registered and completes its client data ("set local"). */
  completePipeline(pipeline: FilterPipeline, dtype: Datatype, elementSize: number, chunkDims: readonly number[], fill: Uint8Array | null, path: string): FilterPipeline;
  /**
   * The chunk index of a new dataset: HDF5's choice, or the one `requested` names when it suits the
   * layout. @throws ValueError naming the `chunkIndex` option for an unknown or unsuitable choice.
   */
  chooseIndex(req: IndexRequest & { layoutClass: 'chunked' }): ChunkIndexInfo;
  chooseIndex(req: IndexRequest & { layoutClass: 'structured' }): StructuredChunkIndexInfo;
  /**
   * The dataspace, datatype and fill value messages every dataset starts with (`maxDims` in file
   * form, unlimited = `UNDEFINED_ADDRESS`; null stores no maximum).
   */
  baseMessages(p: { dtype: Datatype; shape: readonly number[]; maxDims: readonly number[] | null; fill: Uint8Array | null; allocTime: CreateAllocTime }): HeaderMessage[];
}
