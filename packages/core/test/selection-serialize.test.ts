import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookup3 } from '../src/format/checksum/lookup3.js';
import {
  decodeSelection,
  encodedSelectionSize,
  encodeSelection,
  selectAll,
  selectBlocks,
  selectHyperslab,
  selectNone,
  selectPoints,
  selectionEquals,
  toBlocks,
  type Selection,
} from '../src/selection/index.js';
import {
  caseArb,
  elementsOf,
  fromHex,
  lclsBoxes,
  readRegionsWithH5wasm,
  runOracle,
  toHex,
  type DecodeAnswer,
  type EncodeAnswer,
  type RegionCase,
  type SelCase,
  type SelSpec,
} from './support/selection-serialize-cases.js';

const T32 = 2 ** 32;
const CASES: SelCase[] = fc.sample(caseArb, { numRuns: 300, seed: 20240604 });

/** Handmade cases for 4- and 8-byte widths and the overflow rules (`write`: ranges the oracle fills). */
interface BigCase {
  name: string;
  dims: number[];
  spec: SelSpec;
  sel: Selection;
  write: [number[], number[]][];
}
const BIG: BigCase[] = [
  {
    name: 'regular 2-D, 81 blocks',
    dims: [100, 100],
    spec: { kind: 'hyperslab', start: [1, 2], stride: [10, 10], count: [9, 9], block: [3, 4] },
    sel: selectHyperslab({ start: [1, 2], stride: [10, 10], count: [9, 9], block: [3, 4] }),
    write: [],
  },
  { name: 'points > 65535', dims: [70000], spec: { kind: 'points', coords: [[5], [65540], [69999]] }, sel: selectPoints([[5], [65540], [69999]]), write: [] },
  {
    name: 'blocks > 65535',
    dims: [70000],
    spec: { kind: 'blocks', boxes: [[[0], [3]], [[66000], [66010]]] },
    sel: selectBlocks([{ start: [0], end: [3] }, { start: [66000], end: [66010] }]),
    write: [],
  },
  {
    name: 'regular 2-D, stride > 65535',
    dims: [3, 100000],
    spec: { kind: 'hyperslab', start: [0, 10], stride: [2, 70000], count: [2, 2], block: [1, 5] },
    sel: selectHyperslab({ start: [0, 10], stride: [2, 70000], count: [2, 2], block: [1, 5] }),
    write: [],
  },
  {
    name: 'points > 2^32',
    dims: [2 * T32],
    spec: { kind: 'points', coords: [[T32 + 5], [T32 + 9]] },
    sel: selectPoints([[T32 + 5], [T32 + 9]]),
    write: [[[T32], [T32 + 16]]],
  },
  {
    name: 'irregular blocks > 2^32',
    dims: [2 * T32],
    spec: { kind: 'blocks', boxes: [[[T32 + 100], [T32 + 200]], [[T32 + 300], [T32 + 310]]] },
    sel: selectBlocks([{ start: [T32 + 100], end: [T32 + 200] }, { start: [T32 + 300], end: [T32 + 310] }]),
    write: [[[T32 + 100], [T32 + 310]]],
  },
  {
    name: 'regular hyperslab > 2^32',
    dims: [2 * T32],
    spec: { kind: 'hyperslab', start: [T32 + 1000], stride: [10], count: [3], block: [2] },
    sel: selectHyperslab({ start: [T32 + 1000], stride: [10], count: [3], block: [2] }),
    write: [[[T32 + 1000], [T32 + 1030]]],
  },
];

function lclsCase(groups: number, rectangle: boolean): BigCase {
  const boxes = lclsBoxes(7, groups, rectangle);
  return {
    name: `LCLS frame (${groups} groups${rectangle ? ' + 10 % rectangle' : ''})`,
    dims: [2048, 2048],
    spec: { kind: 'blocks', boxes: boxes.map((b): [number[], number[]] => [b.start, b.end]) },
    sel: selectBlocks(boxes),
    write: boxes.map((b): [number[], number[]] => [b.start, b.end]),
  };
}
BIG.push(lclsCase(100, true), lclsCase(100, false));

