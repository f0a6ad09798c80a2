import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ChecksumError, FormatError, H5Error, TruncatedError, ValueError } from '../src/errors.js';
import { ByteWriter, DEFAULT_SIZES, UNDEFINED_ADDRESS, type SizeContext } from '../src/format/bytes.js';
import { SourceMetadataReader } from '../src/file/metadata-reader.js';
import { MemoryStore } from '../src/io/byte-store.js';
import { decodeContinuation, encodeContinuation } from '../src/format/messages/continuation.js';
import { encodeGroupInfo } from '../src/format/messages/group-info.js';
import { encodeLink } from '../src/format/messages/link.js';
import { encodeLinkInfo } from '../src/format/messages/link-info.js';
import {
  ATTRIBUTE,
  CONTINUATION,
  DATASPACE,
  DATATYPE,
  GROUP_INFO,
  LAYOUT,
  LINK,
  LINK_INFO,
  MODIFICATION_TIME,
  NIL,
  SYMBOL_TABLE,
} from '../src/format/messages/message-types.js';
import {
  decodeMessagesV1,
  decodeMessagesV2,
  decodeObjectHeaderPrefix,
  encodeContinuationBlock,
  encodeObjectHeaderV2,
  layoutObjectHeaderV2,
  messageAreaSizeV2,
  objectHeaderV2Size,
  readObjectHeader,
  type EncodableMessage,
} from '../src/format/object-header.js';
import { decodeSuperblock, encodeSuperblock } from '../src/format/superblock.js';
import { PY, hasH5py } from './support/python.js';


const GEN = String.raw`
import h5py, numpy as np, sys, os, json
d = sys.argv[1]
out = {}
def addr(o): return h5py.h5o.get_info(o.id).addr
with h5py.File(os.path.join(d, 'latest.h5'), 'w', libver='latest') as f:
    a = f.create_dataset('attrs', data=np.arange(4, dtype='f8'))
    ds = f.create_dataset('d', data=np.arange(10, dtype='i4'))
    f.create_group('g')
    for i in range(7):
        a.attrs['attr%d' % i] = np.full(25, i, dtype='i4')
    o = f.create_group('ordered', track_order=True)
    o.attrs['z'] = 1
    o.attrs['y'] = 2
    out['latest'] = {'root': addr(f), 'd': addr(ds), 'attrs': addr(a), 'ordered': addr(o)}
with h5py.File(os.path.join(d, 'earliest.h5'), 'w', libver='earliest') as f:
    ds = f.create_dataset('d', data=np.arange(10, dtype='i4'), track_times=True)
    for i in range(50):
        ds.attrs['a%02d' % i] = np.arange(i + 1)
    out['earliest'] = {'root': addr(f), 'd': addr(ds)}
print(json.dumps(out))
`;

function memReader(bytes: Uint8Array, sizes: SizeContext = DEFAULT_SIZES, eof = bytes.length): SourceMetadataReader {
  return new SourceMetadataReader(new MemoryStore(bytes), sizes, eof);
}

async function expectReject(p: Promise<unknown>, cls: new (...a: never[]) => Error, check?: (e: Error) => void): Promise<void> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(cls);
  check?.(err as Error);
}

const files: Record<string, Uint8Array> = {};
let addrs: Record<string, Record<string, number>> = {};

