/**
 * Checked conversion of decoded numbers into a caller's TypedArray (`Dataset.readInto`), with
 * numpy's casting names. `'same_kind'` (the default) refuses what does not fit — overflow (int32 →
 * Int16Array, 2^31 → Int16Array), a negative into an unsigned array, a fraction, NaN or ±infinity into
 * an integer array, a finite value beyond float32's range into a Float32Array — and lets floats round
 * (float64 → Float32Array, int32 beyond 2^24 → Float32Array), as h5py's `read_direct` does;
 * `'same_value'` also refuses rounding (every value must be stored exactly); `'unsafe'` converts as
 * JavaScript stores numbers (integers wrap, fractions truncate, NaN becomes 0). Each check is one loop
 * over the whole array, skipped when the source type always fits the target.
 * @module
 */
import { ValueError } from '../errors.js';
import type { Datatype } from '../format/messages/datatype.js';
import type { NumericArray } from './types.js';

/** How values are converted into an array of another element type (numpy's `casting`). */
export type Casting = 'same_kind' | 'same_value' | 'unsafe';

/** The accepted {@link Casting} values. */
export const CASTINGS: readonly Casting[] = ['same_kind', 'same_value', 'unsafe'];

/** What an array type holds: integers (a range), floats (float32 or float64 precision) or bigints (a range). */
interface Kind {
  kind: 'int' | 'float' | 'big';
  /** Integers: the range; floats: bits of mantissa + 1 (exact integers up to 2^bits). */
  lo: number;
  hi: number;
  bits: number;
}

const KINDS = new Map<unknown, Kind>([
  [Int8Array, { kind: 'int', lo: -128, hi: 127, bits: 8 }],
  [Uint8Array, { kind: 'int', lo: 0, hi: 255, bits: 8 }],
  [Uint8ClampedArray, { kind: 'int', lo: 0, hi: 255, bits: 8 }],
  [Int16Array, { kind: 'int', lo: -32768, hi: 32767, bits: 16 }],
  [Uint16Array, { kind: 'int', lo: 0, hi: 65535, bits: 16 }],
  [Int32Array, { kind: 'int', lo: -(2 ** 31), hi: 2 ** 31 - 1, bits: 32 }],
  [Uint32Array, { kind: 'int', lo: 0, hi: 2 ** 32 - 1, bits: 32 }],
  [Float32Array, { kind: 'float', lo: -Infinity, hi: Infinity, bits: 24 }],
  [Float64Array, { kind: 'float', lo: -Infinity, hi: Infinity, bits: 53 }],
  [BigInt64Array, { kind: 'big', lo: -(2 ** 63), hi: 2 ** 63, bits: 64 }],
  [BigUint64Array, { kind: 'big', lo: 0, hi: 2 ** 64, bits: 64 }],
]);

function kindOf(a: NumericArray): Kind {
  const k = KINDS.get(a.constructor);
  if (!k) throw new ValueError(`${a.constructor.name} is not a numeric TypedArray`);
  return k;
}

/**
 * The TypedArray type `decodeValues` returns for a dataset of type `t` (standard integer and IEEE
 * float layouts), or null when it needs a conversion pass (odd layouts, float16, other classes).
 */
export function nativeArrayType(t: Datatype): Function | null {
  if (t.class === 'integer') {
    const standard = (t.bitOffset ?? 0) === 0 && (t.precision ?? t.size * 8) === t.size * 8;
    if (!standard) return null;
    const table: Record<number, [Function, Function]> = {
      1: [Int8Array, Uint8Array],
      2: [Int16Array, Uint16Array],
      4: [Int32Array, Uint32Array],
      8: [BigInt64Array, BigUint64Array],
    };
    const pair = table[t.size];
    return pair ? pair[t.signed ? 0 : 1] : null;
  }
  if (t.class === 'float' && t.exponentSize === undefined) return t.size === 4 ? Float32Array : t.size === 8 ? Float64Array : null;
  return null;
}

/** True when every value of a `src`-kind array is exactly representable in a `dst`-kind array. */
function alwaysFits(src: Kind, dst: Kind): boolean {
  if (src.kind === 'float') return dst.kind === 'float' && dst.bits >= src.bits;
  if (dst.kind === 'float') return src.bits <= dst.bits; // integers up to 2^bits are exact
  return src.lo >= dst.lo && src.hi <= dst.hi; // int/big into int/big: range inclusion
}

type NumberArray = Exclude<NumericArray, BigInt64Array | BigUint64Array>;
type BigArray = BigInt64Array | BigUint64Array;

// One small function per test, so each loop is optimised on its own.

/** First index outside [lo, hi] (integer sources: they are whole). */
function outOfRange(a: NumberArray, lo: number, hi: number): number {
  const n = a.length;
  for (let i = 0; i < n; i++) {
    const v = a[i]!;
    if (v < lo || v > hi) return i;
  }
  return -1;
}

/**
 * First index not a whole number in [lo, hi] ⊆ the int32 range: `v | 0` is v only for whole numbers
 * in that range (NaN, ±Infinity and fractions fail it) and is much cheaper than `v % 1`.
 */
function notInt32In(a: NumberArray, lo: number, hi: number): number {
  const n = a.length;
  for (let i = 0; i < n; i++) {
    const v = a[i]!;
    if ((v | 0) !== v || v < lo || v > hi) return i;
  }
  return -1;
}

/** First index not a whole number in the uint32 range. */
function notUint32(a: NumberArray): number {
  const n = a.length;
  for (let i = 0; i < n; i++) {
    const v = a[i]!;
    if (v >>> 0 !== v) return i;
  }
  return -1;
}

