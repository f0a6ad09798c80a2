/**
 * numpy/h5py-style names for datatypes: parsing dtype strings, printing datatypes, and inferring a
 * datatype from JavaScript values.
 * @module
 */
import { ValueError } from '../errors.js';
import type { ByteOrder, Datatype, EnumType, IntegerType, StringType } from '../format/messages/datatype.js';
import { isTypedArray } from './types.js';

/** A datatype, or a dtype string such as `'int32'`, `'<u2'`, `'>f8'`, `'S10'`, `'str'`, `'bool'`. */
export type DtypeSpec = Datatype | string;

const int = (size: number, signed: boolean, order: ByteOrder = 'LE'): IntegerType => ({ class: 'integer', size, signed, order });
const float = (size: number, order: ByteOrder = 'LE'): Datatype => ({ class: 'float', size, order });

/** h5py's boolean type: an enumeration over int8 with FALSE = 0 and TRUE = 1. */
export function boolType(): EnumType {
  return { class: 'enum', base: int(1, true), members: [{ name: 'FALSE', value: 0 }, { name: 'TRUE', value: 1 }] };
}

/** h5py's `string_dtype()`: variable-length UTF-8 (null-terminated). */
export function vlenStringType(charset: StringType['charset'] = 'utf-8'): StringType {
  return { class: 'string', length: 'variable', charset, padding: 'nullterm' };
}

const NAMED: Record<string, () => Datatype> = {
  int8: () => int(1, true),
  uint8: () => int(1, false),
  int16: () => int(2, true),
  uint16: () => int(2, false),
  int32: () => int(4, true),
  uint32: () => int(4, false),
  int64: () => int(8, true),
  uint64: () => int(8, false),
  float16: () => float(2),
  float32: () => float(4),
  float64: () => float(8),
  bool: boolType,
  '?': boolType,
  string: () => vlenStringType(),
  str: () => vlenStringType(),
  ref: () => ({ class: 'reference', kind: 'object', size: 8 }),
  regionref: () => ({ class: 'reference', kind: 'region', size: 12 }),
};

/**
 * Parses a dtype: names (`'int8'` … `'uint64'`, `'float16'` … `'float64'`, `'bool'`, `'str'` /
 * `'string'` = variable-length UTF-8, `'ref'`, `'regionref'`), numpy type strings (`'<u2'`,
 * `'>f8'`, `'|u1'`, `'i4'`, `'b1'` …; no prefix = little-endian), `'S<n>'` (fixed-length ASCII,
 * null-padded like numpy), `'V<n>'` (opaque), `'(2,3)<f4'` (array), `'vlen<i2>'` (sequence).
 * Strings take options in parentheses: `'S10(utf-8,nullterm)'`, `'str(ascii)'`.
 * A {@link Datatype} is returned unchanged. Throws {@link ValueError} for anything else.
 */
export function parseDtype(spec: DtypeSpec): Datatype {
  if (typeof spec !== 'string') {
    if (spec && typeof spec === 'object' && typeof (spec as Datatype).class === 'string') return spec;
    throw new ValueError(`not a dtype: ${String(spec)}`);
  }
  const s = spec.trim();
  const named = NAMED[s];
  if (named) return named();
  let m = /^(str|string)\((ascii|utf-8)\)$/.exec(s);
  if (m) return vlenStringType(m[2] as StringType['charset']);
  m = /^\|?S(\d+)(?:\((.*)\))?$/.exec(s);
  if (m) {
    const length = Number(m[1]);
    if (!(length >= 1 && length <= 0xffffffff)) throw new ValueError(`bad string length in dtype "${spec}"`);
    const t: StringType = { class: 'string', length, charset: 'ascii', padding: 'nullpad' };
    for (const opt of (m[2] ?? '').split(',').map((o) => o.trim()).filter(Boolean)) {
      if (opt === 'ascii' || opt === 'utf-8') t.charset = opt;
      else if (opt === 'nullterm' || opt === 'nullpad' || opt === 'spacepad') t.padding = opt;
      else throw new ValueError(`unknown string option "${opt}" in dtype "${spec}"`);
    }
    return t;
  }
  m = /^\|?V(\d+)$/.exec(s);
  if (m && Number(m[1]) >= 1) return { class: 'opaque', size: Number(m[1]), tag: '' };
  m = /^vlen<(.+)>$/.exec(s);
  if (m) return { class: 'vlen', base: parseDtype(m[1]!) };
  m = /^\(([\d,\s]+)\)(.+)$/.exec(s);
  if (m) {
    const dims = m[1]!.split(',').map((d) => d.trim()).filter(Boolean).map(Number);
    if (dims.length === 0 || dims.some((d) => !Number.isSafeInteger(d) || d < 1)) throw new ValueError(`bad array dims in dtype "${spec}"`);
    return { class: 'array', dims, base: parseDtype(m[2]!) };
  }
  m = /^([<>|=]?)([iufb])(\d+)$/.exec(s);
  if (m) {
    const [, prefix, kind, n] = m;
    const size = Number(n);
    const order: ByteOrder = prefix === '>' ? 'BE' : 'LE';
    if (prefix === '|' && size !== 1) throw new ValueError(`dtype "${spec}": '|' only applies to 1-byte types`);
    if (kind === 'b' && size === 1) return boolType();
    if ((kind === 'i' || kind === 'u') && [1, 2, 4, 8].includes(size)) return int(size, kind === 'i', order);
    if (kind === 'f' && [2, 4, 8].includes(size)) return float(size, order);
  }
  throw new ValueError(`unknown dtype "${spec}"`);
}

