/**
 * The filter worker pool (src/workers): pipelines run on worker threads give the bytes the calling
 * thread gives, answers come back to the chunk that asked, failures name the chunk, and the pool's
 * size and threshold are honoured.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChecksumError, FilterError } from '@chunkform/core/plugin';
import type { Datatype } from '@chunkform/core/plugin';
import type { FilterPipeline } from '@chunkform/core/plugin';
import { pipelineOffload, setPipelineOffload } from '@chunkform/core/plugin';
import { decodeChunk, encodeChunk, type FilterResolver } from '@chunkform/core/plugin';
import type { Filter } from '@chunkform/core/plugin';
import { ALL_FILTERS, bitshuffleSetLocal, configureWorkers, DEFAULT_WORKER_MIN_BYTES, startWorkers, stopWorkers, workerPoolSize, workerStats } from '../src/index.js';
import { inline } from './support/inline.js';

const U16: Datatype = { class: 'integer', size: 2, order: 'LE', signed: false };
const ctx = { datatype: U16, elementSize: 2, chunkDims: [512, 512] };
const byId = new Map(ALL_FILTERS.map((f) => [f.id, f]));
const resolve: FilterResolver = (id) => byId.get(id);
const where = (...chunk: number[]) => ({ path: '/frames', chunk });
const f = (id: number, clientData: number[] = [], flags = 0) => ({ id, name: '', flags, clientData });

const PIPELINES: Record<string, FilterPipeline> = {
  gzip: { filters: [f(1, [1])] },
  'shuffle+gzip': { filters: [f(2, [2]), f(1, [1])] },
  lz4: { filters: [f(32004, [0])] },
  'bitshuffle+lz4': { filters: [f(32008, bitshuffleSetLocal([0, 2], 2))] },
  zstd: { filters: [f(32015, [3])] },
  'shuffle+fletcher32': { filters: [f(2, [2]), f(3)] },
};

/** A detector-like frame: small counts, mostly low bits; `seed` makes frames differ. */
function frame(seed: number, n = 512 * 512): Uint8Array {
  const v = new Uint16Array(n);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < n; i++) {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    v[i] = x % 37 === 0 ? x & 0xfff : x & 3;
  }
  return new Uint8Array(v.buffer);
}

beforeAll(async () => {
  configureWorkers({ threads: 2 });
  expect(await startWorkers()).toBe(2); // both workers loaded the filters
});
afterAll(() => {
  stopWorkers();
  setPipelineOffload(null);
});

