/**
 * Scale-offset filter (HDF5 filter id 6, H5Zscaleoffset.c; spec IV.A.2.l): lossless for integers
 * (values minus the chunk minimum in as few bits as needed), lossy D-scaling for floats. A filtered
 * chunk is a 21-byte header (minbits UINT32 LE, size of minval, minval LE, padding) followed by the
 * values packed MSB-first — or the raw values (little-endian) when no bits can be saved.
 * @module
 */
import { FilterError, type Filter, type FilterContext } from '@chunkform/core/plugin';
import { chunkBytes } from '../util/chunk.js';
import { planFloats, unpackFloats } from './float.js';
import { planIntegers, unpackIntegers } from './integer.js';
import { parseScaleOffset, scaleOffsetSetLocal, SO_HEADER, SO_ID, SO_INFO, SO_NAME, type ScaleOffsetParams } from './params.js';

export { scaleOffsetSetLocal, SO_FLOAT_DSCALE, SO_INT, type FillValueContext, type ScaleOffsetParams } from './params.js';

function byteSwapped(src: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(src.length);
  for (let i = 0; i + size <= src.length; i += size) for (let j = 0; j < size; j++) out[i + j] = src[i + size - 1 - j]!;
  return out;
}

function checkSize(p: ScaleOffsetParams, ctx: FilterContext): number {
  const bytes = p.nelmts * p.size;
  const expected = chunkBytes(ctx);
  if (expected > 0 && bytes !== expected) {
    throw new FilterError(`parameters describe ${p.nelmts} elements of ${p.size} bytes but a chunk holds ${expected} bytes`, SO_INFO);
  }
  if (expected === 0 && bytes > 2 ** 31) throw new FilterError(`a chunk of ${p.nelmts} elements of ${p.size} bytes is too large`, SO_INFO);
  return bytes;
}

/** Spec IV.A.2.l, filter 6: decodes one chunk (H5Z__filter_scaleoffset, reverse). */
export function scaleOffsetDecode(data: Uint8Array, ctx: FilterContext): Uint8Array {
  const p = parseScaleOffset(ctx.clientData);
  if (!p.isFloat && p.scaleFactor === p.size * 8) return data; // stored unprocessed
  const nbytes = checkSize(p, ctx);
  const n = p.nelmts;
  if (data.length < SO_HEADER) throw new FilterError(`chunk of ${data.length} bytes is shorter than the ${SO_HEADER}-byte scale-offset header`, SO_INFO);
  const minbits = (data[0]! | (data[1]! << 8) | (data[2]! << 16) | (data[3]! << 24)) >>> 0;
  if (minbits > p.size * 8) throw new FilterError(`minimum bits ${minbits} exceed the ${p.size * 8}-bit datatype`, SO_INFO);
  const minBytes = new Uint8Array(8);
  minBytes.set(data.subarray(5, 5 + Math.min(8, data[4]!)));
  if (minbits === p.size * 8) {
    if (data.length < SO_HEADER + nbytes) throw new FilterError(`chunk of ${data.length} bytes is too short for ${n} unpacked values`, SO_INFO);
    const raw = data.subarray(SO_HEADER, SO_HEADER + nbytes);
    return p.littleEndian || p.size === 1 ? raw.slice() : byteSwapped(raw, p.size);
  }
  const packed = Math.ceil((n * minbits) / 8);
  if (data.length < SO_HEADER + packed) throw new FilterError(`chunk of ${data.length} bytes is too short for ${n} values of ${minbits} bits`, SO_INFO);
  const out = new Uint8Array(nbytes);
  if (p.isFloat) unpackFloats(data, SO_HEADER, out, p, n, minbits, minBytes);
  else {
    const mdv = new DataView(minBytes.buffer);
    unpackIntegers(data, SO_HEADER, out, p, n, minbits, mdv.getUint32(0, true), mdv.getUint32(4, true));
  }
  return out;
}

/** Spec IV.A.2.l, filter 6: encodes one chunk (H5Z__filter_scaleoffset, forward); byte-identical to HDF5's output. */
export function scaleOffsetEncode(data: Uint8Array, ctx: FilterContext): Uint8Array {
  const p = parseScaleOffset(ctx.clientData);
  if (!p.isFloat && p.scaleFactor === p.size * 8) return data; // nothing to do
  const nbytes = checkSize(p, ctx);
  if (data.length !== nbytes) throw new FilterError(`chunk of ${data.length} bytes, expected ${nbytes}`, SO_INFO);
  const n = p.nelmts;
  const bits = p.size * 8;
  let minbits: number;
  const header = new Uint8Array(SO_HEADER);
  let pack: (out: Uint8Array, start: number) => void;
  if (p.isFloat) {
    const r = planFloats(data, p, n);
    minbits = r.plan.minbits;
    header.set(r.plan.minBytes, 5);
    pack = r.pack;
  } else {
    const r = planIntegers(data, p, n);
    minbits = r.plan.minbits;
    const hdv = new DataView(header.buffer);
    hdv.setUint32(5, r.plan.minLo, true);
    hdv.setUint32(9, r.plan.minHi, true);
    pack = r.pack;
  }
  header[0] = minbits & 0xff;
  header[1] = (minbits >>> 8) & 0xff;
  header[2] = (minbits >>> 16) & 0xff;
  header[3] = minbits >>> 24;
  header[4] = 8; // sizeof(unsigned long long)
  if (minbits === bits) {
    const out = new Uint8Array(SO_HEADER + nbytes);
    out.set(header);
    out.set(p.littleEndian || p.size === 1 ? data : byteSwapped(data, p.size), SO_HEADER);
    return out;
  }
  const out = new Uint8Array(SO_HEADER + Math.floor((nbytes * minbits) / bits) + 1);
  out.set(header);
  pack(out, SO_HEADER);
  return out;
}

/** The scale-offset filter (id 6): decode and encode; `setLocal` builds the 20 client data values. */
export const scaleOffsetFilter: Filter = {
  id: SO_ID,
  name: SO_NAME,
  encode: scaleOffsetEncode,
  decode: scaleOffsetDecode,
  setLocal: scaleOffsetSetLocal,
};
