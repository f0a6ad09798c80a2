/**
 * The user-facing representation of dataset and attribute values.
 * @module
 */

/**
 * Decoded element values: a TypedArray for numeric types (float16 → Float32Array, 64-bit integers →
 * BigInt64Array / BigUint64Array), `string[]` for strings, and plain arrays for compound records,
 * array-type elements, variable-length sequences, opaque elements and references.
 */
export type Values =
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array
  | string[]
  | unknown[];

/** Any TypedArray {@link Values} may be. */
export type NumericArray = Exclude<Values, string[] | unknown[]>;

/** True when `v` is a TypedArray (not a DataView). */
export function isTypedArray(v: unknown): v is NumericArray {
  return ArrayBuffer.isView(v) && !(v instanceof DataView);
}

/** True on little-endian hosts (TypedArrays use the host's byte order). */
export const HOST_LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
