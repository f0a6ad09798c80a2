/**
 * Decoder of the datatype message (HDF5 spec IV.A.2.d), all classes 0–10 and message versions 1–4.
 * @module
 */
import { UnsupportedError } from '../../errors.js';
import { utf8Decode, type ByteReader } from '../bytes.js';
import type {
  ArrayType,
  BitfieldType,
  ByteOrder,
  CompoundType,
  Datatype,
  EnumType,
  FloatType,
  IntegerType,
  OpaqueType,
  ReferenceType,
  StringType,
  TimeType,
} from './datatype.js';

/** Deepest nesting of compound/array/vlen/enum types accepted (guards the recursion). */
const MAX_DEPTH = 32;
/** HDF5's maximum rank (H5S_MAX_RANK), also the limit of array datatypes. */
const MAX_RANK = 32;

const PADDINGS: StringType['padding'][] = ['nullterm', 'nullpad', 'spacepad'];
const CHARSETS: StringType['charset'][] = ['ascii', 'utf-8'];

/** IEEE layouts: [offset, precision, exponent pos, exponent size, mantissa pos, mantissa size, bias, sign pos]. */
export const IEEE_LAYOUTS: Readonly<Record<number, readonly number[]>> = {
  2: [0, 16, 10, 5, 0, 10, 15, 15],
  4: [0, 32, 23, 8, 0, 23, 127, 31],
  8: [0, 64, 52, 11, 0, 52, 1023, 63],
};

/**
 * Decodes one datatype description at the cursor and leaves the cursor after it (spec IV.A.2.d).
 * Nested member/base types are decoded recursively. Throws {@link FormatError} /
 * {@link TruncatedError} on malformed bytes and {@link UnsupportedError} for valid but
 * unimplemented encodings (VAX floats, HDF5 1.12 reference types).
 */
export function decodeDatatype(r: ByteReader): Datatype {
  return decodeInner(r, 0).type;
}

interface Decoded {
  type: Datatype;
  /** The size stored in the type's header (bytes per element in the writer's file). */
  size: number;
}

// Spec IV.A.2.d: Datatype message — class/version byte, 3 bytes of class bit fields, size, properties.
function decodeInner(r: ByteReader, depth: number): Decoded {
  if (depth > MAX_DEPTH) throw r.error(`datatype nesting deeper than ${MAX_DEPTH} levels`);
  const at = r.pos;
  r.need(8, 'datatype header');
  const b0 = r.u8();
  const version = b0 >> 4;
  const cls = b0 & 0x0f;
  const flags = r.u8() | (r.u8() << 8) | (r.u8() << 16);
  const size = r.u32();
  if (version < 1 || version > 4) throw r.error(`datatype at offset ${at} has unknown version ${version}`);
  if (size === 0) throw r.error(`datatype at offset ${at} has size 0`);
  const order: ByteOrder = flags & 1 ? 'BE' : 'LE';
  switch (cls) {
    case 0: {
      const t: IntegerType = { class: 'integer', size, signed: (flags & 0x08) !== 0, order };
      bitRange(r, t, at);
      return { type: t, size };
    }
    case 1:
      return { type: decodeFloat(r, flags, version, size, at), size };
    case 2: {
      const precision = r.u16();
      if (precision === 0 || precision > size * 8) throw r.error(`time datatype at offset ${at} has bad precision ${precision}`);
      const t: TimeType = { class: 'time', size, order };
      if (precision !== size * 8) t.precision = precision;
      return { type: t, size };
    }
    case 3: {
      const t: StringType = { class: 'string', length: size, padding: padding(r, flags & 0x0f, at), charset: charset(r, (flags >> 4) & 0x0f, at) };
      return { type: t, size };
    }
    case 4: {
      const t: BitfieldType = { class: 'bitfield', size, order };
      bitRange(r, t, at);
      return { type: t, size };
    }
    case 5: {
      const tagLength = flags & 0xff;
      const raw = r.bytesView(tagLength, 'opaque tag');
      const nul = raw.indexOf(0);
      const t: OpaqueType = { class: 'opaque', size, tag: utf8Decode(nul >= 0 ? raw.subarray(0, nul) : raw) };
      return { type: t, size };
    }
    case 6:
      return { type: decodeCompound(r, flags, version, size, depth, at), size };
    case 7: {
      const kind = flags & 0x0f;
      if (kind > 4) throw r.error(`reference datatype at offset ${at} has unknown kind ${kind}`);
      if (kind > 1) {
        throw new UnsupportedError(`reference datatype kind ${kind} (HDF5 1.12 references) is not supported`, {
          structure: r.structure,
          address: r.base,
        });
      }
      const t: ReferenceType = { class: 'reference', kind: kind === 0 ? 'object' : 'region', size };
      return { type: t, size };
    }
    case 8:
      return { type: decodeEnum(r, flags, version, size, depth, at), size };
    case 9: {
      const kind = flags & 0x0f;
      if (kind > 1) throw r.error(`variable-length datatype at offset ${at} has unknown kind ${kind}`);
      const base = decodeInner(r, depth + 1);
      if (kind === 1) {
        const t: StringType = {
          class: 'string',
          length: 'variable',
          padding: padding(r, (flags >> 4) & 0x0f, at),
          charset: charset(r, (flags >> 8) & 0x0f, at),
        };
        return { type: t, size };
      }
      return { type: { class: 'vlen', base: base.type }, size };
    }
    case 10:
      return { type: decodeArray(r, version, size, depth, at), size };
    default:
      throw r.error(`datatype at offset ${at} has unknown class ${cls}`);
  }
}

