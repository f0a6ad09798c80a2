/**
 * User values → stored element bytes, with conversion and range checks (pure; variable-length data
 * goes to a global heap writer supplied by the caller).
 * @module
 */
import { UnsupportedError, ValueError } from '../errors.js';
import { utf8Encode, type SizeContext } from '../format/bytes.js';
import { datatypeSize, type Datatype, type EnumType, type FloatType, type IntegerType, type StringType } from '../format/messages/datatype.js';
import { byteSwap, encodeOddInteger, float64ToHalfBits, needsSwap } from './numeric.js';
import { isTypedArray } from './types.js';

/** Stores variable-length data in the file's global heap. */
export interface GlobalHeapWriter {
  /** Adds one heap object; returns the collection address and object index to reference it by. */
  add(data: Uint8Array): { collection: number; index: number };
}

/**
 * Encodes `count` elements of `type`. `values` may be a TypedArray, a (nested, C-order) array of
 * numbers / bigints / booleans / strings / records, or a single value when `count` is 1. Numeric
 * inputs are converted to the target type; non-integral or out-of-range values for integer types,
 * strings longer than a fixed length and element-count mismatches throw {@link ValueError}. A
 * TypedArray that already is the stored little-endian type is returned as a byte view of itself
 * (no copy): callers that keep the result must copy it.
 */
export function encodeValues(values: unknown, type: Datatype, count: number, sizes: SizeContext, heap?: GlobalHeapWriter): Uint8Array {
  if (!Number.isSafeInteger(count) || count < 0) throw new ValueError(`element count ${count} is not a non-negative integer`);
  return nativeView(values, type, count) ?? encodeElements(values, type, count, sizes, heap, '');
}

const LITTLE_ENDIAN_HOST = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/**
 * Zero-copy fast path: a TypedArray whose element kind is exactly the stored little-endian type is
 * already its own encoding. The result aliases the input; callers that keep it must copy.
 */
function nativeView(values: unknown, t: Datatype, count: number): Uint8Array | undefined {
  if (!LITTLE_ENDIAN_HOST || !ArrayBuffer.isView(values) || values instanceof DataView) return undefined;
  if ((values as unknown as ArrayLike<unknown>).length !== count) return undefined;
  if (t.class === 'integer') {
    if (t.order !== 'LE' || (t.bitOffset ?? 0) !== 0 || (t.precision ?? t.size * 8) !== t.size * 8) return undefined;
    const ok =
      (t.size === 1 && (t.signed ? values instanceof Int8Array : values instanceof Uint8Array)) ||
      (t.size === 2 && (t.signed ? values instanceof Int16Array : values instanceof Uint16Array)) ||
      (t.size === 4 && (t.signed ? values instanceof Int32Array : values instanceof Uint32Array)) ||
      (t.size === 8 && (t.signed ? values instanceof BigInt64Array : values instanceof BigUint64Array));
    if (!ok) return undefined;
  } else if (t.class === 'float') {
    if (t.order !== 'LE' || t.exponentSize !== undefined) return undefined;
    if (!((t.size === 4 && values instanceof Float32Array) || (t.size === 8 && values instanceof Float64Array))) return undefined;
  } else return undefined;
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}

