/**
 * Byte-level end-to-end tests of sparse datasets against docs/structured-chunk-format.md: datasets are
 * created and written through the public API, the file is closed and reopened, and the bytes are read
 * back from the object header (`dataset.headerModel`), the index structures in the file, the index
 * records (`structChunkInfo`) and the stored sections (`readStructChunk`).
 *
 * - §3.7 / §4.4 / §6.5: the h5stat test dataset (1-D, 30 / unlimited, chunk 5, int32, deflate 9 on the
 *   values, deflate 9 + shuffle on the selection, prototype selection encoding, both filter-message
 *   dialects): layout message, filter pipeline message, message order (§2), EA header/index block
 *   records (§5.1, §5.4), section 0 of chunk 0 byte for byte with its lookup3 checksum, section 1.
 *   Deflate output differs between zlib builds, so deflated sections are compared after decoding (our
 *   own unshuffle + inflate), and the notes' stored sizes (233 bytes) are reproduced by compressing the
 *   decoded sections with the stock zlib of /usr/bin/python3.
 * - §5.3 fixed array cross-check (dims 30, max 50, chunk 5: entry sizes 18 / 42, index sizes 226 / 466),
 *   §5.5 v2 B-tree record types 12/13, §3.4 single-chunk info (unfiltered / filtered with flag bit 1)
 *   and its §3.6 padding, §3.5 chunk-size field width.
 * - §7: section 0 in the prototype encoding for a 2-D hyperslab write; the smallest encoding is smaller
 *   and decodes to the same selection.
 */
import { execFileSync } from 'node:child_process';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import './setup-registrations.js';
import {
  createFile,
  decodeSelection,
  lookup3,
  MemoryStore,
  openFile,
  selectHyperslab,
  selectPoints,
  union,
  type CreateDatasetOptions,
  type Dataset,
  type StructChunkInfo,
} from '../packages/core/src/index.js';
import { findStructures } from './oracle/chunked-mutations.js';
import { enumerate } from './oracle/sparse-model.js';
import { PYTHON } from './oracle/fixtures.js';

const hex = (b: ArrayLike<number>): string => Buffer.from(Uint8Array.from(b as ArrayLike<number>)).toString('hex');
const unhex = (s: string): number[] => Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
const le = (v: number | bigint, n: number): number[] => {
  let x = BigInt(v);
  const out: number[] = [];
  for (let i = 0; i < n; i++, x >>= 8n) out.push(Number(x & 0xffn));
  return out;
};
const u = (b: Uint8Array, at: number, n: number): number => Number(le2big(b.subarray(at, at + n)));
function le2big(b: Uint8Array): bigint {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
  return v;
}

// ---- the encoded-selection bytes of docs/structured-chunk-format.md §7, built from the text (not with chunkform) ----------

/** H5S_encode header (§7.1) + dataspace message v1 (§7.2). */
function extentV1(dims: number[], max: (number | null)[] | null): number[] {
  const body = [1, dims.length, max ? 1 : 0, 0, 0, 0, 0, 0, ...dims.flatMap((d) => le(d, 8)), ...(max ? max.flatMap((m) => (m === null ? new Array<number>(8).fill(0xff) : le(m, 8))) : [])];
  return [1, 0, 8, ...le(body.length, 4), ...body];
}
/** Hyperslab version 1 block list (§7.3): starts then inclusive ends, UINT32. */
function hyperslabV1(blocks: [number[], number[]][]): number[] {
  const rank = blocks[0]![0].length;
  return [2, 1, 0, 8 + 8 * rank * blocks.length, rank, blocks.length].flatMap((v) => le(v, 4)).concat(blocks.flatMap(([s, e]) => [...s, ...e].flatMap((v) => le(v, 4))));
}
/** Section 0 (§6.1): the encoded selection + its lookup3 checksum. */
function section0(sel: number[]): number[] {
  return [...sel, ...le(lookup3(Uint8Array.from(sel)), 4)];
}

