/**
 * Link Info message (HDF5 spec IV.A.2.c, type 0x0002): creation-order tracking and the dense link
 * storage (fractal heap + v2 B-tree indexes) of a new-style group.
 * @module
 */
import { ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, DEFAULT_SIZES, UNDEFINED_ADDRESS, type SizeContext } from '../bytes.js';

/** A decoded link info message. */
export interface LinkInfoMessage {
  /** Flag bit 0: link creation order is tracked. */
  trackCreationOrder: boolean;
  /** Flag bit 1: link creation order is indexed. */
  indexCreationOrder: boolean;
  /** Largest creation index used so far (present when tracked). */
  maxCreationIndex?: number;
  /** Fractal heap holding dense links ({@link UNDEFINED_ADDRESS} when links are compact). */
  fractalHeapAddress: number;
  /** v2 B-tree indexing link names. */
  nameIndexAddress: number;
  /** v2 B-tree indexing creation order (present when indexed). */
  creationOrderIndexAddress?: number;
}

const STRUCTURE = 'link info message';

/** Decodes a link info message body (spec IV.A.2.c, version 0). */
export function decodeLinkInfo(body: Uint8Array, sizes: SizeContext = DEFAULT_SIZES, address = UNDEFINED_ADDRESS): LinkInfoMessage {
  const r = new ByteReader(body, { sizes, structure: STRUCTURE, base: address });
  const version = r.u8();
  if (version !== 0) throw r.error(`unsupported version ${version}`);
  const flags = r.u8();
  if (flags & ~0x03) throw r.error(`unknown flags 0x${flags.toString(16)}`);
  const msg: LinkInfoMessage = {
    trackCreationOrder: (flags & 1) !== 0,
    indexCreationOrder: (flags & 2) !== 0,
    fractalHeapAddress: UNDEFINED_ADDRESS,
    nameIndexAddress: UNDEFINED_ADDRESS,
  };
  if (flags & 1) msg.maxCreationIndex = r.u64();
  msg.fractalHeapAddress = r.offset();
  msg.nameIndexAddress = r.offset();
  if (flags & 2) msg.creationOrderIndexAddress = r.offset();
  return msg;
}

/** Encodes a link info message body (spec IV.A.2.c, version 0). */
export function encodeLinkInfo(msg: LinkInfoMessage, sizes: SizeContext = DEFAULT_SIZES): Uint8Array {
  const flags = (msg.trackCreationOrder ? 1 : 0) | (msg.indexCreationOrder ? 2 : 0);
  const max = msg.maxCreationIndex ?? 0;
  if (!Number.isSafeInteger(max) || max < 0) throw new ValueError(`invalid max creation index ${max}`, { structure: STRUCTURE });
  const w = new ByteWriter(sizes, 2 + 8 + 3 * sizes.sizeOfOffsets);
  w.u8(0).u8(flags);
  if (flags & 1) w.u64(max);
  w.offset(msg.fractalHeapAddress);
  w.offset(msg.nameIndexAddress);
  if (flags & 2) w.offset(msg.creationOrderIndexAddress ?? UNDEFINED_ADDRESS);
  return w.finish().slice();
}
