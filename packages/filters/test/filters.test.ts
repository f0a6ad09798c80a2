/**
 * Unit and property tests of the filters: round trips on random data, HDF5's conventions on small
 * known inputs, and typed errors on corrupt input.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createContainer,
  resolveFilter,
  ChecksumError,
  FilterError,
  type Datatype,
  type FilterContext,
  decodeChunk,
} from '@chunkform/core/plugin';
import * as fflateZlib from '../src/deflate/zlib-fflate.js';
import * as nodeZlib from '../src/deflate/zlib-node.js';
import {
  ALL_FILTERS,
  appendFletcher32,
  deflateFilter,
  inflateFilter,
  registerDeflate,
  registerInflate,
  fletcher32,
  nbitFilter,
  registerFilters,
  scaleOffsetFilter,
  shuffle,
  shuffleFilter,
  unshuffle,
  verifyFletcher32,
} from '../src/index.js';

const OPAQUE: Datatype = { class: 'opaque', size: 1, tag: '' };
function ctx(clientData: number[], extra: Partial<FilterContext> = {}): FilterContext {
  return { clientData, datatype: OPAQUE, elementSize: 1, chunkDims: [], flags: 0, ...extra };
}
const bytes = (max = 4096) => fc.uint8Array({ maxLength: max });
/** Byte equality that stays fast on megabytes (vitest's toEqual walks element by element). */
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

describe('shuffle', () => {
  it('groups bytes by position and copies leftovers as HDF5 does', () => {
    const data = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect([...shuffle(data, 4)]).toEqual([1, 5, 2, 6, 3, 7, 4, 8, 9, 10, 11]);
    expect([...shuffle(data, 2)]).toEqual([1, 3, 5, 7, 9, 2, 4, 6, 8, 10, 11]);
    expect(shuffle(data, 1)).toBe(data);
    expect(shuffle(data.subarray(0, 5), 4)).toEqual(data.subarray(0, 5)); // one element only: unchanged
  });

  it('unshuffle(shuffle(x)) == x for element sizes 1/2/3/4/8/16 (aligned or not)', () => {
    fc.assert(
      fc.property(bytes(), fc.constantFrom(1, 2, 3, 4, 8, 16), fc.nat(3), (x, size, off) => {
        const buf = new Uint8Array(x.length + off);
        buf.set(x, off);
        const v = buf.subarray(off);
        const s = shuffle(v, size);
        expect(unshuffle(s, size)).toEqual(v);
        // the generic path agrees with the fast paths
        if (size > 1 && Math.floor(v.length / size) > 1) {
          const n = Math.floor(v.length / size);
          for (let i = 0; i < n; i++) for (let b = 0; b < size; b++) expect(s[b * n + i]).toBe(v[i * size + b]);
        }
      }),
    );
  });

  it('sets its client data to the element size and rejects bad parameters', () => {
    expect(shuffleFilter.setLocal!([], { datatype: OPAQUE, elementSize: 12, chunkDims: [4] })).toEqual([12]);
    expect(() => shuffleFilter.decode(new Uint8Array(8), ctx([]))).toThrow(FilterError);
    expect(() => shuffleFilter.decode(new Uint8Array(8), ctx([0]))).toThrow(FilterError);
  });
});

