import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatError, TruncatedError } from '../src/errors.js';
import { ByteReader } from '../src/format/bytes.js';
import { lookup3 } from '../src/format/checksum/lookup3.js';
import {
  decodeGlobalHeapCollection,
  encodeGlobalHeapCollection,
  readGlobalHeapCollection,
} from '../src/format/heaps/global-heap.js';
import { memReader, objectHeaderMessages, parseSuperblock, runH5py } from './support/h5-structures.js';

const sizes = { sizeOfOffsets: 8, sizeOfLengths: 8 };
const enc = new TextEncoder();
const dec = new TextDecoder();
let dir: string;
let path: string;
let file: Uint8Array;

/** The data of root attribute `name` (attribute message version 3) and its offset in the file. */
function rootAttributeData(bytes: Uint8Array, name: string): { data: Uint8Array; offset: number } {
  const sb = parseSuperblock(bytes);
  for (const m of objectHeaderMessages(bytes, sb.sizes, sb.rootObjectHeader)) {
    if (m.type !== 0x0c) continue;
    const r = new ByteReader(m.body, { sizes: sb.sizes });
    expect(r.u8()).toBe(3);
    r.u8();
    const nameSize = r.u16();
    const dtSize = r.u16();
    const dsSize = r.u16();
    r.u8();
    const n = dec.decode(m.body.subarray(r.pos, r.pos + nameSize - 1));
    r.skip(nameSize + dtSize + dsSize);
    if (n === name) return { data: m.body.subarray(r.pos), offset: m.body.byteOffset + r.pos };
  }
  throw new Error(`no attribute ${name}`);
}

/** (length, collection address, object index) of each vlen element. */
function vlenRefs(data: Uint8Array): { length: number; address: number; index: number }[] {
  const r = new ByteReader(data, { sizes });
  const out = [];
  while (r.remaining >= 16) out.push({ length: r.u32(), address: r.offset(), index: r.u32() });
  return out;
}

