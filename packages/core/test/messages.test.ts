import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FormatError, TruncatedError, UnknownIndexTypeError, UnsupportedError, ValueError } from '../src/errors.js';
import { DEFAULT_SIZES, UNDEFINED_ADDRESS } from '../src/format/bytes.js';
import { SourceMetadataReader } from '../src/file/metadata-reader.js';
import { MemoryStore } from '../src/io/byte-store.js';
import { decodeAttributeInfo, encodeAttributeInfo } from '../src/format/messages/attribute-info.js';
import { continuationMessageSize, decodeContinuation, encodeContinuation } from '../src/format/messages/continuation.js';
import { decodeFilterPipeline, encodeFilterPipeline } from '../src/format/messages/filter-pipeline.js';
import { decodeGroupInfo, encodeGroupInfo } from '../src/format/messages/group-info.js';
import {
  decodeLayout,
  dimensionEncodingLength,
  encodeLayout,
  structuredChunkSizeLength,
  type DataLayout,
  type StructuredChunkLayout,
} from '../src/format/messages/layout.js';
import { decodeLink, encodeLink, type LinkMessage } from '../src/format/messages/link.js';
import { decodeLinkInfo, encodeLinkInfo } from '../src/format/messages/link-info.js';
import * as T from '../src/format/messages/message-types.js';
import {
  decodeModificationTime,
  decodeModificationTimeOld,
  encodeModificationTime,
  encodeModificationTimeOld,
} from '../src/format/messages/modification-time.js';
import { decodeReferenceCount, encodeReferenceCount } from '../src/format/messages/reference-count.js';
import { decodeSharedMessage, encodeSharedMessage } from '../src/format/messages/shared-message.js';
import { decodeSymbolTableMessage, encodeSymbolTableMessage } from '../src/format/messages/symbol-table-message.js';
import { readObjectHeader, type ObjectHeader, type RawMessage } from '../src/format/object-header.js';
import { decodeSuperblock } from '../src/format/superblock.js';
import { PY, hasH5py } from './support/python.js';
import { sparseLayout } from './support/structured-layout.js';


const GEN = String.raw`
import h5py, numpy as np, sys, os, json, ctypes
d = sys.argv[1]
out = {}
def addr(o): return h5py.h5o.get_info(o.id).addr
def compact(f, name, data):
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    space = h5py.h5s.create_simple(data.shape)
    dsid = h5py.h5d.create(f.id, name.encode(), h5py.h5t.py_create(data.dtype), space, dcpl=dcpl)
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, data)
    return f[name]
def implicit(f, name):
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((5,))
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    space = h5py.h5s.create_simple((10,), (10,))
    h5py.h5d.create(f.id, name.encode(), h5py.h5t.STD_I32LE, space, dcpl=dcpl)
    return f[name]
for lib in ['latest', 'earliest']:
    a = out[lib] = {}
    with h5py.File(os.path.join(d, lib + '.h5'), 'w', libver=lib) as f:
        a['root'] = addr(f)
        a['contig'] = addr(f.create_dataset('contig', data=np.arange(10, dtype='i4'), track_times=True))
        a['compact'] = addr(compact(f, 'compact', np.arange(6, dtype='i2')))
        a['single'] = addr(f.create_dataset('single', data=np.arange(10, dtype='i4'), chunks=(10,)))
        a['singlez'] = addr(f.create_dataset('singlez', data=np.arange(10, dtype='i4'), chunks=(10,), compression='gzip'))
        a['implicit'] = addr(implicit(f, 'implicit'))
        a['farray'] = addr(f.create_dataset('farray', data=np.arange(10, dtype='i4'), chunks=(5,)))
        a['earray'] = addr(f.create_dataset('earray', data=np.arange(10, dtype='i4'), chunks=(5,), maxshape=(None,)))
        a['bt2'] = addr(f.create_dataset('bt2', data=np.arange(16, dtype='i4').reshape(4, 4), chunks=(2, 2), maxshape=(None, None)))
        a['big'] = addr(f.create_dataset('big', shape=(100000,), dtype='u1', chunks=(70000,)))
        a['filters'] = addr(f.create_dataset('filters', data=np.arange(100, dtype='f4'), chunks=(50,), compression='gzip', compression_opts=4, shuffle=True, fletcher32=True))
        a['lzf'] = addr(f.create_dataset('lzf', data=np.arange(100, dtype='f4'), chunks=(50,), compression='lzf'))
        g = f.create_group('g')
        a['g'] = addr(g)
        g['soft'] = h5py.SoftLink('/contig')
        g['ext'] = h5py.ExternalLink('other.h5', '/x/y')
        g['\u00e9t\u00e9'] = f['contig']
        f['contig2'] = f['contig']
        o = f.create_group('ordered', track_order=True)
        a['ordered'] = addr(o)
        o.create_group('one'); o.create_group('two')
        for i in range(3): o.attrs['at%d' % i] = i
        many = f.create_dataset('many', data=np.arange(3))
        for i in range(12): many.attrs['m%02d' % i] = i
        a['many'] = addr(many)
        f['t'] = np.dtype('<i4')
        a['t'] = addr(f['t'])
        a['usest'] = addr(f.create_dataset('usest', (3,), dtype=f['t']))
        if lib == 'latest':
            long = f.create_group('long')
            a['long'] = addr(long)
            long.create_group('n' * 300)
lib = ctypes.CDLL('libhdf5_serial.so.103')
fcpl = h5py.h5p.create(h5py.h5p.FILE_CREATE)
assert lib.H5Pset_shared_mesg_nindexes(ctypes.c_int64(fcpl.id), ctypes.c_uint(1)) >= 0
assert lib.H5Pset_shared_mesg_index(ctypes.c_int64(fcpl.id), ctypes.c_uint(0), ctypes.c_uint(0x02), ctypes.c_uint(0)) >= 0
fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
fapl.set_libver_bounds(h5py.h5f.LIBVER_LATEST, h5py.h5f.LIBVER_LATEST)
f = h5py.File(h5py.h5f.create(os.path.join(d, 'sohm.h5').encode(), h5py.h5f.ACC_TRUNC, fcpl=fcpl, fapl=fapl))
dt = np.dtype([('a', 'i4'), ('b', 'f8'), ('c', 'S10')])
out['sohm'] = {'x': addr(f.create_dataset('x', (3,), dtype=dt)), 'y': addr(f.create_dataset('y', (3,), dtype=dt))}
f.close()
print(json.dumps(out))
`;

