/**
 * Bitshuffle + zstd (filter 32008, compression 3) through the filter worker pool. A pipeline ending
 * in bitshuffle is given a buffer of the pool's shared memory to build its result in (`outShared`,
 * packages/filters/src/workers/pool.ts), but only the fused bitshuffle + LZ4 path builds there:
 * the zstd sub-mode answers with a buffer of its own. Its bytes must equal the calling thread's, the
 * result must not be the shared buffer (which the pool hands to the next chunk), and that buffer
 * must come back to the pool; a file written so reads back here, in HDF5's own filter
 * (bshuf_h5filter.c in h5wasm + h5wasm-plugins) and in h5py when a bitshuffle plugin is installed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, openFile, type Dataset } from '../packages/core/src/index.js';
import { decodeChunk, encodeChunk, pipelineOffload, setPipelineOffload, type Datatype, type FilterPipeline, type FilterResolver } from '../packages/core/src/plugin.js';
import { ALL_FILTERS, bitshuffleSetLocal, configureWorkers, startWorkers, stopWorkers, workerStats } from '../packages/filters/src/index.js';
import { loadH5wasmWithPlugins } from '../packages/filters/test/support/h5wasm-plugins-loader.js';
import { inline } from '../packages/filters/test/support/inline.js';

const PY = '/usr/bin/python3';
const PLUGIN_DIR = '/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins';
/** A bitshuffle plugin for h5py (Debian's `bitshuffle` package names it libh5bshuf.so; hdf5plugin builds libh5bshuf.so too). */
const bshufPlugin = existsSync(PLUGIN_DIR) ? readdirSync(PLUGIN_DIR).find((n) => /bshuf|bitshuffle/i.test(n)) : undefined;

const U16: Datatype = { class: 'integer', size: 2, order: 'LE', signed: false };
const ctx = { datatype: U16, elementSize: 2, chunkDims: [512, 512] };
const byId = new Map(ALL_FILTERS.map((f) => [f.id, f]));
const resolve: FilterResolver = (id) => byId.get(id);
const where = (...chunk: number[]) => ({ path: '/d', chunk });
const pipe = (userData: number[]): FilterPipeline => ({ filters: [{ id: 32008, name: '', flags: 0, clientData: bitshuffleSetLocal(userData, 2) }] });
const ZSTD = pipe([0, 3, 5]);
const LZ4 = pipe([0, 2]);

/** Detector-like uint16 values (`seed` makes frames differ). */
function frames(n: number, seed: number): Uint16Array {
  const v = new Uint16Array(n);
  for (let i = 0, x = seed * 2654435761 + 1; i < n; i++) {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    v[i] = 90 + (x & 7) + (x % 997 === 0 ? x & 0xfff : 0);
  }
  return v;
}
const bytes = (v: Uint16Array) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);

const dir = mkdtempSync(join(tmpdir(), 'chunkform-bshuf-zstd-'));
const saved = pipelineOffload();
beforeAll(async () => {
  configureWorkers({ threads: 2 });
  expect(await startWorkers()).toBe(2);
});
afterAll(() => {
  stopWorkers();
  setPipelineOffload(saved);
  rmSync(dir, { recursive: true, force: true });
});

