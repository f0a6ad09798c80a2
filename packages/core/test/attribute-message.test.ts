import { describe, expect, it } from 'vitest';
import { FormatError, H5Error, TruncatedError, ValueError } from '../src/errors.js';
import { type SizeContext } from '../src/format/bytes.js';
import {
  decodeAttribute,
  decodeSharedMessageRef,
  encodeAttribute,
  resolveAttribute,
  type AttributeMessage,
} from '../src/format/messages/attribute.js';
import type { Datatype } from '../src/format/messages/datatype.js';
import { decodeValues } from '../src/values/decode.js';
import { fixtures, hex, rng, toHex } from './fixtures/h5py-messages.js';

const S8: SizeContext = { sizeOfOffsets: 8, sizeOfLengths: 8 };
const I32: Datatype = { class: 'integer', size: 4, signed: true, order: 'LE' };

function attr(libver: string, group: string): AttributeMessage {
  const f = fixtures.attributes.find((a) => a.libver === libver && a.group === group)!;
  return decodeAttribute(hex(f.hex), S8, 500);
}

describe('attribute message (IV.A.2.m) against bytes written by HDF5 1.10.8', () => {
  it('decodes versions 1 (earliest), 2 (shared datatype) and 3 (latest)', () => {
    expect(fixtures.attributes.length).toBe(28);
    for (const f of fixtures.attributes) {
      const a = decodeAttribute(hex(f.hex), S8);
      expect(a.name, f.group).toBe(f.name);
      expect(a.charset).toBe('ascii'); // h5py never marks attribute names as UTF-8
      if (f.committed !== null) {
        expect(a.sharedDatatypeRef).toMatchObject({ kind: 'committed', address: f.committed });
      }
    }
  });

  it('gives the values h5py stored', () => {
    for (const v of ['earliest', 'latest']) {
      const get = (g: string) => {
        const a = attr(v, g);
        const n = a.dataspace.kind === 'null' ? 0 : a.dataspace.dims.reduce((x, y) => x * y, 1);
        return {
          a,
          get values() {
            return decodeValues(a.data, a.datatype, n, S8);
          },
        };
      };
      expect(get('a_int').values).toEqual(new Int32Array([42]));
      expect(get('a_int').a.dataspace).toEqual({ kind: 'scalar', dims: [], maxDims: null });
      expect(get('a_arr').values).toEqual(new Uint16Array([0, 1, 2]));
      expect(get('a_f2').values).toEqual(new Float32Array([1.5]));
      expect(get('a_2d').values).toEqual(new Float64Array([0, 1, 2, 3, 4, 5]));
      expect(get('a_2d').a.dataspace.dims).toEqual([2, 3]);
      expect(get('a_empty').a.dataspace.kind).toBe('null');
      expect(get('a_empty').a.data.length).toBe(0);
      expect(get('a_zero').a.dataspace).toEqual({ kind: 'simple', dims: [0], maxDims: [0] });
      expect(get('a_utf8name').a.name).toBe('tempé');
      expect(get('a_utf8name').values).toEqual(new Int8Array([-1]));
      expect(get('a_fixed').values).toEqual(['ab', 'c']);
      expect(get('a_bool').values).toEqual(new Int8Array([1]));
      expect(get('a_cmp').values).toEqual([{ a: 1, b: 2 }]);
      expect(get('a_longname').values).toEqual(new Uint8Array([7]));
      expect(get('a_str').a.datatype).toMatchObject({ class: 'string', length: 'variable', charset: 'utf-8' });
      expect(get('a_str').a.data.length).toBe(16);
    }
  });

  it('resolves attributes with a committed (shared) datatype', () => {
    for (const v of ['earliest', 'latest']) {
      const a = attr(v, 'a_shared');
      expect(a.sharedDatatypeRef?.raw.length).toBe(10);
      const r = resolveAttribute(a, S8, { datatype: I32 });
      expect(decodeValues(r.data, r.datatype, 2, S8)).toEqual(new Int32Array([1, 2]));
    }
  });

  it('encodes version 3 byte-identically to HDF5 with libver latest', () => {
    for (const f of fixtures.attributes.filter((x) => x.libver === 'latest')) {
      let a = decodeAttribute(hex(f.hex), S8);
      if (a.sharedDatatypeRef) a = resolveAttribute(a, S8, { datatype: I32 });
      expect(toHex(encodeAttribute(a, S8, { datatypeMinVersion: 3 })), f.group).toBe(f.hex);
    }
  });

  it('round-trips UTF-8 names and version-1 decoded attributes through version 3', () => {
    for (const f of fixtures.attributes.filter((x) => x.libver === 'earliest' && x.committed === null)) {
      const a = decodeAttribute(hex(f.hex), S8);
      const u: AttributeMessage = { ...a, charset: 'utf-8', name: `${a.name}→ü` };
      const b = encodeAttribute(u, S8);
      expect(b[0]).toBe(3);
      expect(b[8]).toBe(1); // name character set
      const back = decodeAttribute(b, S8);
      expect(back).toEqual({ ...u, data: back.data });
      expect(toHex(back.data)).toBe(toHex(a.data));
    }
  });

  it('decodes shared-message references of every version', () => {
    expect(decodeSharedMessageRef(hex('0100000000000000' + '0000000000000000' + '2003000000000000'), S8)).toMatchObject({ kind: 'committed', address: 800 });
    expect(decodeSharedMessageRef(hex('0202' + '2003000000000000'), S8)).toMatchObject({ kind: 'committed', address: 800 });
    expect(decodeSharedMessageRef(hex('0302' + '2003000000000000'), S8)).toMatchObject({ kind: 'committed', address: 800 });
    const sohm = decodeSharedMessageRef(hex('0301' + '0102030405060708'), S8);
    expect(sohm.kind).toBe('sohm');
    expect(toHex(sohm.heapId!)).toBe('0102030405060708');
    expect(() => decodeSharedMessageRef(hex('0303' + '2003000000000000'), S8)).toThrow(FormatError);
    expect(() => decodeSharedMessageRef(hex('04'), S8)).toThrow(FormatError);
  });
});

