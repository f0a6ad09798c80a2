/**
 * Helpers shared by the fixed and extensible array structures: the "page initialised" bitmaps
 * (most significant bit first, as HDF5's `H5VM_bit_get/set`), checksum verification that names
 * the dataset, and typed errors located at a structure.
 * @module
 */
import { ChecksumError, FormatError, TruncatedError, lookup3 } from '@chunkform/core/plugin';

/** Where a structure lives, for error messages. */
export interface Where {
  structure: string;
  address: number;
  path?: string;
}

/** A {@link FormatError} located at `w`. */
export function formatError(w: Where, message: string): FormatError {
  return new FormatError(message, { structure: w.structure, address: w.address, ...(w.path !== undefined ? { path: w.path } : {}) });
}

/** Throws {@link TruncatedError} unless `bytes` holds at least `n` bytes. */
export function needBytes(bytes: Uint8Array, n: number, w: Where): void {
  if (bytes.length < n) {
    throw new TruncatedError(`needs ${n} bytes, only ${bytes.length} available`, {
      structure: w.structure,
      address: w.address,
      ...(w.path !== undefined ? { path: w.path } : {}),
    });
  }
}

/** Verifies the lookup3 checksum stored in the 4 bytes at `end` over `bytes[0, end)`. */
export function verifyChecksumAt(bytes: Uint8Array, end: number, w: Where): void {
  needBytes(bytes, end + 4, w);
  const stored = (bytes[end]! | (bytes[end + 1]! << 8) | (bytes[end + 2]! << 16) | (bytes[end + 3]! << 24)) >>> 0;
  const computed = lookup3(bytes.subarray(0, end));
  if (stored !== computed) throw new ChecksumError(w.structure, w.address, stored, computed, w.path);
}

/** Writes the lookup3 checksum of `bytes[0, end)` into the 4 bytes at `end`. */
export function writeChecksumAt(bytes: Uint8Array, end: number): void {
  const c = lookup3(bytes.subarray(0, end));
  bytes[end] = c & 0xff;
  bytes[end + 1] = (c >>> 8) & 0xff;
  bytes[end + 2] = (c >>> 16) & 0xff;
  bytes[end + 3] = (c >>> 24) & 0xff;
}

/** Bit `i` of an MSB-first bitmap. */
export function bitGet(map: Uint8Array, i: number): boolean {
  return ((map[i >>> 3]! >>> (7 - (i & 7))) & 1) === 1;
}

/** Sets bit `i` of an MSB-first bitmap. */
export function bitSet(map: Uint8Array, i: number): void {
  map[i >>> 3] = map[i >>> 3]! | (0x80 >>> (i & 7));
}

/** Checks that `[address, address + size)` lies inside the file. */
export function checkExtent(address: number, size: number, eof: number, w: Where): void {
  if (!Number.isSafeInteger(address) || address < 0 || !Number.isSafeInteger(size) || address + size > eof) {
    throw formatError(w, `${size} bytes at address ${address} extend past the end of the file (${eof} bytes)`);
  }
}
