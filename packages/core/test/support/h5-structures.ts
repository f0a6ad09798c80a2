/**
 * Test-only helpers: build HDF5 files with the system h5py and find the addresses of heaps and
 * B-trees in them by walking the superblock and object headers (just enough of the format for
 * the heap/B-tree tests; the real object-header reader lives elsewhere).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '../../src/io/byte-store.js';
import { SourceMetadataReader, type MetadataReader } from '../../src/file/metadata-reader.js';
import { ByteReader, type SizeContext, UNDEFINED_ADDRESS } from '../../src/format/bytes.js';
import { iterateV2BTree, openV2BTree } from '../../src/format/btree/v2.js';

/** Runs a Python script with the Debian h5py (HDF5 1.10). */
export function runH5py(script: string, args: string[] = []): string {
  return execFileSync('/usr/bin/python3', ['-c', script, ...args], { encoding: 'utf8' });
}

/** A MetadataReader over bytes in memory. */
export function memReader(bytes: Uint8Array, sizes: SizeContext = { sizeOfOffsets: 8, sizeOfLengths: 8 }): MetadataReader {
  return new SourceMetadataReader(new MemoryStore(bytes), sizes, bytes.length, 0, 0);
}

export interface Superblock {
  version: number;
  sizes: SizeContext;
  rootObjectHeader: number;
  /** Root symbol-table entry scratch pad (v0/v1 superblocks with cache type 1). */
  rootBTree?: number;
  rootHeap?: number;
}

export function parseSuperblock(bytes: Uint8Array): Superblock {
  const r = new ByteReader(bytes, { structure: 'superblock' });
  r.skip(8);
  const version = r.u8();
  if (version >= 2) {
    const sizes = { sizeOfOffsets: r.u8(), sizeOfLengths: r.u8() };
    const rr = new ByteReader(bytes, { sizes, pos: 12 });
    rr.offset(); // base
    rr.offset(); // extension
    rr.offset(); // eof
    return { version, sizes, rootObjectHeader: rr.offset() };
  }
  r.skip(4);
  const sizes = { sizeOfOffsets: r.u8(), sizeOfLengths: r.u8() };
  r.skip(1 + 2 + 2 + 4);
  if (version === 1) r.skip(4);
  const rr = new ByteReader(bytes, { sizes, pos: r.pos });
  rr.offset();
  rr.offset();
  rr.offset();
  rr.offset();
  rr.length(); // link name offset
  const rootObjectHeader = rr.offset();
  const cacheType = rr.u32();
  rr.skip(4);
  const sb: Superblock = { version, sizes, rootObjectHeader };
  if (cacheType === 1) {
    sb.rootBTree = rr.offset();
    sb.rootHeap = rr.offset();
  }
  return sb;
}

export interface Message {
  type: number;
  body: Uint8Array;
}

/** All messages of the object header at `address` (v1 or v2), following continuation blocks. */
export function objectHeaderMessages(bytes: Uint8Array, sizes: SizeContext, address: number): Message[] {
  const out: Message[] = [];
  const blocks: { start: number; end: number }[] = [];
  let v2 = false;
  let flags = 0;
  if (bytes[address] === 0x4f && bytes[address + 1] === 0x48) {
    v2 = true;
    const r = new ByteReader(bytes, { sizes, pos: address + 5 });
    flags = r.u8();
    if (flags & 0x20) r.skip(16);
    if (flags & 0x10) r.skip(4);
    const size = r.uN(1 << (flags & 3));
    blocks.push({ start: r.pos, end: r.pos + size });
  } else {
    const r = new ByteReader(bytes, { sizes, pos: address });
    r.skip(8);
    const size = r.u32();
    blocks.push({ start: address + 16, end: address + 16 + size });
  }
  for (let b = 0; b < blocks.length; b++) {
    const { start, end } = blocks[b]!;
    const r = new ByteReader(bytes, { sizes, pos: start });
    while (r.pos < end) {
      let type: number;
      let size: number;
      if (v2) {
        if (end - r.pos < 4) break;
        type = r.u8();
        size = r.u16();
        r.u8();
        if (flags & 4) r.skip(2);
      } else {
        type = r.u16();
        size = r.u16();
        r.skip(4);
      }
      const body = bytes.subarray(r.pos, r.pos + size);
      r.skip(size);
      if (type === 0x10) {
        const cr = new ByteReader(body, { sizes });
        const addr = cr.offset();
        const len = cr.length();
        blocks.push(v2 ? { start: addr + 4, end: addr + len - 4 } : { start: addr, end: addr + len });
      } else {
        out.push({ type, body });
      }
    }
  }
  return out;
}

