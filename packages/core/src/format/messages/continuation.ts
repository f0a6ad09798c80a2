/**
 * Object Header Continuation message (HDF5 spec IV.A.2.q, type 0x0010): where the next chunk of an
 * object header lives.
 * @module
 */
import { ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, DEFAULT_SIZES, UNDEFINED_ADDRESS, type SizeContext } from '../bytes.js';

/** A decoded continuation message. */
export interface ContinuationMessage {
  /** Address of the continuation chunk. */
  address: number;
  /** Length of the continuation chunk in bytes (for v2 headers including `OCHK` and the checksum). */
  length: number;
}

const STRUCTURE = 'object header continuation message';

/** Size in bytes of a continuation message body: size of offsets + size of lengths. */
export function continuationMessageSize(sizes: SizeContext = DEFAULT_SIZES): number {
  return sizes.sizeOfOffsets + sizes.sizeOfLengths;
}

/** Decodes a continuation message body (spec IV.A.2.q). */
export function decodeContinuation(body: Uint8Array, sizes: SizeContext = DEFAULT_SIZES, address = UNDEFINED_ADDRESS): ContinuationMessage {
  const r = new ByteReader(body, { sizes, structure: STRUCTURE, base: address });
  const chunkAddress = r.offset();
  const length = r.length();
  if (chunkAddress === UNDEFINED_ADDRESS) throw r.error('continuation chunk address is undefined');
  if (length === UNDEFINED_ADDRESS || length === 0) throw r.error(`invalid continuation chunk length ${length}`);
  return { address: chunkAddress, length };
}

/**
 * Encodes a continuation message body (spec IV.A.2.q). Accepts `{ address, length }` or an
 * allocator extent `{ address, size }`. The address may be {@link UNDEFINED_ADDRESS} as a placeholder.
 */
export function encodeContinuation(
  msg: ContinuationMessage | { address: number; size: number },
  sizes: SizeContext = DEFAULT_SIZES,
): Uint8Array {
  const length = 'length' in msg ? msg.length : msg.size;
  if (!Number.isSafeInteger(length) || length < 0) throw new ValueError(`invalid continuation chunk length ${length}`, { structure: STRUCTURE });
  const w = new ByteWriter(sizes, continuationMessageSize(sizes));
  w.offset(msg.address);
  w.length(length);
  return w.finishExact();
}
