/**
 * What the write interop suite writes with chunkform, and what every oracle must read back
 * (expected values in h5py_dump.py's JSON form).
 * @module
 */
import type { DtypeSpec } from '../../packages/core/src/index.js';
import { norm } from './compare.js';
import type { DumpType } from './fixtures.js';

/** A dataset to create, and what must be read back. */
export interface DatasetSpec {
  path: string;
  dtype: DtypeSpec;
  shape: number[];
  data?: unknown;
  fillValue?: number | bigint | string;
  layout?: 'contiguous' | 'compact';
  maxShape?: (number | null)[];
  want: {
    dtype: DumpType;
    values: unknown[];
    layout: 'contiguous' | 'compact';
    maxshape?: (number | null)[];
    fill?: unknown;
  };
  /** How h5dump prints the values ('skip' = do not parse). */
  h5dump: 'number' | 'int64' | 'enum' | 'string' | 'fixed' | 'skip';
  /** h5wasm cannot read float16. */
  h5wasm?: boolean;
}

/** An attribute to set, and what must be read back. */
export interface AttrSpec {
  owner: string;
  name: string;
  value: unknown;
  opts?: { dtype?: DtypeSpec; shape?: number[] };
  want: { value: unknown; shape: number[]; dtype: DumpType };
  h5wasm?: boolean;
}

const int = (size: number, signed: boolean, order: 'LE' | 'BE'): DumpType => ({ class: 'integer', size, signed, order });
const flt = (size: number, order: 'LE' | 'BE'): DumpType => ({ class: 'float', size, order });
const vlenUtf8: DumpType = { class: 'string', length: 'variable', charset: 'utf-8' };

type IntCtor = Int8ArrayConstructor | Uint8ArrayConstructor | Int16ArrayConstructor | Uint16ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor;

function intData(size: number, signed: boolean): ArrayLike<number | bigint> {
  if (size === 8) {
    return signed
      ? BigInt64Array.from([-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n, 42n, -(2n ** 53n) - 1n])
      : BigUint64Array.from([0n, 2n ** 64n - 1n, 1n, 2n ** 63n, 42n, 2n ** 53n + 1n]);
  }
  const bits = size * 8;
  const min = signed ? -(2 ** (bits - 1)) : 0;
  const max = signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
  const C: IntCtor = ({ 1: signed ? Int8Array : Uint8Array, 2: signed ? Int16Array : Uint16Array, 4: signed ? Int32Array : Uint32Array } as Record<number, IntCtor>)[size]!;
  return C.from([min, max, 0, 1, 42, max - 1]);
}

const F16_VALUES = [0, -0, 1.5, -2.25, NaN, Infinity, -Infinity, 65504, 2 ** -14, 2 ** -24, 0.333251953125, -1024];
const F32_VALUES = Float32Array.from([0, -0, 1.5, -2.25, NaN, Infinity, -Infinity, 3.4028234663852886e38, 1.1754943508222875e-38, 1e-45, 0.1, Math.PI]);
const F64_VALUES = Float64Array.from([0, -0, 1.5, -2.25, NaN, Infinity, -Infinity, Number.MAX_VALUE, Number.MIN_VALUE, 2.2250738585072014e-308, 0.1, Math.PI]);

/** UTF-8 strings incl. empty and non-BMP text. */
export const UTF8 = ['ascii', 'héllo wörld', '日本語テキスト', '', 'emoji 🎉🚀', 'ß', 'x'.repeat(100)];

