/**
 * The layout shared by the Link Info (IV.A.2.c) and Attribute Info (IV.A.2.v) messages: version,
 * flags (bit 0 creation order tracked, bit 1 indexed), the maximum creation index (8 bytes for
 * links, 2 for attributes), the dense storage's fractal heap and name-index B-tree addresses, and
 * the creation-order index B-tree address.
 * @module
 */
import { ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, UNDEFINED_ADDRESS, type SizeContext } from '../bytes.js';

/** A decoded link info or attribute info message. */
export interface DenseStorageInfo {
  /** Flag bit 0: creation order is tracked. */
  trackCreationOrder: boolean;
  /** Flag bit 1: creation order is indexed. */
  indexCreationOrder: boolean;
  /** Next creation index to hand out (present when tracked). */
  maxCreationIndex?: number;
  /** Fractal heap of the dense storage ({@link UNDEFINED_ADDRESS} while storage is compact). */
  fractalHeapAddress: number;
  /** v2 B-tree indexing names. */
  nameIndexAddress: number;
  /** v2 B-tree indexing creation order (present when indexed). */
  creationOrderIndexAddress?: number;
}

/** Which of the two messages, and so the width of its maximum creation index. */
export interface DenseStorageInfoKind {
  structure: string;
  maxIndexBytes: 2 | 8;
}

/** Decodes a link info / attribute info message body (version 0). */
export function decodeDenseStorageInfo(body: Uint8Array, sizes: SizeContext, address: number, kind: DenseStorageInfoKind): DenseStorageInfo {
  const r = new ByteReader(body, { sizes, structure: kind.structure, base: address });
  const version = r.u8();
  if (version !== 0) throw r.error(`unsupported version ${version}`);
  const flags = r.u8();
  if (flags & ~0x03) throw r.error(`unknown flags 0x${flags.toString(16)}`);
  const msg: DenseStorageInfo = {
    trackCreationOrder: (flags & 1) !== 0,
    indexCreationOrder: (flags & 2) !== 0,
    fractalHeapAddress: UNDEFINED_ADDRESS,
    nameIndexAddress: UNDEFINED_ADDRESS,
  };
  if (flags & 1) msg.maxCreationIndex = r.uN(kind.maxIndexBytes);
  msg.fractalHeapAddress = r.offset();
  msg.nameIndexAddress = r.offset();
  if (flags & 2) msg.creationOrderIndexAddress = r.offset();
  return msg;
}

/** Encodes a link info / attribute info message body (version 0). */
export function encodeDenseStorageInfo(msg: DenseStorageInfo, sizes: SizeContext, kind: DenseStorageInfoKind): Uint8Array {
  const flags = (msg.trackCreationOrder ? 1 : 0) | (msg.indexCreationOrder ? 2 : 0);
  const max = msg.maxCreationIndex ?? 0;
  const limit = kind.maxIndexBytes === 2 ? 0xffff : Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(max) || max < 0 || max > limit) {
    throw new ValueError(`invalid max creation index ${max}`, { structure: kind.structure });
  }
  const w = new ByteWriter(sizes, 2 + kind.maxIndexBytes + 3 * sizes.sizeOfOffsets);
  w.u8(0).u8(flags);
  if (flags & 1) w.uN(max, kind.maxIndexBytes);
  w.offset(msg.fractalHeapAddress);
  w.offset(msg.nameIndexAddress);
  if (flags & 2) w.offset(msg.creationOrderIndexAddress ?? UNDEFINED_ADDRESS);
  return w.finishExact();
}
