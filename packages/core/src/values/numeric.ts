/**
 * Whole-array numeric conversions used by the value codecs: byte swapping, IEEE half precision,
 * and integers / floats with non-standard bit layouts (HDF5 bit offset, precision, custom fields).
 * @module
 */
import { UnsupportedError } from '../errors.js';
import type { ByteOrder, FloatType, IntegerType } from '../format/messages/datatype.js';
import { HOST_LE } from './types.js';

/** Reverses the byte order of every `size`-byte element of `b`, in place. */
export function byteSwap(b: Uint8Array, size: number): void {
  if (size <= 1) return;
  const n = b.length - (b.length % size);
  if (size === 2) {
    for (let i = 0; i < n; i += 2) {
      const t = b[i]!;
      b[i] = b[i + 1]!;
      b[i + 1] = t;
    }
    return;
  }
  if (size === 4) {
    for (let i = 0; i < n; i += 4) {
      const t0 = b[i]!;
      const t1 = b[i + 1]!;
      b[i] = b[i + 3]!;
      b[i + 1] = b[i + 2]!;
      b[i + 2] = t1;
      b[i + 3] = t0;
    }
    return;
  }
  if (size === 8) {
    for (let i = 0; i < n; i += 8) {
      const t0 = b[i]!;
      const t1 = b[i + 1]!;
      const t2 = b[i + 2]!;
      const t3 = b[i + 3]!;
      b[i] = b[i + 7]!;
      b[i + 1] = b[i + 6]!;
      b[i + 2] = b[i + 5]!;
      b[i + 3] = b[i + 4]!;
      b[i + 4] = t3;
      b[i + 5] = t2;
      b[i + 6] = t1;
      b[i + 7] = t0;
    }
    return;
  }
  for (let i = 0; i < n; i += size) {
    for (let a = i, z = i + size - 1; a < z; a++, z--) {
      const t = b[a]!;
      b[a] = b[z]!;
      b[z] = t;
    }
  }
}

/** True when data in `order` must be swapped to match the host's TypedArrays. */
export function needsSwap(order: ByteOrder): boolean {
  return (order === 'LE') !== HOST_LE;
}

/** Converts IEEE half-precision bit patterns to float32 exactly (subnormals, ±inf, NaN payloads). */
export function halfToFloat32(h: Uint16Array): Float32Array {
  const out = new Float32Array(h.length);
  const bits = new Uint32Array(out.buffer);
  for (let i = 0; i < h.length; i++) {
    const x = h[i]!;
    const sign = (x & 0x8000) << 16;
    const e = (x >> 10) & 0x1f;
    const m = x & 0x3ff;
    if (e === 0) {
      if (m === 0) bits[i] = sign;
      else out[i] = (sign ? -m : m) * 5.960464477539063e-8; // m × 2^-24, exact in float32
    } else if (e === 31) bits[i] = sign | 0x7f800000 | (m << 13);
    else bits[i] = sign | ((e + 112) << 23) | (m << 13);
  }
  return out;
}

const f64 = new Float64Array(1);
const f64hi = new Uint32Array(f64.buffer, HOST_LE ? 4 : 0, 1);

function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  return d > 0.5 ? f + 1 : d < 0.5 ? f : f + (f & 1);
}

/**
 * Rounds one number to IEEE half precision (round to nearest, ties to even) and returns its bit
 * pattern. Finite values of magnitude ≥ 65520 become ±infinity.
 */
export function float64ToHalfBits(v: number): number {
  if (Number.isNaN(v)) return 0x7e00;
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a === Infinity || a >= 65520) return sign | 0x7c00;
  if (a < 6.103515625e-5) return sign | roundHalfEven(a * 16777216); // subnormal: units of 2^-24
  f64[0] = a;
  let e = ((f64hi[0]! >>> 20) & 0x7ff) - 1023;
  let frac = roundHalfEven((a / 2 ** e - 1) * 1024);
  if (frac === 1024) {
    frac = 0;
    e++;
  }
  return sign | ((e + 15) << 10) | frac;
}

/** The value of a `width`-bit field at bit `pos` of an unsigned bigint. */
function field(v: bigint, pos: number, width: number): bigint {
  return (v >> BigInt(pos)) & ((1n << BigInt(width)) - 1n);
}

/** The `size`-byte element at `at` as an unsigned bigint. */
function elementBits(b: Uint8Array, at: number, size: number, order: ByteOrder): bigint {
  let v = 0n;
  for (let i = 0; i < size; i++) v = (v << 8n) | BigInt(b[order === 'BE' ? at + i : at + size - 1 - i]!);
  return v;
}

/**
 * Decodes integers with a non-standard layout (bit offset / precision, or sizes other than 1, 2, 4,
 * 8): into the natural TypedArray for sizes 1, 2, 4, 8, else Float64Array when the precision is at
 * most 53 bits, else BigInt64Array / BigUint64Array.
 */