/** All datasets the write suite creates. */
export function datasetSpecs(): DatasetSpec[] {
  const specs: DatasetSpec[] = [];
  const names: Record<string, string> = { i1: 'int8', u1: 'uint8', i2: 'int16', u2: 'uint16', i4: 'int32', u4: 'uint32', i8: 'int64', u8: 'uint64' };
  for (const size of [1, 2, 4, 8]) {
    for (const signed of [true, false]) {
      for (const order of ['LE', 'BE'] as const) {
        const code = `${signed ? 'i' : 'u'}${size}`;
        const data = intData(size, signed);
        specs.push({
          path: `/int/${code}_${order.toLowerCase()}`,
          // little-endian by name ('int16'), big-endian numpy-style ('>i2')
          dtype: order === 'LE' ? names[code]! : `>${code}`,
          shape: [data.length],
          data,
          want: { dtype: int(size, signed, order), values: norm(data) as unknown[], layout: 'contiguous' },
          h5dump: size === 8 ? 'int64' : 'number',
        });
      }
    }
  }
  for (const [size, values] of [[2, F16_VALUES], [4, F32_VALUES], [8, F64_VALUES]] as const) {
    for (const order of ['LE', 'BE'] as const) {
      specs.push({
        path: `/float/f${size}_${order.toLowerCase()}`,
        dtype: order === 'LE' ? `float${size * 8}` : `>f${size}`,
        shape: [values.length],
        data: size === 2 ? Float32Array.from(values) : values,
        want: { dtype: flt(size, order), values: norm(Array.from(values)) as unknown[], layout: 'contiguous' },
        h5dump: 'number',
        h5wasm: size !== 2,
      });
    }
  }
  specs.push({
    path: '/bool',
    dtype: 'bool',
    shape: [4],
    data: [true, false, false, true],
    want: {
      dtype: { class: 'enum', base: int(1, true, 'LE'), members: [{ name: 'FALSE', value: 0 }, { name: 'TRUE', value: 1 }] },
      values: [1, 0, 0, 1],
      layout: 'contiguous',
    },
    h5dump: 'enum',
  });
  const enumType: DumpType = {
    class: 'enum',
    base: int(2, true, 'BE'),
    members: [{ name: 'NEG', value: -5 }, { name: 'ZERO', value: 0 }, { name: 'BIG', value: 300 }],
  };
  specs.push({
    path: '/enum/i2_be',
    dtype: { class: 'enum', base: { class: 'integer', size: 2, signed: true, order: 'BE' }, members: [{ name: 'NEG', value: -5 }, { name: 'ZERO', value: 0 }, { name: 'BIG', value: 300 }] },
    shape: [4],
    data: Int16Array.from([-5, 300, 0, 300]),
    want: { dtype: enumType, values: [-5, 300, 0, 300], layout: 'contiguous' },
    h5dump: 'enum',
    // h5wasm 0.10.3 (HDF5 2.0.0) misreads big-endian enums (it byte-swaps h5py's own files too)
    h5wasm: false,
  });
  specs.push({
    path: '/enum/u1',
    dtype: { class: 'enum', base: { class: 'integer', size: 1, signed: false, order: 'LE' }, members: [{ name: 'RED', value: 0 }, { name: 'GREEN', value: 1 }, { name: 'BLUE', value: 2 }] },
    shape: [3],
    data: Uint8Array.from([2, 0, 1]),
    want: {
      dtype: { class: 'enum', base: int(1, false, 'LE'), members: [{ name: 'RED', value: 0 }, { name: 'GREEN', value: 1 }, { name: 'BLUE', value: 2 }] },
      values: [2, 0, 1],
      layout: 'contiguous',
    },
    h5dump: 'enum',
  });
  specs.push({
    path: '/str/fixed_S10',
    dtype: 'S10',
    shape: [4],
    data: ['hello', '', 'exactly10!', 'a b'],
    want: { dtype: { class: 'string', length: 10, charset: 'ascii' }, values: ['hello', '', 'exactly10!', 'a b'], layout: 'contiguous' },
    h5dump: 'fixed',
  });
  specs.push({
    path: '/str/fixed_utf8',
    dtype: { class: 'string', length: 16, charset: 'utf-8', padding: 'nullpad' },
    shape: [3],
    data: ['héllo', '日本', ''],
    want: { dtype: { class: 'string', length: 16, charset: 'utf-8' }, values: ['héllo', '日本', ''], layout: 'contiguous' },
    h5dump: 'fixed',
  });
  specs.push({
    path: '/str/vlen',
    dtype: 'string',
    shape: [UTF8.length],
    data: UTF8,
    want: { dtype: vlenUtf8, values: UTF8, layout: 'contiguous' },
    h5dump: 'string',
  });
  specs.push({
    path: '/str/vlen_2d',
    dtype: 'string',
    shape: [2, 2],
    data: ['a', 'bb', '', 'dddd ✓'],
    want: { dtype: vlenUtf8, values: ['a', 'bb', '', 'dddd ✓'], layout: 'contiguous' },
    h5dump: 'string',
  });
  const m34 = Float64Array.from({ length: 12 }, (_, i) => i / 8 - 0.5);
  specs.push({
    path: '/nd/f8_3x4',
    dtype: 'float64',
    shape: [3, 4],
    data: m34,
    maxShape: [3, 4],
    want: { dtype: flt(8, 'LE'), values: norm(m34) as unknown[], layout: 'contiguous', maxshape: [3, 4] },
    h5dump: 'number',
  });
  specs.push({
    path: '/nd/u2_2x2x3',
    dtype: '<u2',
    shape: [2, 2, 3],
    data: Uint16Array.from({ length: 12 }, (_, i) => i * 5000),
    want: { dtype: int(2, false, 'LE'), values: Array.from({ length: 12 }, (_, i) => i * 5000), layout: 'contiguous' },
    h5dump: 'number',
  });
  // layouts
  specs.push({
    path: '/compact/i4',
    dtype: 'int32',
    shape: [5],
    data: Int32Array.from([5, -4, 3, -2, 1]),
    layout: 'compact',
    want: { dtype: int(4, true, 'LE'), values: [5, -4, 3, -2, 1], layout: 'compact' },
    h5dump: 'number',
  });
  specs.push({
    path: '/compact/S4',
    dtype: 'S4',
    shape: [2],
    data: ['ab', 'cdef'],
    layout: 'compact',
    want: { dtype: { class: 'string', length: 4, charset: 'ascii' }, values: ['ab', 'cdef'], layout: 'compact' },
    h5dump: 'fixed',
  });
  specs.push({
    path: '/compact/vlen',
    dtype: 'string',
    shape: [2],
    data: ['x', 'ÿ ✓'],
    layout: 'compact',
    want: { dtype: vlenUtf8, values: ['x', 'ÿ ✓'], layout: 'compact' },
    h5dump: 'string',
  });
  specs.push({
    path: '/compact/f8_be',
    dtype: '>f8',
    shape: [3],
    data: Float64Array.from([1.25, -0, 1e300]),
    layout: 'compact',
    want: { dtype: flt(8, 'BE'), values: [1.25, -0, 1e300], layout: 'compact' },
    h5dump: 'number',
  });
  // fill values (never written)
  specs.push({
    path: '/fill/i4',
    dtype: 'int32',
    shape: [5],
    fillValue: -7,
    want: { dtype: int(4, true, 'LE'), values: [-7, -7, -7, -7, -7], layout: 'contiguous', fill: -7 },
    h5dump: 'number',
  });
  specs.push({
    path: '/fill/f8',
    dtype: 'float64',
    shape: [2, 2],
    fillValue: 2.5,
    want: { dtype: flt(8, 'LE'), values: [2.5, 2.5, 2.5, 2.5], layout: 'contiguous', fill: 2.5 },
    h5dump: 'number',
  });
  specs.push({
    path: '/fill/i8_be',
    dtype: '>i8',
    shape: [3],
    fillValue: 2n ** 40n + 1n,
    want: { dtype: int(8, true, 'BE'), values: ['1099511627777', '1099511627777', '1099511627777'], layout: 'contiguous', fill: '1099511627777' },
    h5dump: 'int64',
  });
  specs.push({
    path: '/fill/S5',
    dtype: 'S5',
    shape: [2],
    fillValue: 'xy',
    want: { dtype: { class: 'string', length: 5, charset: 'ascii' }, values: ['xy', 'xy'], layout: 'contiguous', fill: 'xy' },
    h5dump: 'fixed',
  });
  specs.push({
    path: '/fill/default',
    dtype: 'uint16',
    shape: [3],
    want: { dtype: int(2, false, 'LE'), values: [0, 0, 0], layout: 'contiguous' },
    h5dump: 'number',
  });
  // scalar and empty
  specs.push({ path: '/scalar/i4', dtype: 'int32', shape: [], data: 42, want: { dtype: int(4, true, 'LE'), values: [42], layout: 'contiguous' }, h5dump: 'number' });
  specs.push({ path: '/scalar/f8', dtype: 'float64', shape: [], data: -2.5, want: { dtype: flt(8, 'LE'), values: [-2.5], layout: 'contiguous' }, h5dump: 'number' });
  specs.push({ path: '/scalar/u8', dtype: 'uint64', shape: [], data: 2n ** 64n - 2n, want: { dtype: int(8, false, 'LE'), values: ['18446744073709551614'], layout: 'contiguous' }, h5dump: 'int64' });
  specs.push({ path: '/scalar/str', dtype: 'string', shape: [], data: 'scalar ✓', want: { dtype: vlenUtf8, values: ['scalar ✓'], layout: 'contiguous' }, h5dump: 'string' });
  specs.push({ path: '/scalar/S6', dtype: 'S6', shape: [], data: 'fixed', want: { dtype: { class: 'string', length: 6, charset: 'ascii' }, values: ['fixed'], layout: 'contiguous' }, h5dump: 'fixed' });
  specs.push({ path: '/zero', dtype: 'int32', shape: [0], want: { dtype: int(4, true, 'LE'), values: [], layout: 'contiguous' }, h5dump: 'skip' });
  specs.push({ path: '/zero_2d', dtype: 'float32', shape: [4, 0], data: new Float32Array(0), want: { dtype: flt(4, 'LE'), values: [], layout: 'contiguous' }, h5dump: 'skip' });
  return specs;
}

