import { describe, expect, it } from 'vitest';
import { FormatError, H5Error, TruncatedError, UnsupportedError, ValueError } from '../src/errors.js';
import { ByteReader, ByteWriter, type SizeContext } from '../src/format/bytes.js';
import {
  datatypeEncodingVersion,
  datatypeSize,
  decodeDatatype,
  encodeDatatype,
  type Datatype,
  type EncodeDatatypeOptions,
} from '../src/format/messages/datatype.js';
import { fixtures, hex, rng, toHex } from './fixtures/h5py-messages.js';
import { bfloat16 } from './support/datatypes.js';

const S8: SizeContext = { sizeOfOffsets: 8, sizeOfLengths: 8 };

function decode(bytes: Uint8Array): { t: Datatype; used: number } {
  const r = new ByteReader(bytes, { structure: 'datatype message', base: 100 });
  const t = decodeDatatype(r);
  return { t, used: r.pos };
}

function encode(t: Datatype, opts?: EncodeDatatypeOptions, sizes = S8): Uint8Array {
  const w = new ByteWriter(sizes);
  encodeDatatype(w, t, opts);
  return w.finish().slice();
}

const byName = (libver: string, name: string) => {
  const f = fixtures.datatypes.find((d) => d.libver === libver && d.name === name);
  if (!f) throw new Error(`no fixture ${libver}/${name}`);
  return decode(hex(f.datatype)).t;
};

describe('datatype message (IV.A.2.d) against bytes written by HDF5 1.10.8', () => {
  it('decodes every h5py datatype and leaves only object-header padding', () => {
    expect(fixtures.datatypes.length).toBeGreaterThan(60);
    for (const f of fixtures.datatypes) {
      const bytes = hex(f.datatype);
      const { used } = decode(bytes);
      // version-1 object headers pad message bodies to 8 bytes with zeros
      expect(used, f.name).toBeLessThanOrEqual(bytes.length);
      expect(bytes.subarray(used).every((b) => b === 0), f.name).toBe(true);
      if (f.libver === 'latest') expect(used, f.name).toBe(bytes.length);
    }
  });

  it('re-encodes every type byte-identically (lowest version; minVersion 3 = libver latest)', () => {
    for (const f of fixtures.datatypes) {
      const bytes = hex(f.datatype);
      const { t, used } = decode(bytes);
      const opts: EncodeDatatypeOptions = f.libver === 'latest' ? { minVersion: 3 } : {};
      expect(toHex(encode(t, opts)), `${f.libver}/${f.name}`).toBe(toHex(bytes.subarray(0, used)));
    }
  });

  it('maps classes to the model', () => {
    expect(byName('earliest', 'int16be')).toEqual({ class: 'integer', size: 2, signed: true, order: 'BE' });
    expect(byName('earliest', 'uint64be')).toEqual({ class: 'integer', size: 8, signed: false, order: 'BE' });
    expect(byName('earliest', 'float16le')).toEqual({ class: 'float', size: 2, order: 'LE' });
    expect(byName('latest', 'float64be')).toEqual({ class: 'float', size: 8, order: 'BE' });
    expect(byName('earliest', 'fixed_ascii5')).toEqual({ class: 'string', length: 5, charset: 'ascii', padding: 'nullpad' });
    expect(byName('earliest', 'fixed_utf8_10')).toEqual({ class: 'string', length: 10, charset: 'utf-8', padding: 'nullpad' });
    expect(byName('earliest', 'vlen_utf8')).toEqual({ class: 'string', length: 'variable', charset: 'utf-8', padding: 'nullterm' });
    expect(byName('latest', 'vlen_ascii')).toEqual({ class: 'string', length: 'variable', charset: 'ascii', padding: 'nullterm' });
    expect(byName('earliest', 'bool')).toEqual({
      class: 'enum',
      base: { class: 'integer', size: 1, signed: true, order: 'LE' },
      members: [
        { name: 'FALSE', value: 0 },
        { name: 'TRUE', value: 1 },
      ],
    });
    for (const v of ['earliest', 'latest']) {
      expect(byName(v, 'enum16')).toMatchObject({ members: [{ name: 'BLUE', value: 42 }, { name: 'GREEN', value: 1 }, { name: 'RED', value: 0 }] });
      expect(byName(v, 'compound')).toEqual({
        class: 'compound',
        size: 12,
        members: [
          { name: 'a', offset: 0, type: { class: 'integer', size: 4, signed: true, order: 'LE' } },
          { name: 'b', offset: 4, type: { class: 'float', size: 8, order: 'LE' } },
        ],
      });
      expect(byName(v, 'compound_array')).toMatchObject({
        size: 25,
        members: [{ name: 'x', offset: 0, type: { class: 'array', dims: [2, 3], base: { class: 'float', size: 4 } } }, { name: 'y', offset: 24 }],
      });
      expect(byName(v, 'compound_nested')).toMatchObject({ members: [{ name: 'p', type: { class: 'compound', size: 4 } }, { name: 'z', offset: 4 }] });
      expect(byName(v, 'array_i32_2x3')).toEqual({ class: 'array', dims: [2, 3], base: { class: 'integer', size: 4, signed: true, order: 'LE' } });
      expect(byName(v, 'vlen_int16')).toEqual({ class: 'vlen', base: { class: 'integer', size: 2, signed: true, order: 'LE' } });
      expect(byName(v, 'vlen_of_array')).toMatchObject({ class: 'vlen', base: { class: 'array', dims: [2] } });
    }
    expect(byName('earliest', 'opaque8')).toEqual({ class: 'opaque', size: 8, tag: '' });
    expect(byName('earliest', 'opaque_tag')).toEqual({ class: 'opaque', size: 4, tag: 'my tag' });
    expect(byName('earliest', 'objref')).toEqual({ class: 'reference', kind: 'object', size: 8 });
    expect(byName('earliest', 'regref')).toEqual({ class: 'reference', kind: 'region', size: 12 });
    expect(byName('earliest', 'bitfield16be')).toEqual({ class: 'bitfield', size: 2, order: 'BE' });
  });

  it('picks the version HDF5 picks', () => {
    expect(datatypeEncodingVersion(byName('earliest', 'compound'))).toBe(1);
    expect(datatypeEncodingVersion(byName('earliest', 'compound_array'))).toBe(2);
    expect(datatypeEncodingVersion(byName('earliest', 'vlen_of_array'))).toBe(2);
    expect(datatypeEncodingVersion(byName('earliest', 'vlen_int16'), 3)).toBe(1);
    expect(datatypeEncodingVersion(byName('earliest', 'bool'), 3)).toBe(3);
  });

  it('sizes elements like the file does', () => {
    expect(datatypeSize(byName('earliest', 'vlen_utf8'), S8)).toBe(16);
    expect(datatypeSize(byName('earliest', 'vlen_int16'), { sizeOfOffsets: 4, sizeOfLengths: 4 })).toBe(12);
    expect(datatypeSize(byName('earliest', 'array_i32_2x3'), S8)).toBe(24);
    expect(datatypeSize(byName('earliest', 'enum16'), S8)).toBe(2);
    expect(datatypeSize(byName('earliest', 'compound_vlstr'), S8)).toBe(20);
    const vl = encode({ class: 'string', length: 'variable', charset: 'ascii', padding: 'nullterm' }, {}, { sizeOfOffsets: 4, sizeOfLengths: 4 });
    expect(new DataView(vl.buffer).getUint32(4, true)).toBe(12);
  });
});

