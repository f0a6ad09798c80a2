/**
 * Scale-offset for floating-point data, D-scaling (H5Zscaleoffset.c,
 * H5Z__scaleoffset_precompress_fd / postdecompress_fd): values become
 * `round(x·10^D − min·10^D)` stored in `minbits` bits. The arithmetic follows the library's C
 * exactly — single precision for 4-byte floats (powf, lroundf), double for 8-byte ones.
 * @module
 */
import { FilterError } from '@chunkform/core/plugin';
import { BitReader, BitWriter } from '../util/bits.js';
import { log2ceil } from './integer.js';
import { SO_INFO, type ScaleOffsetParams } from './params.js';

const f32 = Math.fround;

/** 10^e correctly rounded to a double (what glibc's pow returns). */
function pow10(e: number): number {
  return Number(`1e${e}`);
}

/** C lround: halves away from zero. */
function lround(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/** What the compressor decided for a chunk. */
export interface FloatPlan {
  minbits: number;
  /** Header minimum: the float's bits in the low bytes, little-endian (8 bytes). */
  minBytes: Uint8Array;
}

function readAll(data: Uint8Array, p: ScaleOffsetParams, n: number): Float64Array {
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const out = new Float64Array(n);
  const le = p.littleEndian;
  if (p.size === 4) for (let i = 0; i < n; i++) out[i] = dv.getFloat32(4 * i, le);
  else for (let i = 0; i < n; i++) out[i] = dv.getFloat64(8 * i, le);
  return out;
}

function fillValue(p: ScaleOffsetParams): number {
  const dv = new DataView(p.fill.buffer, p.fill.byteOffset, 8);
  return p.size === 4 ? dv.getFloat32(0, true) : dv.getFloat64(0, true);
}

/** Chooses minbits and the minimum for a chunk of floats; `pack` writes the packed values. */
export function planFloats(data: Uint8Array, p: ScaleOffsetParams, n: number): { plan: FloatPlan; pack: (out: Uint8Array, start: number) => void } {
  const single = p.size === 4;
  const bits = p.size * 8;
  const D = p.scaleFactor;
  const vals = readAll(data, p, n);
  const fill = fillValue(p);
  const fillDefined = p.fillDefined;
  // max/min skip fill values by |x - fill| < 10^-D, computed with double fabs/pow (HDfabs, HDpow).
  const tolD = pow10(-D);
  let min = 0;
  let max = 0;
  if (fillDefined) {
    let first = true;
    for (let i = 0; i < n; i++) {
      const x = vals[i]!;
      if (Math.abs(single ? f32(x - fill) : x - fill) < tolD) continue;
      if (first) {
        min = max = x;
        first = false;
      } else {
        if (x > max) max = x;
        if (x < min) min = x;
      }
    }
  } else if (n > 0) {
    min = max = vals[0]!;
    for (let i = 0; i < n; i++) {
      const x = vals[i]!;
      if (x > max) max = x;
      if (x < min) min = x;
    }
  }
  const minBytes = new Uint8Array(8);
  const pw = single ? f32(pow10(D)) : pow10(D);
  const scaled = (x: number): number => (single ? f32(f32(x * pw) - f32(min * pw)) : x * pw - min * pw);
  const range = scaled(max);
  if (!Number.isFinite(range)) throw new FilterError('scale-offset cannot encode NaN or infinite values', SO_INFO);
  // Too wide for the integer type: full precision, minimum not recorded (the C code jumps out).
  if (lround(range) > 2 ** (bits - 1)) return { plan: { minbits: bits, minBytes }, pack: () => {} };
  const span = BigInt(lround(range)) + 1n;
  const minbits = log2ceil(fillDefined ? span + 1n : span);
  const mdv = new DataView(minBytes.buffer);
  if (single) mdv.setFloat32(0, min, true);
  else mdv.setFloat64(0, min, true);
  const plan: FloatPlan = { minbits, minBytes };
  const pack = (out: Uint8Array, start: number): void => {
    if (minbits === 0 || minbits === bits) return;
    const w = new BitWriter(out, start);
    // In the rewrite pass, fill values are recognised with the type's own fabs/pow.
    const tol = single ? f32(pow10(-D)) : tolD;
    const marker = 2 ** minbits - 1;
    for (let i = 0; i < n; i++) {
      const x = vals[i]!;
      const isFill = fillDefined && Math.abs(single ? f32(x - fill) : x - fill) < tol;
      const t = isFill ? marker : lround(scaled(x));
      if (minbits > 32) {
        const hi = Math.floor(t / 4294967296);
        w.write(hi, minbits - 32);
        w.write(t - hi * 4294967296, 32);
      } else {
        w.write(t, minbits);
      }
    }
  };
  return { plan, pack };
}

/** Unpacks `n` floats of `minbits` bits from `src` at `start` into `out` (dataset byte order). */
export function unpackFloats(src: Uint8Array, start: number, out: Uint8Array, p: ScaleOffsetParams, n: number, minbits: number, minBytes: Uint8Array): void {
  const single = p.size === 4;
  const D = p.scaleFactor;
  const le = p.littleEndian;
  const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const mdv = new DataView(minBytes.buffer, minBytes.byteOffset, 8);
  const min = single ? mdv.getFloat32(0, true) : mdv.getFloat64(0, true);
  const fill = fillValue(p);
  const r = new BitReader(src, start, SO_INFO);
  const fillDefined = p.fillDefined;
  if (single) {
    const pw = f32(pow10(D));
    const marker = 2 ** minbits - 1;
    for (let i = 0; i < n; i++) {
      const v = minbits === 0 ? 0 : r.read(minbits);
      const x = fillDefined && v === marker ? fill : f32(f32(f32(v) / pw) + min);
      dv.setFloat32(4 * i, x, le);
    }
    return;
  }
  const pw = pow10(D);
  const hiBits = minbits > 32 ? minbits - 32 : 0;
  const markerHi = hiBits ? 2 ** hiBits - 1 : 0;
  const markerLo = hiBits ? 4294967295 : 2 ** minbits - 1;
  for (let i = 0; i < n; i++) {
    let hi = 0;
    let lo = 0;
    if (hiBits) {
      hi = r.read(hiBits);
      lo = r.read(32);
    } else if (minbits) lo = r.read(minbits);
    const x = fillDefined && hi === markerHi && lo === markerLo ? fill : (hi * 4294967296 + lo) / pw + min;
    dv.setFloat64(8 * i, x, le);
  }
}