export function decodeOddIntegers(
  b: Uint8Array,
  count: number,
  t: Pick<IntegerType, 'size' | 'order' | 'bitOffset' | 'precision'> & { signed: boolean },
): Float64Array | BigInt64Array | BigUint64Array | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array {
  const { size, signed, order } = t;
  const off = t.bitOffset ?? 0;
  const prec = t.precision ?? size * 8;
  if (prec > 64) throw new UnsupportedError(`integers of ${prec} bits are not supported`);
  const natural = size === 1 || size === 2 || size === 4 || size === 8;
  if (natural && size === 8) {
    const out = signed ? new BigInt64Array(count) : new BigUint64Array(count);
    for (let i = 0; i < count; i++) {
      let v = field(elementBits(b, i * size, size, order), off, prec);
      if (signed && v >> BigInt(prec - 1)) v -= 1n << BigInt(prec);
      out[i] = v;
    }
    return out;
  }
  if (prec <= 53) {
    const out = natural ? new (NUMBER_ARRAYS[`${signed ? 'i' : 'u'}${size}`]!)(count) : new Float64Array(count);
    const small = size <= 6;
    const pOff = 2 ** off;
    const pPrec = 2 ** prec;
    for (let i = 0; i < count; i++) {
      let v: number;
      if (small) {
        let x = 0;
        for (let k = size - 1; k >= 0; k--) x = x * 256 + b[order === 'BE' ? i * size + (size - 1 - k) : i * size + k]!;
        v = Math.floor(x / pOff) % pPrec;
      } else v = Number(field(elementBits(b, i * size, size, order), off, prec));
      if (signed && v >= pPrec / 2) v -= pPrec;
      out[i] = v;
    }
    return out;
  }
  const out = signed ? new BigInt64Array(count) : new BigUint64Array(count);
  for (let i = 0; i < count; i++) {
    let v = field(elementBits(b, i * size, size, order), off, prec);
    if (signed && v >> BigInt(prec - 1)) v -= 1n << BigInt(prec);
    out[i] = v;
  }
  return out;
}

type NumberArrayCtor =
  | Int8ArrayConstructor
  | Uint8ArrayConstructor
  | Int16ArrayConstructor
  | Uint16ArrayConstructor
  | Int32ArrayConstructor
  | Uint32ArrayConstructor;
const NUMBER_ARRAYS: Record<string, NumberArrayCtor> = {
  i1: Int8Array,
  u1: Uint8Array,
  i2: Int16Array,
  u2: Uint16Array,
  i4: Int32Array,
  u4: Uint32Array,
};

/**
 * Writes integer `v` (already range-checked) into the `size`-byte element at `at` with HDF5's bit
 * offset and precision; bits outside the field are zero.
 */
export function encodeOddInteger(out: Uint8Array, at: number, v: bigint, t: Pick<IntegerType, 'size' | 'order' | 'bitOffset' | 'precision'>): void {
  const size = t.size;
  const prec = t.precision ?? size * 8;
  let x = (v < 0n ? v + (1n << BigInt(prec)) : v) << BigInt(t.bitOffset ?? 0);
  for (let i = 0; i < size; i++) {
    out[t.order === 'BE' ? at + size - 1 - i : at + i] = Number(x & 0xffn);
    x >>= 8n;
  }
}

/** Decodes floats with a non-IEEE bit layout (HDF5's generic float description) to float64. */
export function decodeOddFloats(b: Uint8Array, count: number, t: FloatType): Float64Array {
  const size = t.size;
  if (size > 16) throw new UnsupportedError(`floats of ${size} bytes are not supported`);
  const d = { exponentLocation: 0, exponentSize: 1, mantissaLocation: 0, mantissaSize: 1, exponentBias: 0, signLocation: size * 8 - 1, normalization: 2, ...t };
  const out = new Float64Array(count);
  const eMax = 2 ** d.exponentSize - 1;
  const mScale = 2 ** d.mantissaSize;
  for (let i = 0; i < count; i++) {
    const bits = elementBits(b, i * size, size, t.order);
    const neg = field(bits, d.signLocation, 1) === 1n;
    const e = Number(field(bits, d.exponentLocation, d.exponentSize));
    const m = Number(field(bits, d.mantissaLocation, d.mantissaSize));
    let v: number;
    if (d.normalization === 2) {
      if (e === eMax) v = m === 0 ? Infinity : NaN;
      else if (e === 0) v = (m / mScale) * 2 ** (1 - d.exponentBias);
      else v = (1 + m / mScale) * 2 ** (e - d.exponentBias);
    } else {
      // Mantissa stored with its leading bit (normalization 1) or unnormalized (0): 1.xxx with the bit explicit.
      v = (m / (mScale / 2)) * 2 ** (e - d.exponentBias);
    }
    out[i] = neg ? -v : v;
  }
  return out;
}
