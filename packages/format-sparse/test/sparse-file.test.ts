/**
 * File form of sparse chunks: the worked example of docs/structured-chunk-format.md §6.5 byte for byte, round trips with and
 * without section filters, HDF5-encoded selections, and corrupt images → typed errors.
 */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ChecksumError,
  FormatError,
  FilterError,
  H5Error,
  createContainer,
  encodeSelection,
  lookup3,
  registerFilter,
  resolveChunkFormat,
  resolveFilter,
  selectBlocks,
  selectHyperslab,
  selectPoints,
  type ChunkImage,
  type ChunkRecord,
  type Container,
  type FilterPipeline,
  type Selection,
} from '@chunkform/core';
import type { DataLayout } from '@chunkform/core/plugin';
import { registerFilters } from '@chunkform/filters';
import { SparseFormat, registerSparseFormat, sparseFormatProvider } from '../src/index.js';
import type { SparseChunk } from '../src/sparse-chunk.js';
import { dimsArb, makeContext, offsetsOf, requestOf, selectionArb } from './support.js';

let container: Container;
beforeAll(() => {
  container = createContainer();
  registerFilters(container);
});

const resolve = (id: number) => resolveFilter(id, container);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const deflate = (level: number) => ({ id: 1, flags: 1, clientData: [level] });
const shuffle = (size: number) => ({ id: 2, flags: 1, clientData: [size] });

function recordOf(image: ChunkImage, coords: number[], address = 0x800): ChunkRecord {
  return { coords, address, size: image.bytes.length, filterMask: image.filterMask, ...(image.sections ? { sections: image.sections } : {}) };
}

/** A sparse chunk holding `sel` with values written from `seed`. */
function chunkOf(fmt: SparseFormat, sel: Selection, dims: number[], es: number, seed = 1): SparseChunk {
  const mem = fmt.fill();
  const req = requestOf(sel, dims);
  fmt.memWrite(mem, req, Uint8Array.from({ length: req.count * es }, (_, i) => (seed + 31 * i) & 0xff));
  return mem;
}

function sameChunk(a: SparseChunk, b: SparseChunk): void {
  expect(b.selection).toEqual(a.selection);
  expect(Array.from(b.values)).toEqual(Array.from(a.values));
  expect(Array.from(b.runs)).toEqual(Array.from(a.runs));
}

