import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FormatError, H5Error, TruncatedError, ValueError } from '../src/errors.js';
import { ByteReader, type SizeContext } from '../src/format/bytes.js';
import { decodeDatatype, type Datatype } from '../src/format/messages/datatype.js';
import {
  datatypeOfValues,
  decodeValues,
  dtypeToString,
  encodeValues,
  float64ToHalfBits,
  halfToFloat32,
  parseDtype,
  vlenHeapCollections,
  type GlobalHeapLookup,
  type GlobalHeapWriter,
} from '../src/values/index.js';
import { fixtures, hex, rng, toHex, type ValuesFixture } from './fixtures/h5py-messages.js';
import { bfloat16 } from './support/datatypes.js';

const S8: SizeContext = { sizeOfOffsets: 8, sizeOfLengths: 8 };

function typeOf(f: ValuesFixture): Datatype {
  return decodeDatatype(new ByteReader(hex(f.datatype)));
}
function lookup(f: ValuesFixture): GlobalHeapLookup {
  return {
    get(c, i) {
      const h = f.heap?.[`${c}:${i}`];
      if (h === undefined) throw new FormatError(`no heap object ${c}:${i}`);
      return hex(h);
    },
  };
}
function memoryHeap(): GlobalHeapWriter & GlobalHeapLookup & { objects: Uint8Array[] } {
  const objects: Uint8Array[] = [];
  return {
    objects,
    add(data) {
      objects.push(data.slice());
      return { collection: 4096, index: objects.length };
    },
    get(c, i) {
      if (c !== 4096 || !objects[i - 1]) throw new FormatError(`no heap object ${c}:${i}`);
      return objects[i - 1]!;
    },
  };
}
const fx = (name: string) => fixtures.values.find((v) => v.name === name)!;
const dec = (name: string) => {
  const f = fx(name);
  return decodeValues(hex(f.data), typeOf(f), f.count, S8, lookup(f));
};

