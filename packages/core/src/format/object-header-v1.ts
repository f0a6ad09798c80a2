/**
 * Version 1 object headers (HDF5 spec IV.A.1.a): a 16-byte prefix and chunks of raw messages with
 * 8-byte headers (type, size, flags, 3 reserved bytes). Continuation chunks hold messages only.
 * @module
 */
import { FormatError } from '../errors.js';
import { ByteReader } from './bytes.js';
import { MESSAGE_FLAGS, NIL } from './messages/message-types.js';
import type { ObjectHeaderPrefix, RawMessage } from './object-header.js';

const HEADER = 'object header';

/** Size of the v1 prefix (12 bytes of fields + 4 bytes of alignment padding). */
export const OBJECT_HEADER_V1_PREFIX_SIZE = 16;

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

/** Decodes the 16-byte v1 prefix (spec IV.A.1.a) of `bytes` (which start at the header). */
export function decodeObjectHeaderPrefixV1(bytes: Uint8Array, address: number): ObjectHeaderPrefix {
  const r = new ByteReader(bytes, { structure: HEADER, base: address });
  r.need(OBJECT_HEADER_V1_PREFIX_SIZE, 'version 1 object header prefix');
  const version = r.u8();
  if (version !== 1) throw r.error(`unsupported object header version ${version}`);
  r.skip(1); // reserved
  const messageCount = r.u16();
  const referenceCount = r.u32();
  const chunk0Size = r.u32();
  return { version: 1, flags: 0, referenceCount, messageCount, prefixSize: OBJECT_HEADER_V1_PREFIX_SIZE, chunk0Size };
}

/** Options of {@link decodeMessagesV1}. */
export interface DecodeMessagesV1Options {
  /** File address of `bytes[0]`. */
  address: number;
  /** Index of the chunk (0 = the chunk after the prefix). */
  chunkIndex: number;
  /** Structure name for errors (default "object header"). */
  structure?: string;
  /** Keep NIL (type 0) messages in the result (default false). */
  keepNil?: boolean;
}

/**
 * Decodes the messages of one v1 chunk (spec IV.A.1.a, "Version 1 Object Header" message list):
 * `bytes` is the chunk's message area. Every byte must belong to a message (v1 has no gaps).
 */
export function decodeMessagesV1(bytes: Uint8Array, opts: DecodeMessagesV1Options): RawMessage[] {
  const structure = opts.structure ?? HEADER;
  const r = new ByteReader(bytes, { structure, base: opts.address });
  const out: RawMessage[] = [];
  while (r.remaining > 0) {
    const at = r.pos;
    if (r.remaining < 8) {
      throw new FormatError(`${r.remaining} bytes at offset ${at} are too few for a message header`, { structure, address: opts.address });
    }
    const type = r.u16();
    const size = r.u16();
    const flags = r.u8();
    r.skip(3);
    if (size > r.remaining) {
      throw new FormatError(
        `message (type 0x${type.toString(16)}) at offset ${at} has a ${size}-byte body but only ${r.remaining} bytes remain in the chunk`,
        { structure, address: opts.address },
      );
    }
    checkMessageFlags(flags, type, structure, opts.address);
    const bodyAddress = opts.address + r.pos;
    const body = r.bytesView(size).slice();
    if (type === NIL && !opts.keepNil) continue;
    out.push({ type, flags, body, chunkIndex: opts.chunkIndex, bodyAddress });
  }
  return out;
}