type Lib = 'latest' | 'earliest' | 'sohm';
const files = {} as Record<Lib, Uint8Array>;
let addrs = {} as Record<Lib, Record<string, number>>;
const headers = new Map<string, ObjectHeader>();

async function header(lib: Lib, name: string): Promise<ObjectHeader> {
  const key = `${lib}/${name}`;
  let h = headers.get(key);
  if (!h) {
    const b = files[lib];
    h = await readObjectHeader(new SourceMetadataReader(new MemoryStore(b), DEFAULT_SIZES, b.length), addrs[lib][name]!);
    headers.set(key, h);
  }
  return h;
}
async function messages(lib: Lib, name: string, type: number): Promise<RawMessage[]> {
  return (await header(lib, name)).messages.filter((m) => m.type === type);
}
async function message(lib: Lib, name: string, type: number): Promise<RawMessage> {
  const m = (await messages(lib, name, type))[0];
  if (!m) throw new Error(`no message ${type} in ${lib}/${name}`);
  return m;
}

/** `enc` equals `body` (v1 headers pad bodies to 8 bytes with zeros). */
function expectSameBytes(enc: Uint8Array, body: Uint8Array): void {
  expect(Array.from(enc)).toEqual(Array.from(body.subarray(0, enc.length)));
  expect(body.subarray(enc.length).every((b) => b === 0)).toBe(true);
}

