/**
 * Extensible Array Header ("EAHD"), HDF5 File Format Specification Appendix C.4 (H5EAcache.c
 * `H5EA__cache_hdr_serialize`). Layout: signature, version, client id, element size, max elements
 * bits, index block elements, data block minimum elements, super block minimum data pointers,
 * max data block page bits (note: this order differs from the layout message), six statistics
 * (size of lengths each), index block address, checksum.
 * @module
 */
import { ByteReader, ByteWriter, type SizeContext } from '@chunkform/core/plugin';
import { formatError, verifyChecksumAt, type Where } from '../array-element/block-io.js';
import type { ExtensibleArrayParams } from './geometry.js';

/** Signature of the extensible array header. */
export const EXTENSIBLE_ARRAY_HEADER_SIGNATURE = 'EAHD';
/** Header version HDF5 writes for ordinary chunk indexes. */
export const EXTENSIBLE_ARRAY_HEADER_VERSION = 0;

/** The statistics an extensible array header stores (`H5EA_stat_t.stored`). */
export interface ExtensibleArrayStats {
  /** Super blocks created. */
  superBlocks: number;
  /** Total bytes of the super blocks. */
  superBlockSize: number;
  /** Data blocks created. */
  dataBlocks: number;
  /** Total bytes of the data blocks (pages included). */
  dataBlockSize: number;
  /** Highest element index set, plus one. */
  maxIndexSet: number;
  /** Elements "realized": index block elements plus the elements of every data block created. */
  realizedElements: number;
}

/** The decoded extensible array header. */
export interface ExtensibleArrayHeader extends ExtensibleArrayParams {
  /** 0 for ordinary chunk indexes (structured chunk indexes use 1). */
  version: number;
  /** Array client: 0 = unfiltered chunks, 1 = filtered chunks. */
  clientId: number;
  stats: ExtensibleArrayStats;
  /** Address of the index block, or UNDEFINED_ADDRESS before the first element is set. */
  indexBlockAddress: number;
}

/** Encoded size of the header. */
export function extensibleArrayHeaderSize(sizes: SizeContext): number {
  return 4 + 1 + 1 + 6 + 6 * sizes.sizeOfLengths + sizes.sizeOfOffsets + 4;
}

/** Decodes an extensible array header (spec Appendix C.4, "Extensible Array Header"); verifies signature, version and checksum. */
export function decodeExtensibleArrayHeader(bytes: Uint8Array, sizes: SizeContext, where: Where): ExtensibleArrayHeader {
  const size = extensibleArrayHeaderSize(sizes);
  verifyChecksumAt(bytes, size - 4, where);
  const r = new ByteReader(bytes, { sizes, structure: where.structure, base: where.address });
  r.signature(EXTENSIBLE_ARRAY_HEADER_SIGNATURE);
  const version = r.u8();
  if (version > 1) throw formatError(where, `unsupported extensible array header version ${version}`);
  const clientId = r.u8();
  const elementSize = r.u8();
  const maxBits = r.u8();
  const indexElements = r.u8();
  const dataBlockMinElements = r.u8();
  const superBlockMinDataPointers = r.u8();
  const pageBits = r.u8();
  const stat = (): number => {
    const v = r.length();
    if (v < 0) throw formatError(where, 'undefined statistics field');
    return v;
  };
  const stats: ExtensibleArrayStats = {
    superBlocks: stat(),
    superBlockSize: stat(),
    dataBlocks: stat(),
    dataBlockSize: stat(),
    maxIndexSet: stat(),
    realizedElements: stat(),
  };
  const indexBlockAddress = r.offset();
  return { version, clientId, elementSize, maxBits, indexElements, dataBlockMinElements, superBlockMinDataPointers, pageBits, stats, indexBlockAddress };
}

/** Encodes an extensible array header (spec Appendix C.4, "Extensible Array Header"). */
export function encodeExtensibleArrayHeader(h: ExtensibleArrayHeader, sizes: SizeContext): Uint8Array {
  const w = new ByteWriter(sizes, extensibleArrayHeaderSize(sizes));
  w.signature(EXTENSIBLE_ARRAY_HEADER_SIGNATURE);
  w.u8(h.version);
  w.u8(h.clientId);
  w.u8(h.elementSize);
  w.u8(h.maxBits);
  w.u8(h.indexElements);
  w.u8(h.dataBlockMinElements);
  w.u8(h.superBlockMinDataPointers);
  w.u8(h.pageBits);
  const s = h.stats;
  w.length(s.superBlocks);
  w.length(s.superBlockSize);
  w.length(s.dataBlocks);
  w.length(s.dataBlockSize);
  w.length(s.maxIndexSet);
  w.length(s.realizedElements);
  w.offset(h.indexBlockAddress);
  w.checksum(0);
  return w.finishExact();
}
