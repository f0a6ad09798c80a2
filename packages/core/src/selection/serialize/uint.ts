/**
 * Variable-width unsigned integers of the selection encodings (2, 4 or 8 bytes, little-endian):
 * bulk readers that check the bytes once, writers, and the width rule.
 * @module
 */
import type { ByteReader, ByteWriter } from '../../format/bytes.js';

/** An encoded width of selection information ("enc size"). */
export type UintWidth = 2 | 4 | 8;

const TWO32 = 0x100000000;

/** HDF5's width rule: the narrowest of 2, 4, 8 bytes holding `max` (`H5S__hyper_get_enc_size_real`). */
export function widthFor(max: number): UintWidth {
  return max > 0xffffffff ? 8 : max > 0xffff ? 4 : 2;
}

/** True for a supported encoded width. */
export function isWidth(n: number): n is UintWidth {
  return n === 2 || n === 4 || n === 8;
}

/** True when the `width` bytes at `at` are all ones (the "unlimited" marker of regular hyperslabs). */
export function isAllOnesAt(b: Uint8Array, at: number, width: number): boolean {
  for (let i = 0; i < width; i++) if (b[at + i] !== 0xff) return false;
  return true;
}

/** Writes an unsigned integer of width 2, 4 or 8 (the value must fit). */
export function writeUint(w: ByteWriter, v: number, width: number): void {
  if (width === 2) w.u16(v);
  else if (width === 4) w.u32(v);
  else w.u32(v % TWO32).u32(Math.floor(v / TWO32));
}

/** Reads one unsigned integer of width 2, 4 or 8 (FormatError beyond 2^53). */
export function readUint(r: ByteReader, width: UintWidth, what: string): number {
  r.need(width, what);
  return width === 2 ? r.u16() : width === 4 ? r.u32() : r.uN(8);
}

/**
 * Reads `count` unsigned integers of `width` bytes into a new array, after checking that the
 * bytes are there (so `count` from the file never sizes an allocation on its own).
 */
export function readUints(r: ByteReader, count: number, width: UintWidth, what: string): Float64Array {
  r.need(count * width, what);
  const out = new Float64Array(count);
  const v = r.view;
  let p = r.pos;
  if (width === 2) {
    for (let i = 0; i < count; i++, p += 2) out[i] = v.getUint16(p, true);
  } else if (width === 4) {
    for (let i = 0; i < count; i++, p += 4) out[i] = v.getUint32(p, true);
  } else {
    for (let i = 0; i < count; i++, p += 8) {
      const hi = v.getUint32(p + 4, true);
      if (hi > 0x1fffff) throw r.error(`${what}: value at offset ${p} exceeds 2^53`);
      out[i] = hi * TWO32 + v.getUint32(p, true);
    }
  }
  r.pos = p;
  return out;
}

/** Writes every value of `values` with `width` bytes (values must fit). */
export function writeUints(w: ByteWriter, values: ArrayLike<number>, width: UintWidth, add = 0, from = 0, to = values.length): void {
  if (width === 2) for (let i = from; i < to; i++) w.u16(values[i]! + add);
  else if (width === 4) for (let i = from; i < to; i++) w.u32(values[i]! + add);
  else for (let i = from; i < to; i++) writeUint(w, values[i]! + add, 8);
}
