/**
 * Object headers (HDF5 spec IV.A.1): reading a whole header — prefix, chunk 0 and every
 * continuation chunk — into a flat list of raw messages, for versions 1 and 2. Encoders (v2 only)
 * live in `object-header-v2.ts` and are re-exported here.
 * @module
 */
import { FormatError, TruncatedError } from '../errors.js';
import type { MetadataReader } from '../file/metadata-reader.js';
import { verifyTrailingChecksum } from './bytes.js';
import { decodeContinuation } from './messages/continuation.js';
import { CONTINUATION, REFERENCE_COUNT } from './messages/message-types.js';
import { decodeReferenceCount } from './messages/reference-count.js';
import { decodeMessagesV1, decodeObjectHeaderPrefixV1, OBJECT_HEADER_V1_PREFIX_SIZE } from './object-header-v1.js';
import {
  decodeContinuationBlockV2,
  decodeMessagesV2,
  decodeObjectHeaderPrefixV2,
  OHDR_FLAGS,
  OHDR_PREFIX_MAX_SIZE,
} from './object-header-v2.js';

export { decodeMessagesV1, OBJECT_HEADER_V1_PREFIX_SIZE, type DecodeMessagesV1Options } from './object-header-v1.js';
export {
  chunk0SizeFieldWidth,
  decodeContinuationBlockV2,
  decodeMessagesV2,
  DEFAULT_MAX_COMPACT_ATTRIBUTES,
  DEFAULT_MIN_DENSE_ATTRIBUTES,
  encodeContinuationBlock,
  encodeObjectHeaderV2,
  layoutObjectHeaderV2,
  messageAreaSizeV2,
  messageSizeV2,
  objectHeaderV2PrefixSize,
  objectHeaderV2Size,
  OHDR_FLAGS,
  type DecodeMessagesV2Options,
  type EncodableMessage,
  type ObjectHeaderV2Options,
  type ObjectHeaderV2Plan,
} from './object-header-v2.js';

/** One header message as stored in the file (body not interpreted). */
export interface RawMessage {
  /** Message type (see `messages/message-types.ts`). */
  type: number;
  /** Message flags (bit 0 constant, bit 1 shared, ...). */
  flags: number;
  /** Creation order, present when the v2 header tracks attribute creation order. */
  creationOrder?: number;
  /** The message body (a copy; safe to keep). */
  body: Uint8Array;
  /** Index of the chunk holding the message (0 = first chunk). */
  chunkIndex: number;
  /** File address of the first body byte (for in-place rewrites). */
  bodyAddress: number;
}

/** Access, modification, change and birth times (seconds since the epoch) of a v2 header. */
export interface ObjectHeaderTimes {
  access: number;
  modification: number;
  change: number;
  birth: number;
}

/** Where one chunk of an object header lives. */
export interface ObjectHeaderChunk {
  /** Address of the chunk (chunk 0: the header address; v2 continuation: the `OCHK` signature). */
  address: number;
  /** Whole chunk size in bytes (chunk 0 includes the prefix; v2 chunks include the checksum). */
  size: number;
  /** Address of the message area. */
  messagesAddress: number;
  /** Size of the message area (including any gap). */
  messagesSize: number;
}

/** A decoded object header. */
export interface ObjectHeader {
  address: number;
  version: 1 | 2;
  /** OHDR flags (v2; 0 for v1). */
  flags: number;
  /** Stored times (v2 with flag bit 5). */
  times?: ObjectHeaderTimes;
  /** Attribute phase-change values, when stored (v2 flag bit 4; otherwise 8 and 6 apply). */
  maxCompactAttributes?: number;
  minDenseAttributes?: number;
  /** Hard-link count: the v1 prefix field, or the v2 reference count message (default 1). */
  referenceCount: number;
  /** All messages of all chunks in chunk order, NIL messages removed. */
  messages: RawMessage[];
  /** The chunks, in the order they were read. */
  chunks: ObjectHeaderChunk[];
}

/** The fixed part of an object header. */
export interface ObjectHeaderPrefix {
  version: 1 | 2;
  flags: number;
  times?: ObjectHeaderTimes;
  maxCompactAttributes?: number;
  minDenseAttributes?: number;
  /** v1 only: object reference count. */
  referenceCount?: number;
  /** v1 only: total number of messages (all chunks, as recorded; not enforced, like HDF5). */
  messageCount?: number;
  /** Bytes before chunk 0's messages (16 for v1). */
  prefixSize: number;
  /** Size of chunk 0's message area (v2: excluding the checksum). */
  chunk0Size: number;
}

/** Bytes to read to be sure of holding any prefix (v1 or v2). */
export const OBJECT_HEADER_PREFIX_MAX_SIZE = OHDR_PREFIX_MAX_SIZE;

/** Upper bound on the number of chunks of one header (guards against crafted files). */
export const MAX_OBJECT_HEADER_CHUNKS = 1 << 20;

const HEADER = 'object header';
const CONT_BLOCK = 'object header continuation block';

/**
 * Decodes the prefix of a v1 (IV.A.1.a) or v2 (IV.A.1.b) object header; `bytes` starts at the
 * header and must hold the whole prefix ({@link OBJECT_HEADER_PREFIX_MAX_SIZE} is always enough).
 */
