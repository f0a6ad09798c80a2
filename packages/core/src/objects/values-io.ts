/**
 * Turning stored element bytes into user values and back, loading or writing the global heap
 * collections that variable-length elements live in.
 * @module
 */
import type { Datatype } from '../format/messages/datatype.js';
import { decodeValues, vlenHeapCollections } from '../values/decode.js';
import { encodeValues } from '../values/encode.js';
import type { Values } from '../values/types.js';
import type { FileContext } from '../file/file-context.js';

/** True when elements of `t` reference the global heap. */
export function hasVlen(t: Datatype): boolean {
  switch (t.class) {
    case 'string':
      return t.length === 'variable';
    case 'vlen':
      return true;
    case 'compound':
      return t.members.some((m) => hasVlen(m.type));
    case 'array':
      return hasVlen(t.base);
    default:
      return false;
  }
}

/** Decodes `count` elements of `type` from `bytes`, resolving variable-length data. `owned`: `bytes` may be reused. */
export function bytesToValues(ctx: FileContext, bytes: Uint8Array, type: Datatype, count: number, owned = false): Values | Promise<Values> {
  if (!hasVlen(type)) return decodeValues(bytes, type, count, ctx.sizes, undefined, { owned });
  return ctx.globalHeap(vlenHeapCollections(bytes, type, count, ctx.sizes)).then((heap) => decodeValues(bytes, type, count, ctx.sizes, heap));
}

/** Encodes `count` elements of `type`, storing variable-length data in the file's global heap. The result may alias `values` (a matching TypedArray): copy it to keep it. */
export function valuesToBytes(ctx: FileContext, values: unknown, type: Datatype, count: number, what: string): Uint8Array {
  if (!hasVlen(type)) return encodeValues(values, type, count, ctx.sizes);
  const writer = ctx.requireWriter(what);
  // A value that fails to encode part way leaves no heap object behind (the encoding is synchronous).
  const mark = writer.markHeap();
  try {
    return encodeValues(values, type, count, ctx.sizes, writer);
  } catch (e) {
    writer.rollbackHeap(mark);
    throw e;
  }
}