function encodeElements(values: unknown, t: Datatype, count: number, sizes: SizeContext, heap: GlobalHeapWriter | undefined, where: string): Uint8Array {
  const size = datatypeSize(t, sizes);
  if (!Number.isSafeInteger(size) || size <= 0) throw new ValueError(`datatype element size ${size} is not positive`);
  if (t.class === 'array') {
    let n = 1;
    for (const d of t.dims) n *= d;
    return encodeElements(values, t.base, count * n, sizes, heap, where);
  }
  const elems = elementsOf(values, t);
  if (elems.length !== count) throw new ValueError(`${where ? `member "${where}": ` : ''}got ${elems.length} elements, expected ${count}`);
  const out = new Uint8Array(count * size);
  switch (t.class) {
    case 'integer':
      encodeIntegers(out, elems, t, count);
      break;
    case 'bitfield':
      encodeIntegers(out, elems, { ...t, class: 'integer', signed: false }, count);
      break;
    case 'time':
      encodeIntegers(out, elems, { class: 'integer', size: t.size, order: t.order, signed: true, ...(t.precision ? { precision: t.precision } : {}) }, count);
      break;
    case 'enum':
      encodeIntegers(out, enumValues(elems, t, count), t.base, count);
      break;
    case 'float':
      encodeFloats(out, elems, t, count);
      break;
    case 'string':
      if (t.length === 'variable') encodeVlenStrings(out, elems, t, count, size, sizes, heap);
      else encodeFixedStrings(out, elems, t, count);
      break;
    case 'vlen': {
      const w = requireHeap(heap, count);
      for (let i = 0; i < count; i++) {
        const seq = elementsOf(elems[i], t.base);
        const data = encodeElements(seq, t.base, seq.length, sizes, heap, where);
        putVlen(out, i * size, seq.length, w.add(data), sizes);
      }
      break;
    }
    case 'opaque':
    case 'reference':
      if (t.class === 'reference' && t.kind === 'object') {
        for (let i = 0; i < count; i++) putAddress(out, i * size, elems[i], sizes);
        break;
      }
      for (let i = 0; i < count; i++) {
        const e = elems[i];
        if (!(e instanceof Uint8Array) || e.length !== size) throw new ValueError(`${t.class} element ${i} must be a Uint8Array of ${size} bytes`);
        out.set(e, i * size);
      }
      break;
    case 'compound':
      for (const m of t.members) {
        const col: unknown[] = new Array(count);
        for (let i = 0; i < count; i++) {
          const rec = elems[i];
          if (rec === null || typeof rec !== 'object') throw new ValueError(`compound element ${i} is not an object`);
          const v = (rec as Record<string, unknown>)[m.name];
          if (v === undefined) throw new ValueError(`compound element ${i} lacks member "${m.name}"`);
          col[i] = v;
        }
        const msize = datatypeSize(m.type, sizes);
        if (m.offset < 0 || m.offset + msize > size) throw new ValueError(`compound member "${m.name}" does not fit its ${size}-byte record`);
        const bytes = encodeElements(col, m.type, count, sizes, heap, m.name);
        for (let i = 0; i < count; i++) out.set(bytes.subarray(i * msize, (i + 1) * msize), i * size + m.offset);
      }
      break;
  }
  return out;
}

/** True when `v` is a leaf element of type `t` (not a container to flatten). */
function isLeaf(v: unknown, t: Datatype): boolean {
  switch (t.class) {
    case 'opaque':
      return v instanceof Uint8Array;
    case 'reference':
      return t.kind === 'region' ? v instanceof Uint8Array : !Array.isArray(v) && !isTypedArray(v);
    case 'vlen':
      // A sequence: a TypedArray, or an array whose items are not themselves arrays.
      return isTypedArray(v) || (Array.isArray(v) && (v.length === 0 || (!Array.isArray(v[0]) && !isTypedArray(v[0]))));
    default:
      return !Array.isArray(v) && !isTypedArray(v);
  }
}

/** The leaf elements of `values` for type `t`, flattened in C order (TypedArrays pass through). */
function elementsOf(values: unknown, t: Datatype): ArrayLike<unknown> {
  if (isLeaf(values, t)) {
    if (t.class === 'opaque' && values instanceof Uint8Array && values.length !== t.size && values.length % t.size === 0) {
      const out: Uint8Array[] = [];
      for (let i = 0; i < values.length; i += t.size) out.push(values.subarray(i, i + t.size));
      return out;
    }
    return [values];
  }
  if (isTypedArray(values)) return values;
  const arr = values as unknown[];
  let nested = false;
  for (let i = 0; i < arr.length; i++) {
    if (!isLeaf(arr[i], t)) {
      nested = true;
      break;
    }
  }
  if (!nested) return arr;
  const out: unknown[] = [];
  flattenInto(arr, t, out, 0);
  return out;
}

function flattenInto(arr: ArrayLike<unknown>, t: Datatype, out: unknown[], depth: number): void {
  if (depth > 64) throw new ValueError('values are nested more than 64 levels deep');
  for (let i = 0; i < arr.length; i++) {
    const v = arr[i];
    if (isLeaf(v, t)) out.push(v);
    else flattenInto(v as ArrayLike<unknown>, t, out, depth + 1);
  }
}

const INT_ARRAYS = {
  i1: Int8Array,
  u1: Uint8Array,
  i2: Int16Array,
  u2: Uint16Array,
  i4: Int32Array,
  u4: Uint32Array,
} as const;