describe('decodeValues against data written by HDF5 1.10.8', () => {
  it('decodes numbers into natural TypedArrays, swapping big-endian data', () => {
    expect(dec('int8')).toEqual(new Int8Array([-128, 0, 127]));
    expect(dec('uint8')).toEqual(new Uint8Array([0, 1, 255]));
    expect(dec('int16le')).toEqual(new Int16Array([-2, 300]));
    expect(dec('int16be')).toEqual(new Int16Array([-2, 300]));
    expect(dec('uint32le')).toEqual(new Uint32Array([1, 4000000000]));
    expect(dec('uint32be')).toEqual(new Uint32Array([1, 4000000000]));
    expect(dec('int64le')).toEqual(new BigInt64Array([-(2n ** 62n), 5n]));
    expect(dec('uint64be')).toEqual(new BigUint64Array([2n ** 63n + 1n, 7n]));
    expect(dec('float32be')).toEqual(new Float32Array([1.5, -3.25]));
    expect(dec('float64le')).toEqual(new Float64Array([1.5, 1e300]));
    expect(dec('float64be')).toEqual(new Float64Array([1.5, 1e300]));
    const h = dec('float16le') as Float32Array;
    expect(h).toBeInstanceOf(Float32Array);
    expect(Array.from(h.subarray(0, 5))).toEqual([1.5, -0, 65504, 2 ** -24, Infinity]);
    expect(Object.is(h[1], -0)).toBe(true);
    expect(Number.isNaN(h[5])).toBe(true);
    expect(dec('float16be')).toEqual(new Float32Array([1.5, -2]));
    expect(dec('bool')).toEqual(new Int8Array([1, 0]));
    expect(dec('enum16')).toEqual(new Int16Array([0, 42, 1]));
    expect(dec('bitfield16be')).toEqual(new Uint16Array([0x1234, 0xfffe]));
  });

  it('decodes strings, records, arrays, sequences, opaque data and references', () => {
    expect(dec('fixed_ascii5')).toEqual(['ab', 'hello']);
    expect(dec('fixed_utf8_10')).toEqual(['hé', 'x']);
    expect(dec('vlen_utf8')).toEqual(['a', 'héllo', '']);
    expect(dec('vlen_ascii')).toEqual(['abc', 'de']);
    expect(dec('compound')).toEqual([{ a: 1, b: 2.5 }, { a: -3, b: 4 }]);
    expect(dec('compound_aligned')).toEqual([{ a: 1, b: 2.5 }]);
    expect(dec('compound_nested')).toEqual([{ p: { x: 1, y: 2 }, z: 3 }]);
    expect(dec('compound_array')).toEqual([{ x: new Float32Array([1, 2, 3, 4, 5, 6]), y: 9 }]);
    expect(dec('compound_vlstr')).toEqual([{ s: 'hi', n: 1 }]);
    expect(dec('vlen_int16')).toEqual([new Int16Array([1, 2]), new Int16Array([3, 4, 5])]);
    expect(dec('opaque8')).toEqual([new TextEncoder().encode('abcdefgh')]);
    expect(dec('array_i32_2x3')).toEqual([new Int32Array([0, 1, 2, 3, 4, 5]), new Int32Array([6, 7, 8, 9, 10, 11])]);
    expect(dec('objref')).toEqual(fx('objref').expected);
    const reg = dec('regref') as Uint8Array[];
    expect(reg.length).toBe(1);
    expect(toHex(reg[0]!)).toBe(fx('regref').data);
  });

  it('lists the global heap collections vlen data refers to', () => {
    for (const name of ['vlen_utf8', 'vlen_ascii', 'vlen_int16', 'compound_vlstr']) {
      const f = fx(name);
      const want = new Set(Object.keys(f.heap!).map((k) => Number(k.split(':')[0])));
      expect(vlenHeapCollections(hex(f.data), typeOf(f), f.count, S8)).toEqual(want);
    }
    expect(vlenHeapCollections(hex(fx('int8').data), typeOf(fx('int8')), 3, S8).size).toBe(0);
  });

  it('re-encodes every fixed-size fixture byte-identically', () => {
    for (const f of fixtures.values) {
      if (f.heap || f.name === 'compound_aligned') continue; // vlen: heap addresses differ; aligned: garbage padding
      const t = typeOf(f);
      const v = decodeValues(hex(f.data), t, f.count, S8);
      expect(toHex(encodeValues(v, t, f.count, S8)), f.name).toBe(f.data);
    }
    const aligned = typeOf(fx('compound_aligned'));
    expect(toHex(encodeValues([{ a: 1, b: 2.5 }], aligned, 1, S8))).toBe('01000000000000000000000000000440');
  });

  it('round-trips variable-length data through a heap', () => {
    for (const f of fixtures.values.filter((x) => x.heap && x.name !== 'regref')) {
      const t = typeOf(f);
      const v = decodeValues(hex(f.data), t, f.count, S8, lookup(f));
      const heap = memoryHeap();
      const bytes = encodeValues(v, t, f.count, S8, heap);
      expect(decodeValues(bytes, t, f.count, S8, heap), f.name).toEqual(v);
    }
    const heap = memoryHeap();
    const t = parseDtype('str');
    const b = encodeValues(['', 'ü'], t, 2, S8, heap);
    expect(toHex(b)).toBe('00000000' + '0010000000000000' + '01000000' + '02000000' + '0010000000000000' + '02000000');
    expect(heap.objects.map((o) => toHex(o))).toEqual(['', 'c3bc']);
  });
});

