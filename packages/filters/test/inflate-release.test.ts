/**
 * Inflated chunks freed once copied into their place on a filter worker (src/workers/inflate-release.ts):
 * the bytes equal the ordinary decode's, the deflate output's memory is let go of (its buffer detached)
 * after deflate's own `decodeInto` or the unshuffle that follows it, nothing else is ever freed (a buffer
 * that deflate did not make, outputs small enough for Node's shared pool, results sent back), and through
 * the worker pool gzip and shuffle + gzip chunks land in shared memory as the calling thread decodes them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeChunk, encodeChunk, FilterError, pipelineOffload, type Datatype, type FilterContext, type FilterPipeline, type FilterResolver } from '@chunkform/core/plugin';
import { ALL_FILTERS, deflateFilter, shuffle, shuffleFilter, workerStats } from '../src/index.js';
import { releasingFilters } from '../src/workers/inflate-release.js';
import { inline } from './support/inline.js';
import { detectorBytes } from './support/detector-bytes.js';
import { usePool } from './support/use-pool.js';

const U16: Datatype = { class: 'integer', size: 2, order: 'LE', signed: false };
const byId = new Map(ALL_FILTERS.map((f) => [f.id, f]));
const resolve: FilterResolver = (id) => byId.get(id);
const fctx = (n: number, clientData: number[]): FilterContext => ({ clientData, datatype: U16, elementSize: 2, chunkDims: [n / 2], flags: 0 });

const frame = detectorBytes;
const gz = async (v: Uint8Array) => (await deflateFilter.encode(v, fctx(v.length, [1]))) as Uint8Array;

describe('inflated chunks freed once in their place', () => {
  const { deflate, shuffle: unshuffle } = releasingFilters(deflateFilter, shuffleFilter);

  it('deflate into a place: the bytes; a place of another size is a FilterError, untouched', async () => {
    const v = frame(1 << 20, 1);
    const z = await gz(v);
    const out = new Uint8Array(new SharedArrayBuffer(v.length));
    await deflate.decodeInto!(z, fctx(v.length, [1]), out);
    expect(Buffer.compare(out, v)).toBe(0);
    const small = new Uint8Array(v.length - 2).fill(7);
    await expect(deflate.decodeInto!(z, fctx(v.length, [1]), small)).rejects.toThrow(FilterError);
    expect(small.every((b) => b === 7)).toBe(true);
  });

  it('the unshuffle after deflate frees the inflated input; other inputs and small outputs are left alone', async () => {
    const v = frame(1 << 20, 2);
    const z = await gz(shuffle(v, 2));
    const inflated = (await deflate.decode(z, fctx(v.length, [1]))) as Uint8Array;
    expect(inflated.buffer.byteLength).toBeGreaterThanOrEqual(v.length);
    const out = new Uint8Array(v.length);
    await unshuffle.decodeInto!(inflated, fctx(v.length, [2]), out);
    expect(Buffer.compare(out, v)).toBe(0);
    expect(inflated.buffer.byteLength).toBe(0); // freed (detached)
    // a shuffled chunk that deflate did not make (the stored bytes, a kept buffer): kept
    const mine = shuffle(v, 2);
    await unshuffle.decodeInto!(mine, fctx(v.length, [2]), out);
    expect(mine.buffer.byteLength).toBeGreaterThanOrEqual(v.length);
    expect(Buffer.compare(out, v)).toBe(0);
    // an output small enough for Node's shared allocation pool: kept
    const tiny = frame(1000, 3);
    const t = (await deflate.decode(await gz(shuffle(tiny, 2)), fctx(tiny.length, [1]))) as Uint8Array;
    const tout = new Uint8Array(tiny.length);
    await unshuffle.decodeInto!(t, fctx(tiny.length, [2]), tout);
    expect(t.length).toBe(tiny.length);
    expect(Buffer.compare(tout, tiny)).toBe(0);
  });

  describe('on the worker pool', () => {
    usePool(2);

    it('gzip and shuffle + gzip chunks, read whole into shared memory one after another, equal the calling thread\'s decode', async () => {
      const f = (id: number, cd: number[]) => ({ id, name: '', flags: 0, clientData: cd });
      const pipelines: FilterPipeline[] = [{ filters: [f(1, [1])] }, { filters: [f(2, [2]), f(1, [1])] }, { filters: [f(2, [2]), f(1, [1]), f(3, [])] }];
      const ctx = { datatype: U16, elementSize: 2, chunkDims: [512, 512] };
      const n = 512 * 512 * 2;
      for (const p of pipelines) {
        const impls = p.filters.map((x) => resolve(x.id));
        const out = new Uint8Array(new SharedArrayBuffer(6 * n)).fill(0xee);
        const chunks = Array.from({ length: 6 }, (_, i) => frame(n, 20 + i));
        const before = workerStats();
        for (let i = 0; i < chunks.length; i++) {
          const stored = await inline(() => encodeChunk(chunks[i]!, p, resolve, ctx, { path: '/d', chunk: [i] }));
          const target = { out, runs: Float64Array.of(0, i * (n / 2), n / 2), elementSize: 2, chunkBytes: n };
          expect(await pipelineOffload()!.decodeInto!(stored.bytes, p, 0, impls, ctx, target)).toBe(true);
          expect(Buffer.compare(await inline(() => decodeChunk(stored.bytes, p, 0, resolve, ctx, { path: '/d', chunk: [i] })), chunks[i]!)).toBe(0);
        }
        expect(workerStats().done - before.done).toBe(6);
        expect(Buffer.compare(out, Buffer.concat(chunks)), p.filters.map((x) => x.id).join('+')).toBe(0);
      }
    });
  });
});
