/**
 * Fill value messages: the old message 0x0004 (HDF5 spec IV.A.2.e) and the new message 0x0005
 * (IV.A.2.f) versions 1, 2 and 3.
 * @module
 */
import { ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, UNDEFINED_ADDRESS } from '../bytes.js';

/**
 * Fill value settings of a dataset. HDF5 distinguishes three states, mapped as:
 * - *user-defined* value: `defined: true`, `value` = its bytes;
 * - *default* (zeros): `defined: false`, `value: null`;
 * - explicitly *undefined* (`H5Pset_fill_value(NULL)`): `defined: false`, `value: null`, `undefinedValue: true`.
 */
export interface FillValue {
  /** When storage is allocated: at creation, at first write, or chunk by chunk. */
  allocTime: 'early' | 'late' | 'incremental';
  /** When the fill value is written into newly allocated storage. */
  fillTime: 'alloc' | 'never' | 'ifset';
  /** True when the file stores a user-defined fill value (`value` holds its bytes). */
  defined: boolean;
  /** The fill value's bytes (one element in file byte order), or null for the default / no value. */
  value: Uint8Array | null;
  /** True when the fill value is explicitly undefined (HDF5 then leaves unwritten storage as is). */
  undefinedValue?: boolean;
}

const NEW = 'fill value message';
const OLD = 'old fill value message';
const ALLOC: FillValue['allocTime'][] = ['late', 'early', 'late', 'incremental']; // 0 = "default" (layout-dependent)
const FILL: FillValue['fillTime'][] = ['alloc', 'never', 'ifset'];

/** Decodes the old fill value message 0x0004 (spec IV.A.2.e): the fill value bytes (may be empty). */
// Spec IV.A.2.e: Fill Value (old) message — size (4) + value.
export function decodeFillValueOld(bytes: Uint8Array, address = UNDEFINED_ADDRESS): Uint8Array {
  const r = new ByteReader(bytes, { structure: OLD, base: address });
  const size = r.u32();
  return r.bytesView(size, 'fill value').slice();
}

/** Decodes a fill value message 0x0005, versions 1–3 (spec IV.A.2.f). */
// Spec IV.A.2.f: Fill Value message, versions 1, 2 and 3.
export function decodeFillValue(bytes: Uint8Array, address = UNDEFINED_ADDRESS): FillValue {
  const r = new ByteReader(bytes, { structure: NEW, base: address });
  const version = r.u8();
  if (version < 1 || version > 3) throw r.error(`unknown version ${version}`);
  if (version < 3) {
    const a = r.u8();
    const f = r.u8();
    const definedByte = r.u8();
    const allocTime = ALLOC[a];
    const fillTime = FILL[f];
    if (!allocTime) throw r.error(`unknown space allocation time ${a}`);
    if (!fillTime) throw r.error(`unknown fill value write time ${f}`);
    if (definedByte === 0) return { allocTime, fillTime, defined: false, value: null, undefinedValue: true };
    const size = r.i32();
    if (size <= 0) return { allocTime, fillTime, defined: false, value: null };
    return { allocTime, fillTime, defined: true, value: r.bytesView(size, 'fill value').slice() };
  }
  const flags = r.u8();
  if (flags & ~0x3f) throw r.error(`unknown flags 0x${flags.toString(16)}`);
  const allocTime = (['late', 'early', 'late', 'incremental'] as const)[flags & 3]!;
  const fillTime = FILL[(flags >> 2) & 3];
  if (!fillTime) throw r.error(`unknown fill value write time ${(flags >> 2) & 3}`);
  if ((flags & 3) === 0) throw r.error('space allocation time 0 is not valid in version 3');
  if (flags & 0x10) {
    if (flags & 0x20) throw r.error('fill value is both undefined and present');
    return { allocTime, fillTime, defined: false, value: null, undefinedValue: true };
  }
  if (flags & 0x20) {
    const size = r.u32();
    return { allocTime, fillTime, defined: true, value: r.bytesView(size, 'fill value').slice() };
  }
  return { allocTime, fillTime, defined: false, value: null };
}

/**
 * Encodes a fill value message 0x0005, version 3 (spec IV.A.2.f), byte-identical to HDF5 1.10
 * (e.g. default contiguous dataset `03 0a`, chunked `03 0b`, int32 fill 5 `03 2a 04000000 05000000`).
 */
// Spec IV.A.2.f: Fill Value message, version 3.
export function encodeFillValue(f: FillValue): Uint8Array {
  const a = { early: 1, late: 2, incremental: 3 }[f.allocTime];
  const t = { alloc: 0, never: 1, ifset: 2 }[f.fillTime];
  if (a === undefined || t === undefined) {
    throw new ValueError(`unknown allocation time "${f.allocTime}" or fill time "${f.fillTime}"`, { structure: NEW });
  }
  let flags = a | (t << 2);
  const value = f.value && f.value.length > 0 ? f.value : null;
  if (f.undefinedValue) {
    if (value) throw new ValueError('an undefined fill value cannot have bytes', { structure: NEW });
    flags |= 0x10;
  } else if (value) {
    flags |= 0x20;
  }
  const w = new ByteWriter(undefined, 6 + (value?.length ?? 0));
  w.u8(3).u8(flags);
  if (value) w.u32(value.length).bytes(value);
  return w.finishExact();
}