function padding(r: ByteReader, v: number, at: number): StringType['padding'] {
  const p = PADDINGS[v];
  if (!p) throw r.error(`string datatype at offset ${at} has unknown padding type ${v}`);
  return p;
}

function charset(r: ByteReader, v: number, at: number): StringType['charset'] {
  const c = CHARSETS[v];
  if (!c) throw r.error(`string datatype at offset ${at} has unknown character set ${v}`);
  return c;
}

/** Reads the bit offset / precision properties of integer and bitfield types. */
function bitRange(r: ByteReader, t: IntegerType | BitfieldType, at: number): void {
  const bitOffset = r.u16();
  const precision = r.u16();
  if (precision === 0 || bitOffset + precision > t.size * 8) {
    throw r.error(`${t.class} datatype at offset ${at}: bit offset ${bitOffset} + precision ${precision} exceed ${t.size} bytes`);
  }
  if (bitOffset !== 0 || precision !== t.size * 8) {
    t.bitOffset = bitOffset;
    t.precision = precision;
  }
}

function decodeFloat(r: ByteReader, flags: number, version: number, size: number, at: number): FloatType {
  if (version >= 3 && flags & 0x40) {
    throw new UnsupportedError('VAX-order floating-point datatypes are not supported', { structure: r.structure, address: r.base });
  }
  const normalization = (flags >> 4) & 0x03;
  if (normalization === 3) throw r.error(`float datatype at offset ${at} has unknown mantissa normalization 3`);
  const signLocation = (flags >> 8) & 0xff;
  const bitOffset = r.u16();
  const precision = r.u16();
  const exponentLocation = r.u8();
  const exponentSize = r.u8();
  const mantissaLocation = r.u8();
  const mantissaSize = r.u8();
  const exponentBias = r.u32();
  const bits = size * 8;
  if (
    precision === 0 ||
    bitOffset + precision > bits ||
    exponentSize === 0 ||
    mantissaSize === 0 ||
    exponentLocation + exponentSize > bits ||
    mantissaLocation + mantissaSize > bits ||
    signLocation >= bits
  ) {
    throw r.error(`float datatype at offset ${at} has an impossible bit layout`);
  }
  const t: FloatType = { class: 'float', size, order: flags & 1 ? 'BE' : 'LE' };
  const ieee = IEEE_LAYOUTS[size];
  const layout = [bitOffset, precision, exponentLocation, exponentSize, mantissaLocation, mantissaSize, exponentBias, signLocation];
  if (ieee && normalization === 2 && layout.every((v, i) => v === ieee[i])) return t;
  Object.assign(t, {
    bitOffset,
    precision,
    exponentLocation,
    exponentSize,
    mantissaLocation,
    mantissaSize,
    exponentBias,
    signLocation,
    normalization,
  });
  return t;
}

/** Bytes HDF5 uses for member offsets in version-3 compound types (H5VM_limit_enc_size). */
export function compoundOffsetWidth(size: number): number {
  return Math.floor(Math.floor(Math.log2(size)) / 8) + 1;
}

