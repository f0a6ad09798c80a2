import { describe, expect, it } from 'vitest';
import { FormatError, H5Error, TruncatedError, ValueError } from '../src/errors.js';
import { ByteWriter, UNDEFINED_ADDRESS, type SizeContext } from '../src/format/bytes.js';
import { dataspaceElementCount, decodeDataspace, encodeDataspace, type Dataspace } from '../src/format/messages/dataspace.js';
import { fixtures, hex, rng, toHex } from './fixtures/h5py-messages.js';

const S8: SizeContext = { sizeOfOffsets: 8, sizeOfLengths: 8 };
const U = UNDEFINED_ADDRESS;

const expected: Record<string, Dataspace> = {
  scalar: { kind: 'scalar', dims: [], maxDims: null },
  d10: { kind: 'simple', dims: [10], maxDims: [10] },
  d3x4_unlim: { kind: 'simple', dims: [3, 4], maxDims: [U, 4] },
  empty: { kind: 'null', dims: [], maxDims: null },
  zero: { kind: 'simple', dims: [0], maxDims: [0] },
  big: { kind: 'simple', dims: [2 ** 40, 3], maxDims: [U, U] },
};

describe('dataspace message (IV.A.2.b) against bytes written by HDF5 1.10.8', () => {
  it('decodes versions 1 (libver earliest) and 2 (latest)', () => {
    expect(fixtures.dataspaces.length).toBe(12);
    for (const f of fixtures.dataspaces) {
      expect(decodeDataspace(hex(f.hex), S8, 48), `${f.libver}/${f.name}`).toEqual(expected[f.name]);
    }
  });

  it('encodes version 2 byte-identically to HDF5 with libver latest', () => {
    for (const f of fixtures.dataspaces.filter((x) => x.libver === 'latest')) {
      expect(toHex(encodeDataspace(expected[f.name]!, S8)), f.name).toBe(f.hex);
    }
  });

  it('round-trips with 4-byte lengths and without max dims', () => {
    const S4: SizeContext = { sizeOfOffsets: 4, sizeOfLengths: 4 };
    const cases: Dataspace[] = [
      { kind: 'simple', dims: [1, 2, 3], maxDims: null },
      { kind: 'simple', dims: [5], maxDims: [U] },
      { kind: 'scalar', dims: [], maxDims: null },
      { kind: 'null', dims: [], maxDims: null },
    ];
    for (const ds of cases) {
      const b = encodeDataspace(ds, S4);
      expect(decodeDataspace(b, S4)).toEqual(ds);
    }
    expect(toHex(encodeDataspace(cases[0]!, S4))).toBe('02030001010000000200000003000000');
  });

  it('counts elements', () => {
    expect(dataspaceElementCount(expected.scalar!)).toBe(1);
    expect(dataspaceElementCount(expected.empty!)).toBe(0);
    expect(dataspaceElementCount(expected.big!)).toBe(3 * 2 ** 40);
  });
});

describe('dataspace errors', () => {
  function v2(rank: number, dims: number[], type = 1): Uint8Array {
    const w = new ByteWriter(S8);
    w.u8(2).u8(rank).u8(0).u8(type);
    for (const d of dims) w.length(d);
    return w.finish();
  }

  it('rejects rank > 32, element counts over 2^53, bad versions and types', () => {
    expect(() => decodeDataspace(v2(33, new Array(33).fill(1)), S8, 7)).toThrow(/rank 33/);
    expect(() => decodeDataspace(v2(2, [2 ** 26, 2 ** 26]), S8)).not.toThrow();
    expect(() => decodeDataspace(v2(2, [2 ** 40, 2 ** 20]), S8)).toThrow(/2\^53/);
    expect(() => decodeDataspace(hex('03000000'), S8)).toThrow(FormatError);
    expect(() => decodeDataspace(hex('02000003'), S8)).toThrow(/type 3/);
    expect(() => decodeDataspace(hex('02010002' + '0100000000000000'), S8)).toThrow(FormatError); // null with rank
    expect(() => decodeDataspace(v2(1, [U]), S8)).toThrow(/undefined size/);
    try {
      decodeDataspace(v2(33, []), S8, 4242);
    } catch (e) {
      expect((e as H5Error).message).toContain('dataspace message');
      expect((e as H5Error).address).toBe(4242);
    }
  });

  it('reports truncation', () => {
    const full = hex(fixtures.dataspaces.find((f) => f.name === 'd3x4_unlim')!.hex);
    for (let n = 0; n < full.length; n++) expect(() => decodeDataspace(full.subarray(0, n), S8)).toThrow(TruncatedError);
  });

  it('throws only H5Error subclasses on random input', () => {
    const rand = rng(7);
    for (let i = 0; i < 20000; i++) {
      const b = new Uint8Array(Math.floor(rand() * 80));
      for (let k = 0; k < b.length; k++) b[k] = Math.floor(rand() * 256);
      if (b.length > 0 && i % 2) b[0] = 1 + (i % 4 === 1 ? 1 : 0);
      if (b.length > 1 && i % 3 === 0) b[1] = Math.floor(rand() * 5);
      try {
        decodeDataspace(b, S8);
      } catch (e) {
        if (!(e instanceof H5Error)) throw e;
      }
    }
  });

  it('rejects impossible dataspaces on encode', () => {
    expect(() => encodeDataspace({ kind: 'simple', dims: new Array(33).fill(1), maxDims: null }, S8)).toThrow(ValueError);
    expect(() => encodeDataspace({ kind: 'simple', dims: [5], maxDims: [4] }, S8)).toThrow(ValueError);
    expect(() => encodeDataspace({ kind: 'simple', dims: [5], maxDims: [5, 5] }, S8)).toThrow(ValueError);
    expect(() => encodeDataspace({ kind: 'simple', dims: [-1], maxDims: null }, S8)).toThrow(ValueError);
    expect(() => encodeDataspace({ kind: 'scalar', dims: [1], maxDims: null }, S8)).toThrow(ValueError);
    expect(() => encodeDataspace({ kind: 'simple', dims: [2 ** 40, 2 ** 40], maxDims: null }, S8)).toThrow(ValueError);
  });
});
