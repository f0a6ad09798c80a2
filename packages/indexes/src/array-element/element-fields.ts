/**
 * Little-endian field readers and writers for the fixed-width fields of array index elements
 * (HDF5 spec Appendix C.3/C.4 "Data Block" elements): addresses with the all-ones "undefined"
 * value, unsigned integers of 1–8 bytes and 32-bit filter masks. Hot loops call these per field,
 * so they take a byte array and an offset and allocate nothing.
 * @module
 */
import { FormatError, UNDEFINED_ADDRESS } from '@chunkform/core/plugin';

/** An unsigned `width`-byte integer at `b[p]`; {@link FormatError} when it exceeds 2^53 − 1. */
export function readUnsigned(b: Uint8Array, p: number, width: number, structure: string, address: number): number {
  let v = 0;
  let mul = 1;
  for (let k = 0; k < width; k++) {
    v += b[p + k]! * mul;
    mul *= 256;
  }
  if (v > Number.MAX_SAFE_INTEGER) throw new FormatError(`element field at offset ${p} exceeds 2^53`, { structure, address });
  return v;
}

/** A `width`-byte address at `b[p]`; all ones → UNDEFINED_ADDRESS. */
export function readAddress(b: Uint8Array, p: number, width: number, structure: string, address: number): number {
  let allOnes = true;
  for (let k = 0; k < width; k++) {
    if (b[p + k] !== 0xff) {
      allOnes = false;
      break;
    }
  }
  if (allOnes) return UNDEFINED_ADDRESS;
  return readUnsigned(b, p, width, structure, address);
}

/** A little-endian u32 at `b[p]`. */
export function readU32(b: Uint8Array, p: number): number {
  return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
}

/** Writes `v` as an unsigned `width`-byte integer at `out[p]`. */
export function writeUnsigned(out: Uint8Array, p: number, v: number, width: number): void {
  let x = v;
  for (let k = 0; k < width; k++) {
    out[p + k] = x % 256;
    x = Math.floor(x / 256);
  }
}

/** Writes an address (UNDEFINED_ADDRESS as all ones) at `out[p]`. */
export function writeAddress(out: Uint8Array, p: number, v: number, width: number): void {
  if (v === UNDEFINED_ADDRESS) out.fill(0xff, p, p + width);
  else writeUnsigned(out, p, v, width);
}

/** Writes a little-endian u32 at `out[p]`. */
export function writeU32(out: Uint8Array, p: number, m: number): void {
  out[p] = m & 0xff;
  out[p + 1] = (m >>> 8) & 0xff;
  out[p + 2] = (m >>> 16) & 0xff;
  out[p + 3] = (m >>> 24) & 0xff;
}
