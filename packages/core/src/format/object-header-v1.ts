/**
 * Version 1 object headers (HDF5 spec IV.A.1.a): a 16-byte prefix and chunks of raw messages with
 * 8-byte headers (type, size, flags, 3 reserved bytes). Continuation chunks hold messages only.
 * @module
 */
import { FormatError } from '../errors.js';
import { ByteReader } from './bytes.js';
import type { ObjectHeaderPrefix, RawMessage } from './object-header.js';
import { readRawMessage, type DecodeMessagesOptions } from './raw-message.js';

const HEADER = 'object header';

/** Size of the v1 prefix (12 bytes of fields + 4 bytes of alignment padding). */
export const OBJECT_HEADER_V1_PREFIX_SIZE = 16;

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
export type DecodeMessagesV1Options = DecodeMessagesOptions;

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
    const m = readRawMessage(r, at, type, size, flags, undefined, opts, structure);
    if (m) out.push(m);
  }
  return out;
}