/** The byte shuffle filter's inverse (element size `s`; trailing bytes stay in place). */
function unshuffle(b: Uint8Array, s: number): Uint8Array {
  const n = Math.floor(b.length / s);
  const out = b.slice();
  for (let i = 0; i < n; i++) for (let j = 0; j < s; j++) out[i * s + j] = b[j * n + i]!;
  return out;
}
function shuffle(b: Uint8Array, s: number): Uint8Array {
  const n = Math.floor(b.length / s);
  const out = b.slice();
  for (let i = 0; i < n; i++) for (let j = 0; j < s; j++) out[j * n + i] = b[i * s + j]!;
  return out;
}
/** zlib.compress(level 9) of each buffer with the stock zlib HDF5 links (Debian's, through Python). */
function stockDeflate(bufs: Uint8Array[]): Uint8Array[] {
  const code = 'import sys, json, zlib\nprint(json.dumps([zlib.compress(bytes.fromhex(h), 9).hex() for h in json.load(sys.stdin)]))';
  const out = JSON.parse(execFileSync(PYTHON, ['-c', code], { input: JSON.stringify(bufs.map(hex)), encoding: 'utf8' })) as string[];
  return out.map((h) => Uint8Array.from(unhex(h)));
}

/**
 * HDF5 1.10.8's own H5Sencode / H5Sdecode (through h5py's low-level h5s module): `encode` builds a
 * dataspace of `dims` / `max` (null = unlimited), ORs the blocks (start, count) into its selection and
 * returns H5Sencode's bytes; `decode` returns what H5Sdecode makes of bytes (type, extent, blocks/points).
 */
function h5s(ops: ({ encode: { dims: number[]; max: (number | null)[]; blocks: [number[], number[]][] } } | { decode: string })[]): unknown[] {
  const code = `
import sys, json
from h5py import h5s
out = []
for op in json.load(sys.stdin):
    if 'encode' in op:
        e = op['encode']
        sp = h5s.create_simple(tuple(e['dims']), tuple(h5s.UNLIMITED if m is None else m for m in e['max']))
        sp.select_none()
        for start, count in e['blocks']:
            sp.select_hyperslab(tuple(start), tuple(count), op=h5s.SELECT_OR)
        out.append(sp.encode().hex())
    else:
        sp = h5s.decode(bytes.fromhex(op['decode']))
        t = sp.get_select_type()
        r = {'type': t, 'dims': list(sp.shape), 'max': [None if m == h5s.UNLIMITED else m for m in sp.get_simple_extent_dims(True)]}
        if t == h5s.SEL_HYPERSLABS: r['blocks'] = sp.get_select_hyper_blocklist().tolist()
        if t == h5s.SEL_POINTS: r['points'] = sp.get_select_elem_pointlist().tolist()
        out.append(r)
print(json.dumps(out))
`;
  return JSON.parse(execFileSync(PYTHON, ['-c', code], { input: JSON.stringify(ops), encoding: 'utf8' })) as unknown[];
}

// ---- the h5stat test dataset (docs/structured-chunk-format.md §3.7, §4.4, §6.5) ------------------------------------------

const DEFLATE9 = { id: 1, clientData: [9], optional: true };
const SHUFFLE = { id: 2, optional: true };
const H5STAT: CreateDatasetOptions = {
  layout: 'sparse', dtype: '<i4', shape: [30], maxShape: [null], chunks: [5], selectionEncoding: 'prototype',
  filters: { values: [DEFLATE9], selection: [DEFLATE9, SHUFFLE] },
};
/** (start 4, stride 6, count 3, block 2) OR (start 1, stride 6, count 3, block 1), value = element index. */
const H5STAT_SEL = union(selectHyperslab({ start: [4], stride: [6], count: [3], block: [2] }), selectHyperslab({ start: [1], stride: [6], count: [3], block: [1] }));
const DEFINED = [1, 4, 5, 7, 10, 11, 13, 16, 17];
/** Chunk-relative blocks of each chunk's stored selection (§6.5) and its values. */
const H5STAT_CHUNKS: { blocks: [number[], number[]][]; values: number[] }[] = [
  { blocks: [[[1], [1]], [[4], [4]]], values: [1, 4] },
  { blocks: [[[0], [0]], [[2], [2]]], values: [5, 7] },
  { blocks: [[[0], [1]], [[3], [3]]], values: [10, 11, 13] },
  { blocks: [[[1], [2]]], values: [16, 17] },
];
const NOTES_CHUNK0_SECTION0 =
  '01 00 08 18 00 00 00  01 01 01 00 00 00 00 00  05 00 00 00 00 00 00 00  ff ff ff ff ff ff ff ff' +
  '02 00 00 00 01 00 00 00 00 00 00 00  18 00 00 00 01 00 00 00 02 00 00 00' +
  '01 00 00 00 01 00 00 00  04 00 00 00 04 00 00 00  2d e0 8a 8a';