describe('message type constants', () => {
  it('numbers and names the message types', () => {
    expect([T.NIL, T.DATASPACE, T.LINK_INFO, T.DATATYPE, T.FILL_VALUE_OLD, T.FILL_VALUE, T.LINK, T.EXTERNAL_FILES, T.LAYOUT, T.BOGUS, T.GROUP_INFO, T.FILTER_PIPELINE]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect([T.ATTRIBUTE, T.COMMENT, T.MODIFICATION_TIME_OLD, T.SHARED_MESSAGE_TABLE, T.CONTINUATION, T.SYMBOL_TABLE, T.MODIFICATION_TIME, T.BTREE_K, T.DRIVER_INFO, T.ATTRIBUTE_INFO, T.REFERENCE_COUNT, T.FILE_SPACE_INFO]).toEqual([12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23]);
    expect(T.messageTypeName(T.LAYOUT)).toBe('data layout message');
    expect(T.messageTypeName(0x99)).toBe('message type 0x0099');
  });
});

describe.skipIf(!hasH5py)('messages written by HDF5 1.10', () => {
  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), 'chunkform-msg-'));
    writeFileSync(join(dir, 'gen.py'), GEN);
    addrs = JSON.parse(execFileSync(PY, [join(dir, 'gen.py'), dir]).toString());
    for (const n of ['latest', 'earliest', 'sohm'] as Lib[]) files[n] = new Uint8Array(readFileSync(join(dir, `${n}.h5`)));
  });

  it('link messages: hard, soft, external, UTF-8, creation order, 2-byte name length', async () => {
    for (const lib of ['latest', 'earliest'] as const) {
      const links = (await messages(lib, 'g', T.LINK)).map((m) => [decodeLink(m.body), m.body] as const);
      const byName = Object.fromEntries(links.map(([l]) => [l.name, l]));
      expect(byName.soft).toEqual({ name: 'soft', kind: 'soft', target: '/contig', charset: 'ascii' });
      expect(byName.ext).toEqual({ name: 'ext', kind: 'external', externalFile: 'other.h5', externalPath: '/x/y', externalFlags: 0, charset: 'ascii' });
      expect(byName['été']).toEqual({ name: 'été', kind: 'hard', address: addrs[lib].contig, charset: 'utf-8' });
      for (const [l, body] of links) expectSameBytes(encodeLink(l), body);
      const ordered = (await messages(lib, 'ordered', T.LINK)).map((m) => [decodeLink(m.body), m.body] as const);
      expect(ordered.map(([l]) => [l.name, l.creationOrder])).toEqual([['one', 0], ['two', 1]]);
      for (const [l, body] of ordered) expectSameBytes(encodeLink(l), body);
    }
    const [long] = await messages('latest', 'long', T.LINK);
    const l = decodeLink(long!.body);
    expect(l.name).toBe('n'.repeat(300));
    expect(long!.body[1]! & 3).toBe(1);
    expectSameBytes(encodeLink(l), long!.body);
    // The root group has more than 8 links: they are dense (no link messages), see the link info test.
    expect(await messages('latest', 'root', T.LINK)).toHaveLength(0);
  });

  it('link info, group info and attribute info messages', async () => {
    const li = await message('latest', 'g', T.LINK_INFO);
    const d = decodeLinkInfo(li.body);
    expect(d).toEqual({ trackCreationOrder: false, indexCreationOrder: false, fractalHeapAddress: UNDEFINED_ADDRESS, nameIndexAddress: UNDEFINED_ADDRESS });
    expectSameBytes(encodeLinkInfo(d), li.body);
    const dense = await message('latest', 'root', T.LINK_INFO);
    const dd = decodeLinkInfo(dense.body);
    expect(dd.fractalHeapAddress).toBeGreaterThan(0);
    expect(dd.nameIndexAddress).toBeGreaterThan(0);
    expectSameBytes(encodeLinkInfo(dd), dense.body);
    const oli = await message('latest', 'ordered', T.LINK_INFO);
    const od = decodeLinkInfo(oli.body);
    expect(od).toMatchObject({ trackCreationOrder: true, indexCreationOrder: true, maxCreationIndex: 2, creationOrderIndexAddress: UNDEFINED_ADDRESS });
    expectSameBytes(encodeLinkInfo(od), oli.body);

    const gi = await message('latest', 'root', T.GROUP_INFO);
    expect(decodeGroupInfo(gi.body)).toEqual({});
    expectSameBytes(encodeGroupInfo(decodeGroupInfo(gi.body)), gi.body);

    const ai = await message('latest', 'many', T.ATTRIBUTE_INFO);
    const a = decodeAttributeInfo(ai.body, DEFAULT_SIZES, ai.bodyAddress);
    expect(a.trackCreationOrder).toBe(false);
    expect(a.fractalHeapAddress).toBeGreaterThan(0);
    expect(a.nameIndexAddress).toBeGreaterThan(0);
    expectSameBytes(encodeAttributeInfo(a), ai.body);
    for (const lib of ['latest', 'earliest'] as const) {
      const oai = await message(lib, 'ordered', T.ATTRIBUTE_INFO);
      const o = decodeAttributeInfo(oai.body);
      expect(o).toMatchObject({ trackCreationOrder: true, indexCreationOrder: true, maxCreationIndex: 3, fractalHeapAddress: UNDEFINED_ADDRESS });
      expectSameBytes(encodeAttributeInfo(o), oai.body);
    }
  });

  it('symbol table and continuation messages (libver earliest)', async () => {
    const st = await message('earliest', 'root', T.SYMBOL_TABLE);
    const s = decodeSymbolTableMessage(st.body);
    const sb = decodeSuperblock(files.earliest.subarray(0, 100), 0);
    expect(s).toEqual({ btreeAddress: sb.rootSymbolTableEntry!.btreeAddress, heapAddress: sb.rootSymbolTableEntry!.heapAddress });
    expectSameBytes(encodeSymbolTableMessage(s), st.body);
    const conts = await messages('earliest', 'many', T.CONTINUATION);
    expect(conts.length).toBeGreaterThan(0);
    for (const c of conts) {
      const d = decodeContinuation(c.body);
      expect(d.length).toBeGreaterThan(0);
      expectSameBytes(encodeContinuation(d), c.body);
    }
    expect(continuationMessageSize()).toBe(16);
  });

  it('layout messages: every class and chunk index HDF5 1.10 writes', async () => {
    const expected: Record<string, (l: DataLayout, lib: string) => void> = {
      contig: (l) => expect(l).toMatchObject({ class: 'contiguous', address: 2048, size: 40 }),
      compact: (l) => expect(l.class === 'compact' && Array.from(new Int16Array(l.data.slice().buffer))).toEqual([0, 1, 2, 3, 4, 5]),
      single: (l, lib) => expect(l).toMatchObject({ class: 'chunked', chunkDims: [10], elementSize: 4, index: { type: lib === 'latest' ? 'single' : 'btree1' } }),
      singlez: (l, lib) =>
        expect(l).toMatchObject(lib === 'latest' ? { flags: 2, index: { type: 'single', filterMask: 0 } } : { index: { type: 'btree1' } }),
      implicit: (l, lib) => expect(l).toMatchObject({ chunkDims: [5], index: { type: lib === 'latest' ? 'implicit' : 'btree1' } }),
      farray: (l, lib) => expect(l).toMatchObject({ chunkDims: [5], index: lib === 'latest' ? { type: 'fixed-array', pageBits: 10 } : { type: 'btree1' } }),
      earray: (l, lib) =>
        expect(l).toMatchObject({
          index: lib === 'latest' ? { type: 'extensible-array', maxBits: 32, indexElements: 4, minPointers: 4, minElements: 16, pageBits: 10 } : { type: 'btree1' },
        }),
      bt2: (l, lib) =>
        expect(l).toMatchObject({ chunkDims: [2, 2], elementSize: 4, index: lib === 'latest' ? { type: 'btree2', nodeSize: 2048, splitPercent: 100, mergePercent: 40 } : { type: 'btree1' } }),
      big: (l) => expect(l).toMatchObject({ chunkDims: [70000], elementSize: 1, address: UNDEFINED_ADDRESS }),
    };
    for (const lib of ['latest', 'earliest'] as const) {
      for (const [name, check] of Object.entries(expected)) {
        const m = await message(lib, name, T.LAYOUT);
        const l = decodeLayout(m.body, DEFAULT_SIZES, m.bodyAddress);
        check(l, lib);
        expectSameBytes(encodeLayout(l), m.body);
      }
    }
    // dimension-size encoding length: 70000 needs 3 bytes (H5Dchunk.c rule).
    const big = await message('latest', 'big', T.LAYOUT);
    expect(big.body[4]).toBe(3);
    expect(dimensionEncodingLength([70000, 1])).toBe(3);
    // What HDF5 1.10 writes by default (no version in the model): version 3 contiguous/compact.
    const c = decodeLayout((await message('latest', 'contig', T.LAYOUT)).body);
    const { version: _v, ...noVersion } = c as { version?: number };
    expectSameBytes(encodeLayout(noVersion as DataLayout), (await message('earliest', 'contig', T.LAYOUT)).body);
  });

  it('filter pipeline messages version 2 (latest) and 1 (earliest)', async () => {
    for (const lib of ['latest', 'earliest'] as const) {
      const v = lib === 'latest' ? 2 : 1;
      const m = await message(lib, 'filters', T.FILTER_PIPELINE);
      const p = decodeFilterPipeline(m.body, m.bodyAddress);
      expect(p.filters.map((f) => [f.id, f.flags, f.clientData])).toEqual([[2, 1, [4]], [1, 1, [4]], [3, 0, []]]);
      if (lib === 'earliest') expect(p.filters.map((f) => f.name)).toEqual(['shuffle', 'deflate', 'fletcher32']);
      else expect(p.filters.every((f) => f.name === undefined)).toBe(true);
      expectSameBytes(encodeFilterPipeline(p, v), m.body);
      const z = await message(lib, 'lzf', T.FILTER_PIPELINE);
      const pz = decodeFilterPipeline(z.body);
      expect(pz.filters).toEqual([{ id: 32000, name: 'lzf', flags: 1, clientData: [4, 261, 200] }]);
      expectSameBytes(encodeFilterPipeline(pz, v), z.body);
    }
  });

  it('modification time and reference count messages', async () => {
    const t = await message('earliest', 'contig', T.MODIFICATION_TIME);
    const secs = decodeModificationTime(t.body);
    expect(Math.abs(secs - Date.now() / 1000)).toBeLessThan(3600);
    expectSameBytes(encodeModificationTime(secs), t.body);
    const rc = await message('latest', 'contig', T.REFERENCE_COUNT);
    expect(decodeReferenceCount(rc.body)).toBe(3);
    expectSameBytes(encodeReferenceCount(3), rc.body);
    expect((await header('latest', 'contig')).referenceCount).toBe(3);
    expect((await header('earliest', 'contig')).referenceCount).toBe(3);
  });

  it('shared messages: committed datatypes (v2) and the SOHM heap (v3)', async () => {
    for (const lib of ['latest', 'earliest'] as const) {
      const m = await message(lib, 'usest', T.DATATYPE);
      expect(m.flags & T.MESSAGE_FLAGS.SHARED).toBeTruthy();
      const s = decodeSharedMessage(m.body);
      expect(s).toEqual({ kind: 'object-header', address: addrs[lib].t });
      expectSameBytes(encodeSharedMessage(s), m.body);
    }
    const dsp = (await header('sohm', 'y')).messages.find((x) => x.flags & T.MESSAGE_FLAGS.SHARED)!;
    const s = decodeSharedMessage(dsp.body);
    expect(s.kind).toBe('sohm');
    expect(s.kind === 'sohm' && s.heapId.length).toBe(8);
    expectSameBytes(encodeSharedMessage(s), dsp.body);
  });
});