function encodeIntegers(out: Uint8Array, elems: ArrayLike<unknown>, t: IntegerType, count: number): void {
  const { size, signed } = t;
  const prec = t.precision ?? size * 8;
  const standard = (size === 1 || size === 2 || size === 4 || size === 8) && (t.bitOffset ?? 0) === 0 && prec === size * 8;
  if (!standard) {
    if (prec > 64) throw new UnsupportedError(`writing integers of ${prec} bits is not supported`);
    const min = signed ? -(2n ** BigInt(prec - 1)) : 0n;
    const max = signed ? 2n ** BigInt(prec - 1) - 1n : 2n ** BigInt(prec) - 1n;
    for (let i = 0; i < count; i++) encodeOddInteger(out, i * size, toBigInt(elems[i], min, max, i), t);
    return;
  }
  let ta: Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array;
  if (size === 8) {
    const big = signed ? new BigInt64Array(count) : new BigUint64Array(count);
    if ((signed && elems instanceof BigInt64Array) || (!signed && elems instanceof BigUint64Array)) big.set(elems);
    else {
      const min = signed ? -(2n ** 63n) : 0n;
      const max = signed ? 2n ** 63n - 1n : 2n ** 64n - 1n;
      for (let i = 0; i < count; i++) big[i] = toBigInt(elems[i], min, max, i);
    }
    ta = big;
  } else {
    const Ctor = INT_ARRAYS[`${signed ? 'i' : 'u'}${size as 1 | 2 | 4}`];
    const arr = new Ctor(count);
    if (elems instanceof Ctor) arr.set(elems as never);
    else {
      const min = signed ? -(2 ** (size * 8 - 1)) : 0;
      const max = signed ? 2 ** (size * 8 - 1) - 1 : 2 ** (size * 8) - 1;
      for (let i = 0; i < count; i++) arr[i] = toInteger(elems[i], min, max, i);
    }
    ta = arr;
  }
  const bytes = new Uint8Array(ta.buffer, ta.byteOffset, ta.byteLength);
  if (needsSwap(t.order)) byteSwap(bytes, size);
  out.set(bytes);
}

function toInteger(v: unknown, min: number, max: number, i: number): number {
  let x: number;
  if (typeof v === 'number') x = v;
  else if (typeof v === 'boolean') x = v ? 1 : 0;
  else if (typeof v === 'bigint') {
    if (v < BigInt(min) || v > BigInt(max)) throw new ValueError(`element ${i} (${v}) is out of range [${min}, ${max}]`);
    return Number(v);
  } else throw new ValueError(`element ${i} (${String(v)}) is not a number`);
  if (!Number.isInteger(x)) throw new ValueError(`element ${i} (${x}) is not an integer`);
  if (x < min || x > max) throw new ValueError(`element ${i} (${x}) is out of range [${min}, ${max}]`);
  return x;
}

function toBigInt(v: unknown, min: bigint, max: bigint, i: number): bigint {
  let x: bigint;
  if (typeof v === 'bigint') x = v;
  else if (typeof v === 'boolean') x = v ? 1n : 0n;
  else if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new ValueError(`element ${i} (${v}) is not an integer`);
    x = BigInt(v);
  } else throw new ValueError(`element ${i} (${String(v)}) is not a number`);
  if (x < min || x > max) throw new ValueError(`element ${i} (${x}) is out of range [${min}, ${max}]`);
  return x;
}

/** Maps enum elements (member names, values or booleans) to checked member values. */
function enumValues(elems: ArrayLike<unknown>, t: EnumType, count: number): unknown[] {
  const byName = new Map<string, number | bigint>();
  const allowed = new Set<string>();
  for (const m of t.members) {
    byName.set(m.name, m.value);
    allowed.add(String(m.value));
  }
  const out: unknown[] = new Array(count);
  for (let i = 0; i < count; i++) {
    let v = elems[i];
    if (typeof v === 'string') {
      if (!byName.has(v)) throw new ValueError(`element ${i}: "${v}" is not a member of the enumeration`);
      v = byName.get(v);
    } else if (typeof v === 'boolean') v = v ? 1 : 0;
    if ((typeof v !== 'number' && typeof v !== 'bigint') || !allowed.has(String(v))) {
      throw new ValueError(`element ${i} (${String(v)}) is not a value of the enumeration`);
    }
    out[i] = v;
  }
  return out;
}

function toNumber(v: unknown, i: number): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint') return Number(v);
  throw new ValueError(`element ${i} (${String(v)}) is not a number`);
}

