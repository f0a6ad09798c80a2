/**
 * Creating chunked (dense) datasets — `createDataset` with `chunks`, filters, a growable
 * `maxShape`, `layout: 'chunked'` or `format: 'dense'`: the dense format's {@link DatasetCreator}.
 * Header messages: dataspace, datatype, fill value (incremental allocation unless asked), filter
 * pipeline (client data completed by each filter's "set local"), and a version-4 layout message with
 * the index HDF5 would choose or the `chunkIndex` option names.
 * @module
 */
import {
  UnsupportedError,
  ValueError,
  type CreateDatasetCommon,
  type DatasetCreateContext,
  type DatasetCreator,
  type DatasetPlan,
  type FilterOptions,
} from '@chunkform/core';
import { UNDEFINED_ADDRESS, encodeFilterPipeline, encodeLayout, LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS, type ChunkedLayout, FILTER_PIPELINE, LAYOUT } from '@chunkform/core/plugin';

const CONSTANT = 0x01;

/** The dense format's creator. */
export const denseCreator: DatasetCreator = {
  plan(opts: Readonly<Record<string, unknown>> & CreateDatasetCommon, ctx: DatasetCreateContext): DatasetPlan {
    const { path, dtype, shape } = opts;
    if (shape.length === 0) throw new ValueError('scalar datasets cannot be chunked', { path });
    ctx.checkShape(shape, opts.maxShape, path);
    const es = ctx.elementSize(dtype);
    const { maxDims, chunkDims } = ctx.chunkGeometry(shape, opts.maxShape, opts.chunks, es, path);
    // An implicit index holds every chunk from the start: it implies early allocation.
    const allocTime = opts.allocTime ?? (opts.chunkIndex === 'implicit' ? 'early' : 'incremental');
    const fill = ctx.encodeFill(dtype, opts.fillValue, path);
    const pipeline = ctx.completePipeline(ctx.pipelineFromOptions(opts as FilterOptions, path), dtype, es, chunkDims, fill, path);
    const filtered = pipeline.filters.length > 0;
    if (allocTime === 'early' && filtered && maxDims.some((m) => m === UNDEFINED_ADDRESS)) {
      throw new UnsupportedError('early allocation of filtered datasets with unlimited dimensions is not supported', { path });
    }
    const index = ctx.chooseIndex({ layoutClass: 'chunked', dims: shape, maxDims, chunkDims, filtered, allocTime, requested: opts.chunkIndex, path });
    const layout: ChunkedLayout = {
      class: 'chunked',
      version: 4,
      flags: opts.dontFilterPartialChunks ? LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS : 0,
      chunkDims,
      elementSize: es,
      index,
      address: UNDEFINED_ADDRESS,
    };
    const messages = ctx.baseMessages({ dtype, shape, maxDims: opts.maxShape ? maxDims : null, fill, allocTime });
    if (filtered) messages.push({ type: FILTER_PIPELINE, flags: CONSTANT, body: encodeFilterPipeline(pipeline) });
    messages.push({ type: LAYOUT, flags: 0, body: encodeLayout(layout, ctx.sizes) });
    return { messages, allocTime };
  },
};