function selectionBody(buf: Uint8Array): string {
  const extentLength = buf[3]! | (buf[4]! << 8) | (buf[5]! << 16) | (buf[6]! << 24);
  return toHex(buf.subarray(7 + extentLength));
}

let tmp = '';
let hdf5Encodings: EncodeAnswer[] = [];
let hdf5Decodings: DecodeAnswer[] = [];
let extentDecodings: DecodeAnswer[] = [];
let h5wasmValues: (number[] | { error: string })[] = [];
let regionCases: { label: string; dims: number[]; order: number[] | null; sel: Selection }[] = [];

const SMALL_BIG = BIG.filter((b) => b.dims.every((n) => n < T32));

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'chunkform-selser-'));
  const protoBufs = [...CASES.map((c) => encodeSelection(c.sel, c, { encoding: 'prototype' })), ...SMALL_BIG.map((b) => encodeSelection(b.sel, b, { encoding: 'prototype' }))];
  const smallest = [...CASES, ...BIG].map((c) => encodeSelection(c.sel, { dims: c.dims, maxDims: 'maxDims' in c ? c.maxDims : null }));
  // Extents of our smallest encodings, followed by a "none" selection that HDF5 1.10 can decode.
  const none = '00000000010000000000000000000000';
  const extents = smallest.map((b) => toHex(b.subarray(0, 7 + (b[3]! | (b[4]! << 8)))) + none);
  const regions: RegionCase[] = [];
  regionCases = [];
  const all = [...CASES.map((c) => ({ ...c, label: `${JSON.stringify(c.dims)} ${JSON.stringify(c.spec)}`, write: undefined })), ...BIG.map((b) => ({ ...b, label: b.name, order: null }))];
  for (const c of all) {
    for (const mode of ['smallest', 'prototype'] as const) {
      const buf = encodeSelection(c.sel, { dims: c.dims }, { encoding: mode });
      regions.push({ dims: c.dims, body: selectionBody(buf), ...(c.write ? { write: c.write } : {}) });
      regionCases.push({ label: `${mode} ${c.label}`, dims: c.dims, order: c.order, sel: c.sel });
    }
  }
  const file = join(tmp, 'regions.h5');
  const res = runOracle({
    encode: [...CASES.map((c) => ({ dims: c.dims, maxDims: c.maxDims, sel: c.spec })), ...BIG.map((b) => ({ dims: b.dims, maxDims: null, sel: b.spec }))],
    decode: [...protoBufs.map(toHex), ...extents],
    regions: { file, cases: regions },
  });
  hdf5Encodings = res.encode!;
  hdf5Decodings = res.decode!.slice(0, protoBufs.length);
  extentDecodings = res.decode!.slice(protoBufs.length);
  h5wasmValues = readRegionsWithH5wasm(res.regions!);
}, 300_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('decodeSelection of HDF5-encoded selections (HDF5 1.10.8 H5Sencode)', () => {
  it('gives back the extent and the same elements in the same order', () => {
    CASES.forEach((c, i) => {
      const label = `${JSON.stringify(c.dims)} ${JSON.stringify(c.spec)}`;
      const hex = hdf5Encodings[i]!;
      expect(typeof hex, `${label}: ${JSON.stringify(hex)}`).toBe('string');
      const d = decodeSelection(fromHex(hex as string));
      expect(d.extent.dims, label).toEqual(c.dims);
      expect(d.extent.maxDims, label).toEqual(c.maxDims ?? c.dims);
      expect(elementsOf(d.selection, c.dims), label).toEqual(c.order);
      expect(selectionEquals(d.selection, c.sel, c.dims), label).toBe(true);
    });
  });

  it('prototype encoding is byte-identical to HDF5 wherever HDF5 1.10 makes the same choice', () => {
    CASES.forEach((c, i) => {
      const ours = toHex(encodeSelection(c.sel, c, { encoding: 'prototype' }));
      expect(ours, `${JSON.stringify(c.dims)} ${JSON.stringify(c.spec)}`).toBe(hdf5Encodings[i]);
    });
    BIG.forEach((b, i) => {
      const theirs = hdf5Encodings[CASES.length + i]!;
      const ours = encodeSelection(b.sel, { dims: b.dims }, { encoding: 'prototype' });
      if (typeof theirs === 'string') expect(toHex(ours), b.name).toBe(theirs);
      // HDF5 1.10 cannot write these (points / irregular beyond 2^32: versions it does not have).
      else expect(['points > 2^32', 'irregular blocks > 2^32'], `${b.name}: ${theirs.error}`).toContain(b.name);
    });
    expect(hdf5Encodings.filter((h) => typeof h !== 'string').length).toBe(2);
  });
});

