/**
 * Conversion between stored element bytes and user values.
 * @module
 */
export { HOST_LE, isTypedArray, type NumericArray, type Values } from './types.js';
export { decodeValues, vlenHeapCollections, type GlobalHeapLookup } from './decode.js';
export { encodeValues, type GlobalHeapWriter } from './encode.js';
export { boolType, datatypeOfValues, dtypeToString, isBoolType, parseDtype, vlenStringType, type DtypeSpec } from './dtype.js';
export { float64ToHalfBits, halfToFloat32 } from './numeric.js';
export { CASTINGS, castInto, type Casting } from './cast.js';