describe('bitshuffle + zstd through the worker pool', () => {
  it('gives the calling thread\'s bytes in a buffer of its own and hands the unused shared buffer back to the pool', async () => {
    const off = pipelineOffload()!;
    const run = (p: FilterPipeline, d: Uint8Array) => off.encode(d, p, p.filters.map((x) => resolve(x.id)), ctx)!;
    const [da, db, dc] = [bytes(frames(512 * 512, 1)), bytes(frames(512 * 512, 2)), bytes(frames(512 * 512, 3))];
    // bitshuffle + LZ4 builds its result in a shared buffer; once written, that buffer is the pool's again
    const a = (await run(LZ4, da))!;
    expect(a.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    const out = a.bytes.buffer;
    a.written!();
    // bitshuffle + zstd is given that buffer (same size asked) but answers with its own
    const before = workerStats();
    const z = (await run(ZSTD, db))!;
    expect(workerStats().done - before.done).toBe(1);
    expect(workerStats().failed).toBe(before.failed);
    expect(z.bytes.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(z.written).toBeUndefined();
    const here = await inline(() => encodeChunk(db, ZSTD, resolve, ctx, where(0, 0)));
    expect(workerStats().done - before.done).toBe(1); // (that one on the calling thread)
    expect(z.filterMask).toBe(0);
    expect(Buffer.compare(z.bytes, here.bytes)).toBe(0);
    expect(Buffer.compare(await decodeChunk(z.bytes, ZSTD, 0, resolve, ctx, where(0, 0)), db)).toBe(0);
    // ... and the shared buffer went back: the next bitshuffle + LZ4 chunk is built in it, correctly
    const c = (await run(LZ4, dc))!;
    expect(c.bytes.buffer).toBe(out);
    expect(Buffer.compare(c.bytes, (await inline(() => encodeChunk(dc, LZ4, resolve, ctx, where(1, 0)))).bytes)).toBe(0);
    c.written!();
  });

  it('interleaved with bitshuffle + LZ4 chunks on both workers, every chunk gives the calling thread\'s bytes', async () => {
    const off = pipelineOffload()!;
    const data = Array.from({ length: 12 }, (_, i) => bytes(frames(512 * 512, 10 + i)));
    const pipes = data.map((_, i) => (i % 3 === 0 ? LZ4 : ZSTD));
    const before = workerStats();
    const got = await Promise.all(data.map((d, i) => off.encode(d, pipes[i]!, pipes[i]!.filters.map((x) => resolve(x.id)), ctx)!));
    expect(workerStats().done - before.done).toBe(data.length);
    for (let i = 0; i < data.length; i++) {
      const r = got[i]!;
      const here = await inline(() => encodeChunk(data[i]!, pipes[i]!, resolve, ctx, where(i, 0)));
      expect(Buffer.compare(r.bytes, here.bytes), `chunk ${i}`).toBe(0);
      expect(r.bytes.buffer instanceof SharedArrayBuffer, `chunk ${i}`).toBe(pipes[i] === LZ4);
    }
    for (const r of got) r!.written?.();
  });

  describe('a file written through the pool', () => {
    const N = 6;
    const values = frames(N * 512 * 512, 99);
    const path = join(dir, 'bshuf-zstd.h5');
    beforeAll(async () => {
      const before = workerStats();
      const f = await createFile(path);
      const ds = (await f.createDataset('d', { dtype: 'uint16', shape: [N, 512, 512], chunks: [1, 512, 512], filters: [{ id: 32008, clientData: [0, 3, 5] }] })) as Dataset;
      await ds.write(values);
      await f.close();
      expect(workerStats().done - before.done).toBe(N); // every chunk encoded on a worker
      expect(workerStats().failed).toBe(before.failed);
    });

    it('reads back the values here', async () => {
      const f = await openFile(path);
      try {
        const got = (await ((await f.get('d')) as Dataset).read()) as Uint16Array;
        expect(Buffer.compare(bytes(got), bytes(values))).toBe(0);
      } finally {
        await f.close();
      }
    });

    it('reads back the values in HDF5 with the bitshuffle plugin (h5wasm + h5wasm-plugins)', async () => {
      const h5wasm = await loadH5wasmWithPlugins();
      const f = new h5wasm.File(path, 'r');
      try {
        const ds = f.get('d');
        expect(ds.filters[0].id).toBe(32008);
        expect(Array.from(ds.filters[0].cd_values as ArrayLike<number>).slice(2, 6)).toEqual([2, 0, 3, 5]);
        const got = ds.value as Uint16Array;
        expect(Buffer.compare(bytes(got), bytes(values))).toBe(0);
      } finally {
        f.close();
      }
    });

    it.runIf(bshufPlugin !== undefined && existsSync(PY))(`reads back the values in h5py (plugin ${bshufPlugin ?? 'none'})`, () => {
      const py = 'import h5py, sys, hashlib\nwith h5py.File(sys.argv[1], "r") as f:\n  d = f["d"][...]\n  print(d.dtype.str, d.shape, hashlib.sha256(d.tobytes()).hexdigest())';
      const out = execFileSync(PY, ['-c', py, path], { encoding: 'utf8', env: { ...process.env, HDF5_PLUGIN_PATH: PLUGIN_DIR } }).trim();
      const sha = execFileSync(PY, ['-c', 'import hashlib, sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())'], { input: bytes(values), encoding: 'utf8' }).trim();
      expect(out).toBe(`<u2 (${N}, 512, 512) ${sha}`);
    });
  });
});
