/**
 * The object header messages of a new chunked dataset: dataspace, datatype, fill value
 * (incremental allocation unless asked), filter pipeline (client data completed by each filter's
 * "set local"), and a version-4 layout message with the index HDF5 would choose.
 * @module
 */
import { UnsupportedError, ValueError } from '../errors.js';
import { ByteWriter, UNDEFINED_ADDRESS } from '../format/bytes.js';
import { datatypeSize, encodeDatatype, type Datatype } from '../format/messages/datatype.js';
import { encodeDataspace } from '../format/messages/dataspace.js';
import { encodeFillValue } from '../format/messages/fill-value.js';
import { encodeFilterPipeline, type FilterPipeline } from '../format/messages/filter-pipeline.js';
import { encodeLayout, LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS, type ChunkedLayout } from '../format/messages/layout.js';
import { DATASPACE, DATATYPE, FILL_VALUE, FILTER_PIPELINE, LAYOUT } from '../format/messages/message-types.js';
import { resolveFilter } from '../di/container.js';
import { setLocalPipeline } from '../filter/pipeline.js';
import { KNOWN_FILTER_PACKAGES } from '../filter/filter.js';
import { UnknownFilterError } from '../errors.js';
import { chooseChunkIndex } from '../chunk/choose-index.js';
import { guessChunks } from '../chunk/guess-chunks.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderMessage } from '../file/header-model.js';
import { checkShape } from './dataset.js';
import { encodeFill } from './dataset-create.js';

/** HDF5 refuses chunks of 4 GiB or more. */
const MAX_CHUNK_BYTES = 2 ** 32 - 1;
const CONSTANT = 0x01;

/** What a chunked dataset is created from. */
export interface ChunkedPlan {
  path: string;
  dtype: Datatype;
  shape: number[];
  maxShape?: (number | null)[] | undefined;
  chunks?: number[] | true | undefined;
  fillValue?: unknown;
  allocTime?: 'early' | 'late' | 'incremental' | undefined;
  dontFilterPartialChunks?: boolean | undefined;
  pipeline: FilterPipeline;
}

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

/** The messages of a new chunked dataset's object header. */
export function chunkedDatasetMessages(ctx: FileContext, p: ChunkedPlan): HeaderMessage[] {
  const { path, dtype, shape } = p;
  checkShape(shape, p.maxShape, path);
  const es = datatypeSize(dtype, ctx.sizes);
  const { maxDims, chunkDims } = chunkGeometry(shape, p.maxShape, p.chunks, es, path);
  const allocTime = p.allocTime ?? 'incremental';
  const fill = encodeFill(ctx, dtype, p.fillValue, path);
  const pipeline = completePipeline(ctx, p.pipeline, dtype, es, chunkDims, fill, path);
  if (allocTime === 'early' && pipeline.filters.length > 0 && maxDims.some((m) => m === UNDEFINED_ADDRESS)) {
    throw new UnsupportedError('early allocation of filtered datasets with unlimited dimensions is not supported', { path });
  }
  const index = chooseChunkIndex({ dims: shape, maxDims, chunkDims, filtered: pipeline.filters.length > 0, allocTime });
  const layout: ChunkedLayout = {
    class: 'chunked',
    version: 4,
    flags: p.dontFilterPartialChunks ? LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS : 0,
    chunkDims,
    elementSize: es,
    index,
    address: UNDEFINED_ADDRESS,
  };
  const dt = new ByteWriter(ctx.sizes);
  encodeDatatype(dt, dtype);
  const messages: HeaderMessage[] = [
    { type: DATASPACE, flags: 0, body: encodeDataspace({ kind: 'simple', dims: shape.slice(), maxDims: p.maxShape ? maxDims : null }, ctx.sizes) },
    { type: DATATYPE, flags: CONSTANT, body: dt.finish().slice() },
    { type: FILL_VALUE, flags: CONSTANT, body: encodeFillValue({ allocTime, fillTime: 'ifset', defined: fill !== null, value: fill }) },
  ];
  if (pipeline.filters.length > 0) messages.push({ type: FILTER_PIPELINE, flags: CONSTANT, body: encodeFilterPipeline(pipeline) });
  messages.push({ type: LAYOUT, flags: 0, body: encodeLayout(layout, ctx.sizes) });
  return messages;
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
