import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatError, H5Error, SelectionError, TruncatedError } from '../src/errors.js';
import {
  decodeSelection,
  encodeSelection,
  selectAll,
  selectBlocks,
  selectHyperslab,
  selectNone,
  selectPoints,
  validateSelection,
  type Selection,
} from '../src/selection/index.js';
import { caseArb, elementsOf, fromHex, lclsBoxes, toHex } from './support/selection-serialize-cases.js';

const le32 = (v: number): string => toHex(Uint8Array.of(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24));
const le16 = (v: number): string => toHex(Uint8Array.of(v & 0xff, v >>> 8));
const le64 = (v: number): string => le32(v % 2 ** 32) + le32(Math.floor(v / 2 ** 32));
/** Header + extent v1 (8-byte sizes, no max) for `dims`. */
const extent1 = (dims: number[]): string =>
  '010008' + le32(8 + 8 * dims.length) + '01' + toHex(Uint8Array.of(dims.length)) + '00' + '0000000000' + dims.map(le64).join('');
const decodeHex = (hex: string): Selection => decodeSelection(fromHex(hex)).selection;

function expectFormatError(hex: string, pattern: RegExp): void {
  let err: unknown;
  try {
    decodeSelection(fromHex(hex));
  } catch (e) {
    err = e;
  }
  expect(err, `no error for ${hex}`).toBeInstanceOf(FormatError);
  expect((err as Error).message).toMatch(pattern);
}

const SAMPLES: { sel: Selection; dims: number[] }[] = [
  { sel: selectNone(), dims: [4, 4] },
  { sel: selectAll(), dims: [4, 4] },
  { sel: selectPoints([[1, 2], [0, 3]]), dims: [4, 4] },
  { sel: selectHyperslab({ start: [0, 1], stride: [2, 2], count: [2, 2], block: [1, 1] }), dims: [4, 4] },
  { sel: selectBlocks([{ start: [0, 0], end: [2, 2] }, { start: [1, 2], end: [4, 3] }]), dims: [4, 4] },
  { sel: selectPoints([[70000]]), dims: [80000] },
];

