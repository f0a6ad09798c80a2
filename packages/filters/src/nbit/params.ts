/**
 * Client data of the n-bit filter (H5Znbit.c): `[count, noCompression, elements per chunk, <type>]`
 * where `<type>` describes the element recursively — atomic (1, size, order, precision, offset),
 * array (2, size, <base>), compound (3, size, members, then per member: offset, <type>) and
 * "no-op" bytes copied whole (4, size). This module builds it from a datatype (set-local) and
 * flattens it into a plan of per-byte bit fields (the packing order HDF5 uses).
 * @module
 */
import { FilterError, ValueError, DEFAULT_SIZES, datatypeSize, type Datatype, type FilterContext } from '@chunkform/core/plugin';

export const NBIT_ID = 5;
export const NBIT_NAME = 'nbit';
/** Error details for this filter. */
export const NBIT_INFO = { filterId: NBIT_ID, filterName: NBIT_NAME };

const ATOMIC = 1;
const ARRAY = 2;
const COMPOUND = 3;
const NOOPTYPE = 4;
/** Most client data values (H5Z_NBIT_MAX_NPARMS). */
export const NBIT_MAX_NPARMS = 4096;

/**
 * The packing of one element: for each step, `bits` bits taken from byte `byte` of the element
 * starting at bit `shift`, written to the stream most significant bit first.
 */
export interface NbitPlan {
  /** Element size in bytes. */
  size: number;
  /** Elements per chunk. */
  nelmts: number;
  byte: Uint32Array;
  bits: Uint8Array;
  shift: Uint8Array;
  /** Total packed bits per element. */
  bitsPerElement: number;
}

function fail(message: string): never {
  throw new FilterError(`invalid n-bit parameters: ${message}`, NBIT_INFO);
}

class PlanBuilder {
  readonly byte: number[] = [];
  readonly bits: number[] = [];
  readonly shift: number[] = [];
  i: number;

  constructor(
    private readonly cd: readonly number[],
    start: number,
    private readonly limit: number,
  ) {
    this.i = start;
  }

  take(n: number): number[] {
    if (this.i + n > this.cd.length) fail('the list is shorter than the datatype it describes');
    const v = this.cd.slice(this.i, this.i + n);
    this.i += n;
    return v;
  }

  private step(byte: number, bits: number, shift: number): void {
    if (this.byte.length >= this.limit) fail('more packed fields than bytes in an element');
    this.byte.push(byte);
    this.bits.push(bits);
    this.shift.push(shift);
  }

  /** An integer/float: bytes from the most to the least significant one holding kept bits. */
  atomic(base: number, size: number, order: number, precision: number, offset: number): void {
    if (precision === 0 || precision > size * 8 || precision + offset > size * 8) fail(`precision ${precision} / offset ${offset} do not fit ${size} bytes`);
    if (order > 1) fail(`byte order ${order}`);
    const top = offset + precision;
    for (let k = Math.floor((top - 1) / 8); k >= Math.floor(offset / 8); k--) {
      const lo = Math.max(offset, 8 * k);
      const hi = Math.min(top, 8 * k + 8);
      this.step(base + (order === 0 ? k : size - 1 - k), hi - lo, lo - 8 * k);
    }
  }

  noop(base: number, size: number): void {
    for (let k = 0; k < size; k++) this.step(base + k, 8, 0);
  }

  array(base: number): void {
    const [total, cls] = this.take(2) as [number, number];
    if (cls === ATOMIC) {
      const [size, order, precision, offset] = this.take(4) as [number, number, number, number];
      if (size === 0) fail('zero size');
      const n = Math.floor(total / size);
      for (let e = 0; e < n; e++) this.atomic(base + e * size, size, order, precision, offset);
    } else if (cls === ARRAY || cls === COMPOUND) {
      if (this.i >= this.cd.length) fail('the list is shorter than the datatype it describes');
      const baseSize = this.cd[this.i]!;
      if (baseSize === 0) fail('zero size');
      const n = Math.floor(total / baseSize);
      const begin = this.i;
      for (let e = 0; e < n; e++) {
        if (cls === ARRAY) this.array(base + e * baseSize);
        else this.compound(base + e * baseSize);
        // HDF5 rewinds to the base's description after each element and leaves the index
        // there (H5Z__nbit_(de)compress_one_array) — mirrored so packing matches the library.
        this.i = begin;
      }
    } else if (cls === NOOPTYPE) {
      this.take(1);
      this.noop(base, total);
    } else fail(`datatype class ${cls}`);
  }

  compound(base: number): void {
    const [size, nmembers] = this.take(2) as [number, number];
    let used = 0;
    for (let m = 0; m < nmembers; m++) {
      const [moff, cls] = this.take(2) as [number, number];
      if (this.i >= this.cd.length) fail('the list is shorter than the datatype it describes');
      const msize = this.cd[this.i]!;
      const prev = used;
      used += msize;
      if (used > size || used <= prev || moff + msize > size) fail('compound member overflows the compound');
      if (cls === ATOMIC) {
        const [s, order, precision, offset] = this.take(4) as [number, number, number, number];
        this.atomic(base + moff, s, order, precision, offset);
      } else if (cls === ARRAY) this.array(base + moff);
      else if (cls === COMPOUND) this.compound(base + moff);
      else if (cls === NOOPTYPE) {
        this.take(1);
        this.noop(base + moff, msize);
      } else fail(`datatype class ${cls}`);
    }
  }
}

