/**
 * Group Info message (HDF5 spec IV.A.2.k, type 0x000A): link storage phase-change values and size
 * estimates of a new-style group.
 * @module
 */
import { ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, DEFAULT_SIZES, UNDEFINED_ADDRESS, type SizeContext } from '../bytes.js';

/** A decoded group info message; absent fields were not stored (HDF5 defaults: 8, 6, 4, 8). */
export interface GroupInfoMessage {
  /** Maximum number of links in compact storage. */
  maxCompact?: number;
  /** Minimum number of links in dense storage. */
  minDense?: number;
  /** Estimated number of entries. */
  estimatedEntries?: number;
  /** Estimated link name length. */
  estimatedNameLength?: number;
}

const STRUCTURE = 'group info message';

/** Decodes a group info message body (spec IV.A.2.k, version 0).
 * `sizesOrAddress`: the size context (unused here) or, as a shorthand, the body's file address.
 */
export function decodeGroupInfo(body: Uint8Array, sizesOrAddress: SizeContext | number = DEFAULT_SIZES, address = UNDEFINED_ADDRESS): GroupInfoMessage {
  const at = typeof sizesOrAddress === 'number' ? sizesOrAddress : address;
  const r = new ByteReader(body, { structure: STRUCTURE, base: at });
  const version = r.u8();
  if (version !== 0) throw r.error(`unsupported version ${version}`);
  const flags = r.u8();
  if (flags & ~0x03) throw r.error(`unknown flags 0x${flags.toString(16)}`);
  const msg: GroupInfoMessage = {};
  if (flags & 1) {
    msg.maxCompact = r.u16();
    msg.minDense = r.u16();
  }
  if (flags & 2) {
    msg.estimatedEntries = r.u16();
    msg.estimatedNameLength = r.u16();
  }
  return msg;
}

function u16(v: number, what: string): number {
  if (!Number.isInteger(v) || v < 0 || v > 0xffff) throw new ValueError(`invalid ${what} ${v}`, { structure: STRUCTURE });
  return v;
}

/**
 * Encodes a group info message body (spec IV.A.2.k, version 0). Each pair of values is stored when
 * either member is given (the other takes the HDF5 default); `{}` encodes as `00 00`.
 */
export function encodeGroupInfo(msg: GroupInfoMessage = {}): Uint8Array {
  const phase = msg.maxCompact !== undefined || msg.minDense !== undefined;
  const est = msg.estimatedEntries !== undefined || msg.estimatedNameLength !== undefined;
  const w = new ByteWriter(undefined, 10);
  w.u8(0).u8((phase ? 1 : 0) | (est ? 2 : 0));
  if (phase) w.u16(u16(msg.maxCompact ?? 8, 'max compact')).u16(u16(msg.minDense ?? 6, 'min dense'));
  if (est) w.u16(u16(msg.estimatedEntries ?? 4, 'estimated entries')).u16(u16(msg.estimatedNameLength ?? 8, 'estimated name length'));
  return w.finishExact();
}