describe('docs/structured-chunk-format.md §6.5 worked example (h5stat test dataset, chunk dim 5, max unlimited, int32)', () => {
  // defined elements 1,4,5,7,10,11,13,16,17 with value = element index
  const defined = [1, 4, 5, 7, 10, 11, 13, 16, 17];
  const chunkOfIndex = (c: number) => {
    const fmt = new SparseFormat(makeContext([5], 4, { maxDims: [-1], access: { selectionEncoding: 'prototype' }, dims: () => [30] }));
    const els = defined.filter((e) => Math.floor(e / 5) === c);
    const mem = fmt.fill();
    const req = requestOf(selectPoints(els.map((e) => [e - 5 * c])), [5]);
    fmt.memWrite(mem, req, new Uint8Array(Int32Array.from(els).buffer));
    return mem;
  };

  it('chunk 0: section 0 is the 75 bytes of the notes, section 1 the two values', async () => {
    const fmt = new SparseFormat(makeContext([5], 4, { maxDims: [-1], access: { selectionEncoding: 'prototype' }, dims: () => [30] }));
    const image = await fmt.memToFile(chunkOfIndex(0), [0]);
    const sec0 =
      '01000818000000' +
      '0101010000000000' +
      '0500000000000000' +
      'ffffffffffffffff' +
      '020000000100000000000000' +
      '180000000100000002000000' +
      '0100000001000000' +
      '0400000004000000' +
      '2de08a8a';
    expect(hex(image.bytes)).toBe(sec0 + '0100000004000000');
    expect(image.sections).toEqual({ offsets: [75] });
    expect(image.filterMask).toBe(0);
  });

  it('filtered as in §4.4 the four chunks store 44+14, 44+14, 45+17, 41+14 bytes and record §6.5 fields', async () => {
    // Node's bundled zlib (Chromium's fork) compresses tiny inputs differently from the stock zlib
    // HDF5 links; the notes' sizes come from stock zlib, so deflate runs through it here.
    const stock = createContainer(null);
    registerFilters(stock);
    const nodeDeflate = resolve(1)!;
    registerFilter(
      {
        ...nodeDeflate,
        encode: (data, ctx) =>
          Uint8Array.from(
            execFileSync('/usr/bin/python3', ['-c', `import sys, zlib; sys.stdout.buffer.write(zlib.compress(sys.stdin.buffer.read(), ${ctx.clientData[0]}))`], {
              input: data,
            }),
          ),
      },
      { container: stock, replace: true },
    );
    const sectionPipelines: FilterPipeline[] = [{ filters: [deflate(9), shuffle(4)] }, { filters: [deflate(9)] }];
    const fmt = new SparseFormat(
      makeContext([5], 4, {
        maxDims: [-1],
        access: { selectionEncoding: 'prototype' },
        dims: () => [30],
        sectionPipelines,
        resolveFilter: (id) => resolveFilter(id, stock),
      }),
    );
    const sizes: [number, number][] = [];
    for (let c = 0; c < 4; c++) {
      const image = await fmt.memToFile(chunkOfIndex(c), [c]);
      const off = image.sections!.offsets[0]!;
      sizes.push([off, image.bytes.length - off]);
      sameChunk(chunkOfIndex(c), await fmt.fileToMem(image.bytes, recordOf(image, [c])));
      if (c === 0) {
        expect(image.sections).toEqual({ offsets: [44], unfilteredSizes: [75, 8], filterMasks: [0, 0] });
        expect(image.bytes.length).toBe(0x3a);
      }
    }
    expect(sizes).toEqual([
      [44, 14],
      [44, 14],
      [45, 17],
      [41, 14],
    ]);
    expect(sizes.flat().reduce((a, b) => a + b, 0)).toBe(233);
  });
});

