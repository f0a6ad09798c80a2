/**
 * Reading one 2-D slice (the last two dimensions, at given positions along the leading ones) of a dense or
 * sparse dataset. Sparse datasets are read with `readDefined`, which returns the defined elements and their
 * values in one pass, so the mask costs no second read.
 * @module
 */
import { selectHyperslab, selectionRuns, type Dataset } from '@chunkform/core';
import type { Frame } from './colormap.js';

/** Datatype classes drawn as images. */
export function isImageable(ds: Dataset): boolean {
  const c = ds.dtype.class;
  return (c === 'integer' || c === 'float' || c === 'enum' || c === 'bitfield') && ds.shape.length >= 2;
}

/** Whether the dataset uses sparse (structured-chunk) storage. */
export function isSparse(ds: Dataset): boolean {
  return ds.layout.class === 'structured';
}

/** Largest frame the viewer reads (elements); bigger frames are refused with a message. */
export const MAX_FRAME_ELEMENTS = 4096 * 4096;

/** Reads the frame at positions `lead` of the leading dimensions. */
export async function readFrame(ds: Dataset, lead: readonly number[]): Promise<Frame> {
  const shape = ds.shape;
  const rank = shape.length;
  const height = shape[rank - 2]!;
  const width = shape[rank - 1]!;
  if (height * width > MAX_FRAME_ELEMENTS) throw new Error(`frame of ${height}×${width} elements is larger than the viewer draws`);
  const sel = selectHyperslab({ start: [...lead, 0, 0], block: [...lead.map(() => 1), height, width] });
  if (!isSparse(ds)) {
    const values = (await ds.read(sel)) as unknown as ArrayLike<number>;
    return { height, width, values: toNumbers(values), defined: null };
  }
  const fill = Number((await ds.fillValue()) ?? 0) || 0;
  const { selection, values } = await ds.readDefined(sel);
  const out = new Float64Array(height * width).fill(fill);
  const defined = new Uint8Array(height * width);
  let base = 0;
  for (let d = 0; d < lead.length; d++) base += lead[d]! * shape.slice(d + 1).reduce((a, b) => a * b, 1);
  const runs = selectionRuns(selection, shape);
  const vals = toNumbers(values as unknown as ArrayLike<number>);
  for (let r = 0, n = 0; r < runs.length; r += 2) {
    const start = runs[r]! - base;
    const len = runs[r + 1]!;
    for (let j = 0; j < len; j++) out[start + j] = vals[n++]!;
    defined.fill(1, start, start + len);
  }
  return { height, width, values: out, defined };
}

/** BigInt arrays (64-bit integers) as numbers; other numeric arrays unchanged. */
function toNumbers(a: ArrayLike<number>): ArrayLike<number> {
  if (a instanceof BigInt64Array || a instanceof BigUint64Array) return Float64Array.from(a as unknown as ArrayLike<bigint>, Number);
  return a;
}
