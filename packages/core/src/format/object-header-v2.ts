/**
 * Version 2 object headers (HDF5 spec IV.A.1.b): the `OHDR` prefix, message lists with optional
 * creation order, `OCHK` continuation blocks, their lookup3 checksums, and the encoders chunkform
 * uses to write headers.
 * @module
 */
import { TruncatedError, ValueError } from '../errors.js';
import { ByteReader, ByteWriter, DEFAULT_SIZES, UNDEFINED_ADDRESS, verifyTrailingChecksum, type SizeContext } from './bytes.js';
import { continuationMessageSize, encodeContinuation } from './messages/continuation.js';
import { CONTINUATION, NIL } from './messages/message-types.js';
import type { ObjectHeaderPrefix, ObjectHeaderTimes, RawMessage } from './object-header.js';
import { readRawMessage, type DecodeMessagesOptions } from './raw-message.js';

/** OHDR flag bits (spec IV.A.1.b "Flags"). */
export const OHDR_FLAGS = {
  /** Bits 0–1: width of the chunk-0 size field (0 → 1, 1 → 2, 2 → 4, 3 → 8 bytes). */
  CHUNK0_SIZE_MASK: 0x03,
  /** Bit 2: attribute creation order is tracked (messages carry a 2-byte creation order). */
  ATTR_CREATION_ORDER_TRACKED: 0x04,
  /** Bit 3: attribute creation order is indexed. */
  ATTR_CREATION_ORDER_INDEXED: 0x08,
  /** Bit 4: non-default attribute phase-change values are stored. */
  ATTR_PHASE_CHANGE_STORED: 0x10,
  /** Bit 5: access/modification/change/birth times are stored. */
  TIMES_STORED: 0x20,
} as const;

/** Attribute phase-change defaults (used when OHDR flag bit 4 is clear). */
export const DEFAULT_MAX_COMPACT_ATTRIBUTES = 8;
/** Attribute phase-change defaults (used when OHDR flag bit 4 is clear). */
export const DEFAULT_MIN_DENSE_ATTRIBUTES = 6;

/** Largest possible v2 prefix: signature, version, flags, times, phase change, 8-byte chunk-0 size. */
export const OHDR_PREFIX_MAX_SIZE = 4 + 1 + 1 + 16 + 4 + 8;

const HEADER = 'object header';
const CONT_BLOCK = 'object header continuation block';
const MAX_MESSAGE_BODY = 0xffff;

/** Decodes the `OHDR` prefix (spec IV.A.1.b) of `bytes` (which start at the header). */
export function decodeObjectHeaderPrefixV2(bytes: Uint8Array, address: number): ObjectHeaderPrefix {
  const r = new ByteReader(bytes, { structure: HEADER, base: address });
  r.signature('OHDR');
  const version = r.u8();
  if (version !== 2) throw r.error(`unsupported OHDR version ${version}`);
  const flags = r.u8();
  if (flags & ~0x3f) throw r.error(`unknown object header flags 0x${flags.toString(16)}`);
  const prefix: ObjectHeaderPrefix = { version: 2, flags, prefixSize: 0, chunk0Size: 0 };
  if (flags & OHDR_FLAGS.TIMES_STORED) {
    prefix.times = { access: r.u32(), modification: r.u32(), change: r.u32(), birth: r.u32() };
  }
  if (flags & OHDR_FLAGS.ATTR_PHASE_CHANGE_STORED) {
    const maxCompact = r.u16();
    const minDense = r.u16();
    if (maxCompact < minDense) throw r.error(`bad attribute phase change values (max compact ${maxCompact} < min dense ${minDense})`);
    prefix.maxCompactAttributes = maxCompact;
    prefix.minDenseAttributes = minDense;
  }
  prefix.chunk0Size = r.uN(1 << (flags & OHDR_FLAGS.CHUNK0_SIZE_MASK));
  prefix.prefixSize = r.pos;
  return prefix;
}

/** Options of the v2 message decoders. */
export interface DecodeMessagesV2Options extends DecodeMessagesOptions {
  /** OHDR flag bit 2: every message carries a 2-byte creation order. */
  trackCreationOrder: boolean;
}

/**
 * Decodes the messages of one v2 chunk (spec IV.A.1.b): `bytes` is the message area only (after the
 * prefix or `OCHK`, before the checksum). Trailing space too small for a message header is the gap.
 */