/**
 * Flattens the client data into a packing plan; `null` when the filter does nothing (the
 * no-compression flag, set when every value has full precision).
 */
export function parseNbit(cd: readonly number[]): NbitPlan | null {
  if (cd.length >= 2 && cd[1]) return null;
  if (cd.length < 5) fail(`${cd.length} values`);
  if (cd[0] !== cd.length) fail(`count ${cd[0]} but ${cd.length} values`);
  if (cd.length > NBIT_MAX_NPARMS) fail(`${cd.length} values exceed ${NBIT_MAX_NPARMS}`);
  const nelmts = cd[2]!;
  const size = cd[4]!;
  if (size === 0) fail('zero datatype size');
  const b = new PlanBuilder(cd, 3, size);
  const cls = cd[3]!;
  if (cls === ATOMIC) {
    const [, s, order, precision, offset] = b.take(5) as [number, number, number, number, number];
    b.atomic(0, s, order, precision, offset);
  } else if (cls === ARRAY) {
    b.i = 4;
    b.array(0);
  } else if (cls === COMPOUND) {
    b.i = 4;
    b.compound(0);
  } else fail(`top-level datatype class ${cls}`);
  let bitsPerElement = 0;
  for (let s = 0; s < b.byte.length; s++) {
    if (b.byte[s]! >= size) fail('a field lies outside the element');
    bitsPerElement += b.bits[s]!;
  }
  return { size, nelmts, byte: Uint32Array.from(b.byte), bits: Uint8Array.from(b.bits), shift: Uint8Array.from(b.shift), bitsPerElement };
}

interface SetLocalState {
  cd: number[];
  compress: boolean;
}

function atomicParms(t: Datatype & { size: number }, precision: number | undefined, offset: number | undefined, order: 'LE' | 'BE', st: SetLocalState): void {
  const p = precision ?? t.size * 8;
  const o = offset ?? 0;
  if (p === 0 || p > t.size * 8 || p + o > t.size * 8) throw new ValueError(`invalid precision ${p} / offset ${o} for a ${t.size}-byte type`);
  st.cd.push(ATOMIC, t.size, order === 'BE' ? 1 : 0, p, o);
  if (o !== 0 || p !== t.size * 8) st.compress = true;
}

function typeParms(t: Datatype, st: SetLocalState, inArray: boolean): void {
  switch (t.class) {
    case 'integer':
    case 'float':
      atomicParms(t, t.precision, t.bitOffset, t.order, st);
      return;
    case 'array': {
      st.cd.push(ARRAY, datatypeSize(t, DEFAULT_SIZES));
      typeParms(t.base, st, true);
      return;
    }
    case 'compound':
      st.cd.push(COMPOUND, t.size, t.members.length);
      t.members.forEach((m, u) => {
        st.cd.push(m.offset);
        const variable = m.type.class === 'vlen' || (m.type.class === 'string' && m.type.length === 'variable');
        if (variable) {
          const next = u + 1 < t.members.length ? t.members[u + 1]!.offset : t.size;
          st.cd.push(NOOPTYPE, next - m.offset);
        } else typeParms(m.type, st, false);
      });
      return;
    default:
      if (inArray && (t.class === 'vlen' || (t.class === 'string' && t.length === 'variable'))) {
        throw new ValueError('n-bit does not support arrays of variable-length data');
      }
      st.cd.push(NOOPTYPE, datatypeSize(t, DEFAULT_SIZES));
  }
}

/**
 * H5Z__set_local_nbit: the client data for a dataset of type `ctx.datatype` and chunks of
 * `ctx.chunkDims` (user values are ignored, as HDF5 does).
 */
export function nbitSetLocal(_user: readonly number[], ctx: Omit<FilterContext, 'clientData' | 'flags'>): number[] {
  let npoints = 1;
  for (const d of ctx.chunkDims) npoints *= d;
  if (!Number.isSafeInteger(npoints) || npoints > 0xffffffff) throw new ValueError(`chunk of ${npoints} elements is too large for n-bit`);
  const st: SetLocalState = { cd: [0, 0, npoints], compress: false };
  const t = ctx.datatype;
  if (t.class === 'integer' || t.class === 'float' || t.class === 'array' || t.class === 'compound') typeParms(t, st, false);
  if (st.cd.length > NBIT_MAX_NPARMS) throw new ValueError(`the datatype needs ${st.cd.length} n-bit parameters (at most ${NBIT_MAX_NPARMS})`);
  st.cd[0] = st.cd.length;
  st.cd[1] = st.compress ? 0 : 1;
  return st.cd;
}