describe('filter worker pool', () => {
  it('takes large chunks of built-in pipelines and declines small ones, other filters and a pool of 0 threads', async () => {
    const off = pipelineOffload()!;
    const big = frame(1);
    const p = PIPELINES['shuffle+gzip']!;
    const impls = p.filters.map((x) => resolve(x.id));
    const taken = off.encode(big, p, impls, ctx);
    expect(taken).not.toBeNull();
    expect((await taken)!.bytes.length).toBeGreaterThan(0);
    const small = big.subarray(0, DEFAULT_WORKER_MIN_BYTES - 2);
    expect(off.encode(small, p, impls, { ...ctx, chunkDims: [small.length / 2] })).toBeNull();
    // a small stored chunk of a large raw chunk (a well-compressed read) is taken
    const packed = await encodeChunk(big, p, resolve, ctx, where(0, 0));
    expect(packed.bytes.length).toBeLessThan(DEFAULT_WORKER_MIN_BYTES);
    const unpacked = off.decode(packed.bytes, p, 0, impls, ctx);
    expect(unpacked).not.toBeNull();
    expect(Buffer.compare((await unpacked)!, big)).toBe(0);
    const mine: Filter = { id: 2, name: 'my-shuffle', encode: (d) => d, decode: (d) => d };
    expect(off.encode(big, p, [mine, impls[1]], ctx)).toBeNull();
    expect(off.decode(big, p, 0, [undefined, impls[1]], ctx)).toBeNull();
    // every filter skipped by the mask: nothing to do there
    expect(off.decode(big, p, 0b11, impls, ctx)).toBeNull();
    configureWorkers({ threads: 0 });
    try {
      expect(workerPoolSize()).toBe(0);
      expect(off.encode(big, p, impls, ctx)).toBeNull();
    } finally {
      configureWorkers({ threads: 2 });
    }
    expect(workerPoolSize()).toBe(2);
  });

  it('sends a result back in its whole zlib buffer, however little of it the result fills (no copy, no garbage left on the worker)', async () => {
    const off = pipelineOffload()!;
    const p = PIPELINES.gzip!;
    const impls = p.filters.map((x) => resolve(x.id));
    configureWorkers({ threads: 1 });
    try {
      // noise first: it barely compresses, so the worker sizes its next output slice for a whole chunk
      const noise = new Uint8Array(512 * 512 * 2);
      for (let i = 0, x = 99; i < noise.length; i++) noise[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
      await off.encode(noise, p, impls, ctx);
      const flat = new Uint8Array(noise.length).fill(7);
      const r = (await off.encode(flat, p, impls, ctx))!;
      const here = await inline(() => encodeChunk(flat, p, resolve, ctx, where(0, 0)));
      expect(Buffer.compare(r.bytes, here.bytes)).toBe(0);
      // a few hundred bytes, in the chunk-sized buffer zlib wrote them to
      expect(r.bytes.length * 100).toBeLessThan(flat.length);
      expect(r.bytes.buffer.byteLength).toBeGreaterThanOrEqual(flat.length);
    } finally {
      configureWorkers({ threads: 2 });
    }
  });

  it('rejects a bad pool size or threshold', () => {
    expect(() => configureWorkers({ threads: -1 })).toThrow(RangeError);
    expect(() => configureWorkers({ threads: 1.5 })).toThrow(RangeError);
    expect(() => configureWorkers({ minBytes: -5 })).toThrow(RangeError);
    expect(workerPoolSize()).toBe(2);
  });

  for (const [name, pipeline] of Object.entries(PIPELINES)) {
    it(`${name}: many chunks at once give the calling thread's bytes, each to the chunk that asked`, async () => {
      const before = workerStats();
      const frames = Array.from({ length: 6 }, (_, i) => frame(i + 10));
      const ours = await Promise.all(frames.map((d, i) => encodeChunk(d, pipeline, resolve, ctx, where(i, 0))));
      const theirs = await inline(() => Promise.all(frames.map((d, i) => encodeChunk(d, pipeline, resolve, ctx, where(i, 0)))));
      for (let i = 0; i < frames.length; i++) {
        expect(ours[i]!.filterMask).toBe(theirs[i]!.filterMask);
        expect(Buffer.compare(ours[i]!.bytes, theirs[i]!.bytes)).toBe(0);
      }
      const back = await Promise.all(ours.map((e, i) => decodeChunk(e.bytes, pipeline, e.filterMask, resolve, ctx, where(i, 0))));
      for (let i = 0; i < frames.length; i++) expect(Buffer.compare(back[i]!, frames[i]!)).toBe(0);
      // all 12 ran on the workers (none failed there and ran here instead)
      const after = workerStats();
      expect(after.done - before.done).toBe(12);
      expect(after.failed).toBe(before.failed);
      // the caller's input is left alone (the pool sends a copy)
      expect(Buffer.compare(frames[0]!, frame(10))).toBe(0);
    });
  }

  it('a corrupt chunk fails with the error of the calling thread, naming dataset and chunk', async () => {
    const p = PIPELINES['shuffle+gzip']!;
    const enc = await encodeChunk(frame(3), p, resolve, ctx, where(0, 0));
    const bad = enc.bytes.slice();
    bad.fill(0x55, 100, 4000);
    const failed = workerStats().failed;
    const err = await decodeChunk(bad, p, 0, resolve, ctx, where(7, 2)).catch((e: unknown) => e);
    expect(workerStats().failed).toBe(failed + 1); // failed on a worker, then here with the chunk named
    expect(err).toBeInstanceOf(FilterError);
    expect(String((err as Error).message)).toContain('chunk [7, 2]');
    const fl = PIPELINES['shuffle+fletcher32']!;
    const sum = await encodeChunk(frame(4), fl, resolve, ctx, where(0, 0));
    const flipped = sum.bytes.slice();
    flipped[1000]! ^= 1;
    const err2 = await decodeChunk(flipped, fl, 0, resolve, ctx, where(3, 1)).catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(ChecksumError);
    expect(String((err2 as Error).message)).toContain('chunk [3, 1]');
  });

  it('a whole pipeline runs as one worker task per chunk, giving the bytes of its filters applied one by one', async () => {
    const pipeline: FilterPipeline = { filters: [f(2, [2]), f(1, [1]), f(3)] }; // shuffle → deflate → fletcher32
    const frames = Array.from({ length: 4 }, (_, i) => frame(i + 30));
    const before = workerStats();
    const ours = await Promise.all(frames.map((d, i) => encodeChunk(d, pipeline, resolve, ctx, where(i, 0))));
    expect(workerStats().done - before.done).toBe(frames.length); // one task per chunk, not one per filter
    for (let i = 0; i < frames.length; i++) {
      let step: Uint8Array = frames[i]!;
      for (const x of pipeline.filters) step = await resolve(x.id)!.encode(step, { ...ctx, clientData: x.clientData, flags: x.flags });
      expect(ours[i]!.filterMask).toBe(0);
      expect(Buffer.compare(ours[i]!.bytes, step)).toBe(0);
    }
  });

  it('a filter failing on a worker while encoding rejects with the typed error naming dataset and chunk', async () => {
    const p = PIPELINES['bitshuffle+lz4']!;
    const odd = frame(6).subarray(0, 512 * 512 * 2 - 1); // not a whole number of 2-byte elements
    const failed = workerStats().failed;
    const err = await encodeChunk(odd, p, resolve, ctx, where(5, 1)).catch((e: unknown) => e);
    expect(workerStats().failed).toBe(failed + 1);
    expect(err).toBeInstanceOf(FilterError);
    expect(String((err as Error).message)).toMatch(/filter 32008 \("bitshuffle"\) failed to encode chunk \[5, 1\]/);
    expect((err as FilterError).detail).toContain('not a whole number');
  });

  it('bytes in shared memory (the copy a streamed write owns) go to a worker as they are and give the calling thread\'s bytes', async () => {
    const pipeline = PIPELINES['shuffle+gzip']!;
    const plain = frame(40);
    const shared = new Uint8Array(new SharedArrayBuffer(plain.length));
    shared.set(plain);
    const before = workerStats();
    const ours = await pipelineOffload()!.encode(shared, pipeline, pipeline.filters.map((x) => resolve(x.id)), ctx);
    expect(workerStats().done - before.done).toBe(1);
    expect(shared.buffer.byteLength).toBe(plain.length); // shared, not transferred away
    expect(Buffer.compare(shared, plain)).toBe(0); // and only read
    expect(ours!.bytes.buffer).not.toBeInstanceOf(SharedArrayBuffer); // the result is the caller's own
    const theirs = await inline(() => encodeChunk(plain, pipeline, resolve, ctx, where(0, 0)));
    expect(Buffer.compare(ours!.bytes, theirs.bytes)).toBe(0);
    // a pipeline that gives its input back (shuffle of 1-byte elements) answers with a copy, not the shared memory
    const same: FilterPipeline = { filters: [f(2, [1])] };
    const back = await pipelineOffload()!.encode(shared, same, [resolve(2)], { ...ctx, elementSize: 1, chunkDims: [plain.length] });
    expect(back!.bytes.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(Buffer.compare(back!.bytes, plain)).toBe(0);
  });

  it('a pipeline ending in LZ4 (or bitshuffle + LZ4) compresses into the pool\'s shared memory, reused only once the caller says the bytes are written', async () => {
    const off = pipelineOffload()!;
    const run = (p: FilterPipeline, data: Uint8Array) => off.encode(data, p, p.filters.map((x) => resolve(x.id)), ctx)!;
    const p = PIPELINES.lz4!;
    const [da, db, dc] = [frame(61), frame(62), frame(63)];
    const before = workerStats();
    const a = (await run(p, da))!;
    expect(workerStats().done - before.done).toBe(1);
    expect(a.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(a.written).toBeTypeOf('function');
    const aBytes = a.bytes.slice();
    expect(Buffer.compare(a.bytes, (await inline(() => encodeChunk(da, p, resolve, ctx, where(0, 0)))).bytes)).toBe(0);
    // not written yet: the next chunks go elsewhere, and a's bytes stay as they were
    const b = (await run(p, db))!;
    expect(b.bytes.buffer).not.toBe(a.bytes.buffer);
    expect(Buffer.compare(a.bytes, aBytes)).toBe(0);
    a.written!();
    const c = (await run(p, dc))!;
    expect(c.bytes.buffer).toBe(a.bytes.buffer); // a's memory, reused once written
    expect(Buffer.compare(c.bytes, (await inline(() => encodeChunk(dc, p, resolve, ctx, where(0, 0)))).bytes)).toBe(0);
    expect(Buffer.compare(b.bytes, (await inline(() => encodeChunk(db, p, resolve, ctx, where(0, 0)))).bytes)).toBe(0);
    b.written!();
    c.written!();
    // LZ4 followed by another filter: the result is the caller's own, as for every other pipeline
    const then: FilterPipeline = { filters: [f(32004, [0]), f(3)] };
    const d = (await run(then, da))!;
    expect(d.bytes.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(d.written).toBeUndefined();
    expect(Buffer.compare(d.bytes, (await inline(() => encodeChunk(da, then, resolve, ctx, where(0, 0)))).bytes)).toBe(0);
    // bitshuffle + LZ4 (fused) builds its result in shared memory too; gzip gives its own buffer
    const bs = PIPELINES['bitshuffle+lz4']!;
    const e = (await run(bs, da))!;
    expect(e.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Buffer.compare(e.bytes, (await inline(() => encodeChunk(da, bs, resolve, ctx, where(0, 0)))).bytes)).toBe(0);
    e.written!();
    const g = (await run(PIPELINES.gzip!, da))!;
    expect(g.bytes.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(g.written).toBeUndefined();
    // bitshuffle without compression (the fused path is LZ4's): the worker's own buffer, same bytes
    const plainBs: FilterPipeline = { filters: [f(32008, bitshuffleSetLocal([0, 0], 2))] };
    const h = (await run(plainBs, da))!;
    expect(h.bytes.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(Buffer.compare(h.bytes, (await inline(() => encodeChunk(da, plainBs, resolve, ctx, where(0, 0)))).bytes)).toBe(0);
  });

  it('the sections of a structured chunk go to one worker task and come back joined, each as the calling thread encodes it', async () => {
    const gzip = PIPELINES['gzip']!;
    const shuffled = PIPELINES['shuffle+gzip']!;
    const sel = frame(50, 64).subarray(0, 91); // a small section (as section 0 of a sparse chunk)
    const plain = frame(51);
    const values = new Uint8Array(new SharedArrayBuffer(plain.length));
    values.set(plain);
    const sctx = { datatype: U16, elementSize: 1, chunkDims: [sel.length] };
    const vctx = { ...ctx, chunkDims: [plain.length / 2] };
    const impls = (p: FilterPipeline) => p.filters.map((x) => resolve(x.id));
    const before = workerStats();
    const got = await pipelineOffload()!.encodeSections!([
      { bytes: sel, pipeline: gzip, impls: impls(gzip), ctx: sctx },
      { bytes: values, pipeline: shuffled, impls: impls(shuffled), ctx: vctx },
    ]);
    expect(workerStats().done - before.done).toBe(1);
    expect(Buffer.compare(values, plain)).toBe(0); // shared memory only read
    const a = await inline(() => encodeChunk(sel, gzip, resolve, sctx, where(0, 0)));
    const b = await inline(() => encodeChunk(plain, shuffled, resolve, vctx, where(0, 0)));
    expect(got!.sizes).toEqual([a.bytes.length, b.bytes.length]);
    expect(got!.filterMasks).toEqual([0, 0]);
    expect(Buffer.compare(got!.bytes, Buffer.concat([a.bytes, b.bytes]))).toBe(0);
    // an unfiltered section is stored as it is
    const raw = await pipelineOffload()!.encodeSections!([
      { bytes: sel, pipeline: { filters: [] }, impls: [], ctx: sctx },
      { bytes: values, pipeline: shuffled, impls: impls(shuffled), ctx: vctx },
    ]);
    expect(Buffer.compare(raw!.bytes, Buffer.concat([sel, b.bytes]))).toBe(0);
    // declined: too small in all, a filter that is not ours, nothing to filter
    const foreign = { ...resolve(1)!, encode: resolve(1)!.encode };
    expect(pipelineOffload()!.encodeSections!([{ bytes: sel, pipeline: gzip, impls: impls(gzip), ctx: sctx }])).toBeNull();
    expect(pipelineOffload()!.encodeSections!([{ bytes: plain, pipeline: gzip, impls: [foreign], ctx: vctx }])).toBeNull();
    expect(pipelineOffload()!.encodeSections!([{ bytes: plain, pipeline: { filters: [] }, impls: [], ctx: vctx }])).toBeNull();
    // a failure there resolves null (the caller encodes the sections itself and names the error)
    const bs = PIPELINES['bitshuffle+lz4']!;
    const odd = frame(6).subarray(0, 512 * 512 * 2 - 1);
    const failed = workerStats().failed;
    expect(await pipelineOffload()!.encodeSections!([{ bytes: odd, pipeline: bs, impls: impls(bs), ctx }])).toBeNull();
    expect(workerStats().failed).toBe(failed + 1);
  });

  it('a leading shuffle that more filters follow (written into a kept buffer on the worker) gives the calling thread\'s bytes, chunk after chunk', async () => {
    const optionalFails: FilterPipeline = { filters: [f(2, [2]), f(32008, bitshuffleSetLocal([0, 2], 2), 1)] }; // bitshuffle optional: fails on an odd length
    const twice: FilterPipeline = { filters: [f(2, [2]), f(2, [4]), f(1, [1])] };
    const cases: [FilterPipeline, Uint8Array][] = [
      [PIPELINES['shuffle+gzip']!, frame(60)],
      [PIPELINES['shuffle+gzip']!, frame(61).subarray(0, 300_000)], // a smaller chunk in a larger kept buffer
      [PIPELINES['shuffle+fletcher32']!, frame(62)],
      [optionalFails, frame(63).subarray(0, 512 * 512 * 2 - 1)],
      [twice, frame(64)],
    ];
    const before = workerStats();
    const ours = await Promise.all(cases.map(([p, d], i) => encodeChunk(d, p, resolve, ctx, where(i, 2))));
    expect(workerStats().done - before.done).toBe(cases.length);
    for (let i = 0; i < cases.length; i++) {
      const [p, d] = cases[i]!;
      const theirs = await inline(() => encodeChunk(d, p, resolve, ctx, where(i, 2)));
      expect(ours[i]!.filterMask).toBe(theirs.filterMask);
      expect(Buffer.compare(ours[i]!.bytes, theirs.bytes)).toBe(0);
    }
    expect(ours[3]!.filterMask).toBe(2); // the optional filter was skipped: the result is the shuffled bytes, sent back as a copy
  });

  it('idle workers do not keep the process alive', () => {
    const pool = new URL('../src/workers/pool.ts', import.meta.url).href;
    const script = `import { configureWorkers, startWorkers } from ${JSON.stringify(pool)}; configureWorkers({ threads: 2 }); console.log(await startWorkers());`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000, cwd: fileURLToPath(new URL('../../..', import.meta.url)) });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('2');
    expect(r.status).toBe(0); // exits on its own (a hang would be killed by the time-out: status null)
  });

  it('a stopped pool starts again on demand, and chunks in flight when it stops still finish', async () => {
    const p = PIPELINES.lz4!;
    const pending = encodeChunk(frame(5), p, resolve, ctx, where(0, 0));
    stopWorkers();
    const a = await pending;
    const b = await encodeChunk(frame(5), p, resolve, ctx, where(0, 0));
    expect(Buffer.compare(a.bytes, b.bytes)).toBe(0);
  });
});