describe('message codecs (synthetic)', () => {
  it('link round trips and validation', () => {
    const cases: LinkMessage[] = [
      { name: 'a', kind: 'hard', address: 1234, charset: 'ascii', creationOrder: 5 },
      { name: 'x'.repeat(70000), kind: 'soft', target: '/t', charset: 'ascii' },
      { name: 'u', kind: 'user', userType: 70, userData: Uint8Array.of(1, 2, 3), charset: 'utf-8' },
    ];
    for (const l of cases) expect(decodeLink(encodeLink(l))).toEqual(l);
    expect(encodeLink(cases[1]!)[1]! & 3).toBe(2);
    expect(Array.from(encodeLink({ name: 'd', kind: 'hard', address: 0x30, charset: 'ascii' }))).toEqual([1, 0, 1, 0x64, 0x30, 0, 0, 0, 0, 0, 0, 0]);
    expect(() => encodeLink({ name: '', kind: 'hard', address: 1, charset: 'ascii' })).toThrow(ValueError);
    expect(() => encodeLink({ name: 'a', kind: 'hard', charset: 'ascii' })).toThrow(ValueError);
    expect(() => encodeLink({ name: 'a', kind: 'user', userType: 3, charset: 'ascii' })).toThrow(ValueError);
    expect(() => decodeLink(Uint8Array.of(1, 0x08, 5, 1, 0x61))).toThrow(FormatError); // reserved link type 5
    expect(() => decodeLink(Uint8Array.of(2, 0))).toThrow(FormatError);
    expect(() => decodeLink(Uint8Array.of(1, 0, 9, 0x61))).toThrow(TruncatedError);
  });

  it('link info / attribute info / group info round trips', () => {
    const li = { trackCreationOrder: true, indexCreationOrder: true, maxCreationIndex: 77, fractalHeapAddress: 100, nameIndexAddress: 200, creationOrderIndexAddress: 300 };
    expect(decodeLinkInfo(encodeLinkInfo(li))).toEqual(li);
    const ai = { ...li, maxCreationIndex: 65535 };
    expect(decodeAttributeInfo(encodeAttributeInfo(ai))).toEqual(ai);
    expect(() => encodeAttributeInfo({ ...ai, maxCreationIndex: 65536 })).toThrow(ValueError);
    const gi = { maxCompact: 16, minDense: 4, estimatedEntries: 100, estimatedNameLength: 20 };
    expect(decodeGroupInfo(encodeGroupInfo(gi))).toEqual(gi);
    expect(decodeGroupInfo(encodeGroupInfo({ maxCompact: 12 }))).toEqual({ maxCompact: 12, minDense: 6 });
    expect(Array.from(encodeGroupInfo())).toEqual([0, 0]);
    expect(() => decodeGroupInfo(Uint8Array.of(0, 4))).toThrow(FormatError);
    expect(() => decodeLinkInfo(Uint8Array.of(0, 1, 0))).toThrow(TruncatedError);
  });

  it('modification times (current and old ASCII form)', () => {
    expect(decodeModificationTime(encodeModificationTime(1700000000))).toBe(1700000000);
    const old = encodeModificationTimeOld(1700000000);
    expect(new TextDecoder().decode(old.subarray(0, 14))).toBe('20231114221320');
    expect(decodeModificationTimeOld(old)).toBe(1700000000);
    expect(() => decodeModificationTimeOld(new TextEncoder().encode('2023x114221320\0\0'))).toThrow(FormatError);
    expect(() => decodeModificationTime(Uint8Array.of(2, 0, 0, 0, 1, 0, 0, 0))).toThrow(FormatError);
  });

  it('filter pipeline round trips, version 1 padding and version 3', () => {
    const p = { filters: [{ id: 1, flags: 0, clientData: [6] }, { id: 300, name: 'myfilter', flags: 1, clientData: [1, 2, 3] }] };
    expect(Array.from(encodeFilterPipeline({ filters: [{ id: 1, flags: 1, clientData: [6] }] }))).toEqual([2, 1, 1, 0, 1, 0, 1, 0, 6, 0, 0, 0]);
    expect(decodeFilterPipeline(encodeFilterPipeline(p))).toEqual({ filters: [p.filters[0], p.filters[1]] });
    const v1 = encodeFilterPipeline({ filters: [{ id: 300, name: 'myfilter', flags: 1, clientData: [1, 2, 3] }] }, 1);
    expect(v1.length).toBe(8 + 8 + 16 + 16);
    expect(decodeFilterPipeline(v1)).toEqual({ filters: [{ id: 300, name: 'myfilter', flags: 1, clientData: [1, 2, 3] }] });
    // Version 3 (per-section pipelines of structured chunks) is decoded by filter-pipeline-v3.ts.
    expect(decodeFilterPipeline(Uint8Array.of(3, 0))).toEqual({ filters: [], sections: [], sectionOrder: [] });
    expect(() => decodeFilterPipeline(Uint8Array.of(2, 33))).toThrow(FormatError);
    expect(() => decodeFilterPipeline(Uint8Array.of(2, 1, 1, 0, 0, 0, 0xff, 0xff))).toThrow(TruncatedError);
  });

  it('shared message versions 1–3', () => {
    const v1 = new Uint8Array(2 + 6 + 8 + 8);
    v1[0] = 1;
    v1[16] = 0x40;
    expect(decodeSharedMessage(v1)).toEqual({ kind: 'object-header', address: 0x40 });
    expect(() => decodeSharedMessage(Uint8Array.of(3, 0, 0, 0, 0, 0, 0, 0, 0, 0))).toThrow(FormatError);
    expect(() => decodeSharedMessage(Uint8Array.of(4, 2))).toThrow(FormatError);
    const sohm = { kind: 'sohm' as const, heapId: Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8) };
    expect(decodeSharedMessage(encodeSharedMessage(sohm))).toEqual(sohm);
  });
});