describe('fletcher32', () => {
  it('follows H5_checksum_fletcher32 (big-endian words, odd byte as high byte, LE storage)', () => {
    // h5py: arange(7, dtype='<u2') chunk with fletcher32 ends with bytes 00 15 00 38
    const data = new Uint8Array(new Uint16Array([0, 1, 2, 3, 4, 5, 6]).buffer);
    const out = appendFletcher32(data);
    expect([...out.subarray(14)]).toEqual([0x00, 0x15, 0x00, 0x38]);
    expect(fletcher32(Uint8Array.from([0xab]))).toBe(((0xab00 << 16) | 0xab00) >>> 0);
    expect(fletcher32(new Uint8Array(0))).toBe(0);
  });

  it('matches a plain reference on long inputs (block reduction and wrap-around)', () => {
    const ref = (d: Uint8Array): number => {
      let s1 = 0;
      let s2 = 0;
      const words = d.length >> 1;
      for (let i = 0; i < words; i++) {
        s1 = (s1 + ((d[2 * i]! << 8) | d[2 * i + 1]!)) % 65535;
        s2 = (s2 + s1) % 65535;
      }
      if (d.length & 1) {
        s1 = (s1 + (d[d.length - 1]! << 8)) % 65535;
        s2 = (s2 + s1) % 65535;
      }
      return s1 + s2 * 65536;
    };
    // Fletcher sums mod 65535 agree with the 16-bit folded form except for the 0 / 0xffff alias.
    fc.assert(
      fc.property(bytes(20000), (d) => {
        const got = fletcher32(d);
        const want = ref(d);
        const fold = (v: number) => (v === 0xffff ? 0 : v);
        expect(fold(got & 0xffff)).toBe(want & 0xffff);
        expect(fold(got >>> 16)).toBe(want >>> 16);
      }),
      { numRuns: 50 },
    );
    const all = new Uint8Array(100000).fill(0xff);
    expect(fold16(fletcher32(all))).toBe(0);
    function fold16(v: number) {
      return (v & 0xffff) % 0xffff;
    }
  });

  it('round-trips and rejects a wrong checksum with a ChecksumError', () => {
    fc.assert(
      fc.property(bytes(), (x) => {
        expect(verifyFletcher32(appendFletcher32(x))).toEqual(x);
      }),
    );
    const enc = appendFletcher32(Uint8Array.from([1, 2, 3, 4, 5]));
    enc[2] ^= 1;
    expect(() => verifyFletcher32(enc)).toThrow(ChecksumError);
    expect(() => verifyFletcher32(new Uint8Array(3))).toThrow(FilterError);
  });

  it('accepts the pre-1.6.3 byte-swapped checksum', () => {
    const data = Uint8Array.from([9, 8, 7, 6, 5, 4]);
    const s = fletcher32(data);
    const swapped = (((s & 0x00ff00ff) << 8) | ((s >>> 8) & 0x00ff00ff)) >>> 0;
    const buf = new Uint8Array(10);
    buf.set(data);
    new DataView(buf.buffer).setUint32(6, swapped, true);
    expect(verifyFletcher32(buf)).toEqual(data);
  });

  it('names the dataset and chunk when the pipeline finds a mismatch', async () => {
    const enc = appendFletcher32(new Uint8Array(64).fill(7));
    enc[10] = 0;
    const p = { filters: [{ id: 3, flags: 0, clientData: [] }] };
    const err = await decodeChunk(enc, p, 0, (id) => ALL_FILTERS.find((f) => f.id === id), { datatype: OPAQUE, elementSize: 1, chunkDims: [64] }, { path: '/grp/data', chunk: [2, 5] }).catch((e) => e);
    expect(err).toBeInstanceOf(ChecksumError);
    expect(err.message).toContain('/grp/data');
    expect(err.message).toContain('chunk [2, 5]');
  });
});