function orderChar(size: number, order: ByteOrder): string {
  return size === 1 ? '|' : order === 'BE' ? '>' : '<';
}

/** True for h5py's boolean enumeration (int8 base, FALSE = 0, TRUE = 1). */
export function isBoolType(t: Datatype): boolean {
  return (
    t.class === 'enum' &&
    t.base.size === 1 &&
    t.base.signed &&
    t.members.length === 2 &&
    t.members.some((m) => m.name === 'FALSE' && Number(m.value) === 0) &&
    t.members.some((m) => m.name === 'TRUE' && Number(m.value) === 1)
  );
}

/**
 * A numpy-like description: `'<u2'`, `'>f8'`, `'|i1'`, `'S10'`, `'str'`, `'bool'`, `'(2,3)<f4'`,
 * `'vlen<<i2>'`, `'V8'`, `'ref'`, `'enum(|i1){A=0,B=1}'`, `'compound[12]{a:<i4@0,b:<f8@4}'` …
 * Atomic, string, array, vlen and opaque descriptions are accepted back by {@link parseDtype}.
 */
export function dtypeToString(t: Datatype): string {
  switch (t.class) {
    case 'integer': {
      const base = `${orderChar(t.size, t.order)}${t.signed ? 'i' : 'u'}${t.size}`;
      return t.precision !== undefined ? `${base}:${t.precision}bits@${t.bitOffset ?? 0}` : base;
    }
    case 'float':
      return `${orderChar(t.size, t.order)}f${t.size}${t.exponentSize !== undefined ? ':custom' : ''}`;
    case 'string': {
      if (t.length === 'variable') return t.charset === 'utf-8' ? 'str' : `str(${t.charset})`;
      const opts = [t.charset !== 'ascii' ? t.charset : '', t.padding !== 'nullpad' ? t.padding : ''].filter(Boolean);
      return `S${t.length}${opts.length ? `(${opts.join(',')})` : ''}`;
    }
    case 'enum':
      if (isBoolType(t)) return 'bool';
      return `enum(${dtypeToString(t.base)}){${t.members.map((m) => `${m.name}=${m.value}`).join(',')}}`;
    case 'compound':
      return `compound[${t.size}]{${t.members.map((m) => `${m.name}:${dtypeToString(m.type)}@${m.offset}`).join(',')}}`;
    case 'array':
      return `(${t.dims.join(',')})${dtypeToString(t.base)}`;
    case 'vlen':
      return `vlen<${dtypeToString(t.base)}>`;
    case 'opaque':
      return `V${t.size}${t.tag ? `("${t.tag}")` : ''}`;
    case 'reference':
      return t.kind === 'object' ? 'ref' : 'regionref';
    case 'bitfield':
      return `bitfield(${orderChar(t.size, t.order)}u${t.size})`;
    case 'time':
      return `time(${orderChar(t.size, t.order)}i${t.size})`;
  }
}

const TYPED: [new (...a: never[]) => unknown, () => Datatype][] = [
  [Int8Array, () => int(1, true)],
  [Uint8Array, () => int(1, false)],
  [Uint8ClampedArray, () => int(1, false)],
  [Int16Array, () => int(2, true)],
  [Uint16Array, () => int(2, false)],
  [Int32Array, () => int(4, true)],
  [Uint32Array, () => int(4, false)],
  [Float32Array, () => float(4)],
  [Float64Array, () => float(8)],
  [BigInt64Array, () => int(8, true)],
  [BigUint64Array, () => int(8, false)],
];

/**
 * Infers a datatype from values: a TypedArray's element type; numbers → float64; bigints → int64;
 * booleans → bool; strings → variable-length UTF-8; plain objects → a packed compound of their
 * fields (inferred from the first record). Nested arrays are inspected through their first leaf.
 */
export function datatypeOfValues(v: unknown): Datatype {
  let x = v;
  for (let depth = 0; Array.isArray(x); depth++) {
    if (depth > 64) throw new ValueError('values are nested too deeply to infer a datatype');
    if (x.length === 0) return float(8);
    x = x[0];
  }
  if (isTypedArray(x)) {
    for (const [Ctor, make] of TYPED) if (x instanceof Ctor) return make();
  }
  switch (typeof x) {
    case 'number':
      return float(8);
    case 'bigint':
      return int(8, true);
    case 'boolean':
      return boolType();
    case 'string':
      return vlenStringType();
    case 'object':
      if (x !== null) return compoundOf(x as Record<string, unknown>);
  }
  throw new ValueError(`cannot infer a datatype from ${x === null ? 'null' : typeof x}; pass a dtype`);
}

function compoundOf(rec: Record<string, unknown>): Datatype {
  const members: { name: string; offset: number; type: Datatype }[] = [];
  let offset = 0;
  for (const [name, value] of Object.entries(rec)) {
    if (Array.isArray(value) || isTypedArray(value)) throw new ValueError(`cannot infer a datatype for array field "${name}"; pass a dtype`);
    const type = datatypeOfValues(value);
    members.push({ name, offset, type });
    offset += type.class === 'string' ? 16 : type.class === 'enum' ? type.base.size : (type as { size: number }).size;
  }
  if (members.length === 0) throw new ValueError('cannot infer a datatype from an empty object');
  return { class: 'compound', size: offset, members };
}