describe('HDF5 decodes what we encode', () => {
  it('HDF5 1.10.8 H5Sdecode reads our prototype encodings as the same extent and elements', () => {
    const all = [...CASES.map((c) => ({ ...c, label: JSON.stringify(c.spec) })), ...SMALL_BIG.map((b) => ({ ...b, maxDims: null, order: null, label: b.name }))];
    all.forEach((c, i) => {
      const d = hdf5Decodings[i]!;
      expect('error' in d ? d.error : '', c.label).toBe('');
      if ('error' in d) return;
      expect(d.dims, c.label).toEqual(c.dims);
      expect(d.maxDims, c.label).toEqual(c.maxDims ?? c.dims);
      expect(d.elements, c.label).toEqual(c.order ?? elementsOf(c.sel, c.dims));
    });
  });

  it('HDF5 1.10.8 H5Sdecode reads the extents of our smallest encodings (v2, narrow sizes)', () => {
    [...CASES, ...BIG.map((b) => ({ ...b, maxDims: null }))].forEach((c, i) => {
      const d = extentDecodings[i]!;
      const label = JSON.stringify(c.dims);
      expect('error' in d ? d.error : '', label).toBe('');
      if ('error' in d) return;
      expect(d.dims, label).toEqual(c.dims);
      expect(d.maxDims, label).toEqual(c.maxDims ?? c.dims);
    });
  });

  it('HDF5 2.0 (h5wasm) selects the same elements, in the same order, from our encodings in both modes', () => {
    expect(h5wasmValues.length).toBe(regionCases.length);
    regionCases.forEach((c, i) => {
      const got = h5wasmValues[i]!;
      expect('error' in got ? got.error : '', c.label).toBe('');
      expect(got, c.label).toEqual(c.order ?? elementsOf(c.sel, c.dims));
    });
  });

  it('covers every version and width the smallest encoder picks', () => {
    const seen = new Set<string>();
    for (const c of [...CASES, ...BIG]) {
      const f = decodeSelection(encodeSelection(c.sel, { dims: c.dims })).format;
      seen.add(`${f.type}${f.type === 'points' || f.type === 'hyperslab' ? ` v${f.version} w${f.width}${f.regular ? ' regular' : ''}` : ''}`);
    }
    for (const s of ['all', 'none', 'points v2 w2', 'points v2 w4', 'points v2 w8', 'hyperslab v3 w2', 'hyperslab v3 w4', 'hyperslab v3 w8', 'hyperslab v3 w2 regular', 'hyperslab v3 w4 regular', 'hyperslab v3 w8 regular']) {
      expect([...seen]).toContain(s);
    }
  });
});

