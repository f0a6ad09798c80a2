/**
 * Attribute Info message (HDF5 spec IV.A.2.v, type 0x0015): creation-order tracking and the dense
 * attribute storage (fractal heap + v2 B-tree indexes) of an object.
 * @module
 */
import { ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, DEFAULT_SIZES, UNDEFINED_ADDRESS, type SizeContext } from '../bytes.js';

/** A decoded attribute info message. */
export interface AttributeInfoMessage {
  /** Flag bit 0: attribute creation order is tracked. */
  trackCreationOrder: boolean;
  /** Flag bit 1: attribute creation order is indexed. */
  indexCreationOrder: boolean;
  /** Largest creation index used so far (2 bytes; present when tracked). */
  maxCreationIndex?: number;
  /** Fractal heap holding dense attributes ({@link UNDEFINED_ADDRESS} when attributes are compact). */
  fractalHeapAddress: number;
  /** v2 B-tree indexing attribute names. */
  nameIndexAddress: number;
  /** v2 B-tree indexing creation order (present when indexed). */
  creationOrderIndexAddress?: number;
}

const STRUCTURE = 'attribute info message';

/** Decodes an attribute info message body (spec IV.A.2.v, version 0). */
export function decodeAttributeInfo(body: Uint8Array, sizes: SizeContext = DEFAULT_SIZES, address = UNDEFINED_ADDRESS): AttributeInfoMessage {
  const r = new ByteReader(body, { sizes, structure: STRUCTURE, base: address });
  const version = r.u8();
  if (version !== 0) throw r.error(`unsupported version ${version}`);
  const flags = r.u8();
  if (flags & ~0x03) throw r.error(`unknown flags 0x${flags.toString(16)}`);
  const msg: AttributeInfoMessage = {
    trackCreationOrder: (flags & 1) !== 0,
    indexCreationOrder: (flags & 2) !== 0,
    fractalHeapAddress: UNDEFINED_ADDRESS,
    nameIndexAddress: UNDEFINED_ADDRESS,
  };
  if (flags & 1) msg.maxCreationIndex = r.u16();
  msg.fractalHeapAddress = r.offset();
  msg.nameIndexAddress = r.offset();
  if (flags & 2) msg.creationOrderIndexAddress = r.offset();
  return msg;
}

/** Encodes an attribute info message body (spec IV.A.2.v, version 0). */
export function encodeAttributeInfo(msg: AttributeInfoMessage, sizes: SizeContext = DEFAULT_SIZES): Uint8Array {
  const flags = (msg.trackCreationOrder ? 1 : 0) | (msg.indexCreationOrder ? 2 : 0);
  const max = msg.maxCreationIndex ?? 0;
  if (!Number.isInteger(max) || max < 0 || max > 0xffff) throw new ValueError(`invalid max creation index ${max}`, { structure: STRUCTURE });
  const w = new ByteWriter(sizes, 4 + 3 * sizes.sizeOfOffsets);
  w.u8(0).u8(flags);
  if (flags & 1) w.u16(max);
  w.offset(msg.fractalHeapAddress);
  w.offset(msg.nameIndexAddress);
  if (flags & 2) w.offset(msg.creationOrderIndexAddress ?? UNDEFINED_ADDRESS);
  return w.finish().slice();
}