/** All attributes the write suite sets. */
export function attrSpecs(): AttrSpec[] {
  return [
    { owner: '/', name: 'num', value: 1.5, want: { value: 1.5, shape: [], dtype: flt(8, 'LE') } },
    { owner: '/', name: 'int32', value: -7, opts: { dtype: 'int32' }, want: { value: -7, shape: [], dtype: int(4, true, 'LE') } },
    { owner: '/', name: 'i8', value: -(2n ** 62n) - 3n, opts: { dtype: 'int64' }, want: { value: '-4611686018427387907', shape: [], dtype: int(8, true, 'LE') } },
    { owner: '/', name: 'u8', value: 2n ** 64n - 1n, opts: { dtype: 'uint64' }, want: { value: '18446744073709551615', shape: [], dtype: int(8, false, 'LE') } },
    { owner: '/', name: 'f2', value: 1.5, opts: { dtype: 'float16' }, want: { value: 1.5, shape: [], dtype: flt(2, 'LE') }, h5wasm: false },
    { owner: '/', name: 'f4_be', value: Float32Array.from([0.5, NaN, -0]), opts: { dtype: '>f4' }, want: { value: [0.5, 'NaN', -0], shape: [3], dtype: flt(4, 'BE') } },
    { owner: '/', name: 'arr_i2', value: Int16Array.from([1, -2, 3]), want: { value: [1, -2, 3], shape: [3], dtype: int(2, true, 'LE') } },
    { owner: '/', name: 'arr_u1_2d', value: Uint8Array.from([1, 2, 3, 4, 5, 6]), opts: { shape: [2, 3] }, want: { value: [1, 2, 3, 4, 5, 6], shape: [2, 3], dtype: int(1, false, 'LE') } },
    { owner: '/', name: 'str', value: 'héllo ✓', want: { value: 'héllo ✓', shape: [], dtype: vlenUtf8 } },
    { owner: '/', name: 'str_empty', value: '', want: { value: '', shape: [], dtype: vlenUtf8 } },
    { owner: '/', name: 'strs', value: ['a', 'ünï', ''], want: { value: ['a', 'ünï', ''], shape: [3], dtype: vlenUtf8 } },
    { owner: '/', name: 'fixed', value: 'abc', opts: { dtype: 'S8' }, want: { value: 'abc', shape: [], dtype: { class: 'string', length: 8, charset: 'ascii' } } },
    { owner: '/', name: 'fixed_arr', value: ['ab', 'c', ''], opts: { dtype: 'S3' }, want: { value: ['ab', 'c', ''], shape: [3], dtype: { class: 'string', length: 3, charset: 'ascii' } } },
    { owner: '/', name: 'bool', value: true, opts: { dtype: 'bool' }, want: { value: 1, shape: [], dtype: { class: 'enum', base: int(1, true, 'LE') } } },
    { owner: '/a', name: 'level', value: 1, opts: { dtype: 'int32' }, want: { value: 1, shape: [], dtype: int(4, true, 'LE') } },
    { owner: '/a/b', name: 'note', value: 'nested ✓', want: { value: 'nested ✓', shape: [], dtype: vlenUtf8 } },
    { owner: '/int/i4_le', name: 'units', value: 'm/s', want: { value: 'm/s', shape: [], dtype: vlenUtf8 } },
    { owner: '/int/i4_le', name: 'scale', value: Float64Array.from([0.5, 2]), want: { value: [0.5, 2], shape: [2], dtype: flt(8, 'LE') } },
    { owner: '/compact/i4', name: 'kind', value: 'compact', opts: { dtype: 'S7' }, want: { value: 'compact', shape: [], dtype: { class: 'string', length: 7, charset: 'ascii' } } },
  ];
}

/** Names of the > 100 links of /many, in creation order (h5py lists them sorted by name). */
export function manyNames(): string[] {
  return Array.from({ length: 130 }, (_, i) => `n${String((i * 37) % 130).padStart(3, '0')}`);
}

/** Children of the creation-order-tracked group /ordered, in creation order. */
export const ORDERED_NAMES = ['zeta', 'alpha', 'mu', 'beta', 'Y', '_x'];
