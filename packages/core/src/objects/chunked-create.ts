/**
 * Chunk geometry and filter pipelines of new chunked and structured-chunk datasets: validated
 * chunk dimensions (guessed as h5py does) and pipelines completed by each filter's "set local".
 * The formats' creators call them through the `DatasetCreateContext`.
 * @module
 */
import { UnknownFilterError, ValueError } from '../errors.js';
import { UNDEFINED_ADDRESS } from '../format/bytes.js';
import type { Datatype } from '../format/messages/datatype.js';
import type { FilterPipeline } from '../format/messages/filter-pipeline.js';
import { resolveFilter } from '../di/container.js';
import { setLocalPipeline } from '../filter/pipeline.js';
import { KNOWN_FILTER_PACKAGES } from '../filter/filter.js';
import { guessChunks } from '../chunk/guess-chunks.js';
import type { FileContext } from '../file/file-context.js';

/** HDF5 refuses chunks of 4 GiB or more. */
const MAX_CHUNK_BYTES = 2 ** 32 - 1;

/**
 * Maximum dimensions (unlimited = `UNDEFINED_ADDRESS`) and validated chunk dimensions of a new
 * chunked or structured-chunk dataset (`chunks` absent or `true`: guessed as h5py does).
 * @throws ValueError for a chunk rank, dimension or byte size HDF5 refuses.
 */
export function chunkGeometry(
  shape: readonly number[],
  maxShape: readonly (number | null)[] | undefined,
  chunks: readonly number[] | true | undefined,
  es: number,
  path: string,
): { maxDims: number[]; chunkDims: number[] } {
  const maxDims = maxShape ? maxShape.map((m) => (m === null ? UNDEFINED_ADDRESS : m)) : shape.slice();
  const chunkDims = chunks === undefined || chunks === true ? guessChunks(shape as number[], es) : chunks.slice();
  if (chunkDims.length !== shape.length) {
    throw new ValueError(`chunks have rank ${chunkDims.length}, the dataset rank ${shape.length}`, { path });
  }
  chunkDims.forEach((c, i) => {
    if (!Number.isSafeInteger(c) || c <= 0) throw new ValueError(`chunk dimension ${i} must be a positive integer, got ${c}`, { path });
    if (maxDims[i] !== UNDEFINED_ADDRESS && c > maxDims[i]!) {
      throw new ValueError(`chunk dimension ${i} (${c}) exceeds the maximum dimension (${maxDims[i]})`, { path });
    }
  });
  if (chunkDims.reduce((a, b) => a * b, es) > MAX_CHUNK_BYTES) {
    throw new ValueError(`chunks of [${chunkDims.join(', ')}] × ${es} bytes exceed HDF5's 4 GiB chunk limit`, { path });
  }
  return { maxDims, chunkDims };
}

/**
 * Checks that every filter of a new pipeline is registered and completes its client data with
 * each filter's "set local" (e.g. shuffle's element size).
 */
export function completePipeline(
  ctx: FileContext,
  pipeline: FilterPipeline,
  dtype: Datatype,
  es: number,
  chunkDims: readonly number[],
  fill: Uint8Array | null,
  path: string,
): FilterPipeline {
  if (pipeline.filters.length === 0) return pipeline;
  for (const f of pipeline.filters) {
    if (!resolveFilter(f.id, ctx.container)) {
      const known = KNOWN_FILTER_PACKAGES[f.id];
      throw new UnknownFilterError(f.id, known?.name, known?.package, { path });
    }
  }
  return setLocalPipeline(
    pipeline,
    { datatype: dtype, elementSize: es, chunkDims, ...(fill ? { fillValue: fill } : {}) },
    (id) => resolveFilter(id, ctx.container),
    path,
  );
}