export function decodeMessagesV2(bytes: Uint8Array, opts: DecodeMessagesV2Options): RawMessage[] {
  const structure = opts.structure ?? HEADER;
  const r = new ByteReader(bytes, { structure, base: opts.address });
  const hdr = opts.trackCreationOrder ? 6 : 4;
  const out: RawMessage[] = [];
  while (r.remaining >= hdr) {
    const at = r.pos;
    const type = r.u8();
    const size = r.u16();
    const flags = r.u8();
    const creationOrder = opts.trackCreationOrder ? r.u16() : undefined;
    const m = readRawMessage(r, at, type, size, flags, creationOrder, opts, structure);
    if (m) out.push(m);
  }
  return out;
}

/**
 * Decodes a whole v2 continuation block (spec IV.A.1.b, "Version 2 Object Header Continuation
 * Block"): `OCHK`, messages, gap and checksum. Verifies the signature and the checksum.
 */
export function decodeContinuationBlockV2(
  bytes: Uint8Array,
  address: number,
  opts: { chunkIndex: number; trackCreationOrder: boolean; keepNil?: boolean },
): RawMessage[] {
  if (bytes.length < 8) throw new TruncatedError(`${bytes.length} bytes are too few for a continuation block`, { structure: CONT_BLOCK, address });
  new ByteReader(bytes, { structure: CONT_BLOCK, base: address }).signature('OCHK');
  verifyTrailingChecksum(bytes, CONT_BLOCK, address);
  return decodeMessagesV2(bytes.subarray(4, bytes.length - 4), {
    address: address + 4,
    chunkIndex: opts.chunkIndex,
    trackCreationOrder: opts.trackCreationOrder,
    structure: CONT_BLOCK,
    keepNil: opts.keepNil ?? false,
  });
}

// ---------------------------------------------------------------------------------------------
// Encoding

/** A message to encode. */
export interface EncodableMessage {
  type: number;
  flags: number;
  body: Uint8Array;
  /** Creation order (written only when the header tracks attribute creation order; default 0). */
  creationOrder?: number;
}

/** Options of {@link encodeObjectHeaderV2}. */
export interface ObjectHeaderV2Options {
  /** Size of the chunk-0 message area; unused space becomes NULL messages (or a gap < header size). Default: exactly what the messages need. */
  chunk0Size?: number;
  /** Store access/modification/change/birth times (OHDR flag bit 5). */
  storeTimes?: ObjectHeaderTimes;
  /** Track attribute creation order (flag bit 2): every message gets a 2-byte creation order. */
  trackAttributeCreationOrder?: boolean;
  /** Index attribute creation order (flag bit 3; implies tracking). */
  indexAttributeCreationOrder?: boolean;
  /** Attribute phase-change values; stored (flag bit 4) only when they differ from 8/6, as HDF5 does. */
  attributePhaseChange?: { maxCompact: number; minDense: number };
}

function tracks(opts: { trackAttributeCreationOrder?: boolean; indexAttributeCreationOrder?: boolean } | undefined): boolean {
  return !!(opts?.trackAttributeCreationOrder || opts?.indexAttributeCreationOrder);
}

/** Bytes a message occupies in a v2 chunk: 4-byte header (6 with creation order) + body. */
export function messageSizeV2(m: { body: Uint8Array }, trackCreationOrder = false): number {
  return (trackCreationOrder ? 6 : 4) + m.body.length;
}

/** Bytes a list of messages occupies in a v2 chunk (without gap or fill). */
export function messageAreaSizeV2(messages: readonly { body: Uint8Array }[], trackCreationOrder = false): number {
  let n = 0;
  for (const m of messages) n += messageSizeV2(m, trackCreationOrder);
  return n;
}

/** Width in bytes of the chunk-0 size field HDF5 uses for a chunk-0 size (1, 2, 4 or 8). */
export function chunk0SizeFieldWidth(chunk0Size: number): 1 | 2 | 4 | 8 {
  if (chunk0Size > 0xffffffff) return 8;
  if (chunk0Size > 0xffff) return 4;
  if (chunk0Size > 0xff) return 2;
  return 1;
}

function storesPhaseChange(opts: ObjectHeaderV2Options): boolean {
  const p = opts.attributePhaseChange;
  return !!p && (p.maxCompact !== DEFAULT_MAX_COMPACT_ATTRIBUTES || p.minDense !== DEFAULT_MIN_DENSE_ATTRIBUTES);
}

