/**
 * Data layout message version 5, class 4 (structured chunks): the bytes of
 * docs/structured-chunk-format.md §3.1–3.8, the worked example §3.7, the index choice §3.3, the
 * shared encodings checked against the version 4 layouts HDF5 1.10 writes, and corrupt input.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { chooseStructuredChunkIndex } from '../src/chunk/choose-index.js';
import { FormatError, H5Error, TruncatedError, ValueError } from '../src/errors.js';
import { DEFAULT_SIZES, UNDEFINED_ADDRESS } from '../src/format/bytes.js';
import { decodeLayout, encodeLayout, type ChunkedLayout, type DataLayout } from '../src/format/messages/layout.js';
import {
  decodeStructuredLayout,
  encodeStructuredLayout,
  structuredChunkSizeLength,
  type StructuredChunkIndexInfo,
} from '../src/format/messages/layout-structured.js';
import { LAYOUT } from '../src/format/messages/message-types.js';
import type { RawMessage } from '../src/format/object-header.js';
import { h5pyMessages } from './support/h5py-headers.js';
import { sparseLayout } from './support/structured-layout.js';

const EA_INFO = { type: 'extensible-array', maxBits: 32, indexElements: 4, minPointers: 4, minElements: 16, pageBits: 10 } as const;
const ADDR = [0x00, 0x10, 0, 0, 0, 0, 0, 0];

describe('layout message v5 class 4: the bytes of docs/structured-chunk-format.md §3', () => {
  it('reproduces the worked example §3.7 byte for byte (30-byte body incl. 2 padding bytes)', () => {
    const expected = [
      0x05, // version 5
      0x04, // class 4
      0x00, // property version 0
      0x00, 0x00, // sparse
      0x00, // flags
      0x02, // dimensionality = rank + 1
      0x01, // E = 1
      0x05, 0x04, // chunk dim 5, element size 4
      0x08, 0x02, 0x01, 0x00, // composition
      0x04, // extensible array
      0x20, 0x04, 0x04, 0x10, 0x0a, // EA parameters
      ...ADDR, // EA header address
      0x00, 0x00, // padding to the declared 30 bytes
    ];
    const l = sparseLayout({ ...EA_INFO });
    const enc = encodeLayout(l);
    expect(Array.from(enc)).toEqual(expected);
    expect(enc.length).toBe(30); // H5STAT: layout message 34 bytes incl. its 4-byte header
    expect(decodeLayout(enc)).toEqual(l);
    // Composition block right after the dimension sizes (docs/structured-chunk-format.md §3.2).
    expect(Array.from(enc.subarray(10, 14))).toEqual([8, 2, 1, 0]);
    // Without padding the encoder writes only the 28 real bytes, which decode the same.
    expect(encodeStructuredLayout(l, DEFAULT_SIZES, false).length).toBe(28);
    expect(decodeLayout(encodeStructuredLayout(l, DEFAULT_SIZES, false))).toEqual(l);
  });

  it('dimension encoding length covers the element size (docs/structured-chunk-format.md §3.1 field 7)', () => {
    const l = sparseLayout({ type: 'fixed-array', pageBits: 10 }, 0x800, { chunkDims: [300, 2], elementSize: 8 });
    const enc = encodeLayout(l);
    expect(Array.from(enc.subarray(5, 14))).toEqual([0x00, 0x03, 0x02, 0x2c, 0x01, 0x02, 0x00, 0x08, 0x00]);
    expect(Array.from(enc.subarray(14, 20))).toEqual([8, 2, 1, 0, 3, 10]);
    expect(enc.length).toBe(20 + 8 + 2);
    expect(decodeLayout(enc)).toEqual(l);
  });

  it('chunk-size field width L (docs/structured-chunk-format.md §3.5)', () => {
    expect(structuredChunkSizeLength([5], 4, 8, 2)).toBe(2); // S = 20
    // The notes list S = 400 → L = 2, but their formula gives 1 + (8 + 8) / 8 = 3, as does HDF5's
    // ordinary rule (checked against HDF5 below); we follow the formula.
    expect(structuredChunkSizeLength([100], 4, 8, 2)).toBe(3); // S = 400
    expect(structuredChunkSizeLength([1024, 1024], 4, 8, 2)).toBe(4); // S = 4 MiB
    expect(structuredChunkSizeLength([1], 1, 8, 2)).toBe(2); // S = 1
    expect(structuredChunkSizeLength([255], 1, 8, 2)).toBe(2);
    expect(structuredChunkSizeLength([256], 1, 8, 2)).toBe(3);
    expect(structuredChunkSizeLength([2 ** 20, 2 ** 20, 2 ** 16], 8, 8, 2)).toBe(8); // capped at O
    expect(structuredChunkSizeLength([5], 4, 8, 3)).toBe(8); // Lifeboat VL: always 8
    expect(structuredChunkSizeLength([5], 16, 8, 2, 1)).toBe(8); // variable-length (type 1): always 8 (docs/format-vl.md)
    expect(structuredChunkSizeLength([5], 4, 4, 2)).toBe(3); // O = 4: 1 + (4 + 4) / 4 = 3
  });

  it('with O = 8, L equals the filtered-chunk size width HDF5 1.10.8 writes in fixed array elements', () => {
    const sizes = [1, 20, 255, 256, 400, 65535, 65536, 1 << 20];
    const script = [
      'import h5py, numpy as np, sys, json',
      "f = h5py.File(sys.argv[1], 'w', libver='latest')",
      `for s in ${JSON.stringify(sizes)}: f.create_dataset('d%d' % s, shape=(2 * s,), chunks=(s,), dtype='u1', compression='gzip')[0] = 1`,
      'f.close()',
      "b = open(sys.argv[1], 'rb').read()",
      'out = []',
      'i = b.find(b"FAHD")',
      'while i >= 0:',
      '    out.append(b[i + 6])',
      '    i = b.find(b"FAHD", i + 4)',
      'print(json.dumps(out))',
    ].join('\n');
    const path = join(mkdtempSync(join(tmpdir(), 'cf-L-')), 'l.h5');
    const elementSizes = JSON.parse(execFileSync('/usr/bin/python3', ['-c', script, path], { encoding: 'utf8' })) as number[];
    expect(elementSizes.length).toBe(sizes.length);
    // FA headers are allocated in creation order; element = address (8) + L + mask (4).
    expect(elementSizes.map((e) => e - 12)).toEqual(sizes.map((s) => structuredChunkSizeLength([s], 1, 8, 2)));
  });

  it('single chunk index: record inside the layout, padding 2 + (8 − L) (docs/structured-chunk-format.md §3.4, §3.6)', () => {
    // Unfiltered: chunk size (L = 2) + offset of section 1 (8), always present.
    const u = sparseLayout({ type: 'single', chunkSize: 58, sectionOffsets: [44] }, 0x800);
    const ue = encodeLayout(u);
    const head = [5, 4, 0, 0, 0, 0x00, 2, 1, 5, 4, 8, 2, 1, 0, 1];
    expect(Array.from(ue)).toEqual([...head, 0x3a, 0, 44, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x08, 0, 0, 0, 0, 0, 0, ...new Array(2 + 6).fill(0)]);
    expect(decodeLayout(ue)).toEqual(u);
    // Filtered (flag bit 1): + unfiltered sizes of sections 0, 1 (8 each) + masks (4 each). The record of docs/structured-chunk-format.md §6.5.
    const f = sparseLayout({ type: 'single', chunkSize: 58, sectionOffsets: [44], unfilteredSizes: [75, 8], filterMasks: [0, 0] }, 0x800, { flags: 2 });
    const fe = encodeLayout(f);
    expect(fe[5]).toBe(0x02);
    expect(Array.from(fe.subarray(15))).toEqual([
      0x3a, 0, // chunk size 58
      44, 0, 0, 0, 0, 0, 0, 0, // offset of section 1
      75, 0, 0, 0, 0, 0, 0, 0, // unfiltered size of section 0
      8, 0, 0, 0, 0, 0, 0, 0, // unfiltered size of section 1
      0, 0, 0, 0, 0, 0, 0, 0, // masks
      0x00, 0x08, 0, 0, 0, 0, 0, 0, // chunk address
      ...new Array(8).fill(0), // padding
    ]);
    expect(decodeLayout(fe)).toEqual(f);
    // The encoder sets bit 1 itself when the record has per-section sizes, and refuses bit 1 without them.
    expect(encodeLayout({ ...f, flags: 0 })[5]).toBe(2);
    expect(() => encodeLayout({ ...u, flags: 2 })).toThrow(ValueError);
    // "No chunk": undefined address, zeros elsewhere; HADDR_MAX (FE FF…) reads as no chunk too (docs/structured-chunk-format.md §3.4).
    const none = sparseLayout({ type: 'single', chunkSize: 0, sectionOffsets: [0] }, UNDEFINED_ADDRESS);
    const ne = encodeLayout(none);
    expect(decodeLayout(ne)).toEqual(none);
    const haddrMax = ne.slice();
    haddrMax.set([0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], 15 + 10);
    expect(decodeLayout(haddrMax)).toEqual(none);
  });

  it('fixed array and v2 B-tree index information (docs/structured-chunk-format.md §3.4)', () => {
    const fa = sparseLayout({ type: 'fixed-array', pageBits: 10 });
    expect(Array.from(encodeLayout(fa).subarray(14))).toEqual([3, 10, ...ADDR, 0, 0]);
    const bt = sparseLayout({ type: 'btree2', nodeSize: 2048, splitPercent: 100, mergePercent: 40 }, 0x1000, { chunkDims: [2, 2] });
    const be = encodeLayout(bt);
    expect(Array.from(be.subarray(5, 10))).toEqual([0, 3, 1, 2, 2]);
    expect(Array.from(be.subarray(11))).toEqual([8, 2, 1, 0, 5, 0x00, 0x08, 0, 0, 100, 40, ...ADDR, 0, 0]);
    for (const l of [fa, bt]) expect(decodeLayout(encodeLayout(l))).toEqual(l);
  });

  it('three-section (Lifeboat VL) composition: k = 3, no padding for the composition', () => {
    const vl = sparseLayout({ type: 'single', chunkSize: 9, sectionOffsets: [3, 6] }, 0x40, { chunkType: 1, sectionCount: 3, metadataSections: [0, 1, 2] });
    const enc = encodeLayout(vl);
    expect(Array.from(enc.subarray(10, 16))).toEqual([8, 3, 3, 0, 1, 2]);
    expect(enc.length).toBe(16 + 1 + 8 + 16 + 8); // L = 8 → no padding at all
    expect(decodeLayout(enc)).toEqual(vl);
  });

  it('rejects what the prototype rejects and corrupt input, with typed errors', () => {
    const ok = Array.from(encodeLayout(sparseLayout({ ...EA_INFO })));
    const mutate = (i: number, v: number) => {
      const b = Uint8Array.from(ok);
      b[i] = v;
      return b;
    };
    expect(() => decodeLayout(mutate(14, 0))).toThrow(FormatError); // v1 B-tree
    expect(() => decodeLayout(mutate(14, 2))).toThrow(FormatError); // implicit
    expect(() => decodeLayout(mutate(14, 6))).toThrow(FormatError);
    expect(() => decodeLayout(mutate(2, 1))).toThrow(FormatError); // property version
    expect(() => decodeLayout(mutate(5, 4))).toThrow(FormatError); // unknown flag
    expect(() => decodeLayout(mutate(6, 1))).toThrow(FormatError); // dimensionality 1
    expect(() => decodeLayout(mutate(7, 0))).toThrow(FormatError); // E = 0
    expect(() => decodeLayout(mutate(8, 0))).toThrow(FormatError); // chunk dim 0
    expect(() => decodeLayout(mutate(10, 0))).toThrow(FormatError); // offset size 0
    expect(() => decodeLayout(mutate(11, 0))).toThrow(FormatError); // no sections
    expect(() => decodeLayout(mutate(12, 3))).toThrow(FormatError); // 3 metadata sections of 2
    expect(() => decodeLayout(mutate(13, 2))).toThrow(FormatError); // metadata section 2 of 2
    expect(() => decodeLayout(Uint8Array.from([5, 4, 0, 0, 0, 0, 2, 1, 5, 4, 8, 3, 2, 1, 0, 3, 10, ...ADDR]))).toThrow(/not increasing/);
    expect(() => decodeLayout(mutate(1, 4).subarray(0, 1))).toThrow(TruncatedError);
    for (let n = 0; n < 28; n++) expect(() => decodeLayout(Uint8Array.from(ok.slice(0, n)))).toThrow(H5Error);
    const v4 = mutate(0, 4);
    expect(() => decodeLayout(v4)).toThrow(FormatError); // class 4 needs version 5
    // A single-chunk record whose section count makes the record run past the message.
    const single = Array.from(encodeStructuredLayout(sparseLayout({ type: 'single', chunkSize: 1, sectionOffsets: [0] }), DEFAULT_SIZES, false));
    single[11] = 200;
    expect(() => decodeLayout(Uint8Array.from(single))).toThrow(TruncatedError);
  });

  it('encoder validation', () => {
    const l = sparseLayout({ ...EA_INFO });
    expect(() => encodeLayout({ ...l, chunkDims: [] })).toThrow(ValueError);
    expect(() => encodeLayout({ ...l, chunkDims: [0] })).toThrow(ValueError);
    expect(() => encodeLayout({ ...l, elementSize: 0 })).toThrow(ValueError);
    expect(() => encodeLayout({ ...l, offsetSize: 9 })).toThrow(ValueError);
    expect(() => encodeLayout({ ...l, metadataSections: [1, 0] })).toThrow(ValueError);
    expect(() => encodeLayout({ ...l, metadataSections: [2] })).toThrow(ValueError);
    expect(() => encodeLayout({ ...l, index: { type: 'implicit' } as unknown as StructuredChunkIndexInfo })).toThrow(ValueError);
    expect(() => encodeLayout(sparseLayout({ type: 'single', chunkSize: 70000, sectionOffsets: [0] }))).toThrow(ValueError); // > 2^16 − 1 with L = 2
    expect(() => encodeLayout(sparseLayout({ type: 'single', chunkSize: 1, sectionOffsets: [] }))).toThrow(ValueError);
  });

  it('decoding random and mutated bytes throws only H5Errors; valid models round-trip', () => {
    const base = Array.from(encodeLayout(sparseLayout({ type: 'single', chunkSize: 58, sectionOffsets: [44], unfilteredSizes: [75, 8], filterMasks: [0, 1] }, 0x800, { flags: 2 })));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(base.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }), fc.nat(base.length), (muts, cut) => {
        const b = Uint8Array.from(base.slice(0, Math.max(cut, 1)));
        for (const [i, v] of muts) if (i < b.length) b[i] = v;
        try {
          decodeLayout(b);
        } catch (e) {
          expect(e).toBeInstanceOf(H5Error);
        }
      }),
      { numRuns: 500 },
    );
    const index = fc.oneof(
      fc.constant<StructuredChunkIndexInfo>({ type: 'fixed-array', pageBits: 10 }),
      fc.constant<StructuredChunkIndexInfo>({ ...EA_INFO }),
      fc.constant<StructuredChunkIndexInfo>({ type: 'btree2', nodeSize: 512, splitPercent: 98, mergePercent: 40 }),
    );
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 70000 }), { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 64 }), index, fc.boolean(), (dims, es, idx, edge) => {
        const l = sparseLayout(idx, 0x1234, { chunkDims: dims, elementSize: es, flags: edge ? 1 : 0 });
        expect(decodeLayout(encodeLayout(l))).toEqual(l);
      }),
      { numRuns: 200 },
    );
  });
});

describe('layout v5 shares layout v4 encodings: compared with what HDF5 1.10.8 writes', () => {
  let msg: (name: string, type: number) => RawMessage[];
  beforeAll(async () => {
    msg = await h5pyMessages(
      [
        "f.create_dataset('ea', shape=(30,), maxshape=(None,), chunks=(5,), dtype='<i4', compression='gzip', compression_opts=9)",
        "f['ea'][:] = np.arange(30)",
        "f.create_dataset('fa', data=np.arange(700, dtype='<f8').reshape(350, 2), chunks=(300, 2))",
        "f.create_dataset('bt2', data=np.arange(16, dtype='<i4').reshape(4, 4), chunks=(2, 2), maxshape=(None, None))",
        "f.create_dataset('single', data=np.arange(5, dtype='<i4'), chunks=(5,))",
      ].join('\n'),
    );
  });

  for (const name of ['ea', 'fa', 'bt2']) {
    it(`${name}: flags, dimensions and index information are the bytes of HDF5's version 4 message`, () => {
      const body = msg(name, LAYOUT)[0]!.body;
      const v4 = decodeLayout(body) as ChunkedLayout;
      expect(v4.version).toBe(4);
      const l = sparseLayout(v4.index as StructuredChunkIndexInfo, v4.address, { chunkDims: v4.chunkDims, elementSize: v4.elementSize, flags: v4.flags });
      const v5 = encodeLayout(l);
      const ndims = body[3]!;
      const dimsEnd = 5 + ndims * body[4]!;
      // v4: version, class, flags, ndims, E, dims | index type, info, address
      // v5: version, class, property version, type (2), flags, ndims, E, dims | composition (4) | index type, info, address | padding (2)
      expect(Array.from(v5.subarray(5, 5 + dimsEnd - 2))).toEqual(Array.from(body.subarray(2, dimsEnd)));
      expect(Array.from(v5.subarray(5 + dimsEnd - 2, 5 + dimsEnd + 2))).toEqual([8, 2, 1, 0]);
      expect(Array.from(v5.subarray(dimsEnd + 7, v5.length - 2))).toEqual(Array.from(body.subarray(dimsEnd)));
      expect(v5.length).toBe(body.length + 3 + 4 + 2);
    });
  }

  it('single: the structured record replaces layout v4 single-chunk information', () => {
    const body = msg('single', LAYOUT)[0]!.body;
    const v4 = decodeLayout(body) as ChunkedLayout;
    expect(v4.index).toEqual({ type: 'single' });
    const l = sparseLayout({ type: 'single', chunkSize: 30, sectionOffsets: [22] }, v4.address);
    const v5 = encodeLayout(l);
    expect(Array.from(v5.subarray(15, 17))).toEqual([30, 0]); // L = 2 for 20-byte chunks
    expect(Array.from(v5.subarray(25, 33))).toEqual(Array.from(body.subarray(body.length - 8)));
  });
});

describe('chooseStructuredChunkIndex (docs/structured-chunk-format.md §3.3)', () => {
  const choose = (dims: number[], maxDims: (number | null)[] | null, chunkDims: number[], filtered = false) =>
    chooseStructuredChunkIndex({ dims, maxDims, chunkDims, filtered });
  it('picks EA / BT2 / single / FA as the prototype does, never implicit', () => {
    expect(choose([30], [null], [5])).toEqual(EA_INFO);
    expect(choose([30, 4], [-1, 8], [5, 4])).toEqual(EA_INFO);
    expect(choose([30, 4], [null, null], [5, 4])).toEqual({ type: 'btree2', nodeSize: 2048, splitPercent: 100, mergePercent: 40 });
    expect(choose([30], [50], [5])).toEqual({ type: 'fixed-array', pageBits: 10 });
    expect(choose([30], null, [5])).toEqual({ type: 'fixed-array', pageBits: 10 });
    expect(choose([5, 5], [5, 5], [5, 5])).toEqual({ type: 'single', chunkSize: 0, sectionOffsets: [0] });
    expect(choose([5], [5], [5], true)).toEqual({ type: 'single', chunkSize: 0, sectionOffsets: [0], unfilteredSizes: [0, 0], filterMasks: [0, 0] });
    expect(chooseStructuredChunkIndex({ dims: [5], chunkDims: [5], sections: 3 })).toEqual({ type: 'single', chunkSize: 0, sectionOffsets: [0, 0] });
    // dims = chunk but max larger: fixed array (not single), as for ordinary chunks.
    expect(choose([5], [10], [5])).toEqual({ type: 'fixed-array', pageBits: 10 });
  });
  it('the choice encodes into a valid layout message', () => {
    for (const [dims, max, chunk] of [
      [[30], [null], [5]],
      [[4, 4], [null, null], [2, 2]],
      [[5], [5], [5]],
      [[30], [50], [5]],
    ] as [number[], (number | null)[], number[]][]) {
      const l = sparseLayout(choose(dims, max, chunk), UNDEFINED_ADDRESS, { chunkDims: chunk });
      expect(decodeLayout(encodeLayout(l) as Uint8Array) as DataLayout).toEqual(l);
    }
  });
  it('validates its input', () => {
    expect(() => choose([5], [5], [5, 5])).toThrow(ValueError);
    expect(() => chooseStructuredChunkIndex({ dims: [5], chunkDims: [5], sections: 0 })).toThrow(ValueError);
  });
});

describe('decodeStructuredLayout is what decodeLayout uses for class 4', () => {
  it('positions after the class byte', async () => {
    const enc = encodeLayout(sparseLayout({ ...EA_INFO }));
    const { ByteReader } = await import('../src/format/bytes.js');
    const r = new ByteReader(enc, { pos: 2, structure: 'data layout message' });
    expect(decodeStructuredLayout(r)).toEqual(sparseLayout({ ...EA_INFO }));
    expect(r.pos).toBe(28);
  });
});
