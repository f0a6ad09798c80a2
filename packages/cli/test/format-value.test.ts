import { describe, expect, it } from 'vitest';
import { formatDims, formatValue, formatValueLines, stringifyJson, toJson } from '../src/format-value.js';

describe('toJson', () => {
  it('converts typed arrays, 64-bit integers and non-finite floats', () => {
    expect(toJson(new Float64Array([1.5, NaN, Infinity, -Infinity, -0]))).toEqual([1.5, 'NaN', 'Infinity', '-Infinity', -0]);
    expect(toJson(new Float32Array([0.5]))).toEqual([0.5]);
    expect(toJson(new BigInt64Array([-1n, 9007199254740993n]))).toEqual(['-1', '9007199254740993']);
    expect(toJson(new BigUint64Array([18446744073709551615n]))).toEqual(['18446744073709551615']);
    expect(toJson(new Uint16Array([1, 65535]))).toEqual([1, 65535]);
    expect(toJson(123n)).toBe('123');
    expect(toJson(undefined)).toBeNull();
  });

  it('converts records, nested arrays and maps', () => {
    const rec = [{ x: 1, y: new Int32Array([2, 3]), z: 'a', w: 5n }];
    expect(toJson(rec)).toEqual([{ x: 1, y: [2, 3], z: 'a', w: '5' }]);
    expect(toJson(new Map([['k', NaN]]))).toEqual({ k: 'NaN' });
  });
});

describe('stringifyJson', () => {
  it('parses back to the same value and keeps primitive arrays on one line', () => {
    const v = { a: [1, 2, 3], b: { c: 'x', d: [] as number[], e: {} }, f: [{ g: null }], h: true };
    const s = stringifyJson(v);
    expect(JSON.parse(s)).toEqual(v);
    expect(s).toContain('"a": [1, 2, 3]');
    expect(s.split('\n')[0]).toBe('{');
  });

  it('converts values it meets and drops undefined fields', () => {
    const s = stringifyJson({ a: new Float32Array([NaN, 1]), b: undefined, c: 7n, d: [Infinity] });
    expect(JSON.parse(s)).toEqual({ a: ['NaN', 1], c: '7', d: ['Infinity'] });
  });
});

describe('text formatting', () => {
  it('formats values on one line and cuts long ones', () => {
    expect(formatValue('a"b')).toBe('"a\\"b"');
    expect(formatValue(new Float64Array([1, NaN, -Infinity]))).toBe('[1, NaN, -Infinity]');
    expect(formatValue(new BigInt64Array([5n]))).toBe('[5]');
    expect(formatValue({ x: 1, y: ['s'] })).toBe('{x: 1, y: ["s"]}');
    const long = formatValue(new Int32Array(1000), 20);
    expect(long).toBe('[0, 0, 0, 0, 0, 0...');
    expect(long.length).toBe(20);
  });

  it('wraps value lists', () => {
    const ls = formatValueLines(new Int32Array([100, 200, 300, 400, 500]), 10);
    expect(ls).toEqual(['100, 200,', '300, 400,', '500']);
    expect(formatValueLines(['a'])).toEqual(['"a"']);
  });

  it('formats dimensions like h5ls', () => {
    expect(formatDims([10, 20], [null, 20])).toBe('{10/Inf, 20}');
    expect(formatDims([10, 20], [null, 20], true)).toBe('{10/Inf, 20/20}');
    expect(formatDims([3], null)).toBe('{3}');
    expect(formatDims([3], [8])).toBe('{3/8}');
    expect(formatDims([], null)).toBe('{SCALAR}');
  });
});
