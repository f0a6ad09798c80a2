/**
 * Symbol Table message (HDF5 spec IV.A.2.r, type 0x0011): the v1 B-tree and local heap of an
 * old-style group.
 * @module
 */
import { ByteReader, ByteWriter, DEFAULT_SIZES, UNDEFINED_ADDRESS, type SizeContext } from '../bytes.js';

/** A decoded symbol table message. */
export interface SymbolTableMessage {
  /** Address of the group's v1 B-tree (node type 0). */
  btreeAddress: number;
  /** Address of the group's local heap. */
  heapAddress: number;
}

const STRUCTURE = 'symbol table message';

/** Decodes a symbol table message body (spec IV.A.2.r). */
export function decodeSymbolTableMessage(body: Uint8Array, sizes: SizeContext = DEFAULT_SIZES, address = UNDEFINED_ADDRESS): SymbolTableMessage {
  const r = new ByteReader(body, { sizes, structure: STRUCTURE, base: address });
  const btreeAddress = r.offset();
  const heapAddress = r.offset();
  return { btreeAddress, heapAddress };
}

/** Encodes a symbol table message body (spec IV.A.2.r). */
export function encodeSymbolTableMessage(msg: SymbolTableMessage, sizes: SizeContext = DEFAULT_SIZES): Uint8Array {
  return new ByteWriter(sizes, 2 * sizes.sizeOfOffsets).offset(msg.btreeAddress).offset(msg.heapAddress).finishExact();
}
