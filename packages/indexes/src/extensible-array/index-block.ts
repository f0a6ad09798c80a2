/**
 * Extensible Array Index Block ("EAIB"), HDF5 File Format Specification Appendix C.4
 * (H5EAcache.c `H5EA__cache_iblock_serialize`). Layout: signature, version, client id, header
 * address, the index block's elements, `2·(minPointers−1)` data block addresses, the super block
 * addresses, checksum.
 * @module
 */
import { ByteReader, ByteWriter, type SizeContext, ValueError } from '@chunkform/core/plugin';
import { formatError, needBytes, verifyChecksumAt, type Where } from '../array-element/block-io.js';
import type { ExtensibleArrayGeometry } from './geometry.js';

/** Signature of the extensible array index block. */
export const EXTENSIBLE_ARRAY_INDEX_BLOCK_SIGNATURE = 'EAIB';

/** The decoded index block. */
export interface ExtensibleArrayIndexBlock {
  version: number;
  clientId: number;
  /** Address of the owning header (an integrity check). */
  headerAddress: number;
  /** Raw encoded elements (`indexElements` of them). */
  elements: Uint8Array;
  /** Data block addresses (UNDEFINED_ADDRESS where none was created). */
  dataBlockAddresses: number[];
  /** Super block addresses for super blocks `indexBlockSuperBlocks ...`. */
  superBlockAddresses: number[];
}

/** Encoded size of the index block. */
export function extensibleArrayIndexBlockSize(g: ExtensibleArrayGeometry): number {
  const o = g.sizes.sizeOfOffsets;
  return 4 + 1 + 1 + o + g.params.indexElements * g.params.elementSize + (g.indexBlockDataBlocks + g.indexBlockSuperBlockAddrs) * o + 4;
}

/** Decodes an index block (spec Appendix C.4, "Extensible Array Index Block"); verifies signature and checksum. */
export function decodeExtensibleArrayIndexBlock(bytes: Uint8Array, g: ExtensibleArrayGeometry, where: Where): ExtensibleArrayIndexBlock {
  const size = extensibleArrayIndexBlockSize(g);
  needBytes(bytes, size, where);
  verifyChecksumAt(bytes, size - 4, where);
  const r = new ByteReader(bytes.subarray(0, size), { sizes: g.sizes, structure: where.structure, base: where.address });
  r.signature(EXTENSIBLE_ARRAY_INDEX_BLOCK_SIGNATURE);
  const version = r.u8();
  if (version > 1) throw formatError(where, `unsupported extensible array index block version ${version}`);
  const clientId = r.u8();
  const headerAddress = r.offset();
  const elements = r.bytesView(g.params.indexElements * g.params.elementSize, 'elements');
  const dataBlockAddresses = new Array<number>(g.indexBlockDataBlocks);
  for (let i = 0; i < dataBlockAddresses.length; i++) dataBlockAddresses[i] = r.offset();
  const superBlockAddresses = new Array<number>(g.indexBlockSuperBlockAddrs);
  for (let i = 0; i < superBlockAddresses.length; i++) superBlockAddresses[i] = r.offset();
  return { version, clientId, headerAddress, elements, dataBlockAddresses, superBlockAddresses };
}

/** Encodes an index block (spec Appendix C.4, "Extensible Array Index Block"). */
export function encodeExtensibleArrayIndexBlock(b: ExtensibleArrayIndexBlock, g: ExtensibleArrayGeometry, sizes: SizeContext): Uint8Array {
  const fail = (m: string): never => {
    throw new ValueError(m, { structure: 'extensible array index block' });
  };
  if (b.elements.length !== g.params.indexElements * g.params.elementSize) fail('element bytes have the wrong size');
  if (b.dataBlockAddresses.length !== g.indexBlockDataBlocks) fail('wrong number of data block addresses');
  if (b.superBlockAddresses.length !== g.indexBlockSuperBlockAddrs) fail('wrong number of super block addresses');
  const w = new ByteWriter(sizes, extensibleArrayIndexBlockSize(g));
  w.signature(EXTENSIBLE_ARRAY_INDEX_BLOCK_SIGNATURE);
  w.u8(b.version);
  w.u8(b.clientId);
  w.offset(b.headerAddress);
  w.bytes(b.elements);
  for (const a of b.dataBlockAddresses) w.offset(a);
  for (const a of b.superBlockAddresses) w.offset(a);
  w.checksum(0);
  return w.finishExact();
}