describe('datatype round trips', () => {
  const types: Datatype[] = [
    { class: 'integer', size: 3, signed: true, order: 'BE' },
    { class: 'integer', size: 2, signed: false, order: 'LE', bitOffset: 4, precision: 12 },
    { class: 'bitfield', size: 1, order: 'LE', bitOffset: 1, precision: 5 },
    { class: 'time', size: 4, order: 'BE' },
    { class: 'time', size: 8, order: 'LE', precision: 40 },
    bfloat16(),
    { class: 'string', length: 7, charset: 'utf-8', padding: 'spacepad' },
    { class: 'string', length: 'variable', charset: 'ascii', padding: 'nullpad' },
    { class: 'opaque', size: 16, tag: 'exactly8' },
    { class: 'reference', kind: 'region', size: 12 },
    { class: 'enum', base: { class: 'integer', size: 8, signed: false, order: 'BE' }, members: [{ name: 'big', value: 2n ** 63n }, { name: 'a', value: 1 }] },
    { class: 'enum', base: { class: 'integer', size: 4, signed: true, order: 'LE' }, members: [] },
    {
      class: 'compound',
      size: 300,
      members: [
        { name: 'a_long_member_name', offset: 0, type: { class: 'vlen', base: { class: 'array', dims: [2, 2], base: { class: 'float', size: 8, order: 'BE' } } } },
        { name: 'z', offset: 290, type: { class: 'array', dims: [10], base: { class: 'integer', size: 1, signed: false, order: 'LE' } } },
        { name: 'é', offset: 20, type: { class: 'compound', size: 8, members: [{ name: 'q', offset: 0, type: { class: 'float', size: 8, order: 'LE' } }] } },
      ],
    },
    { class: 'array', dims: [1, 2, 3, 4], base: { class: 'string', length: 'variable', charset: 'utf-8', padding: 'nullterm' } },
  ];
  for (const minVersion of [1, 2, 3] as const) {
    it(`decode(encode(t)) === t with minVersion ${minVersion}`, () => {
      for (const t of types) {
        const bytes = encode(t, { minVersion });
        const { t: back, used } = decode(bytes);
        expect(used).toBe(bytes.length);
        expect(back).toEqual(t);
      }
    });
  }

  it('decodes version-1 compound members with intrinsic array dimensions as array types', () => {
    const w = new ByteWriter();
    w.u8(0x16).u8(1).u8(0).u8(0).u32(12);
    w.bytes(new TextEncoder().encode('x')).zeros(7); // name padded to 8
    w.u32(0).u8(1).zeros(3).u32(0).u32(0).u32(3).u32(0).u32(0).u32(0); // offset, ndims=1, dims [3]
    w.u8(0x10).u8(0x08).u8(0).u8(0).u32(4).u16(0).u16(32);
    expect(decode(w.finish()).t).toEqual({
      class: 'compound',
      size: 12,
      members: [{ name: 'x', offset: 0, type: { class: 'array', dims: [3], base: { class: 'integer', size: 4, signed: true, order: 'LE' } } }],
    });
  });

  it('uses variable-width member offsets in version 3', () => {
    const t: Datatype = { class: 'compound', size: 256, members: [{ name: 'a', offset: 255, type: { class: 'integer', size: 1, signed: false, order: 'LE' } }] };
    const b = encode(t, { minVersion: 3 });
    expect(toHex(b.subarray(8, 12))).toBe('6100ff00'); // "a\0" + 2-byte offset 255
    expect(decode(b).t).toEqual(t);
  });
});

