/**
 * Small shape helpers shared by the object layer.
 * @module
 */
import { ValueError } from '../errors.js';

/** Number of elements of a shape (1 for scalar `[]`). Throws on negative, fractional or overflowing sizes. */
export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) {
    if (!Number.isSafeInteger(d) || d < 0) throw new ValueError(`invalid dimension size ${d} in shape [${shape.join(', ')}]`);
    n *= d;
  }
  if (!Number.isSafeInteger(n)) throw new ValueError(`shape [${shape.join(', ')}] has more than 2^53 elements`);
  return n;
}

/** The shape of a value: `[]` for a scalar, `[n]` for a flat array or TypedArray, nested arrays → their dims. */
export function inferShape(value: unknown): number[] {
  if (ArrayBuffer.isView(value)) return [(value as unknown as ArrayLike<unknown>).length];
  if (!Array.isArray(value)) return [];
  const dims: number[] = [];
  let v: unknown = value;
  while (Array.isArray(v)) {
    dims.push(v.length);
    v = v[0];
  }
  if (ArrayBuffer.isView(v)) dims.push((v as unknown as ArrayLike<unknown>).length);
  return dims;
}
