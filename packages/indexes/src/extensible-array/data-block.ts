/**
 * Extensible Array Data Block ("EADB"), HDF5 File Format Specification Appendix C.4
 * (H5EAcache.c `H5EA__cache_dblock_serialize`, H5EAdblock.c). Layout: signature, version, client
 * id, header address, block offset (`ceil(maxBits/8)` bytes), the elements (unpaged blocks only),
 * checksum. A paged block is this prefix (with its checksum) followed by its pages, each
 * `2^pageBits` elements plus a checksum.
 * @module
 */
import { ByteReader, ByteWriter, type SizeContext, ValueError } from '@chunkform/core/plugin';
import { formatError, needBytes, verifyChecksumAt, type Where } from '../array-element/block-io.js';
import type { ExtensibleArrayGeometry } from './geometry.js';

/** Signature of the extensible array data block. */
export const EXTENSIBLE_ARRAY_DATA_BLOCK_SIGNATURE = 'EADB';

/** Sizes of a data block of super block `s`. */
export interface ExtensibleArrayDataBlockLayout {
  /** Elements in the block. */
  entries: number;
  /** Pages (0 = unpaged). */
  npages: number;
  /** Elements per page. */
  pageEntries: number;
  /** Bytes read/written as the block itself: all of it unpaged, the prefix (with checksum) paged. */
  blockSize: number;
  /** Bytes of one page including its checksum. */
  pageSize: number;
  /** File space of the block including all pages (`H5EA_DBLOCK_SIZE`). */
  totalSize: number;
}

/** Layout of the data blocks of super block `s`. */
export function extensibleArrayDataBlockLayout(g: ExtensibleArrayGeometry, s: number): ExtensibleArrayDataBlockLayout {
  const entries = g.superBlocks[s]!.dataBlockEntries;
  const es = g.params.elementSize;
  const prefix = 4 + 1 + 1 + g.sizes.sizeOfOffsets + g.arrayOffsetSize + 4;
  const npages = g.pagesPerDataBlock(s);
  if (npages === 0) {
    const blockSize = prefix + entries * es;
    return { entries, npages, pageEntries: entries, blockSize, pageSize: 0, totalSize: blockSize };
  }
  const pageEntries = g.pageEntries;
  return { entries, npages, pageEntries, blockSize: prefix, pageSize: pageEntries * es + 4, totalSize: prefix + entries * es + npages * 4 };
}

/** The decoded data block (its prefix only, when paged). */
export interface ExtensibleArrayDataBlock {
  version: number;
  clientId: number;
  /** Address of the owning header (an integrity check). */
  headerAddress: number;
  /** The "block offset" field (see `ExtensibleArrayGeometry.dataBlockOffset`). */
  blockOffset: number;
  /** Raw encoded elements (unpaged blocks), else null. */
  elements: Uint8Array | null;
}

/** Decodes a data block (spec Appendix C.4, "Extensible Array Data Block") from its `layout.blockSize` bytes; verifies signature and checksum. */
export function decodeExtensibleArrayDataBlock(
  bytes: Uint8Array,
  g: ExtensibleArrayGeometry,
  layout: ExtensibleArrayDataBlockLayout,
  where: Where,
): ExtensibleArrayDataBlock {
  needBytes(bytes, layout.blockSize, where);
  verifyChecksumAt(bytes, layout.blockSize - 4, where);
  const r = new ByteReader(bytes.subarray(0, layout.blockSize), { sizes: g.sizes, structure: where.structure, base: where.address });
  r.signature(EXTENSIBLE_ARRAY_DATA_BLOCK_SIGNATURE);
  const version = r.u8();
  if (version > 1) throw formatError(where, `unsupported extensible array data block version ${version}`);
  const clientId = r.u8();
  const headerAddress = r.offset();
  const blockOffset = r.uN(g.arrayOffsetSize);
  const elements = layout.npages > 0 ? null : r.bytesView(layout.entries * g.params.elementSize, 'elements');
  return { version, clientId, headerAddress, blockOffset, elements };
}

/** Encodes a data block (its prefix, when paged) — spec Appendix C.4, "Extensible Array Data Block". */
export function encodeExtensibleArrayDataBlock(
  b: ExtensibleArrayDataBlock,
  g: ExtensibleArrayGeometry,
  layout: ExtensibleArrayDataBlockLayout,
  sizes: SizeContext,
): Uint8Array {
  const w = new ByteWriter(sizes, layout.blockSize);
  w.signature(EXTENSIBLE_ARRAY_DATA_BLOCK_SIGNATURE);
  w.u8(b.version);
  w.u8(b.clientId);
  w.offset(b.headerAddress);
  w.uN(b.blockOffset, g.arrayOffsetSize);
  if (layout.npages === 0) {
    if (!b.elements || b.elements.length !== layout.entries * g.params.elementSize) {
      throw new ValueError('element bytes have the wrong size', { structure: 'extensible array data block' });
    }
    w.bytes(b.elements);
  }
  w.checksum(0);
  return w.finishExact();
}
