/** Datatypes the core tests share that no parsed name gives. */
import type { Datatype } from '../../src/format/messages/datatype.js';

/** bfloat16, little-endian, as a float datatype message describes it (sign bit 15, 8 exponent bits at 7, 7 mantissa bits, bias 127, implied leading 1). */
export function bfloat16(): Datatype {
  return {
    class: 'float',
    size: 2,
    order: 'LE',
    bitOffset: 0,
    precision: 16,
    exponentLocation: 7,
    exponentSize: 8,
    mantissaLocation: 0,
    mantissaSize: 7,
    exponentBias: 127,
    signLocation: 15,
    normalization: 2,
  };
}