function encodeFloats(out: Uint8Array, elems: ArrayLike<unknown>, t: FloatType, count: number): void {
  const ieee = t.exponentSize === undefined && (t.size === 2 || t.size === 4 || t.size === 8);
  if (!ieee) throw new UnsupportedError(`writing ${t.size}-byte floats with a custom bit layout is not supported`);
  let ta: Float64Array | Float32Array | Uint16Array;
  if (t.size === 8) {
    ta = new Float64Array(count);
    if (isTypedArray(elems) && !(elems instanceof BigInt64Array) && !(elems instanceof BigUint64Array)) ta.set(elems as ArrayLike<number>);
    else for (let i = 0; i < count; i++) ta[i] = toNumber(elems[i], i);
  } else if (t.size === 4) {
    const f = new Float32Array(count);
    if (elems instanceof Float32Array) f.set(elems);
    else {
      for (let i = 0; i < count; i++) {
        const x = toNumber(elems[i], i);
        f[i] = x;
        if (Number.isFinite(x) && !Number.isFinite(f[i]!)) throw new ValueError(`element ${i} (${x}) overflows float32`);
      }
    }
    ta = f;
  } else {
    const h = new Uint16Array(count);
    for (let i = 0; i < count; i++) {
      const x = toNumber(elems[i], i);
      const bits = float64ToHalfBits(x);
      if (Number.isFinite(x) && (bits & 0x7c00) === 0x7c00) throw new ValueError(`element ${i} (${x}) overflows float16`);
      h[i] = bits;
    }
    ta = h;
  }
  const bytes = new Uint8Array(ta.buffer, ta.byteOffset, ta.byteLength);
  if (needsSwap(t.order)) byteSwap(bytes, t.size);
  out.set(bytes);
}

function stringBytes(v: unknown, t: StringType, i: number): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v !== 'string') throw new ValueError(`element ${i} (${String(v)}) is not a string`);
  if (t.charset === 'ascii' && !/^[\x00-\x7f]*$/.test(v)) throw new ValueError(`element ${i} has non-ASCII characters for an ASCII string type`);
  return utf8Encode(v);
}

function encodeFixedStrings(out: Uint8Array, elems: ArrayLike<unknown>, t: StringType, count: number): void {
  const len = t.length as number;
  if (t.padding === 'spacepad') out.fill(0x20);
  for (let i = 0; i < count; i++) {
    const b = stringBytes(elems[i], t, i);
    if (b.length > len) throw new ValueError(`element ${i} is ${b.length} bytes long; the string type holds ${len}`);
    out.set(b, i * len);
  }
}

function requireHeap(heap: GlobalHeapWriter | undefined, count: number): GlobalHeapWriter {
  if (!heap && count > 0) throw new ValueError('variable-length data needs a global heap writer');
  return heap!;
}

function encodeVlenStrings(
  out: Uint8Array,
  elems: ArrayLike<unknown>,
  t: StringType,
  count: number,
  size: number,
  sizes: SizeContext,
  heap: GlobalHeapWriter | undefined,
): void {
  const w = requireHeap(heap, count);
  for (let i = 0; i < count; i++) {
    const b = stringBytes(elems[i], t, i);
    putVlen(out, i * size, b.length, w.add(b), sizes);
  }
}

function putUN(out: Uint8Array, at: number, v: number, n: number): void {
  let x = v;
  for (let i = 0; i < n; i++) {
    out[at + i] = x % 256;
    x = Math.floor(x / 256);
  }
}

/** Writes a variable-length element: length (4), collection address, object index (4). */
function putVlen(out: Uint8Array, at: number, length: number, ref: { collection: number; index: number }, sizes: SizeContext): void {
  putUN(out, at, length, 4);
  putUN(out, at + 4, ref.collection, sizes.sizeOfOffsets);
  putUN(out, at + 4 + sizes.sizeOfOffsets, ref.index, 4);
}

function putAddress(out: Uint8Array, at: number, v: unknown, sizes: SizeContext): void {
  const a = typeof v === 'bigint' ? Number(v) : v;
  if (a === -1) {
    out.fill(0xff, at, at + sizes.sizeOfOffsets);
    return;
  }
  if (typeof a !== 'number' || !Number.isSafeInteger(a) || a < 0) throw new ValueError(`object reference ${String(v)} is not a file address`);
  putUN(out, at, a, sizes.sizeOfOffsets);
}