describe.skipIf(!hasH5py)('object headers written by HDF5 1.10', () => {
  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), 'chunkform-oh-'));
    writeFileSync(join(dir, 'gen.py'), GEN);
    addrs = JSON.parse(execFileSync(PY, [join(dir, 'gen.py'), dir]).toString());
    for (const n of ['latest', 'earliest']) files[n] = new Uint8Array(readFileSync(join(dir, `${n}.h5`)));
  });

  it('reads v2 (OHDR) root group and dataset headers', async () => {
    const f = files.latest!;
    const r = memReader(f);
    const root = await readObjectHeader(r, addrs.latest!.root!);
    expect(root.version).toBe(2);
    expect(root.flags & 0x20).toBe(0x20);
    expect(root.times?.birth).toBeGreaterThan(1e9);
    expect(root.referenceCount).toBe(1);
    const types = root.messages.map((m) => m.type);
    expect(types.slice(0, 2)).toEqual([LINK_INFO, GROUP_INFO]);
    expect(types.filter((t) => t === LINK).length).toBe(4);
    expect(root.messages.every((m) => m.chunkIndex === 0)).toBe(true);
    expect(root.chunks).toHaveLength(1);
    // The body addresses point at the body bytes in the file.
    for (const m of root.messages) expect(Array.from(f.subarray(m.bodyAddress, m.bodyAddress + m.body.length))).toEqual(Array.from(m.body));

    const d = await readObjectHeader(r, addrs.latest!.d!);
    const dt = d.messages.map((m) => m.type);
    expect(dt).toContain(DATASPACE);
    expect(dt).toContain(DATATYPE);
    expect(dt).toContain(LAYOUT);
    expect(dt).not.toContain(NIL);
  });

  it('follows v2 continuation blocks (OCHK) and verifies their checksums', async () => {
    const f = files.latest!;
    const h = await readObjectHeader(memReader(f), addrs.latest!.attrs!);
    expect(h.chunks.length).toBeGreaterThan(1);
    const attrs = h.messages.filter((m) => m.type === ATTRIBUTE);
    expect(attrs).toHaveLength(7);
    expect(new Set(h.messages.map((m) => m.chunkIndex)).size).toBe(h.chunks.length);
    const cont = h.chunks[1]!;
    expect(String.fromCharCode(...f.subarray(cont.address, cont.address + 4))).toBe('OCHK');

    const bad = f.slice();
    bad[cont.address + 6] ^= 0xff;
    await expectReject(readObjectHeader(memReader(bad), addrs.latest!.attrs!), ChecksumError, (e) => {
      expect((e as ChecksumError).structure).toBe('object header continuation block');
      expect((e as ChecksumError).address).toBe(cont.address);
    });
  });

  it('decodes creation order when the header tracks it', async () => {
    const h = await readObjectHeader(memReader(files.latest!), addrs.latest!.ordered!);
    expect(h.flags & 0x04).toBe(0x04);
    const attrs = h.messages.filter((m) => m.type === ATTRIBUTE);
    expect(attrs.map((m) => m.creationOrder)).toEqual([0, 1]);
    expect(h.messages.every((m) => m.creationOrder !== undefined)).toBe(true);
  });

  it('reads v1 headers with continuation chunks (50 attributes, libver earliest)', async () => {
    const f = files.earliest!;
    const sb = decodeSuperblock(f.subarray(0, 100), 0);
    const r = memReader(f, sb.sizes);
    const root = await readObjectHeader(r, sb.rootObjectHeaderAddress);
    expect(root.version).toBe(1);
    expect(root.messages.map((m) => m.type)).toEqual([SYMBOL_TABLE]);
    const d = await readObjectHeader(r, addrs.earliest!.d!);
    expect(d.version).toBe(1);
    expect(d.referenceCount).toBe(1);
    expect(d.chunks.length).toBeGreaterThan(1);
    const attrs = d.messages.filter((m) => m.type === ATTRIBUTE);
    expect(attrs).toHaveLength(50);
    const prefix = decodeObjectHeaderPrefix(f.subarray(d.address, d.address + 16), d.address);
    expect(prefix.version).toBe(1);
    // The prefix message count covers all chunks (NIL and continuation messages included).
    expect(prefix.messageCount).toBeGreaterThanOrEqual(d.messages.length);
    expect(d.messages.map((m) => m.type)).toContain(MODIFICATION_TIME);
  });

  it('re-encodes a real root group header byte for byte', async () => {
    const f = files.latest!;
    const root = await readObjectHeader(memReader(f), addrs.latest!.root!);
    const c0 = root.chunks[0]!;
    const enc = encodeObjectHeaderV2(root.messages, { chunk0Size: c0.messagesSize, storeTimes: root.times! });
    expect(enc.length).toBe(c0.size);
    expect(Array.from(enc)).toEqual(Array.from(f.subarray(root.address, root.address + c0.size)));
  });

  it('turns random corruption into typed errors only', async () => {
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (const lib of ['latest', 'earliest']) {
      const orig = files[lib]!;
      const targets = Object.values(addrs[lib]!);
      for (let i = 0; i < 300; i++) {
        const b = orig.slice();
        const at = targets[rnd(targets.length)]!;
        for (let k = 0; k <= rnd(4); k++) b[at + rnd(160)] = rnd(256);
        try {
          await readObjectHeader(memReader(b), at);
        } catch (e) {
          expect(e).toBeInstanceOf(H5Error);
        }
      }
    }
  });

  it('rejects a corrupt OHDR checksum and a truncated header', async () => {
    const f = files.latest!;
    const at = addrs.latest!.root!;
    const bad = f.slice();
    bad[at + 30] ^= 1;
    await expectReject(readObjectHeader(memReader(bad), at), ChecksumError, (e) => {
      expect((e as ChecksumError).structure).toBe('object header');
      expect((e as ChecksumError).address).toBe(at);
      expect(e.message).toContain('object header');
    });
    await expectReject(readObjectHeader(memReader(f.subarray(0, at + 60)), at), TruncatedError);
    await expectReject(readObjectHeader(memReader(f.subarray(0, at + 3)), at), TruncatedError);
    await expectReject(readObjectHeader(memReader(f), f.length + 10), TruncatedError);
    await expectReject(readObjectHeader(memReader(f), 0), FormatError);
  });
});

