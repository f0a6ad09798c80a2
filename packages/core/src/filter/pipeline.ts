/**
 * Running a chunk through its filter pipeline (HDF5 spec IV.A.2.l "Filter Pipeline"; the library's
 * H5Z_pipeline): forward on write, in reverse on read, honouring each chunk's filter mask and the
 * optional flag of each filter. Pure logic: filters come from a resolver, bytes in, bytes out.
 * @module
 */
import { ChecksumError, FilterError, H5Error, UnknownFilterError } from '../errors.js';
import { FILTER_FLAG_OPTIONAL, type FilterDescription, type FilterPipeline } from '../format/messages/filter-pipeline.js';
import { KNOWN_FILTER_PACKAGES, type Filter, type FilterContext } from './filter.js';
import { pipelineOffload } from './offload.js';

/** Finds the implementation of a filter id (e.g. `(id) => resolveFilter(id, container)`). */
export type FilterResolver = (id: number) => Filter | undefined;

/** What every filter of a dataset's pipeline shares: datatype, element size, chunk dimensions. */
export type PipelineContext = Omit<FilterContext, 'clientData' | 'flags'>;

/** Which chunk of which dataset is being filtered (for error messages). */
export interface ChunkWhere {
  /** HDF5 path of the dataset. */
  path: string;
  /** Chunk coordinates (offset in chunks, one per dimension). */
  chunk: readonly number[];
  /** File address of the chunk, if known. */
  address?: number;
}

/** Options of {@link encodeChunk}. */
export interface EncodeChunkOptions {
  /**
   * Store the chunk unfiltered (the "don't filter partial edge chunks" option of the layout
   * message, for a partial edge chunk): the bytes are returned as they are with mask 0, as HDF5
   * does — readers know such chunks by their position, not by the mask.
   */
  skipFilters?: boolean;
}

/** Result of {@link encodeChunk}. */
export interface EncodedChunk {
  /** The filtered bytes to store. */
  bytes: Uint8Array;
  /** Filter mask to store with the chunk: bit i set = filter i of the pipeline was not applied. */
  filterMask: number;
  /**
   * Set when the bytes live in memory the pipeline offload reuses (a buffer its worker compressed
   * into): call it once nothing uses them any more — as `ChunkImage.written`, which a format that
   * returns this object as its image gets for free. Never calling it only forgoes the reuse.
   */
  written?: () => void;
}

function filterName(f: FilterDescription, impl?: Filter): string | undefined {
  return f.name || impl?.name || KNOWN_FILTER_PACKAGES[f.id]?.name;
}

function chunkLabel(where: ChunkWhere): string {
  return `chunk [${where.chunk.join(', ')}]`;
}

function unknownFilter(f: FilterDescription, where: ChunkWhere): UnknownFilterError {
  return new UnknownFilterError(f.id, filterName(f), KNOWN_FILTER_PACKAGES[f.id]?.package, {
    path: where.path,
    structure: chunkLabel(where),
    ...(where.address !== undefined ? { address: where.address } : {}),
  });
}

function wrapFailure(e: unknown, f: FilterDescription, impl: Filter, where: ChunkWhere, direction: 'encode' | 'decode'): H5Error {
  const name = filterName(f, impl);
  const structure = chunkLabel(where);
  if (e instanceof ChecksumError && direction === 'decode') {
    // The stored checksum does not match: the file is bad, say so with the chunk named.
    return new ChecksumError(`${name ?? `filter ${f.id}`} checksum of ${structure}`, where.address ?? -1, e.expected, e.actual, where.path);
  }
  const detail = e instanceof H5Error ? e.detail : e instanceof Error ? e.message : String(e);
  return new FilterError(
    `filter ${f.id}${name ? ` ("${name}")` : ''} failed to ${direction} ${structure}: ${detail}`,
    { filterId: f.id, ...(name !== undefined ? { filterName: name } : {}), chunk: where.chunk, cause: e },
    { path: where.path, ...(where.address !== undefined ? { address: where.address } : {}) },
  );
}

function checkPipeline(pipeline: FilterPipeline, where: ChunkWhere): void {
  if (pipeline.filters.length > 32) {
    throw new FilterError(`a pipeline of ${pipeline.filters.length} filters exceeds the maximum of 32`, { chunk: where.chunk }, { path: where.path });
  }
}

/**
 * Decodes one stored chunk (spec IV.A.2.l; H5Z_pipeline, reverse direction): runs the filters of
 * `pipeline` last to first, skipping filter i when bit i of `filterMask` is set. With `into` (the
 * decoded chunk's size) the last filter to run writes its output there when it can
 * (`Filter.decodeInto`), and `into` is returned; otherwise (and when another thread decodes the
 * chunk) the result is a new buffer.
 * @throws UnknownFilterError a filter that must be undone is not registered (names id, name, package,
 *   dataset and chunk).
 * @throws ChecksumError a checksum filter (fletcher32) found a mismatch.
 * @throws FilterError any other filter failure (names filter, dataset and chunk; `cause` = original).
 */