describe('encodeValues conversions', () => {
  const i32 = parseDtype('int32');
  it('converts and range-checks numeric input', () => {
    expect(encodeValues(new Float64Array([1, -2]), i32, 2, S8)).toEqual(new Uint8Array(new Int32Array([1, -2]).buffer));
    expect(encodeValues([[1, 2], [3, 4]], parseDtype('>u2'), 4, S8)).toEqual(hex('0001000200030004'));
    expect(encodeValues([true, false], parseDtype('bool'), 2, S8)).toEqual(hex('0100'));
    expect(encodeValues(7, parseDtype('u1'), 1, S8)).toEqual(hex('07'));
    expect(encodeValues([2n ** 63n - 1n, -1], parseDtype('int64'), 2, S8)).toEqual(hex('ffffffffffffff7fffffffffffffffff'));
    expect(encodeValues([1n], parseDtype('float64'), 1, S8)).toEqual(hex('000000000000f03f'));
    expect(() => encodeValues([1.5], i32, 1, S8)).toThrow(ValueError);
    expect(() => encodeValues([2 ** 31], i32, 1, S8)).toThrow(/out of range/);
    expect(() => encodeValues([300], parseDtype('uint8'), 1, S8)).toThrow(ValueError);
    expect(() => encodeValues([-1], parseDtype('uint32'), 1, S8)).toThrow(ValueError);
    expect(() => encodeValues([2n ** 64n], parseDtype('uint64'), 1, S8)).toThrow(ValueError);
    expect(() => encodeValues(['1'], i32, 1, S8)).toThrow(ValueError);
    expect(() => encodeValues([1, 2, 3], i32, 2, S8)).toThrow(/got 3 elements, expected 2/);
    expect(() => encodeValues(5, i32, 2, S8)).toThrow(ValueError);
    expect(() => encodeValues([1e39], parseDtype('float32'), 1, S8)).toThrow(/overflows float32/);
    expect(() => encodeValues([70000], parseDtype('float16'), 1, S8)).toThrow(/overflows float16/);
    expect(encodeValues([Infinity, NaN], parseDtype('<f4'), 2, S8).length).toBe(8);
  });

  it('handles enums by value or name and rejects non-members', () => {
    const e = typeOf(fx('enum16'));
    expect(encodeValues(['BLUE', 1, 0], e, 3, S8)).toEqual(hex('2a0001000000'));
    expect(() => encodeValues([5], e, 1, S8)).toThrow(ValueError);
    expect(() => encodeValues(['PURPLE'], e, 1, S8)).toThrow(ValueError);
  });

  it('encodes strings and checks their length and charset', () => {
    expect(encodeValues(['ab', 'hello'], parseDtype('S5'), 2, S8)).toEqual(hex(fx('fixed_ascii5').data));
    expect(encodeValues(['a'], parseDtype('S3(spacepad)'), 1, S8)).toEqual(hex('612020'));
    expect(() => encodeValues(['toolong'], parseDtype('S5'), 1, S8)).toThrow(ValueError);
    expect(() => encodeValues(['é'], parseDtype('S5'), 1, S8)).toThrow(/non-ASCII/);
    expect(encodeValues(['é'], parseDtype('S5(utf-8)'), 1, S8)).toEqual(hex('c3a9000000'));
    expect(() => encodeValues(['x'], parseDtype('str'), 1, S8)).toThrow(/heap/);
  });

  it('encodes records, array elements, opaque data and references', () => {
    const c = typeOf(fx('compound'));
    expect(encodeValues({ a: 1, b: 2.5 }, c, 1, S8)).toEqual(hex(fx('compound').data).subarray(0, 12));
    expect(() => encodeValues([{ a: 1 }], c, 1, S8)).toThrow(/lacks member "b"/);
    const arr = typeOf(fx('array_i32_2x3'));
    const flat = hex(fx('array_i32_2x3').data);
    expect(encodeValues([[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9, 10, 11]]], arr, 2, S8)).toEqual(flat);
    expect(encodeValues(new Int32Array(12).map((_, i) => i), arr, 2, S8)).toEqual(flat);
    expect(encodeValues(new TextEncoder().encode('abcdefgh'), typeOf(fx('opaque8')), 1, S8)).toEqual(hex('6162636465666768'));
    expect(() => encodeValues([new Uint8Array(3)], typeOf(fx('opaque8')), 1, S8)).toThrow(ValueError);
    expect(encodeValues([800, -1], typeOf(fx('objref')), 2, S8)).toEqual(hex('2003000000000000ffffffffffffffff'));
  });

  it('reads and writes odd integer and float layouts', () => {
    const i24be: Datatype = { class: 'integer', size: 3, signed: true, order: 'BE' };
    expect(decodeValues(hex('fffffe7fffff'), i24be, 2, S8)).toEqual(new Float64Array([-2, 8388607]));
    expect(encodeValues([-2, 8388607], i24be, 2, S8)).toEqual(hex('fffffe7fffff'));
    const u12: Datatype = { class: 'integer', size: 2, signed: false, order: 'LE', bitOffset: 4, precision: 12 };
    expect(decodeValues(hex('f0ff1000'), u12, 2, S8)).toEqual(new Uint16Array([4095, 1]));
    expect(encodeValues([4095, 1], u12, 2, S8)).toEqual(hex('f0ff1000'));
    expect(() => encodeValues([4096], u12, 1, S8)).toThrow(ValueError);
    const s12: Datatype = { ...u12, signed: true };
    expect(decodeValues(hex('f0ff1000'), s12, 2, S8)).toEqual(new Int16Array([-1, 1]));
    const i40: Datatype = { class: 'integer', size: 5, signed: false, order: 'LE' };
    expect(decodeValues(hex('ffffffffff'), i40, 1, S8)).toEqual(new Float64Array([2 ** 40 - 1]));
    const i56: Datatype = { class: 'integer', size: 7, signed: true, order: 'LE' };
    expect(decodeValues(hex('feffffffffffff'), i56, 1, S8)).toEqual(new BigInt64Array([-2n]));
    const bf16 = bfloat16();
    expect(decodeValues(hex('c03f8080807f'), bf16, 3, S8)).toEqual(new Float64Array([1.5, -(2 ** -126), Infinity]));
  });

  it('rejects short input with TruncatedError and bad counts with ValueError', () => {
    expect(() => decodeValues(new Uint8Array(7), parseDtype('int32'), 2, S8)).toThrow(TruncatedError);
    expect(() => decodeValues(new Uint8Array(8), parseDtype('int32'), -1, S8)).toThrow(ValueError);
    expect(() => decodeValues(hex(fx('vlen_utf8').data), typeOf(fx('vlen_utf8')), 3, S8)).toThrow(/heap/);
    const bad = hex(fx('vlen_utf8').data);
    bad[0] = 200; // longer than the heap object
    expect(() => decodeValues(bad, typeOf(fx('vlen_utf8')), 3, S8, lookup(fx('vlen_utf8')))).toThrow(FormatError);
  });

  it('decodes random bytes of every fixture type without non-H5 errors', () => {
    const rand = rng(5);
    for (const f of fixtures.values) {
      const t = typeOf(f);
      for (let i = 0; i < 200; i++) {
        const b = new Uint8Array(hex(f.data).length);
        for (let k = 0; k < b.length; k++) b[k] = Math.floor(rand() * 256);
        try {
          decodeValues(b, t, f.count, S8, lookup(f));
        } catch (e) {
          if (!(e instanceof H5Error)) throw e;
        }
      }
    }
  });
});

