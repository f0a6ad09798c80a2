/**
 * The {@link DatasetCreateContext} of a file: the helpers a format's creator plans a new dataset
 * with (geometry, fill value, pipelines, index choice, the dataspace/datatype/fill value messages).
 * @module
 */
import { ByteWriter } from '../format/bytes.js';
import { datatypeSize, encodeDatatype } from '../format/messages/datatype.js';
import { encodeDataspace } from '../format/messages/dataspace.js';
import { encodeFillValue } from '../format/messages/fill-value.js';
import { DATASPACE, DATATYPE, FILL_VALUE } from '../format/messages/message-types.js';
import type { FileContext } from '../file/file-context.js';
import type { DatasetCreateContext } from '../chunk/dataset-creator.js';
import { chooseIndexWithOption } from '../chunk/index-option.js';
import { checkShape } from './dataset.js';
import { valuesToBytes } from './values-io.js';
import type { Datatype } from '../format/messages/datatype.js';
import { chunkGeometry, completePipeline } from './chunked-create.js';
import { pipelineFromOptions } from './filter-options.js';

/** Message flag bit 0: the message is constant. */
const CONSTANT = 0x01;

/** The creation helpers bound to the file of `ctx`. */
export function datasetCreateContext(ctx: FileContext): DatasetCreateContext {
  return {
    sizes: ctx.sizes,
    container: ctx.container,
    elementSize: (dtype) => datatypeSize(dtype, ctx.sizes),
    checkShape: (shape, maxShape, path) => checkShape(shape, maxShape, path),
    chunkGeometry,
    encodeFill: (dtype, fillValue, path) => encodeFill(ctx, dtype, fillValue, path),
    pipelineFromOptions,
    completePipeline: (pipeline, dtype, es, chunkDims, fill, path) => completePipeline(ctx, pipeline, dtype, es, chunkDims, fill, path),
    chooseIndex: chooseIndexWithOption as DatasetCreateContext['chooseIndex'],
    baseMessages({ dtype, shape, maxDims, fill, allocTime }) {
      const dt = new ByteWriter(ctx.sizes);
      encodeDatatype(dt, dtype);
      return [
        { type: DATASPACE, flags: 0, body: encodeDataspace({ kind: 'simple', dims: shape.slice(), maxDims: maxDims ? maxDims.slice() : null }, ctx.sizes) },
        { type: DATATYPE, flags: CONSTANT, body: dt.finishExact() },
        { type: FILL_VALUE, flags: CONSTANT, body: encodeFillValue({ allocTime, fillTime: 'ifset', defined: fill !== null, value: fill }) },
      ];
    },
  };
}

/** Encodes the fill value of a plan (one element), if any. */
export function encodeFill(ctx: FileContext, dtype: Datatype, fillValue: unknown, path: string): Uint8Array | null {
  if (fillValue === undefined) return null;
  return valuesToBytes(ctx, [fillValue], dtype, 1, `set the fill value of "${path}"`);
}
