/**
 * Encoder of the datatype message (HDF5 spec IV.A.2.d). Picks the lowest message version that can
 * express the type, exactly as HDF5 1.10 does with default library-version bounds: version 1 for
 * atomic types, compounds and enums; version 2 for arrays and anything containing one.
 * @module
 */
import { ValueError } from '../../errors.js';
import { utf8Encode, type ByteWriter } from '../bytes.js';
import { compoundOffsetWidth, IEEE_LAYOUTS } from './datatype-decode.js';
import type { Datatype, EnumType, FloatType, IntegerType } from './datatype.js';
import { datatypeSize } from './datatype.js';

/** Options of {@link encodeDatatype}. */
export interface EncodeDatatypeOptions {
  /**
   * Lowest version for compound, array and enum types (HDF5 upgrades exactly these classes to its
   * low library-version bound). 1 (default) = what HDF5 writes with default bounds; 3 = what it
   * writes with `libver='latest'` (no name padding, variable-width member offsets).
   */
  minVersion?: 1 | 2 | 3;
}

const CLASS_CODES: Record<Datatype['class'], number> = {
  integer: 0,
  float: 1,
  time: 2,
  string: 3,
  bitfield: 4,
  opaque: 5,
  compound: 6,
  reference: 7,
  enum: 8,
  vlen: 9,
  array: 10,
};
const PAD_CODES = { nullterm: 0, nullpad: 1, spacepad: 2 } as const;
const CSET_CODES = { ascii: 0, 'utf-8': 1 } as const;

/** The datatype-message version {@link encodeDatatype} uses for `t` (HDF5's H5T version rules). */
export function datatypeEncodingVersion(t: Datatype, minVersion = 1): number {
  switch (t.class) {
    case 'compound': {
      let v = Math.max(1, minVersion);
      for (const m of t.members) v = Math.max(v, datatypeEncodingVersion(m.type, minVersion));
      return v;
    }
    case 'array':
      return Math.max(2, minVersion, datatypeEncodingVersion(t.base, minVersion));
    case 'enum':
      return Math.max(1, minVersion);
    case 'vlen':
      return datatypeEncodingVersion(t.base, minVersion);
    default:
      return 1;
  }
}

/** Encodes `t` as a datatype message body at the writer's cursor (spec IV.A.2.d). */
export function encodeDatatype(w: ByteWriter, t: Datatype, opts: EncodeDatatypeOptions = {}): void {
  encodeAt(w, t, opts.minVersion ?? 1, 0);
}

function bad(message: string): ValueError {
  return new ValueError(message, { structure: 'datatype message' });
}

function u32Size(v: number, what: string): number {
  if (!Number.isSafeInteger(v) || v < 1 || v > 0xffffffff) throw bad(`${what} size ${v} is not in 1..2^32-1`);
  return v;
}

// Spec IV.A.2.d: Datatype message — header (class | version << 4, class bit fields, size) + properties.
function encodeAt(w: ByteWriter, t: Datatype, minVersion: number, depth: number): void {
  if (depth > 32) throw bad('datatype nesting is deeper than 32 levels');
  const version = datatypeEncodingVersion(t, minVersion);
  const header = (flags: number, size: number): void => {
    const code = t.class === 'string' && t.length === 'variable' ? 9 : CLASS_CODES[t.class];
    w.u8(code | (version << 4));
    w.u8(flags & 0xff).u8((flags >> 8) & 0xff).u8((flags >> 16) & 0xff);
    w.u32(u32Size(size, t.class));
  };
  switch (t.class) {
    case 'integer':
    case 'bitfield': {
      const { bitOffset, precision } = bitRange(t);
      header((t.order === 'BE' ? 1 : 0) | (t.class === 'integer' && t.signed ? 0x08 : 0), t.size);
      w.u16(bitOffset).u16(precision);
      return;
    }
    case 'float': {
      const l = floatLayout(t);
      header((t.order === 'BE' ? 1 : 0) | (l.normalization << 4) | (l.signLocation << 8), t.size);
      w.u16(l.bitOffset).u16(l.precision).u8(l.exponentLocation).u8(l.exponentSize).u8(l.mantissaLocation).u8(l.mantissaSize);
      w.u32(l.exponentBias);
      return;
    }
    case 'time': {
      const precision = t.precision ?? t.size * 8;
      if (!(precision >= 1 && precision <= t.size * 8 && precision <= 0xffff)) throw bad(`time precision ${precision} does not fit ${t.size} bytes`);
      header(t.order === 'BE' ? 1 : 0, t.size);
      w.u16(precision);
      return;
    }
    case 'string': {
      const pad = PAD_CODES[t.padding];
      const cset = CSET_CODES[t.charset];
      if (pad === undefined || cset === undefined) throw bad(`string padding "${t.padding}" / charset "${t.charset}" unknown`);
      if (t.length === 'variable') {
        header(1 | (pad << 4) | (cset << 8), 8 + w.sizes.sizeOfOffsets);
        // HDF5 stores the character type of variable-length strings as an unsigned 8-bit integer.
        encodeAt(w, { class: 'integer', size: 1, signed: false, order: 'LE' }, minVersion, depth + 1);
      } else {
        header(pad | (cset << 4), t.length);
      }
      return;
    }
    case 'opaque': {
      const tag = utf8Encode(t.tag);
      if (tag.length > 248 || tag.includes(0)) throw bad(`opaque tag "${t.tag}" is longer than 248 bytes or contains NUL`);
      const aligned = (tag.length + 7) & ~7;
      header(aligned, t.size);
      w.bytes(tag).zeros(aligned - tag.length);
      return;
    }
    case 'reference':
      header(t.kind === 'object' ? 0 : 1, t.size);
      return;
    case 'vlen':
      header(0, 8 + w.sizes.sizeOfOffsets);
      encodeAt(w, t.base, minVersion, depth + 1);
      return;
    case 'enum':
      encodeEnum(w, t, version, header, minVersion, depth);
      return;
    case 'compound': {
      const n = t.members.length;
      if (n === 0 || n > 0xffff) throw bad(`compound types need 1..65535 members (got ${n})`);
      header(n, t.size);
      const width = compoundOffsetWidth(t.size);
      for (const m of t.members) {
        const msize = datatypeSize(m.type, w.sizes);
        if (!Number.isSafeInteger(m.offset) || m.offset < 0 || m.offset + msize > t.size) {
          throw bad(`compound member "${m.name}" (offset ${m.offset}, ${msize} bytes) does not fit the ${t.size}-byte compound`);
        }
        name(w, m.name, version);
        if (version >= 3) w.uN(m.offset, width);
        else w.u32(m.offset);
        if (version === 1) w.zeros(28); // dimensionality, reserved, permutation, reserved, 4 dimensions
        encodeAt(w, m.type, minVersion, depth + 1);
      }
      return;
    }
    case 'array': {
      const n = t.dims.length;
      if (n === 0 || n > 32) throw bad(`array types need 1..32 dimensions (got ${n})`);
      for (const d of t.dims) if (!Number.isSafeInteger(d) || d < 1 || d > 0xffffffff) throw bad(`array dimension ${d} is not in 1..2^32-1`);
      header(0, datatypeSize(t, w.sizes));
      w.u8(n);
      if (version < 3) w.zeros(3);
      for (const d of t.dims) w.u32(d);
      if (version < 3) for (let i = 0; i < n; i++) w.u32(i); // dimension permutation (identity)
      encodeAt(w, t.base, minVersion, depth + 1);
      return;
    }
  }
}