/** Creates `name` with `opts` in a fresh in-memory file, writes, closes; returns the file bytes and the reopened dataset. */
async function build(opts: CreateDatasetOptions, write: (d: Dataset) => Promise<void>): Promise<{ bytes: Uint8Array; d: Dataset; close: () => Promise<void> }> {
  const store = new MemoryStore();
  const f = await createFile(store, { superblockVersion: 3 });
  const d = await f.createDataset('sparse', opts);
  await write(d);
  await f.close();
  const bytes = store.toBytes();
  const g = await openFile(bytes);
  return { bytes, d: (await g.get('sparse')) as Dataset, close: () => g.close() };
}

const structure = (bytes: Uint8Array, sig: string) => findStructures(bytes).find((s) => s.sig === sig);

describe('docs/structured-chunk-format.md §3.7 / §4.4 / §6.5: the h5stat test dataset, written with the prototype encoding', () => {
  for (const dialect of ['stc', 'v3'] as const) {
    describe(`filter message dialect ${dialect === 'stc' ? 'B (STC message 0x0019 v1)' : 'A (pipeline message 0x000B v3)'}`, () => {
      const built = build({ ...H5STAT, pipelineMessage: dialect }, (d) => d.write(DEFINED, H5STAT_SEL));

      it('object header messages in the prototype order (§2): dataspace, datatype, fill value, filters, layout', async () => {
        const { d } = await built;
        const msgs = d.headerModel.messages.filter((m) => m.type !== 0);
        expect(msgs.map((m) => m.type)).toEqual([0x01, 0x03, 0x05, dialect === 'stc' ? 0x19 : 0x0b, 0x08]);
        expect(msgs.map((m) => m.flags)).toEqual([0, 1, 1, 1, 0]);
        expect(hex(msgs[0]!.body)).toBe('020101011e00000000000000ffffffffffffffff');
        expect(hex(msgs[1]!.body)).toBe('100800000400000000002000');
      });

      it('layout message v5 class 4: the 30 bytes of §3.7 (EA index, header address, 2 padding bytes)', async () => {
        const { d, bytes } = await built;
        const body = d.headerModel.find(8)!.body;
        const eahd = structure(bytes, 'EAHD')!;
        expect(hex(body)).toBe(hex(unhex('05 04 00 0000 00 02 01 05 04 08020100 04 20 04 04 10 0a').concat(le(eahd.address, 8), [0, 0])));
      });

      it('filter pipeline message: the 40 bytes of §4.4 (section 1 first, as the prototype\'s calls were made)', async () => {
        const { d } = await built;
        const body = d.headerModel.find(dialect === 'stc' ? 0x19 : 0x0b)!.body;
        const v = dialect === 'stc' ? '01' : '03';
        expect(hex(body)).toBe(
          `${v}02` + '01010a00' + '0100010001000900 0000'.replace(/ /g, '') + '00021400' + '01000100010009000000' + '02000100010004000000',
        );
      });

      it('filter pipeline message: each section\'s filter list as in §4.4 (in whatever section order)', async () => {
        const { d } = await built;
        const b = hex(d.headerModel.find(dialect === 'stc' ? 0x19 : 0x0b)!.body);
        expect(b.slice(0, 4)).toBe(`${dialect === 'stc' ? '01' : '03'}02`);
        expect(b.length).toBe(80);
        expect(b).toContain('01010a00' + '01000100010009000000');
        expect(b).toContain('00021400' + '01000100010009000000' + '02000100010004000000');
      });

      it('index records (structChunkInfo) of the four chunks: unfiltered sizes of §6.5, masks 0, sizes add up', async () => {
        const { d } = await built;
        const infos: StructChunkInfo[] = [];
        await d.iterateStructChunks((c) => void infos.push(c));
        expect(infos.map((c) => c.offset)).toEqual([[0], [5], [10], [15]]);
        expect(infos.map((c) => c.unfilteredSizes)).toEqual([[75, 8], [75, 8], [75, 12], [67, 8]]);
        for (const c of infos) {
          expect(c.filterMasks).toEqual([0, 0]);
          expect(c.sectionSizes[0]! + c.sectionSizes[1]!).toBe(c.size);
          expect(await d.structChunkInfo(infos.indexOf(c))).toEqual(c);
          expect(await d.structChunkInfoByCoord(c.offset)).toEqual(c);
        }
      });

      it('EA header and index block: version 1, client 3, 42-byte elements = address | size (L = 2) | offset | unfiltered sizes | masks', async () => {
        const { d, bytes } = await built;
        const eahd = structure(bytes, 'EAHD')!;
        expect((d.layout as { address?: number }).address).toBe(eahd.address);
        expect(Array.from(bytes.subarray(eahd.address + 4, eahd.address + 12))).toEqual([1, 3, 42, 32, 4, 16, 4, 10]);
        const eaib = structure(bytes, 'EAIB')!;
        expect(u(bytes, eahd.address + 60, 8)).toBe(eaib.address);
        for (let i = 0; i < 4; i++) {
          const c = await d.structChunkInfo(i);
          const el = bytes.subarray(eaib.address + 14 + 42 * i, eaib.address + 14 + 42 * (i + 1));
          expect(hex(el), `chunk ${i}`).toBe(
            hex([...le(c.address, 8), ...le(c.size, 2), ...le(c.sectionSizes[0]!, 8), ...le(c.unfilteredSizes[0]!, 8), ...le(c.unfilteredSizes[1]!, 8), ...le(0, 4), ...le(0, 4)]),
          );
        }
      });

      it('section 0 of chunk 0 decodes to the 75 bytes of §6.5 (lookup3 2d e0 8a 8a); section 1 to 01 00 00 00 04 00 00 00', async () => {
        const { d } = await built;
        const { sections, info } = await d.readStructChunk([0]);
        expect(info.sectionSizes).toEqual([sections[0]!.length, sections[1]!.length]);
        const s0 = inflateSync(unshuffle(sections[0]!, 4)); // pipeline: deflate, then shuffle (§4.5)
        expect(hex(s0)).toBe(NOTES_CHUNK0_SECTION0.replace(/ /g, ''));
        expect(hex(s0)).toBe(hex(section0([...extentV1([5], [null]), ...hyperslabV1(H5STAT_CHUNKS[0]!.blocks)])));
        expect(hex(inflateSync(sections[1]!))).toBe('0100000004000000');
      });

      it('every chunk: decoded sections = the notes\' encoding of its selection + its values; stock zlib gives the notes\' 233 bytes', async () => {
        const { d } = await built;
        const decoded: Uint8Array[] = [];
        for (let c = 0; c < 4; c++) {
          const { sections, info } = await d.readStructChunk([5 * c]);
          const s0 = inflateSync(unshuffle(sections[0]!, 4));
          const s1 = inflateSync(sections[1]!);
          expect(hex(s0), `chunk ${c} section 0`).toBe(hex(section0([...extentV1([5], [null]), ...hyperslabV1(H5STAT_CHUNKS[c]!.blocks)])));
          expect(hex(s1), `chunk ${c} section 1`).toBe(hex(H5STAT_CHUNKS[c]!.values.flatMap((v) => le(v, 4))));
          expect(info.unfilteredSizes).toEqual([s0.length, s1.length]);
          decoded.push(s0, s1);
        }
        const stock = stockDeflate(decoded);
        const sizes = stock.map((b, i) => (i % 2 === 0 ? shuffle(b, 4) : b).length);
        expect(sizes).toEqual([44, 14, 44, 14, 45, 17, 41, 14]);
        expect(sizes.reduce((a, b) => a + b, 0)).toBe(233);
      });
    });
  }

  it('section 0 of every chunk = HDF5 1.10.8\'s own H5Sencode of that chunk\'s selection (extent: chunk dims, max unlimited) + lookup3', async () => {
    const { d, close } = await build({ ...H5STAT, filters: undefined }, (x) => x.write(DEFINED, H5STAT_SEL));
    const built = h5s(H5STAT_CHUNKS.map((c) => ({ encode: { dims: [5], max: [null], blocks: c.blocks.map(([st, en]) => [st, st.map((x, i) => en[i]! - x + 1)] as [number[], number[]]) } }))) as string[];
    for (let c = 0; c < 4; c++) {
      const s0 = (await d.readStructChunk([5 * c])).sections[0]!;
      expect(hex(s0), `chunk ${c}`).toBe(built[c]! + hex(le(lookup3(Uint8Array.from(unhex(built[c]!))), 4)));
    }
    await close();
  });

  it('unfiltered, the same dataset stores §6.5\'s section 0 raw: EA client 2, 18-byte elements, no pipeline message', async () => {
    const { d, bytes, close } = await build({ ...H5STAT, filters: undefined }, (x) => x.write(DEFINED, H5STAT_SEL));
    expect(d.headerModel.messages.filter((m) => m.type !== 0).map((m) => m.type)).toEqual([1, 3, 5, 8]);
    const eahd = structure(bytes, 'EAHD')!;
    expect(Array.from(bytes.subarray(eahd.address + 4, eahd.address + 7))).toEqual([1, 2, 18]);
    const { sections, info } = await d.readStructChunk([0]);
    expect(hex(sections[0]!)).toBe(NOTES_CHUNK0_SECTION0.replace(/ /g, ''));
    expect(hex(sections[1]!)).toBe('0100000004000000');
    expect(info).toMatchObject({ size: 83, sectionSizes: [75, 8], unfilteredSizes: [75, 8], filterMasks: [0, 0] });
    const eaib = structure(bytes, 'EAIB')!;
    expect(hex(bytes.subarray(eaib.address + 14, eaib.address + 14 + 18))).toBe(hex([...le(info.address, 8), ...le(83, 2), ...le(75, 8)]));
    expect(hex(bytes.subarray(info.address, info.address + 83))).toBe(hex([...sections[0]!, ...sections[1]!]));
    await close();
  });
});

