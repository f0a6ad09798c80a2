/**
 * Stored element bytes → user values (pure; variable-length data comes from a pre-loaded
 * global heap lookup).
 * @module
 */
import { FormatError, TruncatedError, UnsupportedError, ValueError } from '../errors.js';
import { ByteReader, UNDEFINED_ADDRESS, utf8Decode, type SizeContext } from '../format/bytes.js';
import { datatypeSize, type Datatype, type FloatType, type IntegerType, type StringType } from '../format/messages/datatype.js';
import { byteSwap, decodeOddFloats, decodeOddIntegers, halfToFloat32, needsSwap } from './numeric.js';
import type { Values } from './types.js';

/** Synchronous access to global heap objects (the caller loads the collections first). */
export interface GlobalHeapLookup {
  /** The bytes of object `objectIndex` of the collection at `collectionAddress`. */
  get(collectionAddress: number, objectIndex: number): Uint8Array;
}

const STRUCTURE = 'element data';

/**
 * Decodes `count` elements of `type` from `bytes` (which must hold at least count × element size).
 * See {@link Values} for the representation of each class. `heap` resolves variable-length data.
 */
export function decodeValues(
  bytes: Uint8Array,
  type: Datatype,
  count: number,
  sizes: SizeContext,
  heap?: GlobalHeapLookup,
  opts: DecodeOptions = {},
): Values {
  const size = elementSize(type, sizes);
  if (!Number.isSafeInteger(count) || count < 0) throw new ValueError(`element count ${count} is not a non-negative integer`);
  const need = count * size;
  if (!Number.isSafeInteger(need) || need > bytes.length) {
    throw new TruncatedError(`${count} elements of ${size} bytes need ${need} bytes but only ${bytes.length} are present`, {
      structure: STRUCTURE,
    });
  }
  const elems = bytes.subarray(0, need);
  const owned = opts.owned === true && bytes.byteOffset === 0 && bytes.byteLength === need && bytes.buffer.byteLength === need;
  if (owned && type.class === 'integer') return decodeIntegers(elems, count, type, true);
  if (owned && type.class === 'float') return decodeFloats(elems, count, type, true);
  return decodeAll(elems, type, count, size, sizes, heap);
}

/** Options of {@link decodeValues}. */
export interface DecodeOptions {
  /**
   * The caller hands `bytes` over (it will not use them again): numeric results may then reuse
   * that memory instead of copying it, when the buffer holds exactly the elements.
   */
  owned?: boolean;
}

function elementSize(type: Datatype, sizes: SizeContext): number {
  const size = datatypeSize(type, sizes);
  if (!Number.isSafeInteger(size) || size <= 0) throw new ValueError(`datatype element size ${size} is not positive`);
  return size;
}

function decodeAll(b: Uint8Array, t: Datatype, count: number, size: number, sizes: SizeContext, heap?: GlobalHeapLookup): Values {
  switch (t.class) {
    case 'integer':
      return decodeIntegers(b, count, t);
    case 'enum':
      return decodeIntegers(b, count, t.base);
    case 'bitfield':
      return decodeIntegers(b, count, { ...t, class: 'integer', signed: false });
    case 'time':
      return decodeIntegers(b, count, { class: 'integer', size: t.size, order: t.order, signed: true, ...(t.precision ? { precision: t.precision } : {}) });
    case 'float':
      return decodeFloats(b, count, t);
    case 'string':
      return t.length === 'variable' ? decodeVlenStrings(b, count, size, sizes, heap) : decodeFixedStrings(b, count, t);
    case 'vlen':
      return decodeSequences(b, count, size, t.base, sizes, heap);
    case 'opaque': {
      const out: Uint8Array[] = new Array(count);
      for (let i = 0; i < count; i++) out[i] = b.slice(i * size, (i + 1) * size);
      return out;
    }
    case 'reference': {
      if (t.kind === 'region') {
        const out: Uint8Array[] = new Array(count);
        for (let i = 0; i < count; i++) out[i] = b.slice(i * size, (i + 1) * size);
        return out;
      }
      const r = new ByteReader(b, { sizes, structure: 'object reference' });
      const out: number[] = new Array(count);
      for (let i = 0; i < count; i++) {
        r.pos = i * size;
        out[i] = r.offset();
      }
      return out;
    }
    case 'array': {
      let n = 1;
      for (const d of t.dims) n *= d;
      const baseSize = size / n;
      const flat = decodeAll(b, t.base, count * n, baseSize, sizes, heap);
      const out: unknown[] = new Array(count);
      if (ArrayBuffer.isView(flat)) for (let i = 0; i < count; i++) out[i] = flat.subarray(i * n, (i + 1) * n);
      else for (let i = 0; i < count; i++) out[i] = flat.slice(i * n, (i + 1) * n);
      return out;
    }
    case 'compound': {
      const out: Record<string, unknown>[] = new Array(count);
      for (let i = 0; i < count; i++) out[i] = {};
      for (const m of t.members) {
        const msize = elementSize(m.type, sizes);
        if (m.offset < 0 || m.offset + msize > size) throw new ValueError(`compound member "${m.name}" does not fit its ${size}-byte record`);
        const col = new Uint8Array(count * msize);
        for (let i = 0; i < count; i++) col.set(b.subarray(i * size + m.offset, i * size + m.offset + msize), i * msize);
        const values = decodeAll(col, m.type, count, msize, sizes, heap) as ArrayLike<unknown>;
        for (let i = 0; i < count; i++) out[i]![m.name] = values[i];
      }
      return out;
    }
  }
}

