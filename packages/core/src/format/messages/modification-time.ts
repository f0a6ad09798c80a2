/**
 * Object Modification Time messages: the current form (HDF5 spec IV.A.2.s, type 0x0012, seconds
 * since the epoch) and the old ASCII form (IV.A.2.o, type 0x000E, "YYYYMMDDhhmmss" in UTC).
 * @module
 */
import { ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, DEFAULT_SIZES, UNDEFINED_ADDRESS, type SizeContext } from '../bytes.js';

const STRUCTURE = 'object modification time message';
const STRUCTURE_OLD = 'object modification time (old) message';

/** Decodes a modification time message body (spec IV.A.2.s, version 1) → seconds since the epoch.
 * `sizesOrAddress`: the size context (unused here) or, as a shorthand, the body's file address.
 */
export function decodeModificationTime(body: Uint8Array, sizesOrAddress: SizeContext | number = DEFAULT_SIZES, address = UNDEFINED_ADDRESS): number {
  const at = typeof sizesOrAddress === 'number' ? sizesOrAddress : address;
  const r = new ByteReader(body, { structure: STRUCTURE, base: at });
  const version = r.u8();
  if (version !== 1) throw r.error(`unsupported version ${version}`);
  r.skip(3);
  return r.u32();
}

/** Encodes a modification time message body (spec IV.A.2.s, version 1) from seconds since the epoch. */
export function encodeModificationTime(seconds: number): Uint8Array {
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 0xffffffff) throw new ValueError(`invalid time ${seconds}`, { structure: STRUCTURE });
  return new ByteWriter(undefined, 8).u8(1).zeros(3).u32(seconds).finishExact();
}

/** Decodes an old modification time message body (spec IV.A.2.o): 14 ASCII digits (UTC) + 2 reserved bytes.
 * `sizesOrAddress`: the size context (unused here) or, as a shorthand, the body's file address.
 */
export function decodeModificationTimeOld(body: Uint8Array, sizesOrAddress: SizeContext | number = DEFAULT_SIZES, address = UNDEFINED_ADDRESS): number {
  const at = typeof sizesOrAddress === 'number' ? sizesOrAddress : address;
  const r = new ByteReader(body, { structure: STRUCTURE_OLD, base: at });
  const digits = r.bytesView(14, 'time string');
  let s = '';
  for (const d of digits) {
    if (d < 0x30 || d > 0x39) throw r.error('time string is not 14 decimal digits');
    s += String.fromCharCode(d);
  }
  const year = +s.slice(0, 4);
  const month = +s.slice(4, 6);
  const day = +s.slice(6, 8);
  const hour = +s.slice(8, 10);
  const minute = +s.slice(10, 12);
  const second = +s.slice(12, 14);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 61) {
    throw r.error(`invalid time "${s}"`);
  }
  return Date.UTC(year, month - 1, day, hour, minute, second) / 1000;
}

/** Encodes an old modification time message body (spec IV.A.2.o) from seconds since the epoch. */
export function encodeModificationTimeOld(seconds: number): Uint8Array {
  if (!Number.isInteger(seconds) || seconds < 0) throw new ValueError(`invalid time ${seconds}`, { structure: STRUCTURE_OLD });
  const d = new Date(seconds * 1000);
  const y = d.getUTCFullYear();
  if (y > 9999) throw new ValueError(`time ${seconds} is past year 9999`, { structure: STRUCTURE_OLD });
  const p = (v: number, n: number): string => String(v).padStart(n, '0');
  const s = p(y, 4) + p(d.getUTCMonth() + 1, 2) + p(d.getUTCDate(), 2) + p(d.getUTCHours(), 2) + p(d.getUTCMinutes(), 2) + p(d.getUTCSeconds(), 2);
  const out = new Uint8Array(16);
  for (let i = 0; i < 14; i++) out[i] = s.charCodeAt(i);
  return out;
}