describe('index structures and layout info of the other index types', () => {
  it('§5.3 fixed array (dims 30, max 50, chunk 5, int32): header v1, entry size 18 / 42, index size 226 / 466', async () => {
    for (const filtered of [false, true]) {
      const opts: CreateDatasetOptions = { layout: 'sparse', dtype: '<i4', shape: [30], maxShape: [50], chunks: [5], ...(filtered ? { compression: 'gzip' } : {}) };
      const { d, bytes, close } = await build(opts, (x) => x.write([9], selectPoints([[12]])));
      const es = filtered ? 42 : 18;
      const fahd = structure(bytes, 'FAHD')!;
      const fadb = structure(bytes, 'FADB')!;
      expect(hex(d.headerModel.find(8)!.body)).toBe(hex([5, 4, 0, 0, 0, 0, 2, 1, 5, 4, 8, 2, 1, 0, 3, 10, ...le(fahd.address, 8), 0, 0]));
      expect(Array.from(bytes.subarray(fahd.address + 4, fahd.address + 8))).toEqual([1, filtered ? 3 : 2, es, 10]);
      expect(u(bytes, fahd.address + 8, 8)).toBe(10);
      expect(u(bytes, fahd.address + 16, 8)).toBe(fadb.address);
      expect(fahd.checksumAt! + 4 + fadb.checksumAt! + 4).toBe(filtered ? 466 : 226);
      const c = (await d.structChunkInfoByCoord([10]))!;
      const el = bytes.subarray(fadb.address + 14 + 2 * es, fadb.address + 14 + 3 * es);
      expect(hex(el)).toBe(hex([...le(c.address, 8), ...le(c.size, 2), ...le(c.sectionSizes[0]!, 8), ...(filtered ? [...le(c.unfilteredSizes[0]!, 8), ...le(c.unfilteredSizes[1]!, 8), ...le(0, 8)] : [])]));
      // a never-written element: undefined address, zero size, offsets, sizes and masks (§5.1)
      expect(hex(bytes.subarray(fadb.address + 14, fadb.address + 14 + es))).toBe('ff'.repeat(8) + '00'.repeat(es - 8));
      await close();
    }
  });

  it('§5.5 v2 B-tree (2 unlimited dims): BTHD v1 type 12 / 13, records = address | size | scaled offsets | section offset [| sizes | masks]', async () => {
    for (const filtered of [false, true]) {
      const opts: CreateDatasetOptions = { layout: 'sparse', dtype: '<i4', shape: [4, 6], maxShape: [null, null], chunks: [2, 3], ...(filtered ? { fletcher32: true } : {}) };
      const { d, bytes, close } = await build(opts, (x) => x.write([5, 6], selectPoints([[3, 4], [0, 1]])));
      const bthd = structure(bytes, 'BTHD')!;
      expect(hex(d.headerModel.find(8)!.body)).toBe(hex([5, 4, 0, 0, 0, 0, 3, 1, 2, 3, 4, 8, 2, 1, 0, 5, ...le(2048, 4), 100, 40, ...le(bthd.address, 8), 0, 0]));
      const recSize = 8 + 2 + 16 + 8 + (filtered ? 24 : 0);
      expect(Array.from(bytes.subarray(bthd.address + 4, bthd.address + 6))).toEqual([1, filtered ? 13 : 12]);
      expect(u(bytes, bthd.address + 10, 2)).toBe(recSize);
      const btlf = structure(bytes, 'BTLF')!;
      const recs = [[0, 0], [1, 1]].map((scaled, k) => {
        const r = bytes.subarray(btlf.address + 6 + k * recSize, btlf.address + 6 + (k + 1) * recSize);
        return { scaled, hex: hex(r) };
      });
      for (const { scaled, hex: h } of recs) {
        const c = (await d.structChunkInfoByCoord([scaled[0]! * 2, scaled[1]! * 3]))!;
        expect(h).toBe(hex([...le(c.address, 8), ...le(c.size, 2), ...le(scaled[0]!, 8), ...le(scaled[1]!, 8), ...le(c.sectionSizes[0]!, 8), ...(filtered ? [...le(c.unfilteredSizes[0]!, 8), ...le(c.unfilteredSizes[1]!, 8), ...le(0, 8)] : [])]));
      }
      await close();
    }
  });

  it('§3.4 / §3.6 single chunk: info = size (L) + offset [+ unfiltered sizes + masks, flag bit 1], padded to the worst-case size', async () => {
    for (const filtered of [false, true]) {
      const opts: CreateDatasetOptions = { layout: 'sparse', dtype: '<i1', shape: [5], chunks: [5], selectionEncoding: 'prototype', ...(filtered ? { filters: { values: [{ id: 3 }] } } : {}) };
      const { d, close } = await build(opts, (x) => x.write([-3], selectHyperslab({ start: [2] })));
      const c = (await d.structChunkInfo(0))!;
      // S = 5 bytes → L = 1 + (2 + 8) / 8 = 2; padding = (3 − 1) + (8 − 2) = 8
      const info = [...le(c.size, 2), ...le(c.sectionSizes[0]!, 8), ...(filtered ? [...le(c.unfilteredSizes[0]!, 8), ...le(c.unfilteredSizes[1]!, 8), ...le(0, 8)] : [])];
      expect(hex(d.headerModel.find(8)!.body)).toBe(hex([5, 4, 0, 0, 0, filtered ? 2 : 0, 2, 1, 5, 1, 8, 2, 1, 0, 1, ...info, ...le(c.address, 8), ...new Array<number>(8).fill(0)]));
      expect(c.unfilteredSizes).toEqual([67, 1]);
      expect(c.sectionSizes).toEqual([67, filtered ? 1 + 4 : 1]); // Fletcher-32 adds 4 bytes to the stored values section only
      await close();
    }
  });

  it('§3.5 chunk-size field width L = 1 + (floor(log2 S) + 8) / 8: S = 20 → 2, 255 → 2, 256 → 3, 400 → 3, 4 MiB → 4', async () => {
    const cases: [string, number[], number][] = [
      ['<i4', [5], 2],
      ['<u1', [255], 2],
      ['<u1', [256], 3],
      ['<i4', [10, 10], 3], // S = 400: floor(log2 400) = 8 → 1 + 16/8 = 3 (the notes' "400 → 2" is an arithmetic slip)
      ['<i4', [1024, 1024], 4],
    ];
    for (const [dtype, chunks, L] of cases) {
      const shape = chunks.map((c) => c * 2);
      const { bytes, close } = await build({ layout: 'sparse', dtype, shape, chunks }, (x) => x.write([1], selectPoints([chunks.map(() => 0)])));
      const fahd = structure(bytes, 'FAHD')!;
      expect(bytes[fahd.address + 6], `${dtype} chunk [${chunks}]`).toBe(8 + L + 8);
      await close();
    }
  });
});

