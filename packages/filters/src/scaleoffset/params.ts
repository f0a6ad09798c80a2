/**
 * Client data of the scale-offset filter (H5Zscaleoffset.c, H5Z__set_local_scaleoffset): 20
 * values — scale type, scale factor, elements per chunk, class, size, sign, byte order, whether a
 * fill value is defined, and the fill value's bytes (little-endian, four per value from index 8).
 * @module
 */
import { FilterError, ValueError, type FilterContext } from '@chunkform/core/plugin';

export const SO_ID = 6;
export const SO_NAME = 'scaleoffset';
/** Error details for this filter. */
export const SO_INFO = { filterId: SO_ID, filterName: SO_NAME };

/** Number of client data values (H5Z_SCALEOFFSET_TOTAL_NPARMS). */
export const SO_NPARMS = 20;
/** Scale types (H5Z_SO_scale_type_t). */
export const SO_FLOAT_DSCALE = 0;
export const SO_FLOAT_ESCALE = 1;
export const SO_INT = 2;
/** Bytes before the packed values in a filtered chunk: minbits (4), minval size (1), minval (16). */
export const SO_HEADER = 21;

/** Decoded client data. */
export interface ScaleOffsetParams {
  scaleType: number;
  /** Signed: decimal scale factor (floats) or minimum bits (integers, 0 = computed). */
  scaleFactor: number;
  /** Elements per chunk. */
  nelmts: number;
  isFloat: boolean;
  /** Element size in bytes. */
  size: number;
  signed: boolean;
  littleEndian: boolean;
  fillDefined: boolean;
  /** The fill value's bytes, little-endian (8 bytes; the first `size` are meaningful). */
  fill: Uint8Array;
}

/** Parses and validates the 20 client data values. */
export function parseScaleOffset(cd: readonly number[]): ScaleOffsetParams {
  if (cd.length !== SO_NPARMS) throw new FilterError(`invalid number of scale-offset parameters (${cd.length}, expected ${SO_NPARMS})`, SO_INFO);
  const cls = cd[3]!;
  const size = cd[4]!;
  const p: ScaleOffsetParams = {
    scaleType: cd[0]!,
    scaleFactor: cd[1]! | 0,
    nelmts: cd[2]!,
    isFloat: cls === 1,
    size,
    signed: cd[5] === 1,
    littleEndian: cd[6] !== 1,
    fillDefined: cd[7] === 1,
    fill: new Uint8Array(8),
  };
  if (cls !== 0 && cls !== 1) throw new FilterError(`unsupported scale-offset datatype class ${cls}`, SO_INFO);
  if (p.isFloat ? size !== 4 && size !== 8 : size !== 1 && size !== 2 && size !== 4 && size !== 8) {
    throw new FilterError(`unsupported scale-offset ${p.isFloat ? 'floating-point' : 'integer'} size ${size}`, SO_INFO);
  }
  if (cd[6]! > 1) throw new FilterError(`bad scale-offset byte order ${cd[6]}`, SO_INFO);
  if (p.isFloat) {
    if (p.scaleType === SO_FLOAT_ESCALE) throw new FilterError('the E-scaling method of scale-offset is not supported (HDF5 does not implement it either)', SO_INFO);
    if (p.scaleType !== SO_FLOAT_DSCALE) throw new FilterError(`invalid scale type ${p.scaleType} for floating-point data`, SO_INFO);
  } else {
    if (p.scaleType !== SO_INT) throw new FilterError(`invalid scale type ${p.scaleType} for integer data`, SO_INFO);
    if (p.scaleFactor < 0) p.scaleFactor = 0;
    if (p.scaleFactor > size * 8) throw new FilterError(`minimum number of bits ${p.scaleFactor} exceeds ${size * 8}`, SO_INFO);
  }
  for (let w = 0; w < 2; w++) {
    const v = cd[8 + w]!;
    p.fill[4 * w] = v & 0xff;
    p.fill[4 * w + 1] = (v >>> 8) & 0xff;
    p.fill[4 * w + 2] = (v >>> 16) & 0xff;
    p.fill[4 * w + 3] = (v >>> 24) & 0xff;
  }
  return p;
}

/**
 * The fill value a dataset is created with, for {@link scaleOffsetSetLocal}: a context may carry
 * `fillValue` — its bytes in the dataset's byte order, `null` for "undefined" (H5Pset_fill_value
 * with NULL), absent for the library default (defined, zero).
 */
export type FillValueContext = Omit<FilterContext, 'clientData' | 'flags'> & { fillValue?: Uint8Array | null };

/**
 * H5Z__set_local_scaleoffset: from the user's `[scaleType, scaleFactor]` (or just `[scaleFactor]`,
 * or nothing for integers = minimum bits computed per chunk) to the 20 stored values.
 */
export function scaleOffsetSetLocal(user: readonly number[], ctx: FillValueContext): number[] {
  const t = ctx.datatype;
  if (t.class !== 'integer' && t.class !== 'float') throw new ValueError(`datatype class "${t.class}" is not supported by scale-offset`);
  const isFloat = t.class === 'float';
  const size = t.size;
  if (isFloat ? size !== 4 && size !== 8 : size !== 1 && size !== 2 && size !== 4 && size !== 8) {
    throw new ValueError(`scale-offset does not support ${size}-byte ${t.class} data`);
  }
  let scaleType: number;
  let factor: number;
  if (user.length >= 2) [scaleType, factor] = [user[0]!, user[1]! | 0];
  else if (user.length === 1) [scaleType, factor] = [isFloat ? SO_FLOAT_DSCALE : SO_INT, user[0]! | 0];
  else if (!isFloat) [scaleType, factor] = [SO_INT, 0];
  else throw new ValueError('scale-offset on floating-point data needs a decimal scale factor (client data [0, D])');
  if (isFloat ? scaleType !== SO_FLOAT_DSCALE : scaleType !== SO_INT) {
    throw new ValueError(`scale type ${scaleType} does not fit ${t.class} data (use ${isFloat ? '0 (D-scale)' : '2 (integer)'})`);
  }
  if (!isFloat && (factor < 0 || factor > size * 8)) throw new ValueError(`minimum bits ${factor} out of range 0–${size * 8}`);
  let npoints = 1;
  for (const d of ctx.chunkDims) npoints *= d;
  if (!Number.isSafeInteger(npoints) || npoints > 0xffffffff) throw new ValueError(`chunk of ${npoints} elements is too large for scale-offset`);
  const cd = new Array<number>(SO_NPARMS).fill(0);
  cd[0] = scaleType;
  cd[1] = factor >>> 0;
  cd[2] = npoints;
  cd[3] = isFloat ? 1 : 0;
  cd[4] = size;
  cd[5] = !isFloat && t.signed ? 1 : 0;
  cd[6] = t.order === 'BE' ? 1 : 0;
  const fv = ctx.fillValue;
  cd[7] = fv === null ? 0 : 1;
  if (fv) {
    if (fv.length !== size) throw new ValueError(`fill value of ${fv.length} bytes for ${size}-byte elements`);
    const le = new Uint8Array(8);
    for (let i = 0; i < size; i++) le[i] = fv[t.order === 'BE' ? size - 1 - i : i]!;
    cd[8] = (le[0]! | (le[1]! << 8) | (le[2]! << 16) | (le[3]! << 24)) >>> 0;
    if (size > 4) cd[9] = (le[4]! | (le[5]! << 8) | (le[6]! << 16) | (le[7]! << 24)) >>> 0;
  }
  return cd;
}