/** First index not a whole number in [lo, hi) (64-bit targets; NaN fails the range test). */
function notWholeIn(a: NumberArray, lo: number, hiExclusive: number): number {
  const n = a.length;
  for (let i = 0; i < n; i++) {
    const v = a[i]!;
    if (!(v >= lo && v < hiExclusive) || Math.trunc(v) !== v) return i;
  }
  return -1;
}

/** First index float32 rounding changes (NaN stays NaN). */
function notFloat32(a: NumberArray): number {
  const n = a.length;
  for (let i = 0; i < n; i++) {
    const v = a[i]!;
    if (Math.fround(v) !== v && v === v) return i;
  }
  return -1;
}

/** First finite value float32 rounding turns into ±infinity (beyond float32's range). */
function beyondFloat32(a: NumberArray): number {
  const n = a.length;
  for (let i = 0; i < n; i++) {
    const v = a[i]!;
    if (Number.isFinite(v) && !Number.isFinite(Math.fround(v))) return i;
  }
  return -1;
}

/** First bigint outside [lo, hi]. */
function bigOutOfRange(a: BigArray, lo: bigint, hi: bigint): number {
  const n = a.length;
  for (let i = 0; i < n; i++) {
    const v = a[i]!;
    if (v < lo || v > hi) return i;
  }
  return -1;
}

/** First bigint that a float64 (or float32) cannot hold exactly. */
function bigNotFloat(a: BigArray, f32: boolean): number {
  const n = a.length;
  for (let i = 0; i < n; i++) {
    const v = a[i]!;
    const x = f32 ? Math.fround(Number(v)) : Number(v);
    if (BigInt(x) !== v) return i;
  }
  return -1;
}

/** Index of the first element of `src` whose value a `d`-kind array cannot hold exactly, or -1. */
function firstChanged(src: NumericArray, s: Kind, d: Kind, casting: Casting): number {
  if (casting === 'same_kind' && d.kind === 'float') {
    // rounding allowed: only float64 values beyond float32's range do not fit (bigints always fit a float's range)
    return d.bits === 24 && s.kind === 'float' ? beyondFloat32(src as NumberArray) : -1;
  }
  if (s.kind === 'big') {
    const a = src as BigArray;
    if (d.kind === 'float') return bigNotFloat(a, d.bits === 24);
    // int or big target (big: hi is 2^63 or 2^64, exclusive, exact as a double)
    return bigOutOfRange(a, BigInt(d.lo), d.kind === 'big' ? BigInt(d.hi) - 1n : BigInt(d.hi));
  }
  const a = src as NumberArray;
  if (d.kind === 'float') return notFloat32(a); // float64 targets never get here: they hold every number
  if (s.kind === 'int') return outOfRange(a, d.lo, d.kind === 'big' ? d.hi - 1 : d.hi);
  if (d.kind === 'big') return notWholeIn(a, d.lo, d.hi);
  return d.hi === 2 ** 32 - 1 ? notUint32(a) : notInt32In(a, d.lo, d.hi);
}

function describeTarget(d: Kind, name: string): string {
  if (d.kind === 'float') return `${name} cannot hold it exactly${d.bits === 24 ? ' (or it lies beyond float32\'s range)' : ''}`;
  const hi = d.kind === 'big' ? (d.hi === 2 ** 64 ? '2^64 - 1' : '2^63 - 1') : String(d.hi);
  const lo = d.kind === 'big' && d.lo !== 0 ? '-2^63' : String(d.lo);
  return `${name} holds whole numbers from ${lo} to ${hi}`;
}

/**
 * Copies `src` into `out` (same length), converting element types. With `'same_kind'` a value that
 * does not fit (rounding of floats aside) and with `'same_value'` a value that would change throws a {@link ValueError} naming the first such element, before `out` is
 * written; with `'unsafe'` values convert as JavaScript stores them (BigInt sources wrap to the
 * target width, NaN and ±infinity into BigInt arrays become 0).
 */
export function castInto(src: NumericArray, out: NumericArray, casting: Casting): void {
  if (src.length !== out.length) throw new ValueError(`cannot convert ${src.length} values into an array of ${out.length}`);
  if (src.constructor === out.constructor) {
    if (src !== out) (out as Float64Array).set(src as Float64Array);
    return;
  }
  const s = kindOf(src);
  const d = kindOf(out);
  if (casting !== 'unsafe' && !alwaysFits(s, d)) {
    const i = firstChanged(src, s, d, casting);
    if (i >= 0) {
      throw new ValueError(
        `element ${i} (${String(src[i])}) would change when stored in ${out.constructor.name}: ${describeTarget(d, out.constructor.name)}; ` +
          `read into an array that holds the values, or pass { casting: 'unsafe' } to convert anyway (integers wrap, fractions truncate, NaN becomes 0)`,
      );
    }
  }
  const n = src.length;
  if ((s.kind === 'big') === (d.kind === 'big')) {
    (out as Float64Array).set(src as Float64Array);
  } else if (d.kind === 'big') {
    const o = out as BigInt64Array | BigUint64Array;
    const a = src as Float64Array;
    const wrap = d.lo === 0 ? BigInt.asUintN : BigInt.asIntN;
    for (let i = 0; i < n; i++) {
      const v = a[i]!;
      o[i] = Number.isFinite(v) ? wrap(64, BigInt(Math.trunc(v))) : 0n;
    }
  } else {
    const o = out as Float64Array;
    const a = src as BigInt64Array | BigUint64Array;
    if (d.kind === 'int') for (let i = 0; i < n; i++) o[i] = Number(BigInt.asIntN(d.bits, a[i]!));
    else for (let i = 0; i < n; i++) o[i] = Number(a[i]!);
  }
}