export async function decodeChunk(
  bytes: Uint8Array,
  pipeline: FilterPipeline,
  filterMask: number,
  resolve: FilterResolver,
  ctx: PipelineContext,
  where: ChunkWhere,
  into?: Uint8Array,
): Promise<Uint8Array> {
  checkPipeline(pipeline, where);
  const { filters } = pipeline;
  const offload = pipelineOffload();
  if (offload && filters.length > 0) {
    // another thread when it takes the chunk; on failure it declines, and the run below names the error.
    // A chunk declined at once (no pool, too small) starts below in this same call: a filter that
    // runs on another thread (deflate on libuv's pool) starts before the caller's next synchronous
    // work, not after it (the chunks of one read then inflate while the caller decodes the others).
    const job = offload.decode(bytes, pipeline, filterMask, filters.map((f) => resolve(f.id)), ctx);
    const done = job && (await job);
    if (done) return done;
  }
  // the last filter to run: the lowest one not skipped
  let last = 0;
  while (last < filters.length && (filterMask >>> last) & 1) last++;
  let data = bytes;
  for (let i = filters.length - 1; i >= 0; i--) {
    if ((filterMask >>> i) & 1) continue;
    const f = filters[i]!;
    const impl = resolve(f.id);
    if (!impl) throw unknownFilter(f, where);
    try {
      const fctx = { ...ctx, clientData: f.clientData, flags: f.flags };
      if (into && i === last && impl.decodeInto) {
        await impl.decodeInto(data, fctx, into);
        data = into;
      } else data = await impl.decode(data, fctx);
    } catch (e) {
      throw wrapFailure(e, f, impl, where, 'decode');
    }
  }
  return data;
}

/**
 * Encodes one chunk for storage (spec IV.A.2.l; H5Z_pipeline, forward direction), first filter
 * first. As HDF5 does, an optional filter (flags bit 0) that is not registered or fails is skipped
 * and its bit set in the returned mask; a filter whose output is larger than its input is kept
 * (HDF5 only skips on failure — a filter that refuses to grow data, like szip, fails instead).
 * @throws UnknownFilterError a mandatory filter is not registered.
 * @throws FilterError a mandatory filter failed.
 */
export async function encodeChunk(
  bytes: Uint8Array,
  pipeline: FilterPipeline,
  resolve: FilterResolver,
  ctx: PipelineContext,
  where: ChunkWhere,
  opts: EncodeChunkOptions = {},
): Promise<EncodedChunk> {
  checkPipeline(pipeline, where);
  if (opts.skipFilters) return { bytes, filterMask: 0 };
  const { filters } = pipeline;
  const offload = pipelineOffload();
  if (offload && filters.length > 0) {
    // (as in decodeChunk: a chunk declined at once starts below within this call)
    const job = offload.encode(bytes, pipeline, filters.map((f) => resolve(f.id)), ctx);
    const done = job && (await job);
    if (done) return done;
  }
  let data = bytes;
  let mask = 0;
  for (let i = 0; i < filters.length; i++) {
    const f = filters[i]!;
    const optional = (f.flags & FILTER_FLAG_OPTIONAL) !== 0;
    const impl = resolve(f.id);
    if (!impl) {
      if (optional) {
        mask |= 1 << i;
        continue;
      }
      throw unknownFilter(f, where);
    }
    try {
      data = await impl.encode(data, { ...ctx, clientData: f.clientData, flags: f.flags });
    } catch (e) {
      if (optional) {
        mask |= 1 << i;
        continue;
      }
      throw wrapFailure(e, f, impl, where, 'encode');
    }
  }
  return { bytes: data, filterMask: mask >>> 0 };
}

/**
 * Computes the client data to store for each filter when a dataset is created (HDF5's "set local"
 * callbacks, H5Z_set_local): each registered filter's `setLocal` maps the user's values to the stored
 * ones from the dataset's type and chunk shape. Returns a new pipeline; the input is not modified.
 * @throws UnknownFilterError a mandatory filter is not registered (an optional one is kept as given).
 * @throws FilterError a filter's `setLocal` rejected the dataset (e.g. scale-offset on strings).
 */
export function setLocalPipeline(pipeline: FilterPipeline, ctx: PipelineContext, resolve: FilterResolver, path = ''): FilterPipeline {
  const where: ChunkWhere = { path, chunk: [] };
  checkPipeline(pipeline, where);
  return {
    filters: pipeline.filters.map((f) => {
      const impl = resolve(f.id);
      if (!impl) {
        if (f.flags & FILTER_FLAG_OPTIONAL) return { ...f, clientData: [...f.clientData] };
        throw new UnknownFilterError(f.id, filterName(f), KNOWN_FILTER_PACKAGES[f.id]?.package, path ? { path } : {});
      }
      if (!impl.setLocal) return { ...f, clientData: [...f.clientData] };
      let clientData: number[];
      try {
        clientData = impl.setLocal(f.clientData, ctx);
      } catch (e) {
        const name = filterName(f, impl);
        const detail = e instanceof H5Error ? e.detail : e instanceof Error ? e.message : String(e);
        throw new FilterError(
          `filter ${f.id}${name ? ` ("${name}")` : ''} cannot be applied to this dataset: ${detail}`,
          { filterId: f.id, ...(name !== undefined ? { filterName: name } : {}), cause: e },
          path ? { path } : {},
        );
      }
      for (const v of clientData) {
        if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) {
          throw new FilterError(`filter ${f.id}: set-local produced an invalid client data value ${v}`, { filterId: f.id }, path ? { path } : {});
        }
      }
      return { ...f, clientData };
    }),
  };
}
