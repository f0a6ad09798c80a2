/**
 * `written` of an encoded chunk (core's `EncodedChunk.written`, from the pipeline offload's
 * `encode`): the filter worker pool builds LZ4 frames in shared memory that it reuses once the
 * chunk engine says the bytes are written (packages/filters/src/workers/pool.ts). Here an offload
 * that overwrites each result's bytes the moment `written` is called checks that the engine calls
 * it once per chunk and only when nothing uses the bytes any more — whole writes within the call,
 * in the background queue, and cached chunks stored by a flush — so the file reads back as
 * written. Then the real pool: an LZ4 dataset written with two worker threads reads back the same.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, openFile, selectBlocks, type Dataset } from '../packages/core/src/index.js';
import { pipelineOffload, setPipelineOffload } from '../packages/core/src/plugin.js';
import { poisoningOffload } from './support/poisoning-offload.js';
import { configureWorkers, startWorkers } from '../packages/filters/src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkform-written-'));
const saved = pipelineOffload();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => setPipelineOffload(saved));

const N = 12;
const H = 64;
const W = 256; // uint8 chunks of 16 KiB
function frames(seed: number): Uint8Array {
  const d = new Uint8Array(N * H * W);
  for (let i = 0; i < d.length; i++) d[i] = (i * seed + (i >> 9)) & 0x3f;
  return d;
}

async function readBack(path: string): Promise<Uint8Array> {
  setPipelineOffload(null);
  const g = await openFile(path);
  try {
    return (await ((await g.get('d')) as Dataset).read()) as Uint8Array;
  } finally {
    await g.close();
    setPipelineOffload(saved);
  }
}

describe('written: the memory of an encoded chunk given back once its bytes are in the file', () => {
  for (const backgroundWrites of [false, true]) {
    it(`whole chunks (backgroundWrites: ${backgroundWrites}), frame by frame and all at once`, async () => {
      const off = poisoningOffload();
      setPipelineOffload(off);
      const path = join(dir, `whole-${backgroundWrites}.h5`);
      const data = frames(7);
      const f = await createFile(path, { backgroundWrites });
      const ds = (await f.createDataset('d', { dtype: 'uint8', shape: [N, H, W], chunks: [1, H, W], compression: 'gzip', compressionOpts: 1 })) as Dataset;
      const half = (N / 2) * H * W;
      for (let i = 0; i < N / 2; i++) await ds.write(data.subarray(i * H * W, (i + 1) * H * W), selectBlocks([{ start: [i, 0, 0], end: [i + 1, H, W] }]));
      await ds.write(data.subarray(half), selectBlocks([{ start: [N / 2, 0, 0], end: [N, H, W] }]));
      await f.close();
      expect(off.encoded).toBe(N);
      expect(off.written).toBe(N);
      expect(Buffer.compare(await readBack(path), data)).toBe(0);
    });
  }

  it('cached chunks written in part, stored by flush and close, and rewritten', async () => {
    const off = poisoningOffload();
    setPipelineOffload(off);
    const path = join(dir, 'partial.h5');
    const data = frames(3);
    const f = await createFile(path);
    const ds = (await f.createDataset('d', { dtype: 'uint8', shape: [N, H, W], chunks: [1, H, W], compression: 'gzip', compressionOpts: 1 })) as Dataset;
    const rows = (a: number, b: number) => selectBlocks([{ start: [0, a, 0], end: [N, b, W] }]);
    const part = (a: number, b: number): Uint8Array => {
      const out = new Uint8Array(N * (b - a) * W);
      for (let i = 0; i < N; i++) out.set(data.subarray(i * H * W + a * W, i * H * W + b * W), i * (b - a) * W);
      return out;
    };
    await ds.write(part(0, H / 2), rows(0, H / 2));
    await f.flush();
    await ds.write(part(H / 2, H), rows(H / 2, H)); // the flushed chunks loaded, changed and stored again
    await f.close();
    expect(off.written).toBe(off.encoded);
    expect(off.encoded).toBeGreaterThanOrEqual(2 * N);
    expect(Buffer.compare(await readBack(path), data)).toBe(0);
  });

  it('the filter worker pool: an LZ4 dataset written with two threads (frames built in reused shared memory) reads back the same', async () => {
    configureWorkers({ threads: 2 });
    expect(await startWorkers()).toBe(2);
    const path = join(dir, 'lz4.h5');
    const F = 10;
    const data = new Uint16Array(F * 256 * 1024);
    for (let i = 0; i < data.length; i++) data[i] = 90 + ((i * 2654435761) >>> 29) + ((i >> 12) & 7);
    const f = await createFile(path);
    const ds = (await f.createDataset('d', { dtype: 'uint16', shape: [F, 256, 1024], chunks: [1, 256, 1024], filters: [{ id: 32004 }] })) as Dataset;
    await ds.write(data); // all at once
    for (let i = 0; i < F; i += 2) await ds.write(data.subarray(i * 256 * 1024, (i + 2) * 256 * 1024), selectBlocks([{ start: [i, 0, 0], end: [i + 2, 256, 1024] }])); // again, two frames a call
    await f.close();
    const back = new Uint16Array((await readBack(path)).slice().buffer);
    expect(Buffer.compare(new Uint8Array(back.buffer), new Uint8Array(data.buffer))).toBe(0);
  });
});
