/**
 * Filtered reads into shared memory (packages/core/src/filter/decode-into.ts): `readInto` with an
 * array over a `SharedArrayBuffer` has the filter workers decode each chunk read in full straight
 * into its place (reading a local file's chunks themselves), so the calling thread never handles the chunk's bytes. The values equal the
 * ordinary path's for whole, edge, partial and strided selections and every built-in pipeline; a
 * corrupt chunk still rejects with the typed error naming dataset and chunk; a large `read()` returns
 * a new array over shared memory that the workers decoded into (`allowShared: false`: an ordinary
 * array, staged through shared memory), small reads ordinary arrays; and without workers (a browser)
 * or with an offload that cannot decode into shared memory, the same call decodes on the calling thread.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { BUILTIN_PIPELINES } from './support/pipelines.js';
import { ChecksumError, createFile, FilterError, openFile, type Dataset } from '../packages/core/src/index.js';
import { decodeChunkShared, pipelineOffload, setPipelineOffload, type PipelineOffload } from '../packages/core/src/plugin.js';
import { selectHyperslab } from '../packages/core/src/selection/index.js';
import { configureWorkers, startWorkers, stopWorkers, workerStats } from '../packages/filters/src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkform-read-shared-'));
const D0 = 5;
const D1 = 600;
const D2 = 500; // 3 MB: large enough for read() to stage through shared memory
const CHUNKS = [2, 128, 128]; // edge chunks in every dimension

const PIPELINES = BUILTIN_PIPELINES;

/** Detector-like uint16 values. */
const data = new Uint16Array(D0 * D1 * D2);
for (let i = 0, x = 12345; i < data.length; i++) {
  x = (x ^ (x << 13)) >>> 0;
  x = (x ^ (x >>> 17)) >>> 0;
  x = (x ^ (x << 5)) >>> 0;
  data[i] = 90 + (x & 7) + (x % 997 === 0 ? x & 0xfff : 0);
}

const shared = (n: number) => new Uint16Array(new SharedArrayBuffer(n * 2));
const saved = pipelineOffload();
const files = new Map<string, string>();

beforeAll(async () => {
  // every chunk goes to a worker, however small
  configureWorkers({ threads: 2, minBytes: 0 });
  expect(await startWorkers()).toBe(2);
  for (const [name, opts] of Object.entries(PIPELINES)) {
    const path = join(dir, `${name.replace(/\W+/g, '_')}.h5`);
    const f = await createFile(path);
    const ds = (await f.createDataset('d', { dtype: 'uint16', shape: [D0, D1, D2], chunks: CHUNKS, ...opts } as never)) as Dataset;
    await ds.write(data);
    await f.close();
    files.set(name, path);
  }
});
afterAll(() => {
  stopWorkers();
  setPipelineOffload(saved);
  rmSync(dir, { recursive: true, force: true });
});

/** Selections: the whole dataset, one across chunk boundaries with partial chunks, a strided one, one inside a chunk. */
const SELECTIONS = [
  ['whole dataset', undefined],
  ['chunk-boundary box with partial chunks', selectHyperslab({ start: [1, 100, 50], count: [3, 150, 140] })],
  ['strided', selectHyperslab({ start: [0, 3, 7], stride: [2, 5, 3], count: [3, 50, 60], block: [1, 2, 2] })],
  ['exactly one whole interior chunk and one edge chunk', selectHyperslab({ start: [2, 128, 128], count: [2, 172, 72] })],
  ['inside one chunk', selectHyperslab({ start: [4, 10, 10], count: [1, 20, 30] })],
] as const;