describe('float16', () => {
  it('widens all 65536 bit patterns exactly and narrows them back', () => {
    const all = new Uint16Array(65536).map((_, i) => i);
    const f = halfToFloat32(all);
    const bad: string[] = [];
    for (let i = 0; i < 65536; i++) {
      const e = (i >> 10) & 31;
      const m = i & 1023;
      const s = i & 0x8000 ? -1 : 1;
      const want = e === 31 ? (m ? NaN : s * Infinity) : e === 0 ? s * m * 2 ** -24 : s * (1 + m / 1024) * 2 ** (e - 15);
      if (Number.isNaN(want)) {
        if (!Number.isNaN(f[i])) bad.push(`0x${i.toString(16)} → ${f[i]}`);
      } else if (!Object.is(f[i], want) || float64ToHalfBits(f[i]!) !== i) bad.push(`0x${i.toString(16)} → ${f[i]}`);
    }
    expect(bad).toEqual([]);
  });

  it('rounds to nearest even', () => {
    expect(float64ToHalfBits(1 + 2 ** -11)).toBe(0x3c00); // tie → even
    expect(float64ToHalfBits(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(float64ToHalfBits(1 + 2 ** -11 + 2 ** -30)).toBe(0x3c01);
    expect(float64ToHalfBits(65519)).toBe(0x7bff);
    expect(float64ToHalfBits(65520)).toBe(0x7c00);
    expect(float64ToHalfBits(2 ** -25)).toBe(0); // tie between 0 and the smallest subnormal
    expect(float64ToHalfBits(3 * 2 ** -25)).toBe(2);
    expect(float64ToHalfBits(-0)).toBe(0x8000);
  });

  const py = '/usr/bin/python3';
  it.skipIf(!existsSync(py))('agrees with numpy on random doubles', () => {
    const rand = rng(9);
    const xs: number[] = [];
    for (let i = 0; i < 3000; i++) xs.push((rand() - 0.5) * 2 ** Math.floor(rand() * 44 - 28));
    let out: string;
    try {
      out = execFileSync(py, ['-c', 'import sys,json,numpy as np; print(json.dumps(np.array(json.load(sys.stdin),dtype="<f8").astype("<f2").view("<u2").tolist()))'], {
        input: JSON.stringify(xs),
      }).toString();
    } catch {
      return; // numpy unavailable
    }
    const want = JSON.parse(out) as number[];
    xs.forEach((x, i) => expect(float64ToHalfBits(x), String(x)).toBe(want[i]));
  });
});

describe('dtype strings', () => {
  it('parses names and numpy type strings', () => {
    expect(parseDtype('int8')).toEqual({ class: 'integer', size: 1, signed: true, order: 'LE' });
    expect(parseDtype('>u2')).toEqual({ class: 'integer', size: 2, signed: false, order: 'BE' });
    expect(parseDtype('|u1')).toEqual(parseDtype('uint8'));
    expect(parseDtype('f4')).toEqual(parseDtype('float32'));
    expect(parseDtype('<f2')).toEqual({ class: 'float', size: 2, order: 'LE' });
    expect(parseDtype('>f8')).toEqual({ class: 'float', size: 8, order: 'BE' });
    expect(parseDtype('bool')).toEqual(typeOf(fx('bool')));
    expect(parseDtype('str')).toEqual({ class: 'string', length: 'variable', charset: 'utf-8', padding: 'nullterm' });
    expect(parseDtype('S10')).toEqual({ class: 'string', length: 10, charset: 'ascii', padding: 'nullpad' });
    expect(parseDtype('(2,3)<i4')).toEqual(typeOf(fx('array_i32_2x3')));
    expect(parseDtype('vlen<<i2>')).toEqual(typeOf(fx('vlen_int16')));
    for (const bad of ['int7', '|u2', 'S0', 'f16', 'foo', '']) expect(() => parseDtype(bad), bad).toThrow(ValueError);
  });

  it('prints datatypes numpy-style, parseably for simple types', () => {
    const cases: [string, string][] = [
      ['int8', '|i1'],
      ['>u2', '>u2'],
      ['float64', '<f8'],
      ['bool', 'bool'],
      ['str', 'str'],
      ['str(ascii)', 'str(ascii)'],
      ['S10', 'S10'],
      ['S4(utf-8,nullterm)', 'S4(utf-8,nullterm)'],
      ['(2,3)>f4', '(2,3)>f4'],
      ['vlen<<i2>', 'vlen<<i2>'],
      ['V8', 'V8'],
      ['ref', 'ref'],
    ];
    for (const [spec, str] of cases) {
      expect(dtypeToString(parseDtype(spec)), spec).toBe(str);
      expect(parseDtype(str)).toEqual(parseDtype(spec));
    }
    expect(dtypeToString(typeOf(fx('compound')))).toBe('compound[12]{a:<i4@0,b:<f8@4}');
    expect(dtypeToString(typeOf(fx('enum16')))).toBe('enum(<i2){BLUE=42,GREEN=1,RED=0}');
  });

  it('infers datatypes from values', () => {
    expect(datatypeOfValues(new Int16Array(2))).toEqual(parseDtype('int16'));
    expect(datatypeOfValues(new BigUint64Array(1))).toEqual(parseDtype('uint64'));
    expect(datatypeOfValues([1, 2])).toEqual(parseDtype('float64'));
    expect(datatypeOfValues([[1n]])).toEqual(parseDtype('int64'));
    expect(datatypeOfValues(true)).toEqual(parseDtype('bool'));
    expect(datatypeOfValues(['a'])).toEqual(parseDtype('str'));
    expect(datatypeOfValues([new Float32Array(2)])).toEqual(parseDtype('float32'));
    expect(datatypeOfValues({ x: 1, n: 'a' })).toEqual({
      class: 'compound',
      size: 24,
      members: [
        { name: 'x', offset: 0, type: parseDtype('float64') },
        { name: 'n', offset: 8, type: parseDtype('str') },
      ],
    });
    expect(() => datatypeOfValues(null)).toThrow(ValueError);
  });
});