/** Size of the `OHDR` prefix for these options and chunk-0 size. */
export function objectHeaderV2PrefixSize(opts: ObjectHeaderV2Options, chunk0Size: number): number {
  return 6 + (opts.storeTimes ? 16 : 0) + (storesPhaseChange(opts) ? 4 : 0) + chunk0SizeFieldWidth(chunk0Size);
}

/** Total on-disk size of a v2 header whose chunk 0 has `chunk0Size` message bytes: prefix + chunk 0 + checksum. */
export function objectHeaderV2Size(opts: ObjectHeaderV2Options, chunk0Size: number): number {
  return objectHeaderV2PrefixSize(opts, chunk0Size) + chunk0Size + 4;
}

function writeMessages(w: ByteWriter, messages: readonly EncodableMessage[], track: boolean, structure: string): void {
  for (const m of messages) {
    if (!Number.isInteger(m.type) || m.type < 0 || m.type > 0xff) throw new ValueError(`message type ${m.type} does not fit a v2 header`, { structure });
    if (m.body.length > MAX_MESSAGE_BODY) throw new ValueError(`message body of ${m.body.length} bytes exceeds 65535`, { structure });
    w.u8(m.type).u16(m.body.length).u8(m.flags);
    if (track) w.u16(m.creationOrder ?? 0);
    w.bytes(m.body);
  }
}

/** Fills `free` bytes with NULL messages, or a zero gap when there is no room for a message header. */
function writeFill(w: ByteWriter, free: number, track: boolean): void {
  const hdr = track ? 6 : 4;
  while (free > 0) {
    if (free < hdr) {
      w.zeros(free);
      return;
    }
    let body = free - hdr;
    if (body > MAX_MESSAGE_BODY) {
      body = MAX_MESSAGE_BODY;
      const rest = free - hdr - body;
      if (rest > 0 && rest < hdr) body -= hdr;
    }
    w.u8(NIL).u16(body).u8(0);
    if (track) w.u16(0);
    w.zeros(body);
    free -= hdr + body;
  }
}

/**
 * Encodes a version 2 object header with all `messages` in chunk 0 (spec IV.A.1.b): prefix, messages,
 * NULL fill up to `chunk0Size`, lookup3 checksum. The chunk-0 size field width follows the size as
 * HDF5 chooses it. Throws {@link ValueError} when the messages do not fit `chunk0Size`.
 */
export function encodeObjectHeaderV2(messages: readonly EncodableMessage[], opts: ObjectHeaderV2Options = {}): Uint8Array {
  const track = tracks(opts);
  const used = messageAreaSizeV2(messages, track);
  const chunk0Size = opts.chunk0Size ?? used;
  if (!Number.isSafeInteger(chunk0Size) || chunk0Size < used) {
    throw new ValueError(`messages need ${used} bytes but chunk 0 holds ${chunk0Size}`, { structure: HEADER });
  }
  const width = chunk0SizeFieldWidth(chunk0Size);
  let flags = width === 1 ? 0 : width === 2 ? 1 : width === 4 ? 2 : 3;
  if (track) flags |= OHDR_FLAGS.ATTR_CREATION_ORDER_TRACKED;
  if (opts.indexAttributeCreationOrder) flags |= OHDR_FLAGS.ATTR_CREATION_ORDER_INDEXED;
  const phase = storesPhaseChange(opts);
  if (phase) flags |= OHDR_FLAGS.ATTR_PHASE_CHANGE_STORED;
  if (opts.storeTimes) flags |= OHDR_FLAGS.TIMES_STORED;
  const total = objectHeaderV2Size(opts, chunk0Size);
  const w = new ByteWriter(DEFAULT_SIZES, total);
  w.signature('OHDR').u8(2).u8(flags);
  if (opts.storeTimes) {
    const t = opts.storeTimes;
    w.u32(t.access).u32(t.modification).u32(t.change).u32(t.birth);
  }
  if (phase) {
    const p = opts.attributePhaseChange!;
    if (p.maxCompact < p.minDense || p.maxCompact > 0xffff || p.minDense < 0) {
      throw new ValueError(`bad attribute phase change values ${p.maxCompact}/${p.minDense}`, { structure: HEADER });
    }
    w.u16(p.maxCompact).u16(p.minDense);
  }
  w.uN(chunk0Size, width);
  writeMessages(w, messages, track, HEADER);
  writeFill(w, chunk0Size - used, track);
  w.checksum(0);
  // (the writer's buffer holds exactly `total` bytes: no copy needed)
  return w.finish();
}