describe('filtered reads into shared memory', () => {
  for (const name of Object.keys(PIPELINES)) {
    it(`${name}: readInto a SharedArrayBuffer gives the ordinary read's values, decoded on the workers`, async () => {
      const f = await openFile(files.get(name)!);
      const ds = (await f.get('d')) as Dataset;
      for (const [what, sel] of SELECTIONS) {
        const expected = (await ds.read(sel)) as Uint16Array;
        const out = shared(expected.length).fill(0xdead);
        const before = workerStats();
        expect(await ds.readInto(out, sel)).toBe(out);
        expect(Buffer.compare(Buffer.from(out.buffer), Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength)), `${name}, ${what}`).toBe(0);
        expect(workerStats().failed).toBe(before.failed);
        if (what === 'whole dataset') expect(workerStats().done - before.done).toBe(3 * 5 * 4);
      }
      // and the ordinary read equals what was written
      const all = (await ds.read()) as Uint16Array;
      expect(Buffer.compare(Buffer.from(all.buffer, all.byteOffset, all.byteLength), Buffer.from(data.buffer))).toBe(0);
      await f.close();
    });
  }

  it('the calling thread gets no chunk bytes back for chunks read in full into shared memory', async () => {
    const off = pipelineOffload()!;
    let decoded = 0;
    let into = 0;
    let stored = 0;
    setPipelineOffload({
      ...off,
      threads: off.threads,
      encode: off.encode.bind(off),
      decode: (...a) => (decoded++, off.decode(...a)),
      decodeInto: (...a) => (into++, off.decodeInto!(...a)),
      decodeStoredInto: (...a) => (stored++, off.decodeStoredInto!(...a)),
    });
    try {
      // the file's bytes in memory: each chunk's bytes go to a worker
      const m = await openFile(new Uint8Array(readFileSync(files.get('gzip')!)));
      const mout = shared(data.length);
      await ((await m.get('d')) as Dataset).readInto(mout);
      expect([into, stored, decoded]).toEqual([60, 0, 0]);
      expect(Buffer.compare(Buffer.from(mout.buffer), Buffer.from(data.buffer))).toBe(0);
      await m.close();
      // a local file: the workers read each chunk from it themselves
      into = 0;
      const f = await openFile(files.get('gzip')!);
      const ds = (await f.get('d')) as Dataset;
      const out = shared(data.length);
      await ds.readInto(out);
      expect([into, stored, decoded]).toEqual([0, 60, 0]);
      expect(Buffer.compare(Buffer.from(out.buffer), Buffer.from(data.buffer))).toBe(0);
      // a plain array takes the ordinary path
      into = 0;
      const plain = new Uint16Array(data.length);
      await ds.readInto(plain);
      expect(into).toBe(0);
      expect(decoded).toBe(60);
      expect(Buffer.compare(Buffer.from(plain.buffer), Buffer.from(data.buffer))).toBe(0);
      await f.close();
    } finally {
      setPipelineOffload(off);
    }
  });

  for (const allowShared of [true, false]) {
    it(`read() of large selections (${allowShared ? 'new shared result' : 'staged through shared memory'}) gives the calling thread's values, also for reads at once`, async () => {
      const big = [
        ['whole dataset', undefined],
        ['box with partial chunks', selectHyperslab({ start: [1, 100, 50], count: [4, 450, 400] })],
        ['strided', selectHyperslab({ start: [0, 1, 2], stride: [1, 3, 2], count: [5, 190, 240], block: [1, 2, 1] })],
      ] as const;
      for (const name of ['shuffle + gzip', 'bitshuffle + LZ4']) {
        const off = pipelineOffload();
        setPipelineOffload(null);
        const f0 = await openFile(files.get(name)!);
        const d0 = (await f0.get('d')) as Dataset;
        const expected = await Promise.all(big.map(async ([, sel]) => (await d0.read(sel)) as Uint16Array)).finally(() => setPipelineOffload(off));
        await f0.close();
        // (a new handle: chunks read in part above sit in the first one's chunk cache)
        const f = await openFile(files.get(name)!);
        const ds = (await f.get('d')) as Dataset;
        let into = 0;
        setPipelineOffload({
          ...off!,
          encode: off!.encode.bind(off),
          decode: off!.decode.bind(off),
          decodeInto: (...a) => (into++, off!.decodeInto!(...a)),
          decodeStoredInto: (...a) => (into++, off!.decodeStoredInto!(...a)),
          inputBuffer: off!.inputBuffer!.bind(off),
        });
        try {
          for (let i = 0; i < big.length; i++) {
            const v = (await ds.read(big[i]![1], { allowShared })) as Uint16Array;
            expect(v.buffer instanceof SharedArrayBuffer).toBe(allowShared && v.byteLength > 1 << 20);
            expect(Buffer.compare(Buffer.from(v.buffer, v.byteOffset, v.byteLength), Buffer.from(expected[i]!.buffer)), `${name}, ${big[i]![0]}`).toBe(0);
          }
          expect(into).toBeGreaterThan(60); // the workers decoded into shared memory
          // several reads at once (staged: one takes the kept staging area, the others new ones), each its own result
          const all = await Promise.all(big.map(([, sel]) => ds.read(sel, { allowShared }) as Promise<Uint16Array>));
          all.forEach((v, i) => expect(Buffer.compare(Buffer.from(v.buffer, v.byteOffset, v.byteLength), Buffer.from(expected[i]!.buffer))).toBe(0));
          expect(new Set(all.map((v) => v.buffer)).size).toBe(all.length);
        } finally {
          setPipelineOffload(off);
        }
        await f.close();
      }
    });
  }

  it('read() returns plain ArrayBuffers for small reads and with allowShared: false, shared memory only for large filtered reads', async () => {
    const f = await openFile(files.get('bitshuffle + LZ4')!);
    const ds = (await f.get('d')) as Dataset;
    for (const [what, sel] of SELECTIONS) {
      const v = (await ds.read(sel, { allowShared: false })) as Uint16Array;
      expect(v.buffer).toBeInstanceOf(ArrayBuffer);
      expect(v.buffer instanceof SharedArrayBuffer).toBe(false);
      const d = (await ds.read(sel)) as Uint16Array;
      expect(d.buffer instanceof SharedArrayBuffer, what).toBe(d.byteLength > 1 << 20);
      expect(d).toBeInstanceOf(Uint16Array);
      expect(d.byteOffset).toBe(0);
      expect(Buffer.compare(Buffer.from(d.buffer, d.byteOffset, d.byteLength), Buffer.from(v.buffer, v.byteOffset, v.byteLength)), what).toBe(0);
    }
    // an unfiltered dataset: ordinary memory whatever the size
    const path = join(dir, 'plain.h5');
    const w = await createFile(path);
    await ((await w.createDataset('d', { dtype: 'uint16', shape: [D0, D1, D2], chunks: CHUNKS })) as Dataset).write(data);
    await w.close();
    const p = await openFile(path);
    const all = (await ((await p.get('d')) as Dataset).read()) as Uint16Array;
    expect(all.buffer instanceof SharedArrayBuffer).toBe(false);
    expect(Buffer.compare(Buffer.from(all.buffer, all.byteOffset, all.byteLength), Buffer.from(data.buffer))).toBe(0);
    await p.close();
    await f.close();
  });

  it('a corrupt chunk rejects with the typed error naming dataset and chunk, and the other chunks still read', async () => {
    for (const [name, kind] of [
      ['shuffle + gzip', FilterError],
      ['shuffle + fletcher32', ChecksumError],
    ] as const) {
      const path = join(dir, `corrupt-${kind.name}.h5`);
      const bytes = readFileSync(files.get(name)!);
      const f0 = await openFile(files.get(name)!);
      const info = await ((await f0.get('d')) as Dataset).chunkInfoByCoord([2, 128, 0]);
      await f0.close();
      bytes.fill(0x55, info!.address + 20, info!.address + Math.min(info!.size, 400));
      writeFileSync(path, bytes);
      const f = await openFile(path);
      const ds = (await f.get('d')) as Dataset;
      const before = workerStats().failed;
      const err = await ds.readInto(shared(data.length)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(kind);
      expect(String((err as Error).message)).toContain('chunk [1, 1, 0]');
      expect(String((err as Error).message)).toContain('/d');
      expect(workerStats().failed).toBeGreaterThan(before); // failed on a worker, then here with the chunk named
      // read() into a new shared result, or staged through shared memory: the same error
      for (const allowShared of [true, false]) {
        const err2 = await ds.read(undefined, { allowShared }).catch((e: unknown) => e);
        expect(err2).toBeInstanceOf(kind);
        expect(String((err2 as Error).message)).toContain('chunk [1, 1, 0]');
      }
      // a selection that misses the bad chunk reads fine
      const sel = selectHyperslab({ start: [0, 0, 0], count: [2, D1, D2] });
      const out = shared(2 * D1 * D2);
      await ds.readInto(out, sel);
      expect(Buffer.compare(Buffer.from(out.buffer), Buffer.from(data.buffer, 0, out.byteLength))).toBe(0);
      await f.close();
    }
  });

  it('without workers (as in a browser) or with an offload that cannot decode into shared memory, the calling thread decodes', async () => {
    const off = pipelineOffload()!;
    const plainOffload: PipelineOffload = { threads: 2, encode: off.encode.bind(off), decode: off.decode.bind(off) };
    for (const o of [null, plainOffload]) {
      setPipelineOffload(o);
      try {
        const f = await openFile(files.get('zstd')!);
        const ds = (await f.get('d')) as Dataset;
        const [, sel] = SELECTIONS[1];
        const expected = (await ds.read(sel)) as Uint16Array;
        const out = shared(expected.length);
        await ds.readInto(out, sel);
        expect(Buffer.compare(Buffer.from(out.buffer), Buffer.from(expected.buffer))).toBe(0);
        await f.close();
      } finally {
        setPipelineOffload(off);
      }
    }
  });

  it('decodeChunkShared declines a destination that is not shared memory', async () => {
    const ctx = { datatype: { class: 'integer', size: 2, order: 'LE', signed: false } as const, elementSize: 2, chunkDims: [4] };
    const pipeline = { filters: [{ id: 1, name: '', flags: 0, clientData: [1] }] };
    const target = { out: new Uint8Array(8), runs: Float64Array.of(0, 0, 4), elementSize: 2, chunkBytes: 8 };
    expect(await decodeChunkShared(new Uint8Array(16), pipeline, 0, () => undefined, ctx, target)).toBe(false);
  });
});
