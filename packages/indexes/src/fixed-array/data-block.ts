/**
 * Fixed Array Data Block ("FADB"), HDF5 File Format Specification Appendix C.3 (H5FAcache.c,
 * H5FAdblock.c). Layout: signature, version, client id, header address, then either all elements
 * (unpaged: at most 2^pageBits entries) or a "page initialised" bitmap (paged), then a checksum.
 * Pages of a paged block follow the block's prefix contiguously, each `pageEntries × elementSize`
 * bytes plus its own checksum (the last page may be shorter).
 * @module
 */
import { ValueError, ByteReader, ByteWriter, type SizeContext } from '@chunkform/core/plugin';
import { formatError, needBytes, verifyChecksumAt, type Where } from '../array-element/block-io.js';

/** Signature of the fixed array data block. */
export const FIXED_ARRAY_DATA_BLOCK_SIGNATURE = 'FADB';

/** Sizes and page geometry of a fixed array data block. */
export interface FixedArrayDataBlockLayout {
  entries: number;
  elementSize: number;
  /** Elements per page (2^pageBits). */
  pageEntries: number;
  /** Number of pages; 0 when the block is not paged. */
  npages: number;
  /** Elements of the last page (paged blocks). */
  lastPageEntries: number;
  /** Bytes of the page-initialised bitmap (paged blocks). */
  pageInitSize: number;
  /** Bytes read/written as the block itself: the whole block unpaged, the prefix (with checksum) paged. */
  blockSize: number;
  /** Bytes of a full page including its checksum. */
  pageSize: number;
  /** File space of the block including all pages. */
  totalSize: number;
}

/** Computes the geometry of a data block of `entries` elements (H5FA__dblock_alloc). */
export function fixedArrayDataBlockLayout(entries: number, elementSize: number, pageBits: number, sizes: SizeContext): FixedArrayDataBlockLayout {
  const pageEntries = 2 ** pageBits;
  const head = 4 + 1 + 1 + sizes.sizeOfOffsets;
  if (entries <= pageEntries) {
    const blockSize = head + entries * elementSize + 4;
    return { entries, elementSize, pageEntries, npages: 0, lastPageEntries: 0, pageInitSize: 0, blockSize, pageSize: 0, totalSize: blockSize };
  }
  const npages = Math.ceil(entries / pageEntries);
  const rem = entries % pageEntries;
  const pageInitSize = Math.ceil(npages / 8);
  const blockSize = head + pageInitSize + 4;
  return {
    entries,
    elementSize,
    pageEntries,
    npages,
    lastPageEntries: rem === 0 ? pageEntries : rem,
    pageInitSize,
    blockSize,
    pageSize: pageEntries * elementSize + 4,
    totalSize: blockSize + entries * elementSize + npages * 4,
  };
}

/** The decoded fixed array data block (the prefix only, for paged blocks). */
export interface FixedArrayDataBlock {
  version: number;
  clientId: number;
  /** Address of the owning header (an integrity check). */
  headerAddress: number;
  /** Page-initialised bitmap, MSB first (paged blocks), else null. */
  pageInit: Uint8Array | null;
  /** Raw encoded elements (unpaged blocks), else null. */
  elements: Uint8Array | null;
}

/**
 * Decodes a fixed array data block (spec Appendix C.3, "Fixed Array Data Block") from the
 * `layout.blockSize` bytes at its address; verifies signature and checksum.
 */
export function decodeFixedArrayDataBlock(
  bytes: Uint8Array,
  layout: FixedArrayDataBlockLayout,
  sizes: SizeContext,
  where: Where,
): FixedArrayDataBlock {
  needBytes(bytes, layout.blockSize, where);
  verifyChecksumAt(bytes, layout.blockSize - 4, where);
  const r = new ByteReader(bytes.subarray(0, layout.blockSize), { sizes, structure: where.structure, base: where.address });
  r.signature(FIXED_ARRAY_DATA_BLOCK_SIGNATURE);
  const version = r.u8();
  if (version > 1) throw formatError(where, `unsupported fixed array data block version ${version}`);
  const clientId = r.u8();
  const headerAddress = r.offset();
  if (layout.npages > 0) {
    const pageInit = r.bytesView(layout.pageInitSize, 'page init bitmap').slice();
    return { version, clientId, headerAddress, pageInit, elements: null };
  }
  const elements = r.bytesView(layout.entries * layout.elementSize, 'elements');
  return { version, clientId, headerAddress, pageInit: null, elements };
}

/** Encodes a fixed array data block (its prefix, for paged blocks) — spec Appendix C.3, "Fixed Array Data Block". */
export function encodeFixedArrayDataBlock(block: FixedArrayDataBlock, layout: FixedArrayDataBlockLayout, sizes: SizeContext): Uint8Array {
  const w = new ByteWriter(sizes, layout.blockSize);
  w.signature(FIXED_ARRAY_DATA_BLOCK_SIGNATURE);
  w.u8(block.version);
  w.u8(block.clientId);
  w.offset(block.headerAddress);
  if (layout.npages > 0) {
    if (!block.pageInit || block.pageInit.length !== layout.pageInitSize) throw new ValueError('page init bitmap has the wrong size', { structure: 'fixed array data block' });
    w.bytes(block.pageInit);
  } else {
    const n = layout.entries * layout.elementSize;
    if (!block.elements || block.elements.length !== n) throw new ValueError('element bytes have the wrong size', { structure: 'fixed array data block' });
    w.bytes(block.elements);
  }
  w.checksum(0);
  return w.finishExact();
}

/** Number of elements of page `k`. */
export function fixedArrayPageEntries(layout: FixedArrayDataBlockLayout, k: number): number {
  return k === layout.npages - 1 ? layout.lastPageEntries : layout.pageEntries;
}

/** Offset of page `k` from the data block's address. */
export function fixedArrayPageOffset(layout: FixedArrayDataBlockLayout, k: number): number {
  return layout.blockSize + k * layout.pageSize;
}

