/**
 * N-bit filter (HDF5 filter id 5, H5Znbit.c; spec IV.A.2.l): keeps only the significant bits
 * (precision at bit offset) of each integer/float — also inside arrays and compound members —
 * packed MSB-first one element after another; other bytes are copied whole.
 * @module
 */
import { FilterError, type Filter, type FilterContext } from '@chunkform/core/plugin';
import { chunkBytes } from '../util/chunk.js';
import { NBIT_ID, NBIT_INFO, NBIT_NAME, nbitSetLocal, parseNbit, type NbitPlan } from './params.js';

export { nbitSetLocal, parseNbit, type NbitPlan } from './params.js';

function planFor(ctx: FilterContext): NbitPlan | null {
  const plan = parseNbit(ctx.clientData);
  if (!plan) return null;
  const expected = chunkBytes(ctx);
  if (expected > 0 && plan.nelmts * plan.size !== expected) {
    throw new FilterError(`parameters describe ${plan.nelmts} elements of ${plan.size} bytes but a chunk holds ${expected} bytes`, NBIT_INFO);
  }
  if (expected === 0 && plan.nelmts * plan.size > 2 ** 31) throw new FilterError(`a chunk of ${plan.nelmts} elements of ${plan.size} bytes is too large`, NBIT_INFO);
  return plan;
}

/** Spec IV.A.2.l, filter 5: decodes one chunk (H5Z__nbit_decompress): padding bits come back as zeros. */
export function nbitDecode(data: Uint8Array, ctx: FilterContext): Uint8Array {
  const plan = planFor(ctx);
  if (!plan) return data;
  const { size, nelmts, byte, bits, shift } = plan;
  const need = Math.ceil((nelmts * plan.bitsPerElement) / 8);
  if (data.length < need) throw new FilterError(`packed chunk of ${data.length} bytes is shorter than the ${need} bytes its ${nelmts} elements need`, NBIT_INFO);
  const out = new Uint8Array(nelmts * size);
  const steps = byte.length;
  let pos = 0; // byte of `data` being read
  let left = 8; // unread bits in data[pos]
  for (let e = 0, base = 0; e < nelmts; e++, base += size) {
    for (let s = 0; s < steps; s++) {
      const n = bits[s]!;
      let v: number;
      if (n < left) {
        left -= n;
        v = (data[pos]! >>> left) & ((1 << n) - 1);
      } else {
        const rest = n - left;
        v = (data[pos]! & ((1 << left) - 1)) << rest;
        pos++;
        left = 8 - rest;
        if (rest) v |= data[pos]! >>> left;
      }
      out[base + byte[s]!]! |= v << shift[s]!;
    }
  }
  return out;
}

/** Spec IV.A.2.l, filter 5: encodes one chunk (H5Z__nbit_compress); byte-identical to HDF5's output (one byte past the last bit). */
export function nbitEncode(data: Uint8Array, ctx: FilterContext): Uint8Array {
  const plan = planFor(ctx);
  if (!plan) return data;
  const { size, nelmts, byte, bits, shift } = plan;
  if (data.length !== nelmts * size) throw new FilterError(`chunk of ${data.length} bytes, expected ${nelmts * size}`, NBIT_INFO);
  const out = new Uint8Array(Math.floor((nelmts * plan.bitsPerElement) / 8) + 1);
  const steps = byte.length;
  let pos = 0; // byte of `out` being filled
  let left = 8; // free bits in out[pos]
  for (let e = 0, base = 0; e < nelmts; e++, base += size) {
    for (let s = 0; s < steps; s++) {
      const n = bits[s]!;
      const v = (data[base + byte[s]!]! >>> shift[s]!) & ((1 << n) - 1);
      if (n < left) {
        left -= n;
        out[pos]! |= v << left;
      } else {
        const rest = n - left;
        out[pos]! |= v >>> rest;
        pos++;
        left = 8 - rest;
        if (rest) out[pos] = (v << left) & 0xff;
      }
    }
  }
  return out;
}

/** The n-bit filter (id 5): decode and encode; `setLocal` builds the client data from the datatype. */
export const nbitFilter: Filter = {
  id: NBIT_ID,
  name: NBIT_NAME,
  encode: nbitEncode,
  decode: nbitDecode,
  setLocal: nbitSetLocal,
};