describe('deflate', () => {
  const backends = { node: nodeZlib, fflate: fflateZlib };

  it('both backends round-trip at every level and read each other', async () => {
    await fc.assert(
      fc.asyncProperty(bytes(20000), fc.integer({ min: 0, max: 9 }), async (x, level) => {
        for (const [a, b] of [
          [nodeZlib, fflateZlib],
          [fflateZlib, nodeZlib],
        ] as const) {
          const z = await a.zlibCompress(x, level);
          expect(z[0]! & 0x0f).toBe(8); // zlib header, not raw deflate
          expect(await b.zlibDecompress(z, x.length, 2 * x.length + 65536)).toEqual(x);
          expect(await a.zlibDecompress(z, 0, 0)).toEqual(x);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('large chunks (thread-pool path) round-trip across backends', async () => {
    const x = new Uint8Array(300_000);
    for (let i = 0; i < x.length; i++) x[i] = (i * i) % 7;
    for (const level of [1, 9]) {
      const zn = await nodeZlib.zlibCompress(x, level);
      const zf = await fflateZlib.zlibCompress(x, level);
      expect(same(await nodeZlib.zlibDecompress(zf, x.length, 2 * x.length), x)).toBe(true);
      expect(same(await fflateZlib.zlibDecompress(zn, x.length, 2 * x.length), x)).toBe(true);
    }
  });

  it('node: output slices sized from the last chunk give the same bytes as worst-case slices, also when a chunk does not fit', async () => {
    const { deflateSync } = await import('node:zlib');
    const n = 1 << 19;
    const flat = new Uint8Array(n).fill(3); // compresses to almost nothing: the next slice guess is small
    const noise = new Uint8Array(n);
    for (let i = 0, x = 12345; i < n; i++) noise[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24; // barely compresses
    const detector = Uint8Array.from({ length: n }, (_, i) => (i % 97 === 0 ? i & 255 : i & 3));
    for (const x of [flat, noise, detector, flat, detector, noise]) {
      const z = await nodeZlib.zlibCompress(x, 1);
      expect(same(z, deflateSync(x, { level: 1, chunkSize: n + (n >>> 8) + 64 }))).toBe(true);
      expect(same(await nodeZlib.zlibDecompress(z, n, 2 * n), x)).toBe(true);
    }
  });

  it('node: a large input may be reused as soon as compression started', async () => {
    const data = new Uint8Array(1 << 20);
    for (let i = 0; i < data.length; i++) data[i] = i % 251;
    const pending = nodeZlib.zlibCompress(data, 1);
    expect(pending).toBeInstanceOf(Promise);
    const copy = data.slice();
    data.fill(0);
    expect(same(await nodeZlib.zlibDecompress(await pending, copy.length, 2 * copy.length), copy)).toBe(true);
  });

  it('node: many thread-pool calls in flight at once, over reused input copies, each give their own result', async () => {
    // Sizes within a factor 2 of each other share pooled copies; three rounds reuse them.
    for (let round = 0; round < 3; round++) {
      const inputs = Array.from({ length: 12 }, (_, k) => Uint8Array.from({ length: 100_000 + k * 7000 }, (_, i) => (i * (k + 3) + round) % 253));
      const packed = await Promise.all(inputs.map((x) => nodeZlib.zlibCompress(x, 1)));
      const back = await Promise.all(packed.map((z, k) => nodeZlib.zlibDecompress(z, inputs[k]!.length, 2 * inputs[k]!.length)));
      back.forEach((b, k) => expect(same(b, inputs[k]!), `round ${round}, input ${k}`).toBe(true));
    }
  });

  for (const [name, z] of Object.entries(backends)) {
    for (const size of [5000, 200_000]) {
      it(`${name}: corrupt and truncated streams give a FilterError (${size} bytes)`, async () => {
        const data = new Uint8Array(size).map((_, i) => (i * 7) % 251);
        const good = await z.zlibCompress(data, 6);
        const truncated = good.subarray(0, good.length >> 1);
        const badHeader = good.slice();
        badHeader[0] = 0x12;
        const badBody = good.slice();
        for (let i = 10; i < 30; i++) badBody[i] ^= 0x5a;
        const badAdler = good.slice();
        badAdler[badAdler.length - 1] ^= 1;
        for (const bad of [truncated, badHeader, badBody, badAdler, new Uint8Array(0), Uint8Array.from([0x78])]) {
          await expect(async () => z.zlibDecompress(bad, data.length, 2 * data.length)).rejects.toThrow(FilterError);
        }
      });
    }

    it(`${name}: refuses output beyond the limit (decompression bombs)`, async () => {
      const bomb = new Uint8Array(deflateSync(new Uint8Array(10_000_000)));
      await expect(async () => z.zlibDecompress(bomb, 1000, 100_000)).rejects.toThrow(/more than 100000 bytes/);
      await expect(async () => z.zlibDecompress(bomb, 1_000_000, 2_000_000)).rejects.toThrow(/more than 2000000 bytes/);
    });
  }

  it('node: a background decode (not awaited right away) runs on the thread pool from BACKGROUND_MIN_BYTES, with the same bytes and errors', async () => {
    const data = new Uint8Array(nodeZlib.BACKGROUND_MIN_BYTES + 1000).map((_, i) => (i * 7919) % 251);
    const z = await nodeZlib.zlibCompress(data, 1);
    const sync = nodeZlib.zlibDecompress(z, data.length, 2 * data.length, true);
    expect(sync).toBeInstanceOf(Uint8Array); // below ASYNC_MIN_BYTES: on the calling thread
    const bg = nodeZlib.zlibDecompress(z, data.length, 2 * data.length, true, true);
    expect(bg).toBeInstanceOf(Promise);
    expect(same(await bg, data)).toBe(true);
    // a smaller stream stays on the calling thread even in the background
    const small = data.subarray(0, nodeZlib.BACKGROUND_MIN_BYTES >> 1);
    expect(nodeZlib.zlibDecompress(await nodeZlib.zlibCompress(small, 1), small.length, 2 * small.length, true, true)).toBeInstanceOf(Uint8Array);
    // bytes after the stream and a corrupt stream fail as on the calling thread
    const tail = new Uint8Array(z.length + 3);
    tail.set(z);
    await expect(async () => nodeZlib.zlibDecompress(tail, data.length, 2 * data.length, true, true)).rejects.toThrow(/3 bytes follow the end of the stream/);
    const bad = z.slice();
    for (let i = 10; i < 40; i++) bad[i] ^= 0x5a;
    await expect(async () => nodeZlib.zlibDecompress(bad, data.length, 2 * data.length, true, true)).rejects.toThrow(FilterError);
    // the filter passes the hint on
    const f = deflateFilter.decode(z, { ...ctx([1], { chunkDims: [data.length] }), wholeInput: true, background: true });
    expect(f).toBeInstanceOf(Promise);
    expect(same(await f, data)).toBe(true);
  });

  it('takes its level from client data and validates it', async () => {
    const data = new Uint8Array(10000).map((_, i) => i % 13);
    const z1 = await deflateFilter.encode(data, ctx([1]));
    const z9 = await deflateFilter.encode(data, ctx([9]));
    expect(z9.length).toBeLessThanOrEqual(z1.length);
    expect(await deflateFilter.decode(z9, ctx([9], { chunkDims: [10000] }))).toEqual(data);
    await expect(async () => deflateFilter.encode(data, ctx([10]))).rejects.toThrow(FilterError);
    expect(deflateFilter.setLocal!([], { datatype: OPAQUE, elementSize: 1, chunkDims: [1] })).toEqual([6]);
    expect(() => deflateFilter.setLocal!([11], { datatype: OPAQUE, elementSize: 1, chunkDims: [1] })).toThrow(FilterError);
  });

  it('registerInflate: decodes what deflate wrote, refuses to encode, and is one registration or the other', async () => {
    const data = new Uint8Array(5000).map((_, i) => (i * 7) % 31);
    const c = createContainer();
    registerInflate(c);
    registerInflate(c); // again: nothing changes
    const f = resolveFilter(1, c)!;
    expect(f).toBe(inflateFilter);
    expect(await f.decode(await deflateFilter.encode(data, ctx([4])), ctx([4], { chunkDims: [5000] }))).toEqual(data);
    await expect(async () => f.encode(data, ctx([4]))).rejects.toThrow(/reading only \(registerInflate\).*registerDeflate\(\)/);
    expect(() => registerDeflate(c)).toThrow(/already registered for filter id 1/);
    registerDeflate({ container: c, replace: true });
    expect(resolveFilter(1, c)).toBe(deflateFilter);
  });
});

describe('n-bit', () => {
  const intType = (size: number, precision: number, bitOffset: number, order: 'LE' | 'BE'): Datatype => ({ class: 'integer', size, signed: false, order, precision, bitOffset });

  it('round-trips random values of integer types with any precision and offset', () => {
    const arb = fc
      .record({ size: fc.constantFrom(1, 2, 4, 8), order: fc.constantFrom('LE' as const, 'BE' as const), n: fc.integer({ min: 1, max: 200 }) })
      .chain((r) =>
        fc.record({
          r: fc.constant(r),
          precision: fc.integer({ min: 1, max: r.size * 8 }),
          seed: fc.uint8Array({ minLength: r.n * r.size, maxLength: r.n * r.size }),
        }),
      )
      .chain((v) => fc.record({ v: fc.constant(v), offset: fc.integer({ min: 0, max: v.r.size * 8 - v.precision }) }));
    fc.assert(
      fc.property(arb, ({ v, offset }) => {
        const { r, precision, seed } = v;
        const t = intType(r.size, precision, offset, r.order);
        const setup = { datatype: t, elementSize: r.size, chunkDims: [r.n] };
        const cd = nbitFilter.setLocal!([], setup);
        const c = { ...setup, clientData: cd, flags: 0 };
        // keep only the significant bits, as HDF5's conversion does before the filter runs
        const data = seed.slice();
        for (let e = 0; e < r.n; e++) {
          for (let k = 0; k < r.size; k++) {
            const bitLo = 8 * k;
            let mask = 0;
            for (let b = 0; b < 8; b++) if (bitLo + b >= offset && bitLo + b < offset + precision) mask |= 1 << b;
            const at = e * r.size + (r.order === 'LE' ? k : r.size - 1 - k);
            data[at] = data[at]! & mask;
          }
        }
        const enc = nbitFilter.encode(data, c) as Uint8Array;
        if (cd[1] === 0) expect(enc.length).toBe(Math.floor((r.n * precision) / 8) + 1);
        expect(nbitFilter.decode(enc, c)).toEqual(data);
      }),
      { numRuns: 200 },
    );
  });

  it('describes compound and array types as HDF5 does', () => {
    const t: Datatype = {
      class: 'compound',
      size: 16,
      members: [
        { name: 'a', offset: 0, type: intType(4, 17, 0, 'LE') },
        { name: 'b', offset: 4, type: { class: 'integer', size: 1, signed: false, order: 'LE' } },
        { name: 's', offset: 5, type: { class: 'string', length: 3, charset: 'ascii', padding: 'nullterm' } },
        { name: 'c', offset: 8, type: { class: 'integer', size: 8, signed: true, order: 'LE', precision: 33, bitOffset: 2 } },
      ],
    };
    // the list HDF5 1.10.8 stores for this type (read from an h5py-written file)
    expect(nbitFilter.setLocal!([], { datatype: t, elementSize: 16, chunkDims: [12] })).toEqual([
      27, 0, 12, 3, 16, 4, 0, 1, 4, 0, 17, 0, 4, 1, 1, 0, 8, 0, 5, 4, 3, 8, 1, 8, 0, 33, 2,
    ]);
    const arr: Datatype = { class: 'array', dims: [3], base: intType(2, 9, 0, 'LE') };
    expect(nbitFilter.setLocal!([], { datatype: arr, elementSize: 6, chunkDims: [8] })).toEqual([10, 0, 8, 2, 6, 1, 2, 0, 9, 0]);
    const full = nbitFilter.setLocal!([], { datatype: { class: 'integer', size: 4, signed: true, order: 'LE' }, elementSize: 4, chunkDims: [5] });
    expect(full[1]).toBe(1); // nothing to compress: the filter passes data through
    const d = Uint8Array.from({ length: 20 }, (_, i) => i);
    expect(nbitFilter.encode(d, ctx(full))).toBe(d);
  });

  it('rejects truncated data and inconsistent parameters with a FilterError', () => {
    const cd = [8, 0, 10, 1, 4, 0, 12, 0];
    const c = ctx(cd, { elementSize: 4, chunkDims: [10] });
    const enc = nbitFilter.encode(new Uint8Array(40), c) as Uint8Array;
    expect(() => nbitFilter.decode(enc.subarray(0, 5), c)).toThrow(FilterError);
    expect(() => nbitFilter.decode(enc, ctx(cd, { elementSize: 4, chunkDims: [11] }))).toThrow(/holds 44 bytes/);
    for (const bad of [[9, 0, 10, 1, 4, 0, 12, 0], [8, 0, 10, 1, 4, 0, 33, 0], [8, 0, 10, 1, 4, 0, 0, 0], [8, 0, 10, 7, 4, 0, 12, 0], [5, 0, 10, 3, 4], [3, 0, 10]]) {
      expect(() => nbitFilter.decode(enc, ctx(bad, { elementSize: 4, chunkDims: [10] }))).toThrow(FilterError);
    }
    // a compound whose members overflow it, and one claiming 2^32 members
    expect(() => nbitFilter.decode(enc, ctx([12, 0, 10, 3, 4, 1, 0, 1, 8, 0, 12, 0], { elementSize: 4, chunkDims: [10] }))).toThrow(FilterError);
    expect(() => nbitFilter.decode(enc, ctx([6, 0, 10, 3, 4, 0xffffffff], { elementSize: 4, chunkDims: [10] }))).toThrow(FilterError);
  });
});

describe('scale-offset', () => {
  const make = (t: Datatype, n: number, user: number[] = [], fillValue?: Uint8Array | null) => {
    const setup = { datatype: t, elementSize: t.class === 'integer' || t.class === 'float' ? t.size : 1, chunkDims: [n], ...(fillValue !== undefined ? { fillValue } : {}) };
    return { ...setup, clientData: scaleOffsetFilter.setLocal!(user, setup), flags: 0 };
  };

  it('round-trips random integers losslessly (all sizes, signs, orders, fill values)', () => {
    const arb = fc.record({
      size: fc.constantFrom(1, 2, 4, 8),
      signed: fc.boolean(),
      order: fc.constantFrom('LE' as const, 'BE' as const),
      n: fc.integer({ min: 1, max: 300 }),
      spread: fc.integer({ min: 0, max: 64 }),
      fill: fc.constantFrom('default', 'undefined', 'first'),
    });
    fc.assert(
      fc.property(arb, fc.infiniteStream(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n })), (r, stream) => {
        const t: Datatype = { class: 'integer', size: r.size, signed: r.signed, order: r.order };
        const bits = BigInt(r.size * 8);
        const it = stream[Symbol.iterator]();
        const base = it.next().value as bigint;
        const spread = BigInt(Math.min(r.spread, r.size * 8));
        const data = new Uint8Array(r.n * r.size);
        const dv = new DataView(data.buffer);
        for (let i = 0; i < r.n; i++) {
          let v = BigInt.asUintN(Number(bits), base + ((it.next().value as bigint) & ((1n << spread) - 1n)));
          for (let k = 0; k < r.size; k++) dv.setUint8(i * r.size + (r.order === 'LE' ? k : r.size - 1 - k), Number((v >> BigInt(8 * k)) & 0xffn));
          v = 0n;
        }
        const fv = r.fill === 'undefined' ? null : r.fill === 'first' ? data.slice(0, r.size) : undefined;
        const c = make(t, r.n, [], fv);
        const enc = scaleOffsetFilter.encode(data, c) as Uint8Array;
        expect(scaleOffsetFilter.decode(enc, c)).toEqual(data);
      }),
      { numRuns: 300 },
    );
  });

  it('packs a constant chunk without fill value into the 21-byte header plus one byte', () => {
    const t: Datatype = { class: 'integer', size: 4, signed: true, order: 'LE' };
    const c = make(t, 50, [], null);
    const data = new Uint8Array(new Int32Array(50).fill(-7).buffer);
    const enc = scaleOffsetFilter.encode(data, c) as Uint8Array;
    expect(enc.length).toBe(22);
    expect(enc[0]).toBe(0); // minbits 0
    expect(scaleOffsetFilter.decode(enc, c)).toEqual(data);
  });

  it('quantizes floats to 10^-D and reads them back within that', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e4, max: 1e4, noNaN: true }), { minLength: 1, maxLength: 200 }), fc.integer({ min: 0, max: 4 }), fc.boolean(), (xs, D, single) => {
        const t: Datatype = { class: 'float', size: single ? 4 : 8, order: 'LE' };
        const arr = single ? new Float32Array(xs) : new Float64Array(xs);
        const data = new Uint8Array(arr.buffer);
        const c = make(t, xs.length, [0, D], null);
        const dec = scaleOffsetFilter.decode(scaleOffsetFilter.encode(data, c) as Uint8Array, c) as Uint8Array;
        const back = single ? new Float32Array(dec.buffer) : new Float64Array(dec.buffer);
        const tol = 0.5 * 10 ** -D + Math.abs(Math.max(...arr.map(Math.abs))) * (single ? 1e-6 : 1e-14);
        for (let i = 0; i < xs.length; i++) expect(Math.abs(back[i]! - arr[i]!)).toBeLessThanOrEqual(tol * 1.01);
      }),
      { numRuns: 100 },
    );
  });

  it('stores the fill value in client data as HDF5 does and rejects what it cannot filter', () => {
    const be8: Datatype = { class: 'float', size: 8, order: 'BE' };
    const fv = new Uint8Array(8);
    new DataView(fv.buffer).setFloat64(0, 1.5, false);
    expect(make(be8, 20, [0, 3], fv).clientData).toEqual([0, 3, 20, 1, 8, 0, 1, 1, 0, 1073217536, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(make({ class: 'integer', size: 2, signed: false, order: 'LE' }, 30, [], Uint8Array.from([9, 0])).clientData.slice(0, 10)).toEqual([2, 0, 30, 0, 2, 0, 0, 1, 9, 0]);
    const str: Datatype = { class: 'string', length: 4, charset: 'ascii', padding: 'nullpad' };
    expect(() => scaleOffsetFilter.setLocal!([], { datatype: str, elementSize: 4, chunkDims: [4] })).toThrow();
    expect(() => scaleOffsetFilter.setLocal!([], { datatype: { class: 'float', size: 4, order: 'LE' }, elementSize: 4, chunkDims: [4] })).toThrow(/decimal scale factor/);
  });

  it('rejects truncated or inconsistent chunks with a FilterError', () => {
    const t: Datatype = { class: 'integer', size: 4, signed: false, order: 'LE' };
    const c = make(t, 100);
    const data = new Uint8Array(new Uint32Array(100).map((_, i) => i * 3).buffer);
    const enc = scaleOffsetFilter.encode(data, c) as Uint8Array;
    for (const bad of [enc.subarray(0, 10), enc.subarray(0, 40)]) expect(() => scaleOffsetFilter.decode(bad, c)).toThrow(FilterError);
    const wrongMinbits = enc.slice();
    wrongMinbits[0] = 40;
    expect(() => scaleOffsetFilter.decode(wrongMinbits, c)).toThrow(FilterError);
    expect(() => scaleOffsetFilter.decode(enc, { ...c, chunkDims: [99] })).toThrow(FilterError);
    expect(() => scaleOffsetFilter.decode(enc, { ...c, clientData: c.clientData.slice(0, 19) })).toThrow(FilterError);
    expect(() => scaleOffsetFilter.decode(enc, { ...c, clientData: [1, ...c.clientData.slice(1)] })).toThrow(FilterError);
  });
});

describe('package', () => {
  it('registers nothing at import time; registerFilters registers all five', () => {
    const child = createContainer();
    expect(resolveFilter(1, child)).toBeUndefined();
    registerFilters(child);
    for (const id of [1, 2, 3, 5, 6]) expect(resolveFilter(id, child)?.id).toBe(id);
    expect(resolveFilter(4, child)).toBeUndefined();
  });

  it('only the node backends (#zlib, #workers) and the worker entry import node: modules (browser bundles stay clean)', () => {
    const src = join(dirname(fileURLToPath(import.meta.url)), '../src');
    const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
    for (const f of walk(src)) {
      const text = readFileSync(f, 'utf8');
      if (f.endsWith('zlib-node.ts')) expect(text).toMatch(/from 'node:zlib'/);
      else if (f.endsWith('workers/threads-node.ts')) expect(text).toMatch(/from 'node:worker_threads'/);
      // the worker entry is started by threads-node.ts by URL, never imported
      else if (f.endsWith('workers/worker.ts')) expect(text).toMatch(/from 'node:worker_threads'/);
      // the worker's reads of stored chunks: imported by the worker entry alone (checked below)
      else if (f.endsWith('workers/stored-read.ts')) expect(text).toMatch(/from 'node:fs'/);
      // builtins behind engine flags, for the worker's collections and freed inflate outputs: imported by
      // release-shared.ts and inflate-release.ts alone (checked below), which the worker entry alone imports
      else if (f.endsWith('workers/flagged-builtin.ts')) expect(text).toMatch(/from 'node:v8'/);
      // zstd into a chunk's place from the WebAssembly heap of the package's Node build: the worker entry's alone
      else if (f.endsWith('zstd/into-wasm.ts')) expect(text).toMatch(/from 'node:module'/);
      else expect(text, f).not.toMatch(/from 'node:|require\(/);
      if (!f.endsWith('workers/threads-node.ts')) expect(text, f).not.toMatch(/from '\.\/worker\.js'|from '\.\/threads-node\.js'/);
      if (!f.endsWith('workers/worker.ts')) expect(text, f).not.toMatch(/from '\.\/stored-read\.js'|from '\.\/release-shared\.js'|from '\.\/inflate-release\.js'|from '\.\.\/zstd\/into-wasm\.js'/);
      if (!f.endsWith('workers/release-shared.ts') && !f.endsWith('workers/inflate-release.ts')) expect(text, f).not.toMatch(/flagged-builtin\.js'/);
    }
    const pkg = JSON.parse(readFileSync(join(src, '../package.json'), 'utf8'));
    expect(pkg.sideEffects).toBe(false);
    expect(pkg.imports['#zlib'].default).toMatch(/fflate/);
    expect(pkg.imports['#workers'].default).toMatch(/threads-none/);
    expect(pkg.imports['#workers'].node).toMatch(/threads-node/);
  });
});
