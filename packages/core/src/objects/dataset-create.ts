/**
 * The object header messages of a new dataset (dataspace, datatype, fill value, layout), written
 * with the message versions HDF5 1.10 reads.
 * @module
 */
import { UNDEFINED_ADDRESS } from '../format/bytes.js';
import { datatypeSize, encodeDatatype, type Datatype } from '../format/messages/datatype.js';
import { encodeDataspace, type Dataspace } from '../format/messages/dataspace.js';
import { encodeFillValue } from '../format/messages/fill-value.js';
import { encodeLayout, type DataLayout } from '../format/messages/layout.js';
import { DATASPACE, DATATYPE, FILL_VALUE, LAYOUT } from '../format/messages/message-types.js';
import { ByteWriter } from '../format/bytes.js';
import { ValueError } from '../errors.js';
import type { HeaderMessage, HeaderModel } from '../file/header-model.js';
import type { FileWriter } from '../file/file-writer.js';
import type { FileContext } from '../file/file-context.js';
import { hasVlen, valuesToBytes } from './values-io.js';
import { parseDtype } from '../values/dtype.js';
import { pipelineFromOptions, sectionPipelinesFromOptions } from './filter-options.js';
import { sparseDatasetMessages } from './sparse-create.js';
import { chunkedDatasetMessages } from './chunked-create.js';
import type { CreateDatasetOptions } from './group.js';
import { checkShape } from './dataset.js';
import { elementCount, inferShape } from './shape.js';

/** Largest compact dataset: its data must fit an object header message with the layout fields. */
export const MAX_COMPACT_BYTES = 65535 - 4;

/** Message flag bit 0: the message is constant. */
const CONSTANT = 0x01;

/** Storage layouts a dataset can be created with. */
export type CreateLayout = 'contiguous' | 'compact';

/** What {@link datasetMessages} needs. */
export interface DatasetPlan {
  path: string;
  dtype: Datatype;
  shape: number[];
  maxShape?: (number | null)[] | undefined;
  fillValue?: unknown;
  layout: CreateLayout;
  /** Encoded initial data (already converted), if any. */
  data?: Uint8Array | undefined;
  /** File address of contiguous storage already allocated for `data`. */
  address?: number | undefined;
}

/** The dataspace of a plan. */
export function planDataspace(shape: number[], maxShape: (number | null)[] | undefined, path: string, scalar: boolean): Dataspace {
  checkShape(shape, maxShape, path);
  if (scalar) return { kind: 'scalar', dims: [], maxDims: null };
  const maxDims = maxShape ? maxShape.map((m) => (m === null ? UNDEFINED_ADDRESS : m)) : null;
  if (maxDims && maxDims.some((m, i) => m !== shape[i])) {
    throw new ValueError(
      'a maxShape larger than the shape needs chunked storage (pass `chunks`); contiguous and compact datasets cannot grow',
      { path },
    );
  }
  return { kind: 'simple', dims: shape.slice(), maxDims };
}

/** Encodes the fill value of a plan (one element), if any. */
export function encodeFill(ctx: FileContext, dtype: Datatype, fillValue: unknown, path: string): Uint8Array | null {
  if (fillValue === undefined) return null;
  return valuesToBytes(ctx, [fillValue], dtype, 1, `set the fill value of "${path}"`);
}

/** The messages of a new dataset's object header. */
export function datasetMessages(ctx: FileContext, plan: DatasetPlan, dataspace: Dataspace): HeaderMessage[] {
  const sizes = ctx.sizes;
  const count = dataspace.kind === 'scalar' ? 1 : elementCount(plan.shape);
  const nbytes = count * datatypeSize(plan.dtype, sizes);
  const fill = encodeFill(ctx, plan.dtype, plan.fillValue, plan.path);
  let layout: DataLayout;
  if (plan.layout === 'compact') {
    if (nbytes > MAX_COMPACT_BYTES) {
      throw new ValueError(`${nbytes} bytes do not fit a compact dataset (at most ${MAX_COMPACT_BYTES}); use contiguous layout`, {
        path: plan.path,
      });
    }
    layout = { class: 'compact', data: plan.data ?? fillBytes(fill, count, nbytes) };
  } else {
    layout = { class: 'contiguous', address: plan.address ?? UNDEFINED_ADDRESS, size: nbytes };
  }
  const dt = new ByteWriter(sizes);
  encodeDatatype(dt, plan.dtype);
  return [
    { type: DATASPACE, flags: 0, body: encodeDataspace(dataspace, sizes) },
    { type: DATATYPE, flags: CONSTANT, body: dt.finish().slice() },
    {
      type: FILL_VALUE,
      flags: CONSTANT,
      body: encodeFillValue({
        allocTime: plan.layout === 'compact' ? 'early' : 'late',
        fillTime: 'ifset',
        defined: fill !== null,
        value: fill,
      }),
    },
    { type: LAYOUT, flags: 0, body: encodeLayout(layout, sizes) },
  ];
}

