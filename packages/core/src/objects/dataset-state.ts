/**
 * What every handle of one dataset shares. Handles are views over one object header model (one per
 * object in an open file), so `f.get('/d')` twice gives two views of the same dataset: they share
 * its dataspace, its storage (one chunk cache and one chunk index, flushed once) and the
 * {@link DatasetLock} that orders the calls made through any of them.
 * @module
 */
import { UnsupportedError } from '../errors.js';
import type { Dataspace } from '../format/messages/dataspace.js';
import type { Datatype } from '../format/messages/datatype.js';
import type { FilterPipeline } from '../format/messages/filter-pipeline.js';
import type { DataLayout } from '../format/messages/layout.js';
import { EXTERNAL_FILES } from '../format/messages/message-types.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import type { DatasetLock } from '../file/lock.js';
import type { ChunkCacheOptions } from '../chunk/cache.js';
import type { DatasetStorage } from '../storage/dataset-storage.js';

/** Options when a dataset is opened. */
export interface DatasetAccessOptions {
  /** Chunk cache settings for this dataset. */
  chunkCache?: ChunkCacheOptions;
  /**
   * Options of the dataset's chunk format, handed to it as they are (e.g. sparse's
   * `selectionEncoding: 'smallest' | 'prototype'`, see `@chunkform/format-sparse`).
   */
  readonly [formatOption: string]: unknown;
}

/** The shared state of one dataset. */
export interface DatasetState {
  /** Orders the calls on the dataset (reads together, mutations alone, in call order); null for a read-only file's (file/read-lock.ts). */
  readonly lock: DatasetLock | null;
  /** The current dataspace (a resize through any handle is seen by all). */
  space: Dataspace;
  access: DatasetAccessOptions;
  /** The storage once opening it started, and once it is open. */
  storageP?: Promise<DatasetStorage>;
  storage?: DatasetStorage;
}

/** The state of the dataset whose header is `model` (made from `space` the first time). */
export function datasetState(ctx: FileContext, model: HeaderModel, space: Dataspace): DatasetState {
  // Kept on the model (every handle holds it) rather than in a WeakMap: creating thousands of
  // datasets then costs no weak-table upkeep.
  let s = model.objectState as DatasetState | undefined;
  if (!s) {
    const state: DatasetState = {
      // A read must run alone while the chunk cache holds changes (it may write one out).
      lock: ctx.lock.datasetLock(() => state.storage?.hasCachedChanges?.() === true),
      space,
      access: {},
    };
    model.objectState = s = state;
  }
  return s;
}

/** What opening a dataset's storage needs to know about it. */
export interface StorageParts {
  path: string;
  layout: DataLayout;
  dtype: Datatype;
  elementSize: number;
  filters: FilterPipeline['filters'];
  sectionFilters: FilterPipeline[] | null;
  fillValue: Uint8Array | null;
}

/** The dataset's storage, opened once per dataset (`create`: a new, empty chunk index). */
export function storageOf(ctx: FileContext, model: HeaderModel, state: DatasetState, parts: StorageParts, create: boolean): Promise<DatasetStorage> {
  if (!state.storageP) {
    const p = openStorage(ctx, model, state, parts, create);
    state.storageP = p;
    p.then(
      (s) => (state.storage = s),
      () => {
        if (state.storageP === p) state.storageP = undefined;
      },
    );
  }
  return state.storageP;
}

async function openStorage(ctx: FileContext, model: HeaderModel, state: DatasetState, parts: StorageParts, create: boolean): Promise<DatasetStorage> {
  if (model.find(EXTERNAL_FILES)) throw new UnsupportedError('datasets stored in external files are not supported');
  const { layout, path, elementSize: es } = parts;
  const space = state.space;
  const dims = space.kind === 'simple' ? space.dims.slice() : space.kind === 'scalar' ? [] : [0];
  switch (layout.class) {
    case 'compact':
      return new ctx.objects.CompactStorage(ctx, model, path, layout, dims, es);
    case 'contiguous':
      return new ctx.objects.ContiguousStorage(ctx, model, path, layout, dims, es, parts.fillValue);
    case 'chunked':
    case 'structured': {
      const { chunkCache, ...formatAccess } = state.access;
      return ctx.objects.ChunkedStorage.open(ctx, model, {
        ...(layout.class === 'structured' ? { sectionPipelines: sectionPipelines(parts.sectionFilters, layout.sectionCount) } : {}),
        ...(Object.keys(formatAccess).length > 0 ? { access: formatAccess } : {}),
        path,
        layout,
        pipeline: { filters: parts.filters },
        datatype: parts.dtype,
        elementSize: es,
        dims,
        maxDims: space.maxDims?.slice() ?? dims.slice(),
        fillValue: parts.fillValue,
        ...(chunkCache ? { cache: chunkCache as ChunkCacheOptions } : {}),
      }, create);
    }
    default:
      throw new UnsupportedError(`reading ${layout.class} datasets is not supported yet`);
  }
}

/** The per-section pipelines, one per section (unfiltered sections get an empty pipeline). */
function sectionPipelines(sectionFilters: FilterPipeline[] | null, count: number): FilterPipeline[] {
  const out: FilterPipeline[] = [];
  for (let i = 0; i < count; i++) out.push({ filters: sectionFilters?.[i]?.filters ?? [] });
  return out;
}