export interface Link {
  name: string;
  address?: number;
  softValue?: string;
  creationOrder?: number;
}

/** Decodes a link message body (type 0x06), as stored in object headers and dense-link heaps. */
export function parseLinkMessage(body: Uint8Array, sizes: SizeContext): Link {
  const r = new ByteReader(body, { sizes });
  r.u8();
  const flags = r.u8();
  const linkType = flags & 8 ? r.u8() : 0;
  const creationOrder = flags & 4 ? r.u64() : undefined;
  if (flags & 0x10) r.u8();
  const nameLen = r.uN(1 << (flags & 3));
  const name = new TextDecoder().decode(r.bytesView(nameLen));
  const link: Link = { name };
  if (creationOrder !== undefined) link.creationOrder = creationOrder;
  if (linkType === 0) link.address = r.offset();
  else if (linkType === 1) link.softValue = new TextDecoder().decode(r.bytesView(r.u16()));
  return link;
}

/** Links stored compactly in an object header (link messages). */
export function compactLinks(bytes: Uint8Array, sizes: SizeContext, address: number): Map<string, Link> {
  const m = new Map<string, Link>();
  for (const msg of objectHeaderMessages(bytes, sizes, address)) {
    if (msg.type === 6) {
      const l = parseLinkMessage(msg.body, sizes);
      m.set(l.name, l);
    }
  }
  return m;
}

export interface DenseInfo {
  heapAddress: number;
  nameIndexAddress: number;
  orderIndexAddress: number;
}

/** Link info (0x02) or attribute info (0x15) message of an object: the dense storage addresses. */
export function denseInfo(bytes: Uint8Array, sizes: SizeContext, address: number, kind: 'links' | 'attributes'): DenseInfo {
  const type = kind === 'links' ? 0x02 : 0x15;
  const msg = objectHeaderMessages(bytes, sizes, address).find((m) => m.type === type);
  if (!msg) throw new Error(`no ${kind} info message`);
  const r = new ByteReader(msg.body, { sizes });
  r.u8();
  const flags = r.u8();
  if (flags & 1) r.skip(kind === 'links' ? 8 : 2);
  const heapAddress = r.offset();
  const nameIndexAddress = r.offset();
  const orderIndexAddress = flags & 2 ? r.offset() : UNDEFINED_ADDRESS;
  return { heapAddress, nameIndexAddress, orderIndexAddress };
}

/** The symbol table message (0x11) of a v1 group: B-tree and local heap addresses. */
export function symbolTableMessage(bytes: Uint8Array, sizes: SizeContext, address: number): { btree: number; heap: number } {
  const msg = objectHeaderMessages(bytes, sizes, address).find((m) => m.type === 0x11);
  if (!msg) throw new Error('no symbol table message');
  const r = new ByteReader(msg.body, { sizes });
  return { btree: r.offset(), heap: r.offset() };
}

/** Byte offsets of every occurrence of a 4-letter signature. */
export function findSignatures(bytes: Uint8Array, sig: string): number[] {
  const out: number[] = [];
  const c = [...sig].map((ch) => ch.charCodeAt(0));
  for (let i = bytes.indexOf(c[0]!); i >= 0 && i + 4 <= bytes.length; i = bytes.indexOf(c[0]!, i + 1)) {
    if (bytes[i + 1] === c[1] && bytes[i + 2] === c[2] && bytes[i + 3] === c[3]) out.push(i);
  }
  return out;
}

