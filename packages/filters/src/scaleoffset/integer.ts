/**
 * Scale-offset for integers (H5Zscaleoffset.c, H5Z__scaleoffset_precompress_i /
 * postdecompress_i): values are stored as `value - min` in `minbits` bits; with a defined fill
 * value, the all-ones pattern stands for it.
 * @module
 */
import { BitReader, BitWriter } from '../util/bits.js';
import { SO_INFO, type ScaleOffsetParams } from './params.js';

/** What the compressor decided for a chunk. */
export interface IntPlan {
  minbits: number;
  /** The minimum as stored in the header: 64-bit two's complement, as (lo, hi) 32-bit halves. */
  minLo: number;
  minHi: number;
}

/** ceil(log2(num)) as HDF5 computes it (H5Z__scaleoffset_log2; 0 and 1 give 1 and 0). */
export function log2ceil(num: bigint): number {
  let v = 0;
  let lower = 1n;
  let x = num;
  while ((x >>= 1n) !== 0n) {
    v++;
    lower <<= 1n;
  }
  return num === lower ? v : v + 1;
}

function readFillBig(p: ScaleOffsetParams): bigint {
  const dv = new DataView(p.fill.buffer, p.fill.byteOffset, 8);
  const bits = BigInt(p.size * 8);
  const u = dv.getBigUint64(0, true) & ((1n << bits) - 1n);
  return p.signed ? BigInt.asIntN(p.size * 8, u) : u;
}

function readAll(data: Uint8Array, p: ScaleOffsetParams, n: number): BigInt64Array | BigUint64Array | Float64Array {
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const le = p.littleEndian;
  const s = p.size;
  if (s === 8) {
    const out = p.signed ? new BigInt64Array(n) : new BigUint64Array(n);
    if (p.signed) for (let i = 0; i < n; i++) out[i] = dv.getBigInt64(8 * i, le);
    else for (let i = 0; i < n; i++) out[i] = dv.getBigUint64(8 * i, le);
    return out;
  }
  const out = new Float64Array(n);
  if (s === 1) for (let i = 0; i < n; i++) out[i] = p.signed ? dv.getInt8(i) : dv.getUint8(i);
  else if (s === 2) for (let i = 0; i < n; i++) out[i] = p.signed ? dv.getInt16(2 * i, le) : dv.getUint16(2 * i, le);
  else for (let i = 0; i < n; i++) out[i] = p.signed ? dv.getInt32(4 * i, le) : dv.getUint32(4 * i, le);
  return out;
}

/**
 * Chooses minbits and the minimum for a chunk of integers and packs the values after `header`
 * bytes of `out` (the caller allocates `out` from the returned size).
 * Returns the plan and a function packing into a buffer.
 */
export function planIntegers(data: Uint8Array, p: ScaleOffsetParams, n: number): { plan: IntPlan; pack: (out: Uint8Array, start: number) => void } {
  const bits = p.size * 8;
  const mod = 1n << BigInt(bits);
  const vals = readAll(data, p, n);
  const big = vals instanceof Float64Array ? null : vals;
  const get = big ? (i: number) => big[i]! : (i: number) => BigInt((vals as Float64Array)[i]!);
  const fill = readFillBig(p);
  const fillDefined = p.fillDefined;
  let min = 0n;
  let max = 0n;
  let first = true;
  const auto = p.scaleFactor === 0;
  for (let i = 0; i < n; i++) {
    const x = get(i);
    if (fillDefined && x === fill) continue;
    if (first) {
      min = max = x;
      first = false;
    } else {
      if (x < min) min = x;
      if (x > max) max = x;
    }
  }
  let minbits: number;
  let storeMin = true;
  if (auto) {
    if (max - min > mod - 3n) {
      // Full precision: HDF5 returns before recording the minimum (except signed char without fill).
      minbits = bits;
      storeMin = !fillDefined && p.signed && p.size === 1;
    } else {
      const span = max - min + 1n;
      minbits = log2ceil(fillDefined ? span + 1n : span);
    }
  } else {
    minbits = p.scaleFactor;
  }
  const m64 = storeMin ? BigInt.asUintN(64, min) : 0n;
  const plan: IntPlan = { minbits, minLo: Number(m64 & 0xffffffffn), minHi: Number(m64 >> 32n) };
  const pack = (out: Uint8Array, start: number): void => {
    if (minbits === 0) return;
    const w = new BitWriter(out, start);
    const marker = (1n << BigInt(minbits)) - 1n;
    if (!big && minbits <= 32) {
      const f = vals as Float64Array;
      const fillN = Number(fill);
      const minN = Number(min);
      const markerN = Number(marker);
      const modN = Number(mod);
      for (let i = 0; i < n; i++) {
        const x = f[i]!;
        const t = fillDefined && x === fillN ? markerN : (x - minN + modN) % modN;
        w.write(t, minbits);
      }
      return;
    }
    for (let i = 0; i < n; i++) {
      const x = get(i);
      const t = fillDefined && x === fill ? marker : BigInt.asUintN(bits, x - min);
      if (minbits > 32) {
        w.write(Number((t >> 32n) & 0xffffffffn), minbits - 32);
        w.write(Number(t & 0xffffffffn), 32);
      } else {
        w.write(Number(t & 0xffffffffn), minbits);
      }
    }
  };
  return { plan, pack };
}

/** Unpacks `n` integers of `minbits` bits from `src` at `start` into `out` (dataset byte order). */
export function unpackIntegers(src: Uint8Array, start: number, out: Uint8Array, p: ScaleOffsetParams, n: number, minbits: number, minLo: number, minHi: number): void {
  const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const le = p.littleEndian;
  const s = p.size;
  const r = new BitReader(src, start, SO_INFO);
  if (s <= 4) {
    const modN = 2 ** (s * 8);
    const minN = s === 4 ? minLo : minLo % modN;
    const fillDv = new DataView(p.fill.buffer, p.fill.byteOffset, 8);
    const fillN = s === 1 ? fillDv.getUint8(0) : s === 2 ? fillDv.getUint16(0, true) : fillDv.getUint32(0, true);
    const marker = 2 ** minbits - 1;
    const fillDefined = p.fillDefined;
    for (let i = 0; i < n; i++) {
      const v = minbits === 0 ? 0 : r.read(minbits);
      const x = fillDefined && v === marker ? fillN : (v + minN) % modN;
      if (s === 1) out[i] = x;
      else if (s === 2) dv.setUint16(2 * i, x, le);
      else dv.setUint32(4 * i, x, le);
    }
    return;
  }
  const min = (BigInt(minHi) << 32n) | BigInt(minLo);
  const fill = new DataView(p.fill.buffer, p.fill.byteOffset, 8).getBigUint64(0, true);
  const marker = (1n << BigInt(minbits)) - 1n;
  for (let i = 0; i < n; i++) {
    let v: bigint;
    if (minbits === 0) v = 0n;
    else if (minbits > 32) {
      const hi = r.read(minbits - 32);
      v = (BigInt(hi) << 32n) | BigInt(r.read(32));
    } else v = BigInt(r.read(minbits));
    const x = p.fillDefined && v === marker ? fill : BigInt.asUintN(64, v + min);
    dv.setBigUint64(8 * i, x, le);
  }
}
