/**
 * Extensible Array Super Block ("EASB"), HDF5 File Format Specification Appendix C.4
 * (H5EAcache.c `H5EA__cache_sblock_serialize`, H5EAsblock.c). Layout: signature, version, client
 * id, header address, block offset (`ceil(maxBits/8)` bytes), the data blocks' "page initialised"
 * bitmaps (present when its data blocks are paged: `dataBlocks × ceil(pages/8)` bytes, used as one
 * MSB-first bit string, bit = data block × pages + page), the data block addresses, checksum.
 * @module
 */
import { ByteReader, ByteWriter, type SizeContext, ValueError } from '@chunkform/core/plugin';
import { formatError, needBytes, verifyChecksumAt, type Where } from '../array-element/block-io.js';
import type { ExtensibleArrayGeometry } from './geometry.js';

/** Signature of the extensible array super block. */
export const EXTENSIBLE_ARRAY_SUPER_BLOCK_SIGNATURE = 'EASB';

/** The decoded super block. */
export interface ExtensibleArraySuperBlock {
  version: number;
  clientId: number;
  /** Address of the owning header (an integrity check). */
  headerAddress: number;
  /** Index (after the index block's elements) of the super block's first element. */
  blockOffset: number;
  /** Page-initialised bitmap (empty when the data blocks are not paged). */
  pageInit: Uint8Array;
  /** Data block addresses (UNDEFINED_ADDRESS where none was created). */
  dataBlockAddresses: number[];
}

/** Bytes of the page-initialised bitmaps of super block `s`. */
export function superBlockPageInitSize(g: ExtensibleArrayGeometry, s: number): number {
  const pages = g.pagesPerDataBlock(s);
  return pages > 0 ? g.superBlocks[s]!.dataBlocks * Math.ceil(pages / 8) : 0;
}

/** Encoded size of super block `s`. */
export function extensibleArraySuperBlockSize(g: ExtensibleArrayGeometry, s: number): number {
  const o = g.sizes.sizeOfOffsets;
  return 4 + 1 + 1 + o + g.arrayOffsetSize + superBlockPageInitSize(g, s) + g.superBlocks[s]!.dataBlocks * o + 4;
}

/** Decodes super block `s` (spec Appendix C.4, "Extensible Array Secondary Block"); verifies signature and checksum. */
export function decodeExtensibleArraySuperBlock(bytes: Uint8Array, g: ExtensibleArrayGeometry, s: number, where: Where): ExtensibleArraySuperBlock {
  const size = extensibleArraySuperBlockSize(g, s);
  needBytes(bytes, size, where);
  verifyChecksumAt(bytes, size - 4, where);
  const r = new ByteReader(bytes.subarray(0, size), { sizes: g.sizes, structure: where.structure, base: where.address });
  r.signature(EXTENSIBLE_ARRAY_SUPER_BLOCK_SIGNATURE);
  const version = r.u8();
  if (version > 1) throw formatError(where, `unsupported extensible array super block version ${version}`);
  const clientId = r.u8();
  const headerAddress = r.offset();
  const blockOffset = r.uN(g.arrayOffsetSize);
  const pageInit = r.bytesView(superBlockPageInitSize(g, s), 'page init bitmap').slice();
  const n = g.superBlocks[s]!.dataBlocks;
  const dataBlockAddresses = new Array<number>(n);
  for (let i = 0; i < n; i++) dataBlockAddresses[i] = r.offset();
  return { version, clientId, headerAddress, blockOffset, pageInit, dataBlockAddresses };
}

/** Encodes super block `s` (spec Appendix C.4, "Extensible Array Secondary Block"). */
export function encodeExtensibleArraySuperBlock(b: ExtensibleArraySuperBlock, g: ExtensibleArrayGeometry, s: number, sizes: SizeContext): Uint8Array {
  if (b.pageInit.length !== superBlockPageInitSize(g, s) || b.dataBlockAddresses.length !== g.superBlocks[s]!.dataBlocks) {
    throw new ValueError(`super block ${s} has the wrong bitmap or address count`, { structure: 'extensible array super block' });
  }
  const w = new ByteWriter(sizes, extensibleArraySuperBlockSize(g, s));
  w.signature(EXTENSIBLE_ARRAY_SUPER_BLOCK_SIGNATURE);
  w.u8(b.version);
  w.u8(b.clientId);
  w.offset(b.headerAddress);
  w.uN(b.blockOffset, g.arrayOffsetSize);
  w.bytes(b.pageInit);
  for (const a of b.dataBlockAddresses) w.offset(a);
  w.checksum(0);
  return w.finishExact();
}