/** Python that writes the fixture files used by the heap and B-tree tests into argv[1]. */
const GENERATOR = String.raw`
import sys, glob, ctypes
import numpy as np, h5py
d = sys.argv[1]
lib = ctypes.CDLL(sorted(glob.glob('/usr/lib/x86_64-linux-gnu/libhdf5_serial.so.*'))[0])
with h5py.File(d + '/earliest.h5', 'w', libver='earliest') as f:
    g = f.create_group('big')
    for i in range(200):
        g.create_group('m%03d' % i)
    g['soft'] = h5py.SoftLink('/big/m000')
    f.create_group('empty')
    f.create_dataset('c2', data=np.arange(10000, dtype='<i4').reshape(100, 100), chunks=(10, 10))
    f.create_dataset('cz', data=np.arange(10000, dtype='<i4').reshape(100, 100), chunks=(10, 10), compression='gzip')
with h5py.File(d + '/latest.h5', 'w', libver='latest') as f:
    g = f.create_group('dense', track_order=True)
    for i in range(2000):
        g.create_group('link%05d' % i)
    o = f.create_group('attrs', track_order=True)
    for i in range(100):
        o.attrs['a%03d' % i] = np.arange(i + 1, dtype='<i4')
    o.attrs['huge'] = np.arange(70000 // 8, dtype='<f8')
    f.attrs.create('vs', np.array(['hello', 'world!', '', 'x' * 100], dtype=object), dtype=h5py.string_dtype())
    n = f.create_group('nested', track_order=True)
    for i in range(300):
        n.create_group(('L%04d' % i) + 'x' * 2000)
    n.create_group('H' + 'y' * 5000)
    f.create_dataset('b2', data=np.arange(10000, dtype='<i4').reshape(100, 100), chunks=(10, 10), maxshape=(None, None))
    f.create_dataset('bz', data=np.arange(10000, dtype='<i4').reshape(100, 100), chunks=(10, 10), maxshape=(None, None), compression='gzip')
    gcpl = h5py.h5p.create(h5py.h5p.GROUP_CREATE)
    gcpl.set_link_creation_order(h5py.h5p.CRT_ORDER_TRACKED | h5py.h5p.CRT_ORDER_INDEXED)
    assert lib.H5Pset_link_phase_change(ctypes.c_int64(gcpl.id), ctypes.c_uint(0), ctypes.c_uint(0)) >= 0
    assert lib.H5Pset_deflate(ctypes.c_int64(gcpl.id), ctypes.c_uint(6)) >= 0
    h5py.h5g.create(f.id, b'filtered', gcpl=gcpl)
    for i in range(50):
        f['filtered'].create_group('n%03d' % i)
`;

/** Writes earliest.h5 (symbol tables, v1 B-trees) and latest.h5 (dense storage, v2 B-trees) into `dir`. */
export function generateFixtures(dir: string): void {
  runH5py(GENERATOR, [dir]);
}

/** `latest.h5` of {@link generateFixtures}, written into a new temporary folder `dir` (the caller removes it). */
export interface LatestFixture {
  dir: string;
  file: Uint8Array;
  sizes: SizeContext;
  /** The root group's (compact) links. */
  links: Map<string, Link>;
}

/** Writes the fixtures into a new temporary folder named from `prefix` and reads `latest.h5`. */
export function loadLatestFixture(prefix: string): LatestFixture {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  generateFixtures(dir);
  const file = new Uint8Array(readFileSync(join(dir, 'latest.h5')));
  const sb = parseSuperblock(file);
  return { dir, file, sizes: sb.sizes, links: compactLinks(file, sb.sizes, sb.rootObjectHeader) };
}

/** The raw records of the v2 B-tree at `address` in `bytes`, in tree order. */
export async function v2BTreeRecords(bytes: Uint8Array, sizes: SizeContext, address: number): Promise<Uint8Array[]> {
  const rd = memReader(bytes, sizes);
  const out: Uint8Array[] = [];
  for await (const rec of iterateV2BTree(rd, await openV2BTree(rd, address))) out.push(rec);
  return out;
}