const readBack = (p: string) =>
  JSON.parse(runH5py(`import sys, h5py, json\nprint(json.dumps([s.decode() if isinstance(s, bytes) else s for s in h5py.File(sys.argv[1], 'r').attrs['vs']]))`, [p]));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cf-gheap-'));
  path = join(dir, 'vs.h5');
  runH5py(
    `import sys, h5py, numpy as np
with h5py.File(sys.argv[1], 'w', libver='latest') as f:
    f.attrs.create('vs', np.array(['hello', 'world!', '', 'x' * 100], dtype=object), dtype=h5py.string_dtype())
`,
    [path],
  );
  file = new Uint8Array(readFileSync(path));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('global heap collection (III.E)', () => {
  it('decodes the collection HDF5 wrote for a vlen string attribute', async () => {
    const refs = vlenRefs(rootAttributeData(file, 'vs').data);
    expect(refs).toHaveLength(4);
    const addr = refs[0]!.address;
    expect(refs.every((r) => r.address === addr)).toBe(true);
    const objects = await readGlobalHeapCollection(memReader(file), addr);
    expect(refs.map((r) => dec.decode(objects.get(r.index)!))).toEqual(['hello', 'world!', '', 'x'.repeat(100)]);
    refs.forEach((r) => expect(objects.get(r.index)!.length).toBe(r.length));
    expect(objects.has(0)).toBe(false);
  });

  it('encodes byte-identically to HDF5 and HDF5 reads an edited collection', () => {
    const refs = vlenRefs(rootAttributeData(file, 'vs').data);
    const addr = refs[0]!.address;
    const objects = decodeGlobalHeapCollection(file.subarray(addr, addr + 4096), sizes, addr);
    const ordered = [...objects.keys()].sort((a, b) => a - b).map((k) => objects.get(k)!);
    expect([...objects.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 4]);
    const mine = encodeGlobalHeapCollection(ordered, sizes);
    expect(mine).toEqual(file.subarray(addr, addr + 4096));
    // Same lengths, new contents: HDF5 must read our bytes.
    const edited = ordered.map((o) => o.map((b) => (b >= 0x61 && b <= 0x7a ? b - 32 : b)));
    const patched = file.slice();
    patched.set(encodeGlobalHeapCollection(edited, sizes), addr);
    const p2 = join(dir, 'edited.h5');
    writeFileSync(p2, patched);
    expect(readBack(p2)).toEqual(['HELLO', 'WORLD!', '', 'X'.repeat(100)]);
  });

  it('writes a collection larger than 4096 bytes that HDF5 reads', () => {
    const strings = ['a'.repeat(5000), 'bb', '', 'c'];
    const coll = encodeGlobalHeapCollection(strings.map((s) => enc.encode(s)), sizes);
    expect(coll.length).toBe(16 + (16 + 5000) + (16 + 8) + 16 + (16 + 8));
    const at = Math.ceil(file.length / 8) * 8;
    const out = new Uint8Array(at + coll.length);
    out.set(file);
    out.set(coll, at);
    // Point the attribute's vlen references at the new collection (objects 1..4).
    const { offset } = rootAttributeData(out, 'vs');
    const dv = new DataView(out.buffer);
    strings.forEach((s, i) => {
      dv.setUint32(offset + 16 * i, s.length, true);
      dv.setBigUint64(offset + 16 * i + 4, BigInt(at), true);
      dv.setUint32(offset + 16 * i + 12, i + 1, true);
    });
    // Fix the root object header checksum (chunk 0, v2) and the superblock's EOF + checksum.
    const sb = parseSuperblock(out);
    const oh = sb.rootObjectHeader;
    const flags = out[oh + 5]!;
    let p = oh + 6 + (flags & 0x20 ? 16 : 0) + (flags & 0x10 ? 4 : 0);
    const w = 1 << (flags & 3);
    let size = 0;
    for (let i = 0; i < w; i++) size += out[p + i]! * 256 ** i;
    p += w + size;
    dv.setUint32(p, lookup3(out.subarray(oh, p)), true);
    dv.setBigUint64(28, BigInt(out.length), true);
    dv.setUint32(44, lookup3(out.subarray(0, 44)), true);
    const p3 = join(dir, 'big.h5');
    writeFileSync(p3, out);
    expect(readBack(p3)).toEqual(strings);
  });

  it('round-trips objects of many sizes, with and without a free-space object', () => {
    const cases: Uint8Array[][] = [
      [],
      [new Uint8Array(0)],
      [1, 7, 8, 9, 15, 16, 17].map((n) => Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff)),
      [new Uint8Array(4096 - 32)], // exactly fills a 4096-byte collection: no free-space object
      [new Uint8Array(4096 - 40)], // leaves 8 bytes: too small for a free-space header
    ];
    for (const sz of [sizes, { sizeOfOffsets: 4, sizeOfLengths: 4 }]) {
      for (const objs of cases) {
        const bytes = encodeGlobalHeapCollection(objs, sz);
        expect(bytes.length % 8).toBe(0);
        expect(bytes.length).toBeGreaterThanOrEqual(4096);
        const back = decodeGlobalHeapCollection(bytes, sz, 0);
        expect([...back.keys()]).toEqual(objs.map((_, i) => i + 1));
        objs.forEach((o, i) => expect(back.get(i + 1)).toEqual(o));
      }
    }
    expect(encodeGlobalHeapCollection([new Uint8Array(3)], sizes, 64).length).toBe(64);
  });

  it('rejects corrupt collections with typed errors', async () => {
    const good = encodeGlobalHeapCollection([enc.encode('abc'), enc.encode('defgh')], sizes);
    const badSig = good.slice();
    badSig[1] = 0;
    expect(() => decodeGlobalHeapCollection(badSig, sizes, 100)).toThrow(/global heap collection, at address 100: bad signature/);
    const badVer = good.slice();
    badVer[4] = 2;
    expect(() => decodeGlobalHeapCollection(badVer, sizes, 0)).toThrow(FormatError);
    // Object size running past the collection.
    const overrun = good.slice();
    new DataView(overrun.buffer).setBigUint64(16 + 8, 100000n, true);
    expect(() => decodeGlobalHeapCollection(overrun, sizes, 0)).toThrow(/runs past the end/);
    // Duplicate object index.
    const dup = good.slice();
    dup[16 + 16 + 8] = 1;
    expect(() => decodeGlobalHeapCollection(dup, sizes, 0)).toThrow(/appears twice/);
    // Wrong free-space size.
    const free = good.slice();
    new DataView(free.buffer).setBigUint64(16 + 24 + 24 + 8, 8n, true);
    expect(() => decodeGlobalHeapCollection(free, sizes, 0)).toThrow(/free-space object/);
    // Collection size larger than the bytes / the file.
    expect(() => decodeGlobalHeapCollection(good.subarray(0, 2000), sizes, 0)).toThrow(TruncatedError);
    await expect(readGlobalHeapCollection(memReader(good.subarray(0, 2000)), 0)).rejects.toThrow(TruncatedError);
    const tiny = good.slice();
    new DataView(tiny.buffer).setBigUint64(8, 8n, true);
    expect(() => decodeGlobalHeapCollection(tiny, sizes, 0)).toThrow(/smaller than its 16-byte header/);
  });
});
