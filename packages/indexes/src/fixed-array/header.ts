/**
 * Fixed Array Header ("FAHD"), HDF5 File Format Specification Appendix C.3 "Fixed Array Index"
 * (H5FAcache.c). Layout: signature, version, client id, element size (1), data block page bits
 * (1), maximum number of entries (size of lengths), data block address (size of offsets), checksum.
 * @module
 */
import { ByteReader, ByteWriter, type SizeContext } from '@chunkform/core/plugin';
import { formatError, verifyChecksumAt, type Where } from '../array-element/block-io.js';

/** Signature of the fixed array header. */
export const FIXED_ARRAY_HEADER_SIGNATURE = 'FAHD';
/** Header version HDF5 writes for ordinary chunk indexes. */
export const FIXED_ARRAY_HEADER_VERSION = 0;

/** The decoded fixed array header. */
export interface FixedArrayHeader {
  /** 0 for ordinary chunk indexes (structured chunk indexes use 1). */
  version: number;
  /** Array client: 0 = unfiltered chunks, 1 = filtered chunks. */
  clientId: number;
  /** Bytes per element. */
  elementSize: number;
  /** log2 of the elements per data block page. */
  pageBits: number;
  /** Number of elements (chunks over the maximum dimensions). */
  entries: number;
  /** Address of the data block, or UNDEFINED_ADDRESS before the first chunk is stored. */
  dataBlockAddress: number;
}

/** Encoded size of the header. */
export function fixedArrayHeaderSize(sizes: SizeContext): number {
  return 4 + 1 + 1 + 1 + 1 + sizes.sizeOfLengths + sizes.sizeOfOffsets + 4;
}

/** Decodes a fixed array header (spec Appendix C.3, "Fixed Array Header"); verifies signature, version and checksum. */
export function decodeFixedArrayHeader(bytes: Uint8Array, sizes: SizeContext, where: Where): FixedArrayHeader {
  const size = fixedArrayHeaderSize(sizes);
  verifyChecksumAt(bytes, size - 4, where);
  const r = new ByteReader(bytes, { sizes, structure: where.structure, base: where.address });
  r.signature(FIXED_ARRAY_HEADER_SIGNATURE);
  const version = r.u8();
  if (version > 1) throw formatError(where, `unsupported fixed array header version ${version}`);
  const clientId = r.u8();
  const elementSize = r.u8();
  const pageBits = r.u8();
  const entries = r.length();
  const dataBlockAddress = r.offset();
  if (elementSize === 0) throw formatError(where, 'element size 0');
  if (pageBits === 0 || pageBits > 31) throw formatError(where, `invalid data block page bits ${pageBits}`);
  if (entries < 0) throw formatError(where, 'undefined number of entries');
  return { version, clientId, elementSize, pageBits, entries, dataBlockAddress };
}

/** Encodes a fixed array header (spec Appendix C.3, "Fixed Array Header"). */
export function encodeFixedArrayHeader(h: FixedArrayHeader, sizes: SizeContext): Uint8Array {
  const w = new ByteWriter(sizes, fixedArrayHeaderSize(sizes));
  w.signature(FIXED_ARRAY_HEADER_SIGNATURE);
  w.u8(h.version);
  w.u8(h.clientId);
  w.u8(h.elementSize);
  w.u8(h.pageBits);
  w.length(h.entries);
  w.offset(h.dataBlockAddress);
  w.checksum(0);
  return w.finishExact();
}
