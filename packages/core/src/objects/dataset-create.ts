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
import type { HeaderMessage } from '../file/header-model.js';
import type { FileContext } from '../file/file-context.js';
import { valuesToBytes } from './values-io.js';
import { checkShape } from './dataset.js';
import { elementCount } from './shape.js';

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