// ---------------------------------------------------------------------------------------------
// Encoders and synthetic headers

function msg(type: number, body: Uint8Array | number[], flags = 0): EncodableMessage {
  return { type, flags, body: body instanceof Uint8Array ? body : Uint8Array.from(body) };
}

describe('v2 object header encoder', () => {
  it('round-trips messages, times, phase change and creation order', async () => {
    const messages = [msg(LINK_INFO, encodeLinkInfo({ trackCreationOrder: false, indexCreationOrder: false, fractalHeapAddress: UNDEFINED_ADDRESS, nameIndexAddress: UNDEFINED_ADDRESS })), msg(GROUP_INFO, [0, 0], 1)];
    const times = { access: 1, modification: 2, change: 3, birth: 4 };
    const bytes = encodeObjectHeaderV2(
      messages.map((m, i) => ({ ...m, creationOrder: i + 7 })),
      { chunk0Size: 100, storeTimes: times, trackAttributeCreationOrder: true, attributePhaseChange: { maxCompact: 20, minDense: 10 } },
    );
    expect(bytes.length).toBe(objectHeaderV2Size({ storeTimes: times, attributePhaseChange: { maxCompact: 20, minDense: 10 } }, 100));
    const h = await readObjectHeader(memReader(bytes), 0);
    expect(h.flags).toBe(0x04 | 0x10 | 0x20);
    expect(h.times).toEqual(times);
    expect(h.maxCompactAttributes).toBe(20);
    expect(h.minDenseAttributes).toBe(10);
    expect(h.messages.map((m) => [m.type, m.flags, m.creationOrder, Array.from(m.body)])).toEqual(
      messages.map((m, i) => [m.type, m.flags, i + 7, Array.from(m.body)]),
    );
    // Default phase-change values are not stored, as HDF5 does.
    const plain = encodeObjectHeaderV2(messages, { attributePhaseChange: { maxCompact: 8, minDense: 6 } });
    expect(plain[5]).toBe(0);
    expect(plain.length).toBe(6 + 1 + messageAreaSizeV2(messages) + 4);
  });

  it('chooses the chunk-0 size width as HDF5 does and fills with NULL messages or a gap', async () => {
    const m = [msg(GROUP_INFO, [0, 0], 1)];
    for (const [size, flags, width] of [[6, 0, 1], [255, 0, 1], [256, 1, 2], [65535, 1, 2], [65536, 2, 4], [200000, 2, 4]] as const) {
      const b = encodeObjectHeaderV2(m, { chunk0Size: size });
      expect(b[5]).toBe(flags);
      expect(b.length).toBe(6 + width + size + 4);
      const h = await readObjectHeader(memReader(b), 0);
      expect(h.messages.map((x) => x.type)).toEqual([GROUP_INFO]);
      const all = decodeMessagesV2(b.subarray(6 + width, 6 + width + size), { address: 0, chunkIndex: 0, trackCreationOrder: false, keepNil: true });
      // What is not the group info message is NULL messages (no gap here), each body < 64 KiB.
      expect(all.reduce((s, x) => s + 4 + x.body.length, 0)).toBe(size);
    }
    // 2 spare bytes: too few for a NULL message header → gap.
    const gap = encodeObjectHeaderV2(m, { chunk0Size: 8 });
    expect(Array.from(gap.subarray(7 + 6, 7 + 8))).toEqual([0, 0]);
    expect((await readObjectHeader(memReader(gap), 0)).messages).toHaveLength(1);
    expect(() => encodeObjectHeaderV2(m, { chunk0Size: 5 })).toThrow(ValueError);
    expect(() => encodeObjectHeaderV2([msg(1, new Uint8Array(70000))])).toThrow(ValueError);
  });

  it('plans chunk 0 and a continuation block, and HDF5 reads the result', async () => {
    const sizes = DEFAULT_SIZES;
    const li = encodeLinkInfo({ trackCreationOrder: false, indexCreationOrder: false, fractalHeapAddress: UNDEFINED_ADDRESS, nameIndexAddress: UNDEFINED_ADDRESS });
    const childMsgs = [msg(LINK_INFO, li), msg(GROUP_INFO, encodeGroupInfo(), 1)];
    const childSize = encodeObjectHeaderV2(childMsgs).length;
    const rootCapacity = 60;
    const rootAt = 48;
    const rootSize = objectHeaderV2Size({}, rootCapacity);
    const children = ['a', 'b', 'c'].map((name, i) => ({ name, address: rootAt + rootSize + i * childSize }));
    const links = children.map((c) => msg(LINK, encodeLink({ name: c.name, kind: 'hard', address: c.address, charset: 'ascii' }, sizes)));
    const all = [msg(LINK_INFO, li), msg(GROUP_INFO, encodeGroupInfo(), 1), ...links];

    expect(layoutObjectHeaderV2(all, 1000, sizes)).toEqual({ chunk0: all, overflow: [], continuationIndex: -1, continuationBlockSize: 0 });
    const plan = layoutObjectHeaderV2(all, rootCapacity, sizes);
    expect(plan.chunk0.map((m) => m.type)).toEqual([LINK_INFO, GROUP_INFO, CONTINUATION]);
    expect(plan.overflow.map((m) => m.type)).toEqual([LINK, LINK, LINK]);
    expect(plan.continuationIndex).toBe(2);
    expect(plan.continuationBlockSize).toBe(8 + messageAreaSizeV2(links));
    // Placeholder: undefined address (the caller fills it), length = the block size.
    const ph = plan.chunk0[2]!.body;
    expect(Array.from(ph.subarray(0, 8))).toEqual(new Array(8).fill(0xff));
    expect(() => decodeContinuation(ph, sizes)).toThrow(FormatError);
    expect(decodeContinuation(encodeContinuation({ address: 5, size: plan.continuationBlockSize }, sizes), sizes)).toEqual({ address: 5, length: plan.continuationBlockSize });

    const contAt = children[2]!.address + childSize;
    const contSize = plan.continuationBlockSize + 16; // with slack, filled by a NULL message
    plan.chunk0[plan.continuationIndex] = msg(CONTINUATION, encodeContinuation({ address: contAt, length: contSize }, sizes));
    const eof = contAt + contSize;
    const w = new ByteWriter(sizes, eof);
    w.bytes(encodeSuperblock({ version: 3, sizes, eofAddress: eof, rootObjectHeaderAddress: rootAt }));
    w.bytes(encodeObjectHeaderV2(plan.chunk0, { chunk0Size: rootCapacity }));
    for (let i = 0; i < 3; i++) w.bytes(encodeObjectHeaderV2(childMsgs));
    w.bytes(encodeContinuationBlock(plan.overflow, contSize));
    const file = w.finish().slice();
    expect(file.length).toBe(eof);

    const h = await readObjectHeader(memReader(file), rootAt);
    expect(h.chunks.map((c) => [c.address, c.size])).toEqual([[rootAt, rootSize], [contAt, contSize]]);
    expect(h.messages.map((m) => [m.type, m.chunkIndex])).toEqual([[LINK_INFO, 0], [GROUP_INFO, 0], [CONTINUATION, 0], [LINK, 1], [LINK, 1], [LINK, 1]]);

    if (hasH5py) {
      const dir = mkdtempSync(join(tmpdir(), 'chunkform-oh-w-'));
      writeFileSync(join(dir, 'made.h5'), file);
      const out = execFileSync(PY, ['-c', 'import h5py,sys\nwith h5py.File(sys.argv[1],"r") as f: print(",".join(sorted(f.keys())), all(isinstance(f[k], h5py.Group) for k in f))', join(dir, 'made.h5')]);
      expect(out.toString().trim()).toBe('a,b,c True');
    }
  });

  it('encodes continuation blocks with fill and rejects blocks that are too small', () => {
    const m = [msg(GROUP_INFO, [0, 0], 1)];
    const b = encodeContinuationBlock(m);
    expect(b.length).toBe(4 + 6 + 4);
    expect(String.fromCharCode(...b.subarray(0, 4))).toBe('OCHK');
    expect(encodeContinuationBlock(m, 40).length).toBe(40);
    expect(() => encodeContinuationBlock(m, 13)).toThrow(ValueError);
    expect(() => layoutObjectHeaderV2([msg(1, new Uint8Array(100))], 10)).toThrow(ValueError);
  });
});