/** A member name: NUL-terminated, padded to a multiple of 8 bytes below version 3. */
function name(w: ByteWriter, s: string, version: number): void {
  const b = utf8Encode(s);
  if (b.length === 0 || b.includes(0)) throw bad(`member name "${s}" is empty or contains NUL`);
  w.bytes(b).u8(0);
  if (version < 3) w.zeros(Math.floor((b.length + 8) / 8) * 8 - b.length - 1);
}

function bitRange(t: IntegerType | { class: 'bitfield'; size: number; bitOffset?: number; precision?: number }): { bitOffset: number; precision: number } {
  const bitOffset = t.bitOffset ?? 0;
  const precision = t.precision ?? t.size * 8;
  if (!Number.isSafeInteger(t.size) || t.size < 1 || precision < 1 || bitOffset < 0 || bitOffset + precision > t.size * 8 || precision > 0xffff) {
    throw bad(`${t.class} bit offset ${bitOffset} + precision ${precision} do not fit ${t.size} bytes`);
  }
  return { bitOffset, precision };
}

function floatLayout(t: FloatType): Required<Omit<FloatType, 'class' | 'size' | 'order'>> {
  const ieee = IEEE_LAYOUTS[t.size];
  if (!ieee && t.exponentSize === undefined) throw bad(`float of ${t.size} bytes needs an explicit bit layout`);
  const d = ieee ?? [0, t.size * 8, 0, 0, 0, 0, 0, t.size * 8 - 1];
  const l = {
    bitOffset: t.bitOffset ?? d[0]!,
    precision: t.precision ?? d[1]!,
    exponentLocation: t.exponentLocation ?? d[2]!,
    exponentSize: t.exponentSize ?? d[3]!,
    mantissaLocation: t.mantissaLocation ?? d[4]!,
    mantissaSize: t.mantissaSize ?? d[5]!,
    exponentBias: t.exponentBias ?? d[6]!,
    signLocation: t.signLocation ?? d[7]!,
    normalization: t.normalization ?? 2,
  };
  const bits = t.size * 8;
  if (
    l.precision < 1 ||
    l.bitOffset + l.precision > bits ||
    l.exponentSize < 1 ||
    l.mantissaSize < 1 ||
    l.exponentLocation + l.exponentSize > bits ||
    l.mantissaLocation + l.mantissaSize > bits ||
    l.signLocation >= bits ||
    l.signLocation > 255 ||
    l.normalization < 0 ||
    l.normalization > 2
  ) {
    throw bad(`float bit layout does not fit ${t.size} bytes`);
  }
  return l;
}

function encodeEnum(
  w: ByteWriter,
  t: EnumType,
  version: number,
  header: (flags: number, size: number) => void,
  minVersion: number,
  depth: number,
): void {
  const n = t.members.length;
  if (n > 0xffff) throw bad(`enumerations hold at most 65535 members (got ${n})`);
  const { size, signed, order } = t.base;
  header(n, size);
  encodeAt(w, t.base, minVersion, depth + 1);
  for (const m of t.members) name(w, m.name, version);
  const bits = BigInt(size * 8);
  const min = signed ? -(1n << (bits - 1n)) : 0n;
  const max = signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  for (const m of t.members) {
    if (typeof m.value === 'number' && !Number.isSafeInteger(m.value)) throw bad(`enumeration value ${m.value} of "${m.name}" is not an integer`);
    let v = BigInt(m.value);
    if (v < min || v > max) throw bad(`enumeration value ${v} of "${m.name}" does not fit the ${size}-byte base type`);
    if (v < 0n) v += 1n << bits;
    const b = new Uint8Array(size);
    for (let i = 0; i < size; i++) {
      b[order === 'BE' ? size - 1 - i : i] = Number(v & 0xffn);
      v >>= 8n;
    }
    w.bytes(b);
  }
}
