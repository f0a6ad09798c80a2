/**
 * Shared message body (HDF5 spec IV.A.2, "Shared Message", versions 1–3): what a message with flag
 * bit 1 (shared) holds instead of its own body — a reference to a committed object's header or to
 * the shared-object-header-message (SOHM) heap.
 * @module
 */
import { ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, DEFAULT_SIZES, UNDEFINED_ADDRESS, type SizeContext } from '../bytes.js';

/** Where the real message lives. */
export type SharedMessageRef =
  /** In the object header at `address` (e.g. a committed datatype). */
  | { kind: 'object-header'; address: number }
  /** In the SOHM fractal heap, under this 8-byte heap ID. */
  | { kind: 'sohm'; heapId: Uint8Array };

const STRUCTURE = 'shared message';
/** Size of a SOHM fractal heap ID in a shared message. */
export const SOHM_HEAP_ID_SIZE = 8;

/** Decodes a shared message body (spec IV.A.2 "Shared Message", versions 1, 2 and 3). */
export function decodeSharedMessage(body: Uint8Array, sizes: SizeContext = DEFAULT_SIZES, address = UNDEFINED_ADDRESS): SharedMessageRef {
  const r = new ByteReader(body, { sizes, structure: STRUCTURE, base: address });
  const version = r.u8();
  if (version < 1 || version > 3) throw r.error(`unsupported version ${version}`);
  const type = r.u8();
  if (version === 1) {
    // Reserved bytes, then an old symbol table entry whose first field (name offset) is skipped.
    r.skip(6);
    r.skip(sizes.sizeOfLengths);
    return { kind: 'object-header', address: r.offset() };
  }
  if (version === 2) return { kind: 'object-header', address: r.offset() };
  if (type === 1) return { kind: 'sohm', heapId: r.bytesView(SOHM_HEAP_ID_SIZE, 'heap ID').slice() };
  if (type === 2) return { kind: 'object-header', address: r.offset() };
  throw r.error(`invalid share type ${type}`);
}

/** Encodes a shared message body as HDF5 does: version 2 for object-header references, version 3 for SOHM. */
export function encodeSharedMessage(ref: SharedMessageRef, sizes: SizeContext = DEFAULT_SIZES): Uint8Array {
  const w = new ByteWriter(sizes, 2 + Math.max(8, sizes.sizeOfOffsets));
  if (ref.kind === 'sohm') {
    if (ref.heapId.length !== SOHM_HEAP_ID_SIZE) throw new ValueError(`SOHM heap ID must be ${SOHM_HEAP_ID_SIZE} bytes`, { structure: STRUCTURE });
    w.u8(3).u8(1).bytes(ref.heapId);
  } else {
    w.u8(2).u8(2).offset(ref.address);
  }
  return w.finishExact();
}
