/**
 * Filters that decode into a given buffer (`Filter.decodeInto`: shuffle, LZ4), used when a filter
 * worker decodes a chunk read whole straight into its place in a shared result: the bytes equal the
 * ordinary decode's wherever the buffer starts (aligned or not, shared memory or not), a buffer of
 * the wrong size is a FilterError, and core's `decodeChunk(…, into)` lets the last filter to run
 * (the lowest one the chunk's mask does not skip) write into it.
 */
import { describe, expect, it } from 'vitest';
import { decodeChunk, encodeChunk, FilterError, type FilterResolver } from '@chunkform/core/plugin';
import type { Datatype, FilterPipeline } from '@chunkform/core/plugin';
import {
  ALL_FILTERS,
  bitshuffleDecode,
  bitshuffleEncode,
  bitshuffleSetLocal,
  jsLz4Codec,
  lz4Decode,
  lz4Encode,
  lz4Filter,
  shuffle,
  shuffleFilter,
  unshuffle,
  unshuffleInto,
} from '../src/index.js';

const byId = new Map(ALL_FILTERS.map((f) => [f.id, f]));
const resolve: FilterResolver = (id) => byId.get(id);
const U16: Datatype = { class: 'integer', size: 2, order: 'LE', signed: false };
const f = (id: number, clientData: number[] = []) => ({ id, name: '', flags: 0, clientData });

function bytes(n: number, seed = 1): Uint8Array {
  const v = new Uint8Array(n);
  for (let i = 0, x = seed; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    v[i] = (x >>> 24) & 7;
  }
  return v;
}

/** A view of `n` bytes starting `at` bytes into a larger buffer (shared or not), filled with 0xee. */
function place(n: number, at: number, shared: boolean): Uint8Array {
  const buf = shared ? new SharedArrayBuffer(n + at + 8) : new ArrayBuffer(n + at + 8);
  return new Uint8Array(buf).fill(0xee).subarray(at, at + n);
}

describe('decoding into a given buffer', () => {
  it('unshuffleInto equals unshuffle for every element size, length and alignment, and leaves the bytes around alone', () => {
    for (const size of [1, 2, 3, 4, 8, 16])
      for (const n of [0, 1, 7, 64, 1001, 4096])
        for (const at of [0, 1, 2, 4])
          for (const shared of [false, true]) {
            const v = bytes(n, size + n);
            const s = shuffle(v, size);
            const out = place(n, at, shared);
            unshuffleInto(s, size, out);
            expect(Buffer.compare(Buffer.from(out), Buffer.from(unshuffle(s, size))), `size ${size}, ${n} bytes at ${at}`).toBe(0);
            expect(Buffer.compare(Buffer.from(out), Buffer.from(v))).toBe(0);
            const whole = new Uint8Array(out.buffer);
            expect(whole[at - 1] ?? 0xee).toBe(0xee);
            expect(whole[at + n]).toBe(0xee);
          }
  });

  it('lz4Decode into a buffer equals the ordinary decode (one or several blocks, raw blocks too)', () => {
    for (const [n, blockSize] of [
      [100_000, 0],
      [100_000, 4096],
      [5000, 1000],
    ] as const) {
      const v = bytes(n, n);
      v.set(crypto.getRandomValues(new Uint8Array(1000)), 2000); // an incompressible stretch: a raw block
      const enc = lz4Encode(v, { blockSize });
      for (const at of [0, 3]) {
        const out = place(n, at, true);
        expect(lz4Decode(enc, 0, undefined, out)).toBe(out);
        expect(Buffer.compare(Buffer.from(out), Buffer.from(v))).toBe(0);
      }
    }
  });

  it('bitshuffle decodes into a buffer through the WebAssembly and the TypeScript LZ4 paths alike', async () => {
    const v = bytes(65_536 * 2 + 6, 9);
    for (const codecs of [undefined, { lz4: jsLz4Codec }]) {
      const cd = bitshuffleSetLocal([0, 2], 2);
      const enc = await bitshuffleEncode(v, cd, codecs);
      for (const at of [0, 2]) {
        const out = place(v.length, at, true);
        expect(await bitshuffleDecode(enc, cd, 0, codecs, out)).toBe(out);
        expect(Buffer.compare(Buffer.from(out), Buffer.from(v))).toBe(0);
      }
      await expect(Promise.resolve().then(() => bitshuffleDecode(enc, cd, 0, codecs, new Uint8Array(v.length - 2)))).rejects.toThrow(FilterError);
    }
  });

  it('a buffer of the wrong size is a FilterError', async () => {
    const v = bytes(4000);
    const ctx = { clientData: [], datatype: U16, elementSize: 2, chunkDims: [2000], flags: 0 };
    expect(() => lz4Decode(lz4Encode(v), 0, undefined, new Uint8Array(3999))).toThrow(FilterError);
    expect(() => lz4Filter.decodeInto!(lz4Encode(v), ctx, new Uint8Array(4001))).toThrow(FilterError);
    expect(() => shuffleFilter.decodeInto!(shuffle(v, 2), { ...ctx, clientData: [2] }, new Uint8Array(3998))).toThrow(FilterError);
  });

  it('decodeChunk(…, into): the last filter to run writes into `into`; other pipelines give a new buffer with the same bytes', async () => {
    const ctx = { datatype: U16, elementSize: 2, chunkDims: [50_000] };
    const where = { path: '/d', chunk: [3] };
    const v = bytes(100_000);
    const cases: [string, FilterPipeline, boolean][] = [
      ['shuffle + gzip', { filters: [f(2, [2]), f(1, [1])] }, true],
      ['LZ4', { filters: [f(32004, [0])] }, true],
      ['gzip + shuffle (shuffle runs first on read)', { filters: [f(1, [1]), f(2, [2])] }, false],
      ['zstd', { filters: [f(32015, [3])] }, false],
      ['bitshuffle + LZ4', { filters: [f(32008, bitshuffleSetLocal([0, 2], 2))] }, true],
      ['bitshuffle + zstd', { filters: [f(32008, bitshuffleSetLocal([0, 3], 2))] }, true],
      ['bitshuffle alone', { filters: [f(32008, bitshuffleSetLocal([0, 0], 2))] }, true],
    ];
    for (const [name, pipeline, writesInto] of cases) {
      const enc = await encodeChunk(v, pipeline, resolve, ctx, where);
      const into = place(v.length, 2, true);
      const got = await decodeChunk(enc.bytes, pipeline, enc.filterMask, resolve, ctx, where, into);
      expect(got === into, name).toBe(writesInto);
      expect(Buffer.compare(Buffer.from(got), Buffer.from(v)), name).toBe(0);
    }
    // a chunk stored with its first filter skipped (mask bit 0): the next one is the last to run
    const p = { filters: [f(2, [2]), f(32004, [0])] };
    const stored = lz4Encode(v);
    const into = place(v.length, 0, false);
    expect(await decodeChunk(stored, p, 1, resolve, ctx, where, into)).toBe(into);
    expect(Buffer.compare(Buffer.from(into), Buffer.from(v))).toBe(0);
  });
});