describe('round trips', () => {
  const pipelines: (FilterPipeline[] | undefined)[] = [
    undefined,
    [{ filters: [deflate(6)] }, { filters: [] }],
    [{ filters: [] }, { filters: [shuffle(2), deflate(1)] }],
    [{ filters: [deflate(9), shuffle(4)] }, { filters: [deflate(9)] }],
    [{ filters: [{ id: 3, flags: 0, clientData: [] }] }, { filters: [{ id: 3, flags: 0, clientData: [] }, deflate(4)] }],
  ];

  it('fileToMem(memToFile(x)) == x for random chunks, encodings and section pipelines', async () => {
    await fc.assert(
      fc.asyncProperty(
        dimsArb.chain((dims) =>
          fc.tuple(
            fc.constant(dims),
            fc.array(selectionArb(dims), { minLength: 1, maxLength: 3 }),
            fc.constantFrom(...pipelines),
            fc.constantFrom('smallest' as const, 'prototype' as const),
            fc.boolean(),
          ),
        ),
        async ([dims, sels, sectionPipelines, selectionEncoding, unlimited]) => {
          const es = 2;
          const ctx = makeContext(dims, es, {
            resolveFilter: resolve,
            access: { selectionEncoding },
            ...(sectionPipelines ? { sectionPipelines } : {}),
            ...(unlimited ? { maxDims: dims.map(() => -1) } : {}),
          });
          const fmt = new SparseFormat(ctx);
          const mem = fmt.fill();
          sels.forEach((sel, k) => {
            const req = requestOf(sel, dims);
            fmt.memWrite(mem, req, Uint8Array.from({ length: req.count * es }, (_, i) => (k * 97 + i * 13) & 0xff));
          });
          const image = await fmt.memToFile(mem, dims.map(() => 0));
          const filtered = (sectionPipelines ?? []).some((p) => p.filters.length > 0);
          expect(image.sections!.unfilteredSizes !== undefined).toBe(filtered);
          sameChunk(mem, await fmt.fileToMem(image.bytes, recordOf(image, dims.map(() => 0))));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('partial edge chunks of a "don\'t filter partial chunks" dataset are stored unfiltered', async () => {
    const sectionPipelines = [{ filters: [deflate(6)] }, { filters: [deflate(6)] }];
    const ctx = makeContext([4], 1, { resolveFilter: resolve, sectionPipelines, dontFilterPartialChunks: true, dims: () => [6] });
    const fmt = new SparseFormat(ctx);
    const mem = chunkOf(fmt, selectBlocks([{ start: [0], end: [2] }]), [4], 1);
    const edge = await fmt.memToFile(mem, [1]);
    expect(edge.sections).toEqual({ offsets: [edge.bytes.length - 2], unfilteredSizes: [edge.bytes.length - 2, 2], filterMasks: [0, 0] });
    sameChunk(mem, await fmt.fileToMem(edge.bytes, recordOf(edge, [1])));
    const inner = await fmt.memToFile(mem, [0]);
    expect(inner.bytes[0]).toBe(0x78); // zlib header: filtered
    sameChunk(mem, await fmt.fileToMem(inner.bytes, recordOf(inner, [0])));
  });

  it('decodes point selections in any order (duplicates: the last wins) into C order', async () => {
    const dims = [3, 3];
    const ctx = makeContext(dims, 1);
    const fmt = new SparseFormat(ctx);
    const pts = selectPoints([
      [2, 1],
      [0, 2],
      [1, 1],
      [0, 2],
    ]);
    const enc = encodeSelection(pts, { dims }, { encoding: 'prototype' });
    const bytes = concat(enc, checksum(enc), Uint8Array.of(10, 20, 30, 40));
    const mem = await fmt.fileToMem(bytes, { coords: [0, 0], address: 0, size: bytes.length, filterMask: 0, sections: { offsets: [enc.length + 4] } });
    expect(offsetsOf(mem.selection, dims)).toEqual([2, 4, 7]);
    expect(Array.from(mem.values)).toEqual([40, 30, 10]);
  });

  it('decodes selections encoded by HDF5 1.10.8 (H5Sencode)', async () => {
    // chunk [4, 5]: a point list and an irregular hyperslab union, encoded by h5py
    const script = `
import h5py, numpy as np, sys
s = h5py.h5s.create_simple((4, 5))
s.select_elements(np.array([[3, 4], [0, 1], [2, 2]]))
a = s.encode()
t = h5py.h5s.create_simple((4, 5), (h5py.h5s.UNLIMITED, 9))
t.select_hyperslab((0, 0), (2, 2))
t.select_hyperslab((1, 3), (3, 2), op=h5py.h5s.SELECT_OR)
b = t.encode()
sys.stdout.write(a.hex() + ' ' + b.hex())
`;
    const [a, b] = execFileSync('/usr/bin/python3', ['-c', script]).toString().split(' ').map((h) => Uint8Array.from(Buffer.from(h, 'hex')));
    const dims = [4, 5];
    const fmt = new SparseFormat(makeContext(dims, 1));
    const rec = (enc: Uint8Array, n: number): [Uint8Array, ChunkRecord] => {
      const bytes = concat(enc, checksum(enc), Uint8Array.from({ length: n }, (_, i) => i + 1));
      return [bytes, { coords: [0, 0], address: 0, size: bytes.length, filterMask: 0, sections: { offsets: [enc.length + 4] } }];
    };
    const ma = await fmt.fileToMem(...rec(a!, 3));
    expect(offsetsOf(ma.selection, dims)).toEqual([1, 12, 19]);
    expect(Array.from(ma.values)).toEqual([2, 3, 1]);
    const mb = await fmt.fileToMem(...rec(b!, 10));
    expect(offsetsOf(mb.selection, dims)).toEqual([0, 1, 5, 6, 8, 9, 13, 14, 18, 19]);
    expect(Array.from(mb.values)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe('corrupt chunks give typed errors naming dataset and chunk', () => {
  const dims = [4, 4];
  const sel = selectHyperslab({ start: [0, 1], stride: [2, 2], count: [2, 2], block: [1, 1] });

  async function image(sectionPipelines?: FilterPipeline[]) {
    const fmt = new SparseFormat(makeContext(dims, 2, { resolveFilter: resolve, ...(sectionPipelines ? { sectionPipelines } : {}) }));
    const img = await fmt.memToFile(chunkOf(fmt, sel, dims, 2), [1, 2]);
    return { fmt, bytes: img.bytes.slice(), rec: recordOf(img, [1, 2], 4096) };
  }

  async function expectError(p: Promise<unknown>, type: abstract new (...args: never[]) => H5Error, re: RegExp) {
    const e = await p.then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(type);
    const msg = (e as Error).message;
    expect(msg).toMatch(re);
    expect(msg).toContain('/sparse');
    expect(msg).toContain('chunk [1, 2]');
  }

  it('checksum mismatch in section 0', async () => {
    const { fmt, bytes, rec } = await image();
    bytes[10] ^= 0x01;
    await expectError(fmt.fileToMem(bytes, rec), ChecksumError, /checksum mismatch/);
  });

  it('a section offset past the chunk', async () => {
    const { fmt, bytes, rec } = await image();
    await expectError(fmt.fileToMem(bytes, { ...rec, sections: { offsets: [bytes.length + 1] } }), FormatError, /offset .* past the chunk/);
    await expectError(fmt.fileToMem(bytes, { ...rec, sections: { offsets: [] } }), FormatError, /section offsets/);
    const { sections: _, ...bare } = rec;
    await expectError(fmt.fileToMem(bytes, bare), FormatError, /no section offsets/);
  });

  it('a selection outside the chunk', async () => {
    const { fmt, rec } = await image();
    const enc = encodeSelection(selectBlocks([{ start: [3, 3], end: [5, 4] }]), { dims: [8, 8] }, { encoding: 'prototype' });
    const bytes = concat(enc, checksum(enc), new Uint8Array(4));
    await expectError(fmt.fileToMem(bytes, { ...rec, size: bytes.length, sections: { offsets: [enc.length + 4] } }), FormatError, /outside the chunk/);
  });

  it('a block list is checked against the chunk when its extent reaches past it in any dimension, and taken as decoded when not', async () => {
    const { fmt, rec } = await image();
    const chunk = (blocks: { start: number[]; end: number[] }[], extent: number[]) => {
      const enc = encodeSelection(selectBlocks(blocks), { dims: extent }, { encoding: 'prototype' });
      const bytes = concat(enc, checksum(enc), new Uint8Array(2 * blocks.reduce((n, b) => n + (b.end[0]! - b.start[0]!) * (b.end[1]! - b.start[1]!), 0)));
      return fmt.fileToMem(bytes, { ...rec, size: bytes.length, sections: { offsets: [enc.length + 4] } });
    };
    // extent [4, 9]: one dimension within the chunk [4, 4], the other past it
    await expectError(chunk([{ start: [1, 2], end: [2, 6] }], [4, 9]), FormatError, /outside the chunk/);
    await expectError(chunk([{ start: [0, 0], end: [1, 1] }, { start: [3, 7], end: [4, 8] }], [9, 8]), FormatError, /outside the chunk/);
    // extents within the chunk: the blocks were checked against them while decoded
    for (const extent of [[4, 4], [3, 4], [2, 2]]) {
      const mem = await chunk([{ start: [0, 1], end: [2, 2] }], extent);
      expect(offsetsOf(mem.selection, dims)).toEqual([1, 5]);
    }
  });

  it('a values section of the wrong length', async () => {
    const { fmt, bytes, rec } = await image();
    await expectError(fmt.fileToMem(bytes.subarray(0, bytes.length - 2), rec), FormatError, /section 1 has 6 bytes.* needs 8/);
    await expectError(fmt.fileToMem(concat(bytes, Uint8Array.of(0)), rec), FormatError, /section 1 has 9 bytes/);
  });

  it('corrupt selection bytes behind a valid checksum', async () => {
    const { fmt, bytes, rec } = await image();
    const off = rec.sections!.offsets[0]!;
    const enc = bytes.slice(0, off - 4);
    enc[0] = 7; // not an encoded dataspace
    const bad = concat(enc, checksum(enc), bytes.subarray(off));
    await expectError(fmt.fileToMem(bad, rec), FormatError, /encoded dataspace|object id/);
    await expectError(fmt.fileToMem(bytes.subarray(0, 2), { ...rec, sections: { offsets: [2] } }), FormatError, /too short/);
  });

  it('extra bytes after a deflated section (wrong offsets)', async () => {
    const { fmt, bytes, rec } = await image([{ filters: [deflate(6)] }, { filters: [deflate(6)] }]);
    const off = rec.sections!.offsets[0]!;
    // move the boundary: section 0 now swallows the first bytes of section 1
    const moved = { ...rec, sections: { ...rec.sections!, offsets: [off + 3] } };
    // section 0's stream ends 3 bytes before its (moved) end: the deflate filter says so, naming the chunk
    const e = await fmt.fileToMem(bytes, moved).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FilterError);
    expect((e as Error).message).toMatch(/3 bytes follow the end of the stream/);
    expect((e as Error).message).toMatch(/chunk \[1, 2\]/);
  });

  it('unfiltered sizes that do not match the decoded sections', async () => {
    const { fmt, bytes, rec } = await image([{ filters: [deflate(6)] }, { filters: [] }]);
    const s = rec.sections!;
    await expectError(fmt.fileToMem(bytes, { ...rec, sections: { ...s, unfilteredSizes: [s.unfilteredSizes![0]! + 1, 8] } }), FormatError, /index records/);
  });

  it('a corrupt deflate stream is a filter error naming the chunk', async () => {
    const { fmt, bytes, rec } = await image([{ filters: [deflate(6)] }, { filters: [deflate(6)] }]);
    bytes[rec.sections!.offsets[0]! + 3] ^= 0xff;
    const e = await fmt.fileToMem(bytes, rec).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(H5Error);
    expect((e as Error).message).toMatch(/chunk \[1, 2\]/);
  });
});

describe('provider', () => {
  it('is keyed by structured chunk type 0 and registers in a container', () => {
    const layout = { class: 'structured', chunkType: 0 } as unknown as DataLayout;
    expect([sparseFormatProvider.layoutClass, sparseFormatProvider.chunkType]).toEqual(['structured', 0]);
    const c = createContainer();
    registerSparseFormat(c);
    registerSparseFormat(c); // idempotent
    expect(resolveChunkFormat(layout, c)).toBe(sparseFormatProvider);
    expect(resolveChunkFormat({ ...layout, chunkType: 1 } as DataLayout, c)).toBeUndefined();
    expect(resolveChunkFormat({ class: 'chunked' } as DataLayout, c)).toBeUndefined();
    expect(sparseFormatProvider.create(makeContext([2, 2], 4), layout)).toBeInstanceOf(SparseFormat);
  });
});

function checksum(enc: Uint8Array): Uint8Array {
  const c = new Uint8Array(4);
  new DataView(c.buffer).setUint32(0, lookup3(enc), true);
  return c;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