/**
 * Encodes a version 2 continuation block (spec IV.A.1.b): `OCHK`, messages, NULL fill/gap, checksum.
 * `size` is the whole block length (what the continuation message records); default: the minimum.
 */
export function encodeContinuationBlock(
  messages: readonly EncodableMessage[],
  size?: number,
  opts: { trackAttributeCreationOrder?: boolean; indexAttributeCreationOrder?: boolean } = {},
): Uint8Array {
  const track = tracks(opts);
  const used = messageAreaSizeV2(messages, track);
  const total = size ?? used + 8;
  if (!Number.isSafeInteger(total) || total < used + 8) {
    throw new ValueError(`messages need a ${used + 8}-byte continuation block but ${total} bytes were given`, { structure: CONT_BLOCK });
  }
  const w = new ByteWriter(DEFAULT_SIZES, total);
  w.signature('OCHK');
  writeMessages(w, messages, track, CONT_BLOCK);
  writeFill(w, total - 8 - used, track);
  w.checksum(0);
  return w.finishExact();
}

/** Result of {@link layoutObjectHeaderV2}. */
export interface ObjectHeaderV2Plan {
  /** Messages for chunk 0, in order; when there is overflow the last one is a placeholder continuation message. */
  chunk0: EncodableMessage[];
  /** Messages that go into the continuation block (empty when everything fits). */
  overflow: EncodableMessage[];
  /** Index of the continuation message in `chunk0`, or -1. */
  continuationIndex: number;
  /** Minimum size of the continuation block (`OCHK` + overflow + checksum), or 0. */
  continuationBlockSize: number;
}

/**
 * Splits `messages` between a chunk 0 of fixed capacity (`chunk0Capacity` message bytes, i.e. the
 * `chunk0Size` the header was allocated with) and one continuation block, keeping message order.
 * Existing continuation messages in the input are dropped. When not everything fits, chunk 0 gets
 * the longest prefix of messages that leaves room for a continuation message, followed by a
 * placeholder continuation message (address {@link UNDEFINED_ADDRESS}, length =
 * `continuationBlockSize`). The caller allocates a block of at least that size, replaces
 * `chunk0[continuationIndex].body` with `encodeContinuation({ address, length }, sizes)`, writes
 * `encodeContinuationBlock(overflow, length)` there and rewrites chunk 0 in place with
 * `encodeObjectHeaderV2(chunk0, { chunk0Size: chunk0Capacity, ... })`.
 */
export function layoutObjectHeaderV2(
  messages: readonly EncodableMessage[],
  chunk0Capacity: number,
  sizes: SizeContext = DEFAULT_SIZES,
  opts: { trackAttributeCreationOrder?: boolean; indexAttributeCreationOrder?: boolean } = {},
): ObjectHeaderV2Plan {
  const track = tracks(opts);
  const msgs = messages.filter((m) => m.type !== CONTINUATION);
  if (messageAreaSizeV2(msgs, track) <= chunk0Capacity) {
    return { chunk0: msgs.slice(), overflow: [], continuationIndex: -1, continuationBlockSize: 0 };
  }
  const contEntry = (track ? 6 : 4) + continuationMessageSize(sizes);
  if (chunk0Capacity < contEntry) {
    throw new ValueError(`chunk 0 capacity ${chunk0Capacity} cannot hold a continuation message (${contEntry} bytes)`, { structure: HEADER });
  }
  let used = 0;
  let i = 0;
  while (i < msgs.length && used + messageSizeV2(msgs[i]!, track) + contEntry <= chunk0Capacity) used += messageSizeV2(msgs[i++]!, track);
  const overflow = msgs.slice(i);
  const continuationBlockSize = 8 + messageAreaSizeV2(overflow, track);
  const chunk0 = msgs.slice(0, i);
  chunk0.push({ type: CONTINUATION, flags: 0, body: encodeContinuation({ address: UNDEFINED_ADDRESS, length: continuationBlockSize }, sizes) });
  return { chunk0, overflow, continuationIndex: chunk0.length - 1, continuationBlockSize };
}