describe('attribute message errors', () => {
  const good = attr('latest', 'a_2d');

  it('validates the data length on encode and decode', () => {
    expect(() => encodeAttribute({ ...good, data: good.data.subarray(1) }, S8)).toThrow(ValueError);
    const bytes = encodeAttribute(good, S8);
    expect(() => decodeAttribute(bytes.subarray(0, bytes.length - 1), S8, 77)).toThrow(TruncatedError);
    try {
      decodeAttribute(bytes.subarray(0, bytes.length - 1), S8, 77);
    } catch (e) {
      expect((e as H5Error).message).toMatch(/attribute message, at address 77/);
    }
    // Trailing padding (object header alignment) is tolerated and dropped
    const padded = new Uint8Array(bytes.length + 5);
    padded.set(bytes);
    expect(decodeAttribute(padded, S8).data.length).toBe(48);
  });

  it('rejects a name length that disagrees with the name', () => {
    const b = hex(fixtures.attributes.find((a) => a.libver === 'latest' && a.group === 'a_int')!.hex);
    b[2] = 3; // name size 3 but the name is "x\0"
    expect(() => decodeAttribute(b, S8)).toThrow(FormatError);
    expect(() => encodeAttribute({ ...good, name: '' }, S8)).toThrow(ValueError);
    expect(() => encodeAttribute({ ...good, name: 'a\0b' }, S8)).toThrow(ValueError);
  });

  it('throws only H5Error subclasses on truncated, mutated and random input', () => {
    const valid = fixtures.attributes.map((a) => hex(a.hex));
    for (const b of valid) for (let n = 0; n < b.length; n++) {
      try {
        decodeAttribute(b.subarray(0, n), S8);
      } catch (e) {
        if (!(e instanceof H5Error)) throw e;
      }
    }
    const rand = rng(11);
    for (let i = 0; i < 20000; i++) {
      let b: Uint8Array;
      if (i % 2) {
        b = valid[i % valid.length]!.slice();
        for (let k = 0; k < 1 + (i % 3); k++) b[Math.floor(rand() * b.length)] = Math.floor(rand() * 256);
      } else {
        b = new Uint8Array(Math.floor(rand() * 100));
        for (let k = 0; k < b.length; k++) b[k] = Math.floor(rand() * 256);
        if (b.length) b[0] = 1 + (i % 3);
      }
      try {
        decodeAttribute(b, S8);
      } catch (e) {
        if (!(e instanceof H5Error)) throw e;
      }
    }
  });
});