describe('data layout codec (synthetic)', () => {
  const addr = [1, 2, 3, 4, 0, 0, 0, 0];
  it('decodes layout versions 1 and 2 (old compact / contiguous / chunked)', () => {
    // version 1 contiguous, 2 dims (10 elements × 4 bytes).
    const contig = Uint8Array.from([1, 2, 1, 0, 0, 0, 0, 0, ...addr, 10, 0, 0, 0, 4, 0, 0, 0]);
    expect(decodeLayout(contig)).toEqual({ class: 'contiguous', version: 1, address: 0x04030201, size: 40, dims: [10, 4] });
    const compact = Uint8Array.from([2, 2, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 9, 8, 7]);
    expect(decodeLayout(compact)).toMatchObject({ class: 'compact', version: 2, data: Uint8Array.of(9, 8, 7) });
    const chunked = Uint8Array.from([2, 3, 2, 0, 0, 0, 0, 0, ...addr, 5, 0, 0, 0, 6, 0, 0, 0, 8, 0, 0, 0]);
    expect(decodeLayout(chunked)).toMatchObject({ class: 'chunked', version: 2, chunkDims: [5, 6], elementSize: 8, index: { type: 'btree1' } });
    expect(() => decodeLayout(Uint8Array.from([2, 3, 2, 0, 0, 0, 0, 0, ...addr, 5, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0]))).toThrow(FormatError);
    expect(() => decodeLayout(Uint8Array.from([1, 34, 1, 0, 0, 0, 0, 0]))).toThrow(FormatError);
    expect(() => decodeLayout(compact.subarray(0, compact.length - 1))).toThrow(TruncatedError);
  });

  it('encodes version 4 chunked layouts byte-identically to the spec examples (HDF5 specification, data layout message version 4)', () => {
    const base = { class: 'chunked' as const, version: 4, flags: 0, elementSize: 4, address: 0x800 };
    const a8 = [0, 8, 0, 0, 0, 0, 0, 0];
    const cases: [DataLayout, number[]][] = [
      [{ ...base, chunkDims: [10], index: { type: 'single' as const } }, [4, 2, 0, 2, 1, 10, 4, 1, ...a8]],
      [{ ...base, flags: 2, chunkDims: [10], index: { type: 'single' as const, filteredSize: 0x16, filterMask: 0 } }, [4, 2, 2, 2, 1, 10, 4, 1, 0x16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ...a8]],
      [{ ...base, chunkDims: [5], index: { type: 'implicit' as const } }, [4, 2, 0, 2, 1, 5, 4, 2, ...a8]],
      [{ ...base, chunkDims: [5], index: { type: 'fixed-array' as const, pageBits: 10 } }, [4, 2, 0, 2, 1, 5, 4, 3, 10, ...a8]],
      [{ ...base, chunkDims: [5], index: { type: 'extensible-array' as const, maxBits: 32, indexElements: 4, minPointers: 4, minElements: 16, pageBits: 10 } }, [4, 2, 0, 2, 1, 5, 4, 4, 0x20, 4, 4, 0x10, 10, ...a8]],
      [{ ...base, chunkDims: [2, 2], index: { type: 'btree2' as const, nodeSize: 2048, splitPercent: 100, mergePercent: 40 } }, [4, 2, 0, 3, 1, 2, 2, 4, 5, 0, 8, 0, 0, 100, 40, ...a8]],
      [{ class: 'virtual', version: 4, heapAddress: 0x800, heapIndex: 3 }, [4, 3, ...a8, 3, 0, 0, 0]],
      [{ class: 'compact', data: Uint8Array.of(1, 2) }, [3, 0, 2, 0, 1, 2]],
    ];
    for (const [l, bytes] of cases) {
      expect(Array.from(encodeLayout(l))).toEqual(bytes);
      expect(decodeLayout(encodeLayout(l))).toEqual(l.class === 'compact' ? { ...l, version: 3 } : l);
    }
  });

  it('validates layouts', () => {
    const chunked = { class: 'chunked' as const, version: 4, flags: 0, elementSize: 4, address: 0, index: { type: 'fixed-array' as const, pageBits: 10 } };
    expect(() => encodeLayout({ ...chunked, chunkDims: new Array(33).fill(1) })).toThrow(ValueError);
    expect(() => encodeLayout({ ...chunked, chunkDims: [0] })).toThrow(ValueError);
    expect(() => encodeLayout({ ...chunked, chunkDims: [4], flags: 2 })).toThrow(ValueError);
    expect(() => encodeLayout({ class: 'compact', data: new Uint8Array(70000) })).toThrow(ValueError);
    // v4 with index type 0, unknown index type 9, zero chunk dimension, bad split percent.
    expect(() => decodeLayout(Uint8Array.of(4, 2, 0, 2, 1, 5, 4, 0, ...addr))).toThrow(FormatError);
    // Index type 9: not HDF5's, and no third-party provider claims it (a typed error naming the code).
    expect(() => decodeLayout(Uint8Array.of(4, 2, 0, 2, 1, 5, 4, 9, ...addr))).toThrow(UnknownIndexTypeError);
    expect(() => decodeLayout(Uint8Array.of(4, 2, 0, 2, 1, 5, 4, 9, ...addr))).toThrow(/index type code 9\b/);
    // Claimed by a third-party provider with 2 parameter bytes: decoded, and encoded back byte for byte.
    const external = Uint8Array.of(4, 2, 0, 2, 1, 5, 4, 9, 0xab, 0xcd, ...addr);
    const lookup = (code: number) => (code === 9 ? { name: 'toy', paramBytes: 2 } : undefined);
    const decoded = decodeLayout(external, undefined, undefined, lookup);
    expect(decoded).toMatchObject({ class: 'chunked', index: { type: 'external', name: 'toy', code: 9, params: Uint8Array.of(0xab, 0xcd) } });
    expect(encodeLayout(decoded)).toEqual(external);
    expect(() => decodeLayout(Uint8Array.of(4, 2, 0, 2, 1, 0, 4, 1, ...addr))).toThrow(FormatError);
    expect(() => decodeLayout(Uint8Array.of(4, 2, 0, 2, 1, 5, 4, 5, 0, 8, 0, 0, 101, 40, ...addr))).toThrow(FormatError);
    expect(() => decodeLayout(Uint8Array.of(4, 2, 0, 40, 1))).toThrow(FormatError);
    expect(() => decodeLayout(Uint8Array.of(3, 3, ...addr, 0, 0, 0, 0))).toThrow(FormatError);
    expect(() => decodeLayout(Uint8Array.of(4, 4))).toThrow(FormatError);
    expect(() => decodeLayout(Uint8Array.of(6, 1))).toThrow(UnsupportedError);
    expect(() => decodeLayout(Uint8Array.of(3, 0, 10, 0, 1, 2))).toThrow(TruncatedError);
  });

  it('decodes and encodes version 5 structured chunk layouts (docs/structured-chunk-format.md §3.7)', () => {
    const a8 = [0x00, 0x10, 0, 0, 0, 0, 0, 0];
    const ea = [5, 4, 0, 0, 0, 0, 2, 1, 5, 4, 8, 2, 1, 0, 4, 0x20, 4, 4, 0x10, 0x0a, ...a8, 0, 0];
    const l = decodeLayout(Uint8Array.from(ea)) as StructuredChunkLayout;
    expect(l).toEqual(sparseLayout({ type: 'extensible-array', maxBits: 32, indexElements: 4, minPointers: 4, minElements: 16, pageBits: 10 }, 0x1000));
    expect(Array.from(encodeLayout(l))).toEqual(ea);
    // Single chunk, filtered: L = 2 for 5 × 4 bytes; padding 2 + (8 − 2).
    expect(structuredChunkSizeLength([5], 4, 8, 2)).toBe(2);
    expect(structuredChunkSizeLength([1024, 1024], 4, 8, 2)).toBe(4);
    expect(structuredChunkSizeLength([5], 4, 8, 3)).toBe(8);
    const single: StructuredChunkLayout = {
      ...l,
      flags: 2,
      index: { type: 'single', chunkSize: 58, sectionOffsets: [44], unfilteredSizes: [75, 8], filterMasks: [0, 1] },
    };
    const enc = encodeLayout(single);
    expect(enc.length).toBe(15 + 2 + 8 + 16 + 8 + 8 + 8);
    expect(decodeLayout(enc)).toEqual(single);
    const unfiltered: StructuredChunkLayout = { ...l, index: { type: 'single', chunkSize: 0, sectionOffsets: [0] }, address: UNDEFINED_ADDRESS };
    expect(decodeLayout(encodeLayout(unfiltered))).toEqual(unfiltered);
    // Index types 0 and 2 are not allowed; property version 1 is unknown.
    const bad = ea.slice();
    bad[14] = 2;
    expect(() => decodeLayout(Uint8Array.from(bad))).toThrow(FormatError);
    const pv = ea.slice();
    pv[2] = 1;
    expect(() => decodeLayout(Uint8Array.from(pv))).toThrow(FormatError);
    expect(() => decodeLayout(Uint8Array.from(ea.slice(0, 20)))).toThrow(TruncatedError);
  });
});
