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
import { UnsupportedError, ValueError } from '../errors.js';
import type { HeaderMessage, HeaderModel } from '../file/header-model.js';
import type { FileWriter } from '../file/file-writer.js';
import type { FileContext } from '../file/file-context.js';
import { hasVlen, valuesToBytes } from './values-io.js';
import { parseDtype } from '../values/dtype.js';
import { resolveChunkFormatByName } from '../di/container.js';
import type { DatasetCreator } from '../chunk/dataset-creator.js';
import { KNOWN_FORMAT_NAMES } from '../chunk/chunk-format.js';
import { datasetCreateContext, encodeFill } from './create-context.js';
import type { CreateDatasetOptions } from './group.js';
import { checkShape } from './dataset.js';
import { elementCount, inferShape } from './shape.js';

/** Largest compact dataset: its data must fit an object header message with the layout fields. */
export const MAX_COMPACT_BYTES = 65535 - 4;

/** Message flag bit 0: the message is constant. */
const CONSTANT = 0x01;

/** Storage layouts a dataset can be created with. */
export type CreateLayout = 'contiguous' | 'compact';

/** What {@link datasetMessages} needs (contiguous and compact datasets). */
export interface CoreLayoutPlan {
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

/** The messages of a new dataset's object header. */
export function datasetMessages(ctx: FileContext, plan: CoreLayoutPlan, dataspace: Dataspace): HeaderMessage[] {
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
    { type: DATATYPE, flags: CONSTANT, body: dt.finish() },
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

/** A new, unlinked dataset header and what its creation still has to write. */
export interface NewDatasetHeader {
  model: HeaderModel;
  /** Converted initial data (contiguous: to write at `address`; chunked: to write through the storage). */
  data?: Uint8Array | undefined;
  /** Contiguous storage allocated for `data`. */
  address?: number | undefined;
  /** Chunk formats (dense, sparse, …): the storage is created and the data written after the header. */
  chunked: boolean;
  /** Access options the chunk format's creator asks the new dataset to be opened with. */
  access?: Readonly<Record<string, unknown>> | undefined;
  /** Chunk formats: allocate (and fill) every chunk before the dataset is linked. */
  allocateEarly?: boolean;
  /** Number of elements. */
  count: number;
}

/** Layouts core stores itself; any other `layout` value names a chunk format (e.g. 'sparse'). */
const CORE_LAYOUTS: readonly string[] = ['contiguous', 'compact', 'chunked'];

/**
 * The chunk format a new dataset is created with: `format`, or a `layout` naming one (`layout:
 * 'sparse'` = `format: 'sparse'`), or 'dense' for chunked storage (chunks, filters, a growable
 * maxShape, `layout: 'chunked'`); undefined for contiguous and compact datasets.
 */
function formatOf(opts: CreateDatasetOptions, shape: readonly number[], path: string): string | undefined {
  const layout = opts.layout;
  if (layout !== undefined && (typeof layout !== 'string' || layout.length === 0)) throw new ValueError(`invalid layout ${JSON.stringify(layout)}`, { path });
  const byLayout = layout !== undefined && !CORE_LAYOUTS.includes(layout) ? layout : undefined;
  if (opts.format !== undefined) {
    if (typeof opts.format !== 'string' || opts.format.length === 0) throw new ValueError(`invalid format ${JSON.stringify(opts.format)}`, { path });
    if (byLayout !== undefined && byLayout !== opts.format) throw new ValueError(`layout '${byLayout}' contradicts format '${opts.format}'`, { path });
    if (layout === 'contiguous' || layout === 'compact') {
      throw new ValueError(`layout '${layout}' is not a chunk format; it cannot go with format '${opts.format}'`, { path });
    }
    return opts.format;
  }
  if (byLayout !== undefined) return byLayout;
  const growable = (opts.maxShape ?? []).some((m, i) => m !== shape[i]);
  const filtered = opts.compression !== undefined || opts.shuffle === true || opts.fletcher32 === true || (opts.filters !== undefined && (!Array.isArray(opts.filters) || opts.filters.length > 0));
  const chunked = layout === 'chunked' || opts.chunks !== undefined || filtered || growable || opts.chunkIndex !== undefined;
  if (!chunked) return undefined;
  if (layout === 'compact' || layout === 'contiguous') {
    throw new ValueError(`layout '${layout}' cannot have chunks, filters, a chunkIndex or a maxShape larger than the shape`, { path });
  }
  return 'dense';
}

/** The creator of the chunk format `name` registered in the file's container. */
function creatorOf(ctx: FileContext, name: string, path: string): DatasetCreator {
  const provider = resolveChunkFormatByName(name, ctx.container);
  if (!provider) {
    const known = KNOWN_FORMAT_NAMES[name];
    const hint = known
      ? `; install ${known.package} and ${known.register ? `call ${known.register}()` : 'register its format'}`
      : " (layouts: 'contiguous', 'compact', 'chunked'; formats: the name a format package registers)";
    throw new UnsupportedError(`no chunk format "${name}" is registered${hint}`, { path });
  }
  if (!provider.creator) throw new UnsupportedError(`chunk format "${name}" reads datasets but cannot create them`, { path });
  return provider.creator;
}

/**
 * Checks the options of a new dataset and creates its (unlinked) object header, synchronously.
 * Contiguous data gets its space here (written by the caller). Datasets of a chunk format get their
 * header messages from the format's creator (looked up by name) and their converted data
 * (fixed-size types; variable-length data is converted once the storage exists).
 */
export function newDatasetHeader(ctx: FileContext, writer: FileWriter, full: string, opts: CreateDatasetOptions): NewDatasetHeader {
  const dtype = parseDtype(opts.dtype);
  const shape = opts.shape ?? (opts.data !== undefined ? inferShape(opts.data) : undefined);
  if (!shape) throw new ValueError('createDataset needs a shape');
  const scalar = shape.length === 0;
  const count = scalar ? 1 : elementCount(shape);
  const what = `create dataset "${full}"`;
  const format = formatOf(opts, shape, full);
  if (format !== undefined) {
    const creator = creatorOf(ctx, format, full);
    const { format: _f, layout: _l, data: _d, chunkCache: _c, dtype: _t, ...rest } = opts;
    const plan = creator.plan({ ...rest, path: full, dtype, shape }, datasetCreateContext(ctx));
    const data = opts.data !== undefined && !hasVlen(dtype) ? valuesToBytes(ctx, opts.data, dtype, count, what) : undefined;
    const allocateEarly = (plan.allocTime ?? opts.allocTime) === 'early';
    return { model: writer.createHeader(plan.messages), data, chunked: true, access: plan.access, allocateEarly, count };
  }
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