describe('object header corruption', () => {
  it('detects continuation loops (v2 and v1)', async () => {
    // v2: chunk 0 → block at X whose continuation points back to X.
    const X = 100;
    const cont = encodeObjectHeaderV2([msg(CONTINUATION, encodeContinuation({ address: X, length: 30 }))], { chunk0Size: 60 });
    const block = encodeContinuationBlock([msg(CONTINUATION, encodeContinuation({ address: X, length: 30 }))], 30);
    const file = new Uint8Array(200);
    file.set(cont, 0);
    file.set(block, X);
    await expectReject(readObjectHeader(memReader(file), 0), FormatError, (e) => expect(e.message).toContain('loop'));
    // v2: continuation back to the header itself.
    const self = encodeObjectHeaderV2([msg(CONTINUATION, encodeContinuation({ address: 0, length: 30 }))]);
    await expectReject(readObjectHeader(memReader(Uint8Array.from([...self, ...new Uint8Array(40)])), 0), FormatError);

    // v1: prefix + a continuation message pointing at chunk 0's own message area.
    const w = new ByteWriter(DEFAULT_SIZES, 64);
    w.u8(1).u8(0).u16(1).u32(1).u32(24).u32(0);
    w.u16(CONTINUATION).u16(16).u8(0).zeros(3);
    w.bytes(encodeContinuation({ address: 16, length: 24 }));
    await expectReject(readObjectHeader(memReader(w.finish().slice()), 0), FormatError, (e) => expect(e.message).toContain('loop'));
  });

  it('rejects message bodies that overrun their chunk and short v1 tails', () => {
    const w = new ByteWriter(DEFAULT_SIZES, 64);
    w.u8(DATASPACE).u16(40).u8(0).zeros(10);
    expect(() => decodeMessagesV2(w.finish(), { address: 500, chunkIndex: 0, trackCreationOrder: false })).toThrow(FormatError);
    const v1 = new ByteWriter(DEFAULT_SIZES, 64);
    v1.u16(DATASPACE).u16(16).u8(0).zeros(3).zeros(8);
    expect(() => decodeMessagesV1(v1.finish(), { address: 0, chunkIndex: 0 })).toThrow(FormatError);
    expect(() => decodeMessagesV1(new Uint8Array(5), { address: 0, chunkIndex: 0 })).toThrow(FormatError);
    expect(decodeMessagesV1(new Uint8Array(16), { address: 0, chunkIndex: 0 })).toEqual([]);
    expect(decodeMessagesV1(new Uint8Array(16), { address: 0, chunkIndex: 0, keepNil: true })).toHaveLength(2);
    // Shared + don't-share flags: HDF5 rejects the combination.
    expect(() => decodeMessagesV2(Uint8Array.of(1, 0, 0, 0x06), { address: 0, chunkIndex: 0, trackCreationOrder: false })).toThrow(FormatError);
  });

  it('rejects unknown OHDR flags and versions', () => {
    const b = encodeObjectHeaderV2([msg(GROUP_INFO, [0, 0])]);
    const f = b.slice();
    f[5] = 0x40;
    expect(() => decodeObjectHeaderPrefix(f, 0)).toThrow(FormatError);
    const v = b.slice();
    v[4] = 3;
    expect(() => decodeObjectHeaderPrefix(v, 0)).toThrow(FormatError);
    expect(() => decodeObjectHeaderPrefix(Uint8Array.of(7, 0, 0), 0)).toThrow(FormatError);
    expect(() => decodeObjectHeaderPrefix(Uint8Array.of(1, 0, 0), 0)).toThrow(TruncatedError);
  });
});
