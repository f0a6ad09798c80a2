/**
 * Object Reference Count message (HDF5 spec IV.A.2.w, type 0x0016): the hard-link count of an
 * object with a version 2 object header (version 1 headers keep it in their prefix).
 * @module
 */
import { ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, DEFAULT_SIZES, UNDEFINED_ADDRESS, type SizeContext } from '../bytes.js';

const STRUCTURE = 'object reference count message';

/** Decodes a reference count message body (spec IV.A.2.w): version 0, then the count (UINT32).
 * `sizesOrAddress`: the size context (unused here) or, as a shorthand, the body's file address.
 */
export function decodeReferenceCount(body: Uint8Array, sizesOrAddress: SizeContext | number = DEFAULT_SIZES, address = UNDEFINED_ADDRESS): number {
  const at = typeof sizesOrAddress === 'number' ? sizesOrAddress : address;
  const r = new ByteReader(body, { structure: STRUCTURE, base: at });
  const version = r.u8();
  if (version !== 0) throw r.error(`unsupported version ${version}`);
  return r.u32();
}

/** Encodes a reference count message body (spec IV.A.2.w). */
export function encodeReferenceCount(count: number): Uint8Array {
  if (!Number.isInteger(count) || count < 0 || count > 0xffffffff) throw new ValueError(`invalid reference count ${count}`, { structure: STRUCTURE });
  return new ByteWriter(undefined, 5).u8(0).u32(count).finishExact();
}