/** Integers: the natural TypedArray (swapped whole-array when stored in the other byte order). */
function decodeIntegers(b: Uint8Array, count: number, t: IntegerType, owned = false): Values {
  const { size } = t;
  const standard = (size === 1 || size === 2 || size === 4 || size === 8) && (t.bitOffset ?? 0) === 0 && (t.precision ?? size * 8) === size * 8;
  if (!standard) return decodeOddIntegers(b, count, t);
  const copy = owned ? b : b.slice(0, count * size);
  if (needsSwap(t.order)) byteSwap(copy, size);
  const buf = copy.buffer;
  switch (size) {
    case 1:
      return t.signed ? new Int8Array(buf) : copy;
    case 2:
      return t.signed ? new Int16Array(buf) : new Uint16Array(buf);
    case 4:
      return t.signed ? new Int32Array(buf) : new Uint32Array(buf);
    default:
      return t.signed ? new BigInt64Array(buf) : new BigUint64Array(buf);
  }
}

/** Floats: Float32Array / Float64Array; half precision widens exactly to Float32Array. */
function decodeFloats(b: Uint8Array, count: number, t: FloatType, owned = false): Values {
  const ieee = t.exponentSize === undefined && (t.size === 2 || t.size === 4 || t.size === 8);
  if (!ieee) return decodeOddFloats(b, count, t);
  const copy = owned ? b : b.slice(0, count * t.size);
  if (needsSwap(t.order)) byteSwap(copy, t.size);
  if (t.size === 2) return halfToFloat32(new Uint16Array(copy.buffer));
  return t.size === 4 ? new Float32Array(copy.buffer) : new Float64Array(copy.buffer);
}

/** Fixed-length strings: padding stripped per the padding type, decoded as UTF-8 (ASCII is a subset). */
function decodeFixedStrings(b: Uint8Array, count: number, t: StringType): string[] {
  const len = t.length as number;
  const out: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const s = b.subarray(i * len, (i + 1) * len);
    let end = len;
    if (t.padding === 'nullterm') {
      const z = s.indexOf(0);
      if (z >= 0) end = z;
    } else {
      // Null-padded: trailing NULs. Space-padded: trailing spaces, and NULs too (writers such as
      // h5wasm leave NULs in space-padded strings; HDF5 and h5py drop them on reading).
      const space = t.padding === 'spacepad';
      while (end > 0 && (s[end - 1] === 0 || (space && s[end - 1] === 0x20))) end--;
    }
    out[i] = utf8Decode(s.subarray(0, end));
  }
  return out;
}

interface VlenRef {
  length: number;
  collection: number;
  index: number;
}

/** Reads the (length, collection address, object index) triple of variable-length element `i`. */
function vlenRef(r: ByteReader, at: number): VlenRef {
  r.pos = at;
  const length = r.u32();
  const collection = r.offset();
  const index = r.u32();
  return { length, collection, index };
}

function isNullRef(ref: VlenRef): boolean {
  return ref.length === 0 || ref.collection === 0 || ref.collection === UNDEFINED_ADDRESS;
}