describe('round trips', () => {
  it('decode(encode(sel)) selects the same elements in the same order, in both modes', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const label = `${JSON.stringify(c.dims)} ${JSON.stringify(c.spec)} max ${JSON.stringify(c.maxDims)}`;
        const sizes: number[] = [];
        for (const encoding of ['smallest', 'prototype'] as const) {
          const buf = encodeSelection(c.sel, c, { encoding });
          expect(encodedSelectionSize(c.sel, c, { encoding }), label).toBe(buf.length);
          const d = decodeSelection(buf);
          expect(d.extent.dims, label).toEqual(c.dims);
          expect(d.extent.maxDims ?? d.extent.dims, label).toEqual(c.maxDims ?? c.dims);
          expect(elementsOf(d.selection, c.dims), `${encoding} ${label}`).toEqual(c.order);
          sizes.push(buf.length);
        }
        expect(sizes[0]!, label).toBeLessThanOrEqual(sizes[1]!);
      }),
      { numRuns: 1500 },
    );
  });

  it('keeps point order and duplicates; a set-like point list may become blocks', () => {
    const dims = [10, 10];
    const unsorted = selectPoints([[3, 3], [0, 1], [3, 3]]);
    const d = decodeSelection(encodeSelection(unsorted, { dims })).selection;
    expect(d).toEqual(unsorted);
    const row = selectPoints([[2, 0], [2, 1], [2, 2], [2, 3], [2, 4], [2, 5], [2, 6], [2, 7]]);
    const dr = decodeSelection(encodeSelection(row, { dims }));
    expect(dr.format).toMatchObject({ type: 'hyperslab', version: 3 });
    expect(selectionEquals(dr.selection, toBlocks(row, dims), dims)).toBe(true);
  });

  it('uses "all" for selections covering the extent and "none" for empty ones', () => {
    const dims = [4, 5];
    const full = selectBlocks([{ start: [0, 0], end: [2, 5] }, { start: [2, 0], end: [4, 5] }]);
    expect(decodeSelection(encodeSelection(full, { dims })).selection).toEqual(selectAll());
    const empty = selectHyperslab({ start: [0, 0], count: [0, 1] });
    for (const encoding of ['smallest', 'prototype'] as const) {
      const buf = encodeSelection(empty, { dims }, { encoding });
      expect(decodeSelection(buf).selection).toEqual(selectNone());
      expect(toHex(buf.subarray(buf.length - 16))).toBe('00000000010000000000000000000000');
    }
    expect(decodeSelection(encodeSelection(selectAll(), { dims: [] })).extent).toMatchObject({ kind: 'scalar', rank: 0, dims: [] });
  });
});

describe('worked examples of the notes', () => {
  it('§6.5: section 0 of chunk 0 of the h5stat sparse dataset (prototype mode, 71 bytes + lookup3)', () => {
    const sel = selectBlocks([{ start: [1], end: [2] }, { start: [4], end: [5] }]);
    const buf = encodeSelection(sel, { dims: [5], maxDims: [null] }, { encoding: 'prototype' });
    expect(toHex(buf)).toBe(
      '01000818000000' +
        '0101010000000000' +
        '0500000000000000' +
        'ffffffffffffffff' +
        '020000000100000000000000' +
        '180000000100000002000000' +
        '0100000001000000' +
        '0400000004000000',
    );
    const ck = lookup3(buf);
    expect([ck & 0xff, (ck >>> 8) & 0xff, (ck >>> 16) & 0xff, ck >>> 24]).toEqual([0x2d, 0xe0, 0x8a, 0x8a]);
    const d = decodeSelection(buf);
    expect(d.extent).toEqual({ kind: 'simple', rank: 1, dims: [5], maxDims: [-1] });
    expect(d.format).toEqual({ extentVersion: 1, sizeOfSize: 8, type: 'hyperslab', version: 1, width: 4, regular: false });
    expect(elementsOf(d.selection, [5])).toEqual([1, 4]);
    // The smallest encoding of the same chunk selection: extent v2, 2 points of 2 bytes.
    const small = encodeSelection(sel, { dims: [5], maxDims: [null] });
    expect(small.length).toBe(46);
    expect(elementsOf(decodeSelection(small).selection, [5])).toEqual([1, 4]);
  });

  it('§7.3: none/all are 16 bytes, v1 length fields, v3 sizes', () => {
    const dims = [8, 8];
    const proto = (s: Selection): Uint8Array => encodeSelection(s, { dims }, { encoding: 'prototype' });
    const head = 7 + 8 + 2 * 8 * 2;
    expect(proto(selectNone()).length).toBe(head + 16);
    expect(toHex(proto(selectAll()).subarray(head))).toBe('03000000010000000000000000000000');
    const pts = proto(selectPoints([[1, 2], [3, 4], [5, 6]]));
    expect(toHex(pts.subarray(head, head + 20))).toBe('01000000' + '01000000' + '00000000' + '20000000' + '02000000');
    const reg = encodeSelection(selectHyperslab({ start: [1, 0], stride: [3, 1], count: [2, 1], block: [1, 8] }), { dims });
    // header 7 + extent v2 (4 + 2·2) + 14 + 4·2·2
    expect(reg.length).toBe(7 + 8 + 14 + 16);
    expect(decodeSelection(reg).format).toMatchObject({ type: 'hyperslab', version: 3, width: 2, regular: true });
  });
});
