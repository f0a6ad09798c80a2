/**
 * Reads and writes keep every filter worker thread fed (packages/core/src/chunk/in-parallel.ts,
 * `chunksForThreads`): with a pipeline offload reporting 16 threads, a write and a read of 40
 * chunks of 1 MiB each have two chunks per thread plus two (34) in flight at once (before: 16, the
 * chunks in 16 MiB, so at most 16 threads had work); chunks too large for that many to fit in 256 MiB
 * keep the old count. The offload here deflates on the calling thread after a timer, so the chunks are
 * valid deflate streams and read back as written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, openFile, type Dataset } from '../packages/core/src/index.js';
import { pipelineOffload, setPipelineOffload, type PipelineOffload } from '../packages/core/src/plugin.js';
import { chunksForThreads } from '../packages/core/src/chunk/in-parallel.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkform-in-flight-'));
const saved = pipelineOffload();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => setPipelineOffload(saved));

/** A 16-thread offload that counts the chunks it holds at once. */
function countingOffload(): PipelineOffload & { most: number } {
  let now = 0;
  const hold = async <T>(work: () => T): Promise<T> => {
    now++;
    o.most = Math.max(o.most, now);
    await new Promise((r) => setTimeout(r, 2));
    now--;
    return work();
  };
  const o = {
    most: 0,
    threads: 16,
    encode: (bytes: Uint8Array) => hold(() => ({ bytes: new Uint8Array(deflateSync(bytes, { level: 1 })), filterMask: 0 })),
    decode: (bytes: Uint8Array) => hold(() => new Uint8Array(inflateSync(bytes))),
  };
  return o;
}

describe('chunks in flight per filter thread', () => {
  it('a write and a read of 1 MiB chunks hold 34 chunks at once for 16 threads', async () => {
    const off = countingOffload();
    setPipelineOffload(off);
    const path = join(dir, 'a.h5');
    const data = new Uint8Array(40 << 20);
    for (let i = 0; i < data.length; i += 4093) data[i] = i & 0xff;
    const f = await createFile(path, { backgroundWrites: false });
    const ds = (await f.createDataset('d', { dtype: 'uint8', shape: [40, 1024, 1024], chunks: [1, 1024, 1024], compression: 'gzip', compressionOpts: 1 })) as Dataset;
    await ds.write(data);
    await f.close();
    expect(off.most).toBe(34);
    off.most = 0;
    const g = await openFile(path);
    const back = (await ((await g.get('d')) as Dataset).read()) as Uint8Array;
    await g.close();
    expect(off.most).toBe(34);
    expect(Buffer.compare(back, data)).toBe(0);
  });

  it('gives two per thread plus two, at least the given count, and no more than 256 MiB of chunks beyond it', () => {
    expect(chunksForThreads(8, 2 << 20, 2)).toBe(8);
    expect(chunksForThreads(8, 2 << 20, 16)).toBe(34);
    expect(chunksForThreads(8, 64 << 20, 16)).toBe(8); // 34 × 64 MiB would be 2 GiB
    expect(chunksForThreads(8, 16 << 20, 16)).toBe(16);
  });
});