describe('§7 encoded selections of a 2-D dataset', () => {
  const opts = (enc: 'prototype' | 'smallest'): CreateDatasetOptions => ({ layout: 'sparse', dtype: '<u2', shape: [8, 8], maxShape: [8, 16], chunks: [4, 4], selectionEncoding: enc });
  const slab = selectHyperslab({ start: [1, 2], count: [2, 3] }); // rows 1–2, columns 2–4: chunks (0,0) and (0,4)

  it('prototype: extent v1 (chunk dims, the dataset\'s max dims) + hyperslab v1 block list in chunk coordinates + lookup3', async () => {
    const { d, close } = await build(opts('prototype'), (x) => x.write([1, 2, 3, 4, 5, 6], slab));
    const a = await d.readStructChunk([0, 0]);
    expect(hex(a.sections[0]!)).toBe(hex(section0([...extentV1([4, 4], [8, 16]), ...hyperslabV1([[[1, 2], [2, 3]]])])));
    expect(hex(a.sections[1]!)).toBe(hex([1, 2, 4, 5].flatMap((v) => le(v, 2))));
    const b = await d.readStructChunk([0, 4]);
    expect(hex(b.sections[0]!)).toBe(hex(section0([...extentV1([4, 4], [8, 16]), ...hyperslabV1([[[1, 0], [2, 0]]])])));
    expect(hex(b.sections[1]!)).toBe(hex([3, 6].flatMap((v) => le(v, 2))));
    // the same bytes from HDF5 1.10.8's H5Sencode, and H5Sdecode reads ours back
    const [ea, eb, da] = h5s([
      { encode: { dims: [4, 4], max: [8, 16], blocks: [[[1, 2], [2, 2]]] } },
      { encode: { dims: [4, 4], max: [8, 16], blocks: [[[1, 0], [2, 1]]] } },
      { decode: hex(a.sections[0]!.subarray(0, a.sections[0]!.length - 4)) },
    ]) as [string, string, Record<string, unknown>];
    expect(hex(a.sections[0]!.subarray(0, -4))).toBe(ea);
    expect(hex(b.sections[0]!.subarray(0, -4))).toBe(eb);
    expect(da).toEqual({ type: 2, dims: [4, 4], max: [8, 16], blocks: [[[1, 2], [2, 3]]] });
    await close();
  });

  it('smallest: a valid H5S encoding with a correct checksum, no larger than the prototype\'s, decoding to the same elements', async () => {
    const proto = await build(opts('prototype'), (x) => x.write([1, 2, 3, 4, 5, 6], slab));
    const small = await build(opts('smallest'), (x) => x.write([1, 2, 3, 4, 5, 6], slab));
    for (const off of [[0, 0], [0, 4]]) {
      const p = (await proto.d.readStructChunk(off)).sections[0]!;
      const s = (await small.d.readStructChunk(off)).sections[0]!;
      expect(s.length).toBeLessThanOrEqual(p.length);
      const enc = s.subarray(0, s.length - 4);
      expect(u(s, s.length - 4, 4)).toBe(lookup3(enc));
      expect(Array.from(s.subarray(0, 2))).toEqual([1, 0]); // H5S_encode header: dataspace message id, encode version 0
      expect([2, 4, 8]).toContain(s[2]); // its sizeof_size (the width of the extent's sizes)
      const dp = decodeSelection(p.subarray(0, p.length - 4));
      const ds = decodeSelection(enc);
      expect(ds.extent.dims).toEqual([4, 4]);
      expect(enumerate(ds.selection, [4, 4])).toEqual(enumerate(dp.selection, [4, 4]));
    }
    expect(Array.from((await small.d.read()) as Uint16Array)).toEqual(Array.from((await proto.d.read()) as Uint16Array));
    await proto.close();
    await small.close();
  });
});