describe('corrupt encoded selections', () => {
  it('every truncation of a valid buffer is a TruncatedError/FormatError', () => {
    for (const { sel, dims } of SAMPLES) {
      for (const encoding of ['smallest', 'prototype'] as const) {
        const buf = encodeSelection(sel, { dims, maxDims: dims.map(() => null) }, { encoding });
        for (let n = 0; n < buf.length; n++) {
          expect(() => decodeSelection(buf.subarray(0, n)), `${encoding} ${sel.kind} cut at ${n}`).toThrow(FormatError);
        }
        expect(() => decodeSelection(Uint8Array.of(...buf, 0)), 'trailing byte').toThrow(/unexpected bytes after the selection/);
      }
    }
  });

  it('random byte damage gives a valid selection or a typed error, never anything else', () => {
    fc.assert(
      fc.property(
        caseArb,
        fc.constantFrom('smallest', 'prototype'),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        (c, encoding, damage) => {
          const buf = encodeSelection(c.sel, c, { encoding }).slice();
          for (const [at, v] of damage) buf[at % buf.length] = v;
          try {
            const d = decodeSelection(buf);
            validateSelection(d.selection, d.extent.dims);
          } catch (e) {
            expect(e).toBeInstanceOf(H5Error);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('rejects bogus counts before allocating anything', () => {
    // hyperslab v1 claiming 2^32-1 blocks (length field consistent modulo 2^32 is impossible: check bytes)
    expectFormatError(extent1([10]) + '02000000' + '01000000' + '00000000' + le32(8) + '01000000' + 'ffffffff', /length field|need .* bytes/);
    // hyperslab v3, width 8: 2^52 blocks
    expectFormatError(extent1([10]) + '02000000' + '03000000' + '00' + '08' + '01000000' + le64(2 ** 52), /need .* bytes but only 0 remain/);
    // points v2, width 8: 2^50 points
    expectFormatError(extent1([10]) + '01000000' + '02000000' + '08' + '01000000' + le64(2 ** 50), /need .* bytes but only 0 remain/);
    // a 64-bit count beyond 2^53
    expectFormatError(extent1([10]) + '01000000' + '02000000' + '08' + '01000000' + 'ffffffffffffff7f', /exceeds 2\^53/);
    expectFormatError(extent1([10]) + '01000000' + '02000000' + '02' + '01000000' + le16(0), /no points/);
    expectFormatError(extent1([10]) + '02000000' + '03000000' + '00' + '02' + '01000000' + le16(0), /no blocks/);
  });

  it('rejects coordinates outside the extent and malformed blocks', () => {
    expectFormatError(extent1([5, 6]) + '01000000' + '02000000' + '02' + '02000000' + le16(1) + le16(4) + le16(6), /point 0 \[4, 6\].*outside the extent \[5, 6\]/);
    expectFormatError(extent1([5]) + '01000000010000000000000010000000' + '01000000' + '02000000' + le32(1) + le32(5), /point 1 \[5\]/);
    expectFormatError(extent1([5]) + '02000000' + '03000000' + '00' + '02' + '01000000' + le16(1) + le16(3) + le16(2), /spans \[3, 2\].*start is after its end/);
    expectFormatError(extent1([5]) + '02000000010000000000000010000000' + '01000000' + '01000000' + le32(2) + le32(5), /spans \[2, 5\].*outside the extent size 5/);
    // regular: start + block beyond the extent; overlapping blocks; both unlimited
    expectFormatError(extent1([10]) + '02000000' + '03000000' + '01' + '02' + '01000000' + le16(8) + le16(1) + le16(1) + le16(3), /covers \[8, 11\)/);
    expectFormatError(extent1([10]) + '02000000' + '03000000' + '01' + '02' + '01000000' + le16(0) + le16(2) + le16(3) + le16(3), /blocks overlap/);
    expectFormatError(extent1([10]) + '02000000' + '03000000' + '01' + '02' + '01000000' + le16(0) + le16(2) + 'ffff' + 'ffff', /both unlimited/);
    expectFormatError(extent1([10]) + '02000000' + '03000000' + '01' + '04' + '01000000' + le32(4e9) + le32(4e9) + le32(4e9) + le32(4e9), /outside the extent/);
  });

  it('rejects bad headers, versions, widths, flags, ranks and length fields', () => {
    const none = '00000000010000000000000000000000';
    expectFormatError('02' + extent1([4]).slice(2) + none, /not an encoded dataspace/);
    expectFormatError('0101' + extent1([4]).slice(4) + none, /unknown encode version 1/);
    expectFormatError('010003' + extent1([4]).slice(6) + none, /size of sizes 3/);
    expectFormatError('010008' + le32(24) + extent1([4]).slice(14) + none, /extent length field says 24/);
    expectFormatError('010008' + le32(8) + '0121000000000000' + none, /rank 33/);
    expectFormatError('010008' + le32(8) + '0301000000000000' + none, /dataspace message version 3/);
    expectFormatError('010008' + le32(20) + '01010100000000000500000000000000' + '0400000000000000' + none, /maximum size 4 is smaller than the size 5/);
    expectFormatError(extent1([4]) + '07000000' + '01000000' + '0000000000000000', /unknown selection type 7/);
    expectFormatError(extent1([4]) + '03000000' + '02000000' + '0000000000000000', /all selection: unknown version 2/);
    expectFormatError(extent1([4]) + '01000000' + '03000000', /point selection: unknown version 3/);
    expectFormatError(extent1([4]) + '02000000' + '04000000', /hyperslab selection: unknown version 4/);
    expectFormatError(extent1([4]) + '01000000' + '02000000' + '03' + '01000000' + '0100' + '000000', /coordinate width 3/);
    expectFormatError(extent1([4]) + '02000000' + '03000000' + '02' + '02' + '01000000', /unknown flags 0x2/);
    expectFormatError(extent1([4]) + '01000000' + '02000000' + '02' + '02000000' + le16(1) + le16(1) + le16(1), /rank 2 but the extent has rank 1/);
    expectFormatError('010008' + le32(8) + '0100000000000000' + '01000000' + '02000000' + '02' + '00000000' + le16(1), /point selection in a scalar dataspace/);
    expectFormatError(extent1([4]) + '01000000010000000000000011000000' + '01000000' + '01000000' + le32(1), /length field 17 does not match/);
    expectFormatError(extent1([4]) + '02000000010000000000000011000000' + '01000000' + '01000000' + le32(1) + le32(1), /length field 17 does not match/);
    expectFormatError(extent1([4]) + '02000000' + '02000000' + '01' + le32(99) + '01000000' + le64(0) + le64(1) + le64(1) + le64(1), /length field 99/);
    expect(decodeHex(extent1([4]) + '02000000' + '02000000' + '01' + le32(36) + '01000000' + le64(1) + le64(1) + le64(2) + le64(1))).toMatchObject({
      kind: 'hyperslab',
      start: [1],
      count: [2],
    });
  });

  it('stops on adversarial (quadratic) block lists instead of hanging', () => {
    const n = 20000;
    const blocks: string[] = [];
    for (let i = 0; i < n; i++) blocks.push(le16(i) + le16(0) + le16(2 * n - 1 - i) + le16(0));
    const hex = '010002' + le32(8) + '02020001' + le16(2 * n) + le16(1) + '02000000' + '03000000' + '00' + '02' + '02000000' + le16(n) + blocks.join('');
    const t0 = Date.now();
    expectFormatError(hex, /too complex to normalise/);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('names the dataset, chunk and address in its errors', () => {
    const bad = fromHex(extent1([4]) + '07000000');
    expect(() => decodeSelection(bad, { path: '/frames', chunk: [3, 0, 0], address: 4096 })).toThrow(
      /^object "\/frames", encoded selection of chunk \[3, 0, 0\], at address 4096: unknown selection type 7$/,
    );
    try {
      decodeSelection(bad.subarray(0, 10), { chunk: [1], address: 64 });
    } catch (e) {
      expect(e).toBeInstanceOf(TruncatedError);
      expect((e as Error).message).toMatch(/^encoded selection of chunk \[1\], at address 64: /);
    }
  });
});

describe('special decodings', () => {
  it('clips unlimited counts and blocks to the extent (regular v3 / v2)', () => {
    const reg = (start: number, stride: number, count: string, block: string): string =>
      extent1([10]) + '02000000' + '03000000' + '01' + '02' + '01000000' + le16(start) + le16(stride) + count + block;
    expect(elementsOf(decodeHex(reg(1, 3, 'ffff', le16(2))), [10])).toEqual([1, 2, 4, 5, 7, 8]);
    expect(decodeHex(reg(1, 3, 'ffff', le16(2)))).toMatchObject({ kind: 'hyperslab', count: [3] });
    expect(elementsOf(decodeHex(reg(1, 4, 'ffff', le16(3))), [10])).toEqual([1, 2, 3, 5, 6, 7, 9]);
    expect(elementsOf(decodeHex(reg(4, 1, le16(1), 'ffff')), [10])).toEqual([4, 5, 6, 7, 8, 9]);
    expect(decodeHex(reg(12, 1, 'ffff', le16(1)))).toEqual(selectNone());
    // a clipped unlimited selection with a partial last block and 2^40 blocks: refused, not allocated
    const huge = extent1([2 ** 41]) + '02000000' + '03000000' + '01' + '08' + '01000000' + le64(0) + le64(2) + 'ffffffffffffffff' + le64(2);
    expect(decodeHex(huge)).toMatchObject({ kind: 'hyperslab', count: [2 ** 40] });
    const hugePartial = extent1([2 ** 41 + 1]) + '02000000' + '03000000' + '01' + '08' + '01000000' + le64(0) + le64(2) + 'ffffffffffffffff' + le64(2);
    expectFormatError(hugePartial, /blocks \(limit/);
    const v2 = extent1([10]) + '02000000' + '02000000' + '01' + le32(36) + '01000000' + le64(6) + le64(2) + 'ffffffffffffffff' + le64(1);
    expect(elementsOf(decodeHex(v2), [10])).toEqual([6, 8]);
  });

  it('reads extents of any size width, v1 and v2, scalar and null', () => {
    const v2w2 = '010002' + le32(12) + '02020101' + le16(7) + le16(9) + le16(7) + le16(65535) + '03000000010000000000000000000000';
    expect(decodeSelection(fromHex(v2w2)).extent).toEqual({ kind: 'simple', rank: 2, dims: [7, 9], maxDims: [7, 65535] });
    const nul = '010008' + le32(4) + '02000002' + '03000000010000000000000000000000';
    expect(decodeSelection(fromHex(nul)).extent).toEqual({ kind: 'null', rank: 0, dims: [], maxDims: null });
    const scalar = '010008' + le32(8) + '0100000000000000' + '03000000010000000000000000000000';
    expect(decodeSelection(fromHex(scalar))).toMatchObject({ extent: { kind: 'scalar', rank: 0 }, selection: { kind: 'all' } });
  });
});

describe('encode argument checks', () => {
  it('throws SelectionError for selections outside the extent and bad extents', () => {
    expect(() => encodeSelection(selectPoints([[4]]), { dims: [4] })).toThrow(SelectionError);
    expect(() => encodeSelection(selectBlocks([{ start: [0, 0], end: [2, 5] }]), { dims: [4, 4] })).toThrow(SelectionError);
    expect(() => encodeSelection(selectPoints([[1, 1]]), { dims: [4] })).toThrow(/rank/);
    expect(() => encodeSelection(selectAll(), { dims: [4], maxDims: [3] })).toThrow(/maximum size 3/);
    expect(() => encodeSelection(selectAll(), { dims: [4, 4], maxDims: [5] })).toThrow(/1 entries for rank 2/);
    expect(() => encodeSelection(selectAll(), { dims: [-1] })).toThrow(SelectionError);
    expect(() => encodeSelection(selectAll(), { dims: [4] }, { encoding: 'tiny' as never })).toThrow(/unknown selection encoding/);
  });
});

describe('LCLS-like frame: 2048×2048 chunk, 10 % rectangle + 100 groups of 5–10 pixels', () => {
  const dims = [2048, 2048];
  const cases = [
    { name: 'rectangle + groups', sel: selectBlocks(lclsBoxes(7, 100, true)) },
    { name: 'groups only', sel: selectBlocks(lclsBoxes(7, 100, false)) },
  ];

  it('encodes compactly in both modes and decodes to the same selection', () => {
    for (const { name, sel } of cases) {
      const n = elementsOf(sel, dims).length;
      const small = encodeSelection(sel, { dims });
      const proto = encodeSelection(sel, { dims }, { encoding: 'prototype' });
      for (const buf of [small, proto]) expect(decodeSelection(buf).selection, name).toEqual(sel);
      const groupPixels = name === 'groups only' ? n : n - 648 * 648;
      console.log(
        `${name}: ${n} elements; smallest ${small.length} B (${(small.length / groupPixels).toFixed(2)} B per group pixel), ` +
          `prototype ${proto.length} B (${(proto.length / groupPixels).toFixed(2)} B per group pixel)`,
      );
      expect(small.length / groupPixels).toBeLessThan(4);
      expect(proto.length / groupPixels).toBeLessThan(10);
    }
  });
});