export function decodeObjectHeaderPrefix(bytes: Uint8Array, address: number): ObjectHeaderPrefix {
  if (bytes.length < 1) throw new TruncatedError('no bytes for the object header prefix', { structure: HEADER, address });
  if (bytes[0] === 0x4f /* 'O' */) return decodeObjectHeaderPrefixV2(bytes, address);
  if (bytes[0] === 1) return decodeObjectHeaderPrefixV1(bytes, address);
  throw new FormatError(`not an object header: first byte 0x${bytes[0]!.toString(16).padStart(2, '0')}`, { structure: HEADER, address });
}

/**
 * Reads the object header at `address` (spec IV.A.1): its prefix, chunk 0 and all continuation
 * chunks (followed in the order their continuation messages appear). Verifies v2 checksums
 * ({@link ChecksumError} naming "object header" or "object header continuation block" and the
 * address), detects continuation loops and bounds the chunk count ({@link FormatError}).
 */
export async function readObjectHeader(reader: MetadataReader, address: number): Promise<ObjectHeader> {
  if (!Number.isSafeInteger(address) || address < 0 || address >= reader.eof) {
    throw new TruncatedError(`object header address ${address} is outside the file (${reader.eof} bytes)`, { structure: HEADER, address });
  }
  const head = await reader.read(address, Math.min(OBJECT_HEADER_PREFIX_MAX_SIZE, reader.eof - address), HEADER);
  const prefix = decodeObjectHeaderPrefix(head, address);
  const { version, prefixSize, chunk0Size } = prefix;
  const track = version === 2 && (prefix.flags & OHDR_FLAGS.ATTR_CREATION_ORDER_TRACKED) !== 0;
  const messagesAddress = address + prefixSize;
  const chunk0Total = prefixSize + chunk0Size + (version === 2 ? 4 : 0);
  if (address + chunk0Total > reader.eof) {
    throw new TruncatedError(`chunk 0 (${chunk0Total} bytes) extends past the end of the file (${reader.eof} bytes)`, {
      structure: HEADER,
      address,
    });
  }

  let messages;
  if (version === 1) {
    const bytes = await reader.read(messagesAddress, chunk0Size, HEADER);
    messages = decodeMessagesV1(bytes, { address: messagesAddress, chunkIndex: 0 });
  } else {
    const bytes = await reader.read(address, chunk0Total, HEADER);
    verifyTrailingChecksum(bytes, HEADER, address);
    messages = decodeMessagesV2(bytes.subarray(prefixSize, prefixSize + chunk0Size), {
      address: messagesAddress,
      chunkIndex: 0,
      trackCreationOrder: track,
    });
  }
  const chunks: ObjectHeaderChunk[] = [{ address, size: chunk0Total, messagesAddress, messagesSize: chunk0Size }];
  const visited = new Set<number>([address, messagesAddress]);
  let totalBytes = chunk0Total;

  // Breadth-first over continuation messages, as HDF5 loads chunks.
  for (let scan = 0; scan < messages.length; scan++) {
    const m = messages[scan]!;
    if (m.type !== CONTINUATION) continue;
    const cont = decodeContinuation(m.body, reader.sizes, m.bodyAddress);
    if (visited.has(cont.address)) {
      throw new FormatError(`continuation message at address ${m.bodyAddress} points back to chunk at address ${cont.address} (loop)`, {
        structure: HEADER,
        address,
      });
    }
    if (chunks.length >= MAX_OBJECT_HEADER_CHUNKS) {
      throw new FormatError(`more than ${MAX_OBJECT_HEADER_CHUNKS} chunks`, { structure: HEADER, address });
    }
    totalBytes += cont.length;
    if (totalBytes > reader.eof) {
      throw new FormatError(`chunks total ${totalBytes} bytes, more than the file holds (overlapping continuation chunks)`, {
        structure: HEADER,
        address,
      });
    }
    visited.add(cont.address);
    const chunkIndex = chunks.length;
    const bytes = await reader.read(cont.address, cont.length, CONT_BLOCK);
    let more;
    if (version === 1) {
      more = decodeMessagesV1(bytes, { address: cont.address, chunkIndex, structure: CONT_BLOCK });
      chunks.push({ address: cont.address, size: cont.length, messagesAddress: cont.address, messagesSize: cont.length });
    } else {
      more = decodeContinuationBlockV2(bytes, cont.address, { chunkIndex, trackCreationOrder: track });
      chunks.push({ address: cont.address, size: cont.length, messagesAddress: cont.address + 4, messagesSize: cont.length - 8 });
    }
    for (const x of more) messages.push(x);
  }

  let referenceCount = prefix.referenceCount ?? 1;
  if (version === 2) {
    const rc = messages.find((x) => x.type === REFERENCE_COUNT);
    if (rc) referenceCount = decodeReferenceCount(rc.body, reader.sizes, rc.bodyAddress);
  }
  const header: ObjectHeader = { address, version, flags: prefix.flags, referenceCount, messages, chunks };
  if (prefix.times) header.times = prefix.times;
  if (prefix.maxCompactAttributes !== undefined) header.maxCompactAttributes = prefix.maxCompactAttributes;
  if (prefix.minDenseAttributes !== undefined) header.minDenseAttributes = prefix.minDenseAttributes;
  return header;
}