/** Reads a NUL-terminated name; versions 1–2 pad name + NUL to a multiple of 8 bytes. */
function memberName(r: ByteReader, version: number, what: string): string {
  const start = r.pos;
  const end = r.bytes.indexOf(0, start);
  if (end < 0) throw r.error(`${what} name at offset ${start} is not NUL-terminated`);
  const name = utf8Decode(r.bytes.subarray(start, end));
  const len = end - start;
  r.pos = start;
  r.skip(version >= 3 ? len + 1 : Math.floor((len + 8) / 8) * 8);
  return name;
}

function decodeCompound(r: ByteReader, flags: number, version: number, size: number, depth: number, at: number): CompoundType {
  const n = flags & 0xffff;
  if (n === 0) throw r.error(`compound datatype at offset ${at} has no members`);
  const offsetWidth = compoundOffsetWidth(size);
  const members: CompoundType['members'] = [];
  const extents: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    const name = memberName(r, version, 'compound member');
    const offset = version >= 3 ? r.uN(offsetWidth) : r.u32();
    let dims: number[] = [];
    if (version === 1) {
      const ndims = r.u8();
      if (ndims > 4) throw r.error(`compound member "${name}" at offset ${at} has ${ndims} array dimensions (at most 4)`);
      r.skip(3 + 4 + 4);
      const all = [r.u32(), r.u32(), r.u32(), r.u32()];
      dims = all.slice(0, ndims);
      if (dims.some((d) => d === 0)) throw r.error(`compound member "${name}" at offset ${at} has a zero array dimension`);
    }
    const m = decodeInner(r, depth + 1);
    let type = m.type;
    let msize = m.size;
    if (dims.length > 0) {
      type = { class: 'array', dims, base: type };
      for (const d of dims) msize *= d;
    }
    if (offset + msize > size) {
      throw r.error(`compound member "${name}" (offset ${offset}, ${msize} bytes) extends past the compound size ${size}`);
    }
    members.push({ name, offset, type });
    extents.push([offset, msize]);
  }
  extents.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < extents.length; i++) {
    if (extents[i - 1]![0] + extents[i - 1]![1] > extents[i]![0]) throw r.error(`compound datatype at offset ${at} has overlapping members`);
  }
  return { class: 'compound', size, members };
}

function decodeEnum(r: ByteReader, flags: number, version: number, size: number, depth: number, at: number): EnumType {
  const n = flags & 0xffff;
  const base = decodeInner(r, depth + 1).type;
  if (base.class !== 'integer') throw r.error(`enumeration datatype at offset ${at} has a ${base.class} base type (must be integer)`);
  if (base.size !== size) throw r.error(`enumeration datatype at offset ${at}: size ${size} differs from its base size ${base.size}`);
  const names: string[] = [];
  for (let i = 0; i < n; i++) names.push(memberName(r, version, 'enumeration member'));
  r.need(n * size, 'enumeration values');
  const members: EnumType['members'] = [];
  for (let i = 0; i < n; i++) members.push({ name: names[i]!, value: readInteger(r.bytesView(size), base.signed, base.order) });
  return { class: 'enum', base, members };
}

/** An integer of any size as a number when it is a safe integer, else a bigint. */
export function readInteger(b: Uint8Array, signed: boolean, order: ByteOrder): number | bigint {
  let v = 0n;
  const n = b.length;
  for (let i = 0; i < n; i++) v = (v << 8n) | BigInt(b[order === 'BE' ? i : n - 1 - i]!);
  if (signed && n > 0 && v >= 1n << BigInt(n * 8 - 1)) v -= 1n << BigInt(n * 8);
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

function decodeArray(r: ByteReader, version: number, size: number, depth: number, at: number): ArrayType {
  const ndims = r.u8();
  if (ndims === 0 || ndims > MAX_RANK) throw r.error(`array datatype at offset ${at} has ${ndims} dimensions (1 to ${MAX_RANK} allowed)`);
  if (version < 3) r.skip(3);
  const dims: number[] = [];
  let count = 1;
  for (let i = 0; i < ndims; i++) {
    const d = r.u32();
    if (d === 0) throw r.error(`array datatype at offset ${at} has a zero dimension`);
    dims.push(d);
    count *= d;
  }
  if (version < 3) r.skip(4 * ndims);
  const base = decodeInner(r, depth + 1);
  if (count * base.size !== size) {
    throw r.error(`array datatype at offset ${at}: size ${size} is not ${dims.join('×')} × ${base.size}-byte elements`);
  }
  return { class: 'array', dims, base: base.type };
}
