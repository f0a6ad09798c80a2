/**
 * Data block pages of the fixed and extensible arrays (HDF5 spec Appendix C.3 "Fixed Array Data
 * Block Page" and C.4 "Extensible Array Data Block Page"; H5FAcache.c / H5EAcache.c
 * `..._dblk_page_serialize`): the encoded elements of one page followed by their lookup3
 * checksum — no signature or prefix.
 * @module
 */
import { ValueError } from '@chunkform/core/plugin';
import { needBytes, verifyChecksumAt, writeChecksumAt, type Where } from './block-io.js';

/** Bytes of a page of `entries` elements. */
export function dataBlockPageSize(entries: number, elementSize: number): number {
  return entries * elementSize + 4;
}

/** Decodes a data block page (spec Appendix C.3/C.4 "Data Block Page"): verifies the checksum and returns the element bytes (a view). */
export function decodeDataBlockPage(bytes: Uint8Array, entries: number, elementSize: number, where: Where): Uint8Array {
  const n = entries * elementSize;
  needBytes(bytes, n + 4, where);
  verifyChecksumAt(bytes, n, where);
  return bytes.subarray(0, n);
}

/** Encodes a data block page (spec Appendix C.3/C.4 "Data Block Page") from element bytes: copies them and appends the checksum. */
export function encodeDataBlockPage(elements: Uint8Array, entries: number, elementSize: number): Uint8Array {
  const n = entries * elementSize;
  if (elements.length !== n) throw new ValueError(`data block page needs ${n} element bytes, got ${elements.length}`, { structure: 'data block page' });
  const out = new Uint8Array(n + 4);
  out.set(elements);
  writeChecksumAt(out, n);
  return out;
}