function heapObject(ref: VlenRef, heap: GlobalHeapLookup | undefined, need: number): Uint8Array {
  if (!heap) throw new ValueError('variable-length data needs a global heap lookup', { structure: STRUCTURE });
  const obj = heap.get(ref.collection, ref.index);
  if (obj.length < need) {
    throw new FormatError(
      `variable-length element needs ${need} bytes but global heap object ${ref.index} holds ${obj.length}`,
      { structure: 'global heap collection', address: ref.collection },
    );
  }
  return obj.subarray(0, need);
}

function decodeVlenStrings(b: Uint8Array, count: number, size: number, sizes: SizeContext, heap?: GlobalHeapLookup): string[] {
  const r = new ByteReader(b, { sizes, structure: STRUCTURE });
  const out: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const ref = vlenRef(r, i * size);
    out[i] = isNullRef(ref) ? '' : utf8Decode(heapObject(ref, heap, ref.length));
  }
  return out;
}

function decodeSequences(b: Uint8Array, count: number, size: number, base: Datatype, sizes: SizeContext, heap?: GlobalHeapLookup): Values[] {
  const r = new ByteReader(b, { sizes, structure: STRUCTURE });
  const baseSize = elementSize(base, sizes);
  const out: Values[] = new Array(count);
  const empty = new Uint8Array(0);
  for (let i = 0; i < count; i++) {
    const ref = vlenRef(r, i * size);
    if (isNullRef(ref)) out[i] = decodeAll(empty, base, 0, baseSize, sizes, heap);
    else out[i] = decodeAll(heapObject(ref, heap, ref.length * baseSize), base, ref.length, baseSize, sizes, heap);
  }
  return out;
}

/**
 * Addresses of the global heap collections that `count` elements of `type` refer to, so the caller
 * can load them before {@link decodeValues}. Sequences nested inside variable-length data are only
 * followed when `heap` (holding the already-loaded outer collections) is given; call again with it.
 */
export function vlenHeapCollections(
  bytes: Uint8Array,
  type: Datatype,
  count: number,
  sizes: SizeContext,
  heap?: GlobalHeapLookup,
): Set<number> {
  const out = new Set<number>();
  const size = elementSize(type, sizes);
  const need = count * size;
  if (!Number.isSafeInteger(need) || need > bytes.length) {
    throw new TruncatedError(`${count} elements of ${size} bytes need ${need} bytes but only ${bytes.length} are present`, {
      structure: STRUCTURE,
    });
  }
  collect(bytes, type, count, size, sizes, out, heap, 0);
  return out;
}

function hasVlen(t: Datatype): boolean {
  switch (t.class) {
    case 'string':
      return t.length === 'variable';
    case 'vlen':
      return true;
    case 'array':
      return hasVlen(t.base);
    case 'compound':
      return t.members.some((m) => hasVlen(m.type));
    default:
      return false;
  }
}

function collect(b: Uint8Array, t: Datatype, count: number, size: number, sizes: SizeContext, out: Set<number>, heap: GlobalHeapLookup | undefined, depth: number): void {
  if (!hasVlen(t)) return;
  if (depth > 32) throw new UnsupportedError('variable-length data nested more than 32 levels');
  if (t.class === 'string' || t.class === 'vlen') {
    const r = new ByteReader(b, { sizes, structure: STRUCTURE });
    const nested = t.class === 'vlen' && heap !== undefined && hasVlen(t.base);
    const baseSize = t.class === 'vlen' ? elementSize(t.base, sizes) : 1;
    for (let i = 0; i < count; i++) {
      const ref = vlenRef(r, i * size);
      if (isNullRef(ref)) continue;
      out.add(ref.collection);
      if (nested && t.class === 'vlen') {
        collect(heapObject(ref, heap, ref.length * baseSize), t.base, ref.length, baseSize, sizes, out, heap, depth + 1);
      }
    }
  } else if (t.class === 'array') {
    let n = 1;
    for (const d of t.dims) n *= d;
    collect(b, t.base, count * n, size / n, sizes, out, heap, depth + 1);
  } else if (t.class === 'compound') {
    for (const m of t.members) {
      if (!hasVlen(m.type)) continue;
      const msize = elementSize(m.type, sizes);
      const col = new Uint8Array(count * msize);
      for (let i = 0; i < count; i++) col.set(b.subarray(i * size + m.offset, i * size + m.offset + msize), i * msize);
      collect(col, m.type, count, msize, sizes, out, heap, depth + 1);
    }
  }
}
