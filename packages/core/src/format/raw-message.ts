/**
 * One message of an object header's message list as both header versions store it (HDF5 spec
 * IV.A.1.a and IV.A.1.b, "Header Message" fields): the checks on its size and flags and the copy of
 * its body, after the version's own message header has been read.
 * @module
 */
import { FormatError } from '../errors.js';
import type { ByteReader } from './bytes.js';
import { MESSAGE_FLAGS, NIL } from './messages/message-types.js';
import type { RawMessage } from './object-header.js';

/** Options of the message list decoders of both header versions. */
export interface DecodeMessagesOptions {
  /** File address of `bytes[0]` (for error messages and {@link RawMessage.bodyAddress}). */
  address: number;
  /** Index of the chunk these messages belong to (0 = the header's first chunk). */
  chunkIndex: number;
  /** Structure name for errors (default "object header"). */
  structure?: string;
  /** Keep NIL (type 0) messages in the result (default false). */
  keepNil?: boolean;
}

/**
 * Rejects message flag combinations HDF5 itself rejects (shared + don't-share; "was unknown" without
 * "mark if unknown" or together with "fail if unknown and open for write").
 */
export function checkMessageFlags(flags: number, type: number, structure: string, address: number): void {
  const bad = (why: string): never => {
    throw new FormatError(`message (type 0x${type.toString(16)}) has invalid flags 0x${flags.toString(16)}: ${why}`, { structure, address });
  };
  if (flags & MESSAGE_FLAGS.SHARED && flags & MESSAGE_FLAGS.DONT_SHARE) bad('shared and not shareable');
  if (flags & MESSAGE_FLAGS.WAS_UNKNOWN) {
    if (flags & MESSAGE_FLAGS.FAIL_IF_UNKNOWN_AND_OPEN_FOR_WRITE) bad('"was unknown" together with "fail if unknown"');
    if (!(flags & MESSAGE_FLAGS.MARK_IF_UNKNOWN)) bad('"was unknown" without "mark if unknown"');
  }
}

/**
 * The message whose header (at offset `at`: `type`, body `size`, `flags` and, v2 only, `creationOrder`) `r` has just
 * read: checks that the body fits the chunk and the flags, copies the body. Null for a NIL message
 * unless `opts.keepNil`.
 */
export function readRawMessage(
  r: ByteReader,
  at: number,
  type: number,
  size: number,
  flags: number,
  creationOrder: number | undefined,
  opts: DecodeMessagesOptions,
  structure: string,
): RawMessage | null {
  if (size > r.remaining) {
    throw new FormatError(
      `message (type 0x${type.toString(16)}) at offset ${at} has a ${size}-byte body but only ${r.remaining} bytes remain in the chunk`,
      { structure, address: opts.address },
    );
  }
  checkMessageFlags(flags, type, structure, opts.address);
  const bodyAddress = opts.address + r.pos;
  const body = r.bytesView(size).slice();
  if (type === NIL && !opts.keepNil) return null;
  const m: RawMessage = { type, flags, body, chunkIndex: opts.chunkIndex, bodyAddress };
  if (creationOrder !== undefined) m.creationOrder = creationOrder;
  return m;
}
