/**
 * Datatype message (HDF5 spec IV.A.2.d, message type 0x0003): the model of an HDF5 datatype and
 * its encoder/decoder (implemented in `datatype-decode.ts` / `datatype-encode.ts`).
 * @module
 */
import type { SizeContext } from '../bytes.js';

/** Byte order of a numeric type. */
export type ByteOrder = 'LE' | 'BE';

/** Fixed-point (integer) type, class 0. */
export interface IntegerType {
  class: 'integer';
  /** Size in bytes (1, 2, 4, 8; other sizes are read as raw bytes). */
  size: number;
  signed: boolean;
  order: ByteOrder;
  /** Bit offset and precision (the defaults are 0 and size*8). */
  bitOffset?: number;
  precision?: number;
}

/** Floating-point type, class 1. */
export interface FloatType {
  class: 'float';
  /** Size in bytes (2, 4, 8). */
  size: number;
  order: ByteOrder;
  /** Bit-level layout; absent = IEEE layout for the size. */
  bitOffset?: number;
  precision?: number;
  exponentLocation?: number;
  exponentSize?: number;
  mantissaLocation?: number;
  mantissaSize?: number;
  exponentBias?: number;
  /** Sign bit position. */
  signLocation?: number;
  /** Mantissa normalization: 0 none, 1 MSB set, 2 implied (IEEE). */
  normalization?: number;
}

/** String type: fixed-length (class 3) or variable-length (class 9, type 1). */
export interface StringType {
  class: 'string';
  /** Length in bytes for fixed strings; 'variable' for variable-length strings. */
  length: number | 'variable';
  charset: 'ascii' | 'utf-8';
  /** Padding of fixed strings: null-terminated, null-padded, space-padded. */
  padding: 'nullterm' | 'nullpad' | 'spacepad';
}

/** Enumeration (class 8) over an integer base type. */
export interface EnumType {
  class: 'enum';
  base: IntegerType;
  /** Member names and values, in file order. */
  members: { name: string; value: number | bigint }[];
}

/** Compound (class 6). */
export interface CompoundType {
  class: 'compound';
  size: number;
  members: { name: string; offset: number; type: Datatype }[];
}

/** Array (class 10). */
export interface ArrayType {
  class: 'array';
  dims: number[];
  base: Datatype;
}

/** Variable-length sequence (class 9, type 0) of a base type. */
export interface VlenSequenceType {
  class: 'vlen';
  base: Datatype;
}

/** Opaque (class 5). */
export interface OpaqueType {
  class: 'opaque';
  size: number;
  tag: string;
}

/** Bitfield (class 4). */
export interface BitfieldType {
  class: 'bitfield';
  size: number;
  order: ByteOrder;
  bitOffset?: number;
  precision?: number;
}

/** Reference (class 7): object references (size = size of offsets) or region references. */
export interface ReferenceType {
  class: 'reference';
  kind: 'object' | 'region';
  size: number;
}

/** Time (class 2), read as raw integers. */
export interface TimeType {
  class: 'time';
  size: number;
  order: ByteOrder;
  /** Bit precision (default size*8). */
  precision?: number;
}

/** Any HDF5 datatype. */
export type Datatype =
  | IntegerType
  | FloatType
  | StringType
  | EnumType
  | CompoundType
  | ArrayType
  | VlenSequenceType
  | OpaqueType
  | BitfieldType
  | ReferenceType
  | TimeType;

export { decodeDatatype } from './datatype-decode.js';
export { encodeDatatype, datatypeEncodingVersion, type EncodeDatatypeOptions } from './datatype-encode.js';

/**
 * Bytes one element of `t` occupies in the file. Variable-length strings and sequences are stored
 * as (length UINT32, global heap collection address, object index UINT32): 4 + sizeOfOffsets + 4.
 */
export function datatypeSize(t: Datatype, sizes: SizeContext): number {
  switch (t.class) {
    case 'string':
      return t.length === 'variable' ? 8 + sizes.sizeOfOffsets : t.length;
    case 'vlen':
      return 8 + sizes.sizeOfOffsets;
    case 'enum':
      return t.base.size;
    case 'array': {
      let n = datatypeSize(t.base, sizes);
      for (const d of t.dims) n *= d;
      return n;
    }
    default:
      return t.size;
  }
}
