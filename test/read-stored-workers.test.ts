/**
 * Filter workers reading the stored bytes of chunks themselves (packages/filters/src/workers/stored-read.ts):
 * a filtered read of a local file into shared memory sends each worker only the chunk's place in
 * the file (`ChunkStore.stored`, `NodeFileStore.localFile`), and the worker reads and decodes it.
 * The values equal the calling thread's for every built-in pipeline; a source that gives no local
 * file (or not for every chunk: writes not yet handed to the operating system) has its chunks read
 * here and sent as bytes; chunks written in the same session, not flushed, read back through the
 * workers as written; a file replaced at its path after the open is not read by the workers (they
 * check its identity) and the values come from the file open here. A worker held up (busy or not
 * yet woken) does not hold up the end of a read: the chunks waiting at it, not started, are taken
 * back by a worker left without work, and each chunk is decoded once. A corrupt chunk in the middle
 * of a read fails it with the dataset and the chunk named, and once it has failed nothing of it goes
 * on (no chunk still decoded into the caller's buffer). Closing the file during a read waits for
 * the read; stopping the workers during one gives the same values (their chunks run here).
 */
import { closeSync, copyFileSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { BUILTIN_PIPELINES } from './support/pipelines.js';
import { createFile, openFile, type ByteSource, type Dataset } from '../packages/core/src/index.js';
import { NodeFileStore } from '../packages/core/src/io/node-file.js';
import { pipelineOffload, setPipelineOffload } from '../packages/core/src/plugin.js';
import { selectHyperslab } from '../packages/core/src/selection/index.js';
import { configureWorkers, startWorkers, stopWorkers, workerStats } from '../packages/filters/src/index.js';

const TASKS = new URL('../packages/filters/test/support/task-module.ts', import.meta.url).href;
const dir = mkdtempSync(join(tmpdir(), 'chunkform-read-stored-'));
const SHAPE = [8, 300, 260]; // 1.2 MB: read() gives shared memory from 1 MiB on
const CHUNKS = [1, 128, 128]; // 3 × 3 chunks per frame, edge chunks in both dimensions: 72 chunks
const N_CHUNKS = 72;

const PIPELINES = BUILTIN_PIPELINES;

function frames(seed: number): Uint16Array {
  const v = new Uint16Array(SHAPE.reduce((a, b) => a * b, 1));
  for (let i = 0, x = seed; i < v.length; i++) {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    v[i] = 100 + (x & 15) + (x % 211 === 0 ? x & 0xfff : 0);
  }
  return v;
}
const data = frames(4242);
const bytesOf = (v: Uint16Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const shared = (n: number) => new Uint16Array(new SharedArrayBuffer(n * 2));
const files = new Map<string, string>();
const saved = pipelineOffload();

async function write(path: string, values: Uint16Array, opts: Record<string, unknown>): Promise<void> {
  const f = await createFile(path);
  await ((await f.createDataset('d', { dtype: 'uint16', shape: SHAPE, chunks: CHUNKS, ...opts } as never)) as Dataset).write(values);
  await f.close();
}

beforeAll(async () => {
  configureWorkers({ threads: 2, minBytes: 0 }); // every chunk goes to a worker, however small
  expect(await startWorkers()).toBe(2);
  for (const [name, opts] of Object.entries(PIPELINES)) {
    const path = join(dir, `${name.replace(/\W+/g, '_')}.h5`);
    await write(path, data, opts);
    files.set(name, path);
  }
});
afterAll(() => {
  stopWorkers();
  setPipelineOffload(saved);
  rmSync(dir, { recursive: true, force: true });
});

describe('filter workers reading stored chunks themselves', () => {
  for (const name of Object.keys(PIPELINES)) {
    it(`${name}: read() and readInto shared memory give the stored values, every chunk read by a worker`, async () => {
      const f = await openFile(files.get(name)!);
      const ds = (await f.get('d')) as Dataset;
      const before = workerStats();
      const v = (await ds.read()) as Uint16Array;
      expect(v.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(bytesOf(v).equals(bytesOf(data))).toBe(true);
      const out = shared(data.length);
      await ds.readInto(out);
      expect(bytesOf(out).equals(bytesOf(data))).toBe(true);
      // staged through shared memory into an ordinary result
      const o = (await ds.read(undefined, { allowShared: false })) as Uint16Array;
      expect(o.buffer).toBeInstanceOf(ArrayBuffer);
      expect(bytesOf(o).equals(bytesOf(data))).toBe(true);
      const after = workerStats();
      expect(after.read - before.read).toBe(3 * N_CHUNKS);
      expect(after.failed).toBe(before.failed);
      // a selection with partial chunks: those are decoded here (and cached), the whole ones by the workers
      const sel = selectHyperslab({ start: [1, 64, 0], count: [4, 200, 260] });
      const part = shared(4 * 200 * 260);
      await ds.readInto(part, sel);
      for (let k = 0; k < 4; k++) {
        const want = data.subarray((1 + k) * 300 * 260 + 64 * 260, (1 + k) * 300 * 260 + 264 * 260);
        expect(bytesOf(part.subarray(k * 200 * 260, (k + 1) * 200 * 260)).equals(bytesOf(want))).toBe(true);
      }
      await f.close();
    });
  }

  it('a source without a local file, or not for every chunk (writes still on their way), has those chunks read here and sent as bytes', async () => {
    const path = files.get('bitshuffle + LZ4')!;
    for (const every of [0, 2]) {
      const store = await NodeFileStore.open(path, 'r');
      let calls = 0;
      // every = 0: never a local file; 2: only every other time it is asked (as while a write is in flight)
      const source: ByteSource = {
        size: () => store.size(),
        read: (o, n) => store.read(o, n),
        readInto: (o, t) => store.readInto(o, t),
        freshReads: true,
        localFile: () => (every > 0 && calls++ % every === 0 ? store.localFile() : null),
      };
      const f = await openFile(source);
      const ds = (await f.get('d')) as Dataset;
      const before = workerStats();
      const out = shared(data.length);
      await ds.readInto(out);
      expect(bytesOf(out).equals(bytesOf(data))).toBe(true);
      const after = workerStats();
      expect(after.done - before.done).toBe(N_CHUNKS); // every chunk still decoded on a worker
      expect(after.read - before.read).toBe(every === 0 ? 0 : Math.ceil(calls / every));
      expect(after.failed).toBe(before.failed);
      await f.close();
      await store.close();
    }
  });

  it('chunks written in this session and not flushed read back through the workers as written', async () => {
    const path = join(dir, 'session.h5');
    const f = await createFile(path);
    const ds = (await f.createDataset('d', { dtype: 'uint16', shape: SHAPE, chunks: CHUNKS, ...PIPELINES['shuffle + gzip'] } as never)) as Dataset;
    await ds.write(data);
    const before = workerStats().read;
    expect(bytesOf((await ds.read()) as Uint16Array).equals(bytesOf(data))).toBe(true);
    expect(workerStats().read - before).toBe(N_CHUNKS);
    // rewritten (fresh chunks, written over in place before any flush): the new values, not the old
    const next = frames(99);
    await ds.write(next);
    expect(bytesOf((await ds.read()) as Uint16Array).equals(bytesOf(next))).toBe(true);
    expect(workerStats().read - before).toBe(2 * N_CHUNKS);
    await f.close();
  });

  it('a file replaced at its path after the open is not read by the workers: the values come from the file open here', async () => {
    const path = join(dir, 'replaced.h5');
    await write(path, data, PIPELINES.zstd!);
    const f = await openFile(path);
    const ds = (await f.get('d')) as Dataset;
    // another file (other values, the same layout) takes the path
    const other = join(dir, 'other.h5');
    await write(other, frames(7), PIPELINES.zstd!);
    renameSync(other, path);
    const before = workerStats();
    const out = shared(data.length);
    await ds.readInto(out);
    expect(bytesOf(out).equals(bytesOf(data))).toBe(true);
    const after = workerStats();
    expect(after.read).toBe(before.read);
    expect(after.failed).toBeGreaterThan(before.failed); // the workers refused the file (then got the chunks as bytes)
    expect(after.done - before.done).toBe(N_CHUNKS);
    // later reads of that file do not ask the workers to read it again
    const failed = after.failed;
    await ds.readInto(out);
    expect(bytesOf(out).equals(bytesOf(data))).toBe(true);
    expect(workerStats().failed).toBe(failed);
    await f.close();
  });

  it('a worker held up does not hold up the end of a read: its chunks not started go to the other worker, each decoded once', async () => {
    const f = await openFile(files.get('LZ4')!);
    const ds = (await f.get('d')) as Dataset;
    const flag = new Int32Array(new SharedArrayBuffer(8));
    // one worker busy until released below (its next job waits in its port meanwhile)
    const held = pipelineOffload()!.runTask!({ module: TASKS, fn: 'held', args: { flag }, bytes: 1 << 30 })!;
    try {
      // the task module loads asynchronously: until the task runs, its worker would still take jobs
      for (let t = 0; Atomics.load(flag, 1) === 0; t++) {
        if (t > 4000) throw new Error('the held task did not start within 20 s');
        await new Promise((r) => setTimeout(r, 5));
      }
      for (const selection of [undefined, selectHyperslab({ start: [2, 0, 0], count: [3, 256, 260] })]) {
        const before = workerStats();
        const n = selection ? 3 * 256 * 260 : data.length;
        const out = shared(n);
        const read = ds.readInto(out, selection).then(() => 'read');
        let timer: ReturnType<typeof setTimeout> | undefined;
        const stuck = new Promise((resolve) => (timer = setTimeout(() => resolve('stuck'), 20_000)));
        // without taking chunks back the read would wait for the held worker
        expect(await Promise.race([read, held.then(() => 'held'), stuck])).toBe('read');
        clearTimeout(timer);
        const want = selection ? new Uint16Array(n).map((_, i) => data[(2 + Math.floor(i / (256 * 260))) * 300 * 260 + (i % (256 * 260))]!) : data;
        expect(bytesOf(out).equals(bytesOf(want))).toBe(true);
        const after = workerStats();
        expect(after.takenBack - before.takenBack).toBeGreaterThanOrEqual(1);
        expect(after.failed).toBe(before.failed);
        // whole chunks: each read and decoded on a worker exactly once (a chunk taken back never ran at the held one)
        const whole = selection ? 3 * 6 : N_CHUNKS;
        expect(after.read - before.read).toBe(whole);
        expect(after.done - before.done).toBe(whole);
      }
    } finally {
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
    }
    expect(typeof (await held)).toBe('number');
    await f.close();
  });

  it('a corrupt chunk in a read names the dataset and the chunk, and nothing of the read goes on after it failed', async () => {
    const path = join(dir, 'corrupt-chunk.h5');
    copyFileSync(files.get('gzip')!, path);
    let f = await openFile(path);
    const info = (await ((await f.get('d')) as Dataset).chunkInfoByCoord([0, 0, 0]))!;
    await f.close();
    // the deflate stream of the first chunk garbled after its zlib header
    const fd = openSync(path, 'r+');
    writeSync(fd, new Uint8Array(Math.min(64, info.size - 2)).fill(0xa5), 0, undefined, info.address + 2);
    closeSync(fd);
    f = await openFile(path);
    const ds = (await f.get('d')) as Dataset;
    try {
      // without workers (the other chunks' reads still on their way when the first fails) and with them
      for (const threads of [0, 2]) {
        configureWorkers({ threads, minBytes: 0 });
        const out = shared(data.length);
        const err = await ds.readInto(out).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(Error);
        expect((err as Error).message).toContain('/d (chunk [0, 0, 0])');
        // at the rejection every chunk the read began is done: nothing changes the buffer or the counts afterwards
        const at = workerStats();
        const seen = Buffer.from(out.buffer).toString('base64');
        await new Promise((r) => setTimeout(r, 100));
        expect(workerStats()).toEqual(at);
        expect(Buffer.from(out.buffer).toString('base64')).toBe(seen);
      }
    } finally {
      configureWorkers({ threads: 2, minBytes: 0 });
    }
    await f.close();
  });

  it('closing the file during a read waits for it; stopping the workers during a read gives the same values', async () => {
    for (const what of ['close', 'stop'] as const) {
      const f = await openFile(files.get('shuffle + gzip')!);
      const ds = (await f.get('d')) as Dataset;
      const before = workerStats();
      const reading = ds.read();
      await new Promise((r) => setImmediate(r)); // chunks on their way to the workers
      if (what === 'close') await f.close();
      else stopWorkers();
      const v = (await reading) as Uint16Array;
      expect(bytesOf(v).equals(bytesOf(data))).toBe(true);
      if (what === 'stop') {
        await f.close();
        expect(await startWorkers()).toBe(2);
      } else expect(workerStats().done - before.done).toBe(N_CHUNKS);
    }
  });
});