function fillBytes(fill: Uint8Array | null, count: number, nbytes: number): Uint8Array {
  const out = new Uint8Array(nbytes);
  if (fill && fill.length > 0) for (let i = 0; i < count; i++) out.set(fill, i * fill.length);
  return out;
}

/**
 * A chunk format's dataset creator: turns the create options into the new dataset's header messages
 * (dataspace, datatype, fill value, pipelines, layout). Passed as `creator` in the create options by
 * format packages until `createDataset` finds creators by format name.
 */
export interface DatasetCreator {
  /** Header messages of a new dataset at `path`; throws typed errors for bad options (before anything is stored). */
  plan(opts: Readonly<CreateDatasetOptions> & Readonly<Record<string, unknown>>, ctx: FileContext, path: string): { messages: HeaderMessage[] };
}

/** A new, unlinked dataset header and what its creation still has to write. */
export interface NewDatasetHeader {
  model: HeaderModel;
  /** Converted initial data (contiguous: to write at `address`; chunked: to write through the storage). */
  data?: Uint8Array | undefined;
  /** Contiguous storage allocated for `data`. */
  address?: number | undefined;
  /** Chunked or sparse: the storage is created and the data written after the header. */
  chunked: boolean;
  /** Number of elements. */
  count: number;
}

/**
 * Checks the options of a new dataset and creates its (unlinked) object header, synchronously.
 * Contiguous data gets its space here (written by the caller); chunked and sparse datasets get
 * their converted data (fixed-size types; variable-length data is converted once the storage exists).
 */
export function newDatasetHeader(ctx: FileContext, writer: FileWriter, full: string, opts: CreateDatasetOptions): NewDatasetHeader {
  const dtype = parseDtype(opts.dtype);
  const shape = opts.shape ?? (opts.data !== undefined ? inferShape(opts.data) : undefined);
  if (!shape) throw new ValueError('createDataset needs a shape');
  const scalar = shape.length === 0;
  const count = scalar ? 1 : elementCount(shape);
  const what = `create dataset "${full}"`;
  let messages: HeaderMessage[];
  if (opts.creator) {
    if (scalar) throw new ValueError('scalar datasets cannot be chunked', { path: full });
    messages = opts.creator.plan(opts as CreateDatasetOptions & Record<string, unknown>, ctx, full).messages;
  } else if (opts.layout === 'sparse') {
    messages = sparseDatasetMessages(ctx, {
      path: full,
      dtype,
      shape,
      maxShape: opts.maxShape,
      chunks: opts.chunks,
      fillValue: opts.fillValue,
      allocTime: opts.allocTime,
      dontFilterPartialChunks: opts.dontFilterPartialChunks,
      ...sectionPipelinesFromOptions(opts, full),
      pipelineMessage: opts.pipelineMessage,
    });
  }
  else {
    const pipeline = pipelineFromOptions(opts, full);
    const growable = (opts.maxShape ?? []).some((m, i) => m !== shape[i]);
    const chunked = opts.layout === 'chunked' || opts.chunks !== undefined || pipeline.filters.length > 0 || growable;
    if (chunked) {
      if (scalar) throw new ValueError('scalar datasets cannot be chunked', { path: full });
      if (opts.layout === 'compact' || opts.layout === 'contiguous') {
        throw new ValueError(`layout '${opts.layout}' cannot have chunks, filters or a maxShape larger than the shape`, { path: full });
      }
      messages = chunkedDatasetMessages(ctx, { ...opts, path: full, dtype, shape, pipeline });
    } else {
      const dataspace = planDataspace(shape, opts.maxShape, full, scalar);
      const layout = (opts.layout ?? 'contiguous') as CreateLayout;
      let data: Uint8Array | undefined;
      if (opts.data !== undefined) {
        const values = scalar && !Array.isArray(opts.data) && !ArrayBuffer.isView(opts.data) ? [opts.data] : opts.data;
        data = valuesToBytes(ctx, values, dtype, count, what);
      }
      const address = layout === 'contiguous' && data && data.length > 0 ? writer.allocator.alloc(data.length) : undefined;
      try {
        const plan = { path: full, dtype, shape, maxShape: opts.maxShape, fillValue: opts.fillValue, layout, data, address };
        const model = writer.createHeader(datasetMessages(ctx, plan, dataspace));
        return { model, data, address, chunked: false, count };
      } catch (e) {
        if (address !== undefined) writer.allocator.release(address, data!.length);
        throw e;
      }
    }
  }
  const data = opts.data !== undefined && !hasVlen(dtype) ? valuesToBytes(ctx, opts.data, dtype, count, what) : undefined;
  return { model: writer.createHeader(messages), data, chunked: true, count };
}