describe('datatype errors', () => {
  const valid = fixtures.datatypes.filter((f) => f.libver === 'latest').map((f) => hex(f.datatype));

  it('rejects bad versions, classes, sizes and layouts with FormatError naming the structure', () => {
    const cases = ['00080000040000000000200000000000', '1b000000040000000000', '10080000000000000000200000000000', '10080000040000000000210000000000'];
    for (const c of cases) {
      let err: unknown;
      try {
        decode(hex(c));
      } catch (e) {
        err = e;
      }
      expect(err, c).toBeInstanceOf(FormatError);
      expect((err as FormatError).message).toContain('datatype message');
      expect((err as FormatError).address).toBe(100);
    }
    expect(() => decode(hex('170f0000' + '08000000'))).toThrow(FormatError); // reference kind 15
    expect(() => decode(hex('17020000' + '10000000'))).toThrow(UnsupportedError); // 1.12 object reference
    expect(() => decode(hex('31611f00040000000000200017080017' + '7f000000'))).toThrow(UnsupportedError); // VAX order
  });

  it('bounds nesting depth', () => {
    let bytes = hex('100800000400000000002000');
    for (let i = 0; i < 40; i++) {
      const w = new ByteWriter();
      w.u8(0x29).u8(0).u8(0).u8(0).u32(16).bytes(bytes);
      bytes = w.finish().slice();
    }
    expect(() => decode(bytes)).toThrow(/nesting/);
  });

  it('rejects overlapping compound members', () => {
    const w = new ByteWriter();
    w.u8(0x36).u8(2).u8(0).u8(0).u32(8);
    for (const n of ['a', 'b']) {
      w.bytes(new TextEncoder().encode(n)).u8(0).u8(n === 'a' ? 0 : 2);
      w.u8(0x10).u8(0x08).u8(0).u8(0).u32(4).u16(0).u16(32);
    }
    expect(() => decode(w.finish())).toThrow(/overlapping/);
  });

  it('throws only H5Error subclasses on truncated input', () => {
    for (const b of valid) {
      for (let n = 0; n < b.length; n++) {
        expect(() => decode(b.subarray(0, n))).toThrow(H5Error);
      }
    }
  });

  it('throws only H5Error subclasses on random and mutated input', () => {
    const rand = rng(1);
    for (let iter = 0; iter < 20000; iter++) {
      let b: Uint8Array;
      if (iter % 2) {
        b = new Uint8Array(Math.floor(rand() * 64));
        for (let i = 0; i < b.length; i++) b[i] = Math.floor(rand() * 256);
      } else {
        b = valid[iter % valid.length]!.slice();
        const flips = 1 + Math.floor(rand() * 3);
        for (let k = 0; k < flips; k++) b[Math.floor(rand() * b.length)] = Math.floor(rand() * 256);
      }
      try {
        decode(b);
      } catch (e) {
        if (!(e instanceof H5Error)) throw e;
      }
    }
  });

  it('rejects impossible types on encode with ValueError', () => {
    const bad: Datatype[] = [
      { class: 'integer', size: 0, signed: true, order: 'LE' },
      { class: 'integer', size: 2, signed: true, order: 'LE', precision: 17 },
      { class: 'float', size: 3, order: 'LE' },
      { class: 'compound', size: 4, members: [{ name: 'a', offset: 2, type: { class: 'integer', size: 4, signed: true, order: 'LE' } }] },
      { class: 'compound', size: 4, members: [] },
      { class: 'array', dims: [0], base: { class: 'integer', size: 4, signed: true, order: 'LE' } },
      { class: 'enum', base: { class: 'integer', size: 1, signed: false, order: 'LE' }, members: [{ name: 'x', value: 256 }] },
      { class: 'opaque', size: 1, tag: 'x'.repeat(300) },
    ];
    for (const t of bad) expect(() => encode(t), JSON.stringify(t)).toThrow(ValueError);
  });

  it('reports truncation as TruncatedError', () => {
    expect(() => decode(hex('1008000004000000'))).toThrow(TruncatedError);
  });
});
