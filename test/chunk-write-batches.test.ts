/**
 * Queued chunks started together (packages/core/src/chunk/write-queue.ts, `ChunkPlacement.startMany`;
 * the queue alone: test/write-queue-overlap.test.ts): the chunks encoded while the earlier writes are
 * in flight are placed in turn and written with one gather write per run of adjacent places
 * (`ByteStore.writev`). Whole files on a store whose gather writes finish late or tear half-way and
 * fail: the file is the same bytes as one written chunk by chunk, a failure names a chunk of the
 * batch, leaves the flushed state readable, and the next call stores the batch's chunks again; and
 * `NodeFileStore.writev` on a real file.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import './setup-registrations.js';
import { xorshiftBytes } from './support/xorshift-bytes.js';
import { createFile, H5Error, MemoryStore, openFile, selectBlocks, type ByteStore, type Dataset } from '../packages/core/src/index.js';
import { NodeFileStore } from '../packages/core/src/io/node-file.js';

/**
 * A store over memory with gather writes: those of `min` bytes or more finish after a timer (reading
 * the bytes then); `failAt(n)`: the n-th gather write (from 0) writes its first part and half the
 * second, then fails. Counts gather writes, the parts they carried, and plain chunk writes.
 */
class GatherStore extends MemoryStore {
  gathers = 0;
  parts = 0;
  plain = 0;
  failAt = -1;
  constructor(private readonly min: number) {
    super();
  }
  override async write(offset: number, bytes: Uint8Array): Promise<void> {
    if (bytes.length >= this.min) {
      this.plain++;
      await new Promise((r) => setTimeout(r, 1));
    }
    await super.write(offset, bytes);
  }
  async writev(offset: number, parts: readonly Uint8Array[]): Promise<void> {
    const n = this.gathers++;
    this.parts += parts.length;
    await new Promise((r) => setTimeout(r, 1));
    let at = offset;
    for (const [k, p] of parts.entries()) {
      if (n === this.failAt && k === 1) {
        await super.write(at, p.subarray(0, p.length >> 1)); // torn
        throw new Error(`EIO: gather write ${n} failed`);
      }
      await super.write(at, p);
      at += p.length;
    }
  }
  snapshot(): Uint8Array {
    return this.toBytes();
  }
}

const N = 24;
const H = 32;
const W = 64; // uint8, one 2 KiB chunk per frame (the bytes below do not deflate)
const MIN = 1500;
const frameSel = (i: number, n = 1) => selectBlocks([{ start: [i, 0, 0], end: [i + n, H, W] }]);
function frames(seed: number): Uint8Array {
  return xorshiftBytes(seed, N * H * W);
}

async function readAll(bytes: Uint8Array | string): Promise<Uint8Array> {
  const g = await openFile(bytes);
  try {
    return (await ((await g.get('d')) as Dataset).read()) as Uint8Array;
  } finally {
    await g.close();
  }
}

/** Writes `frames(seed)` frame by frame, then `frames(seed + 1)` over frames 4–19 in one call, into a new file on `store`; closes it. */
async function writeFile(store: ByteStore | string, seed: number): Promise<void> {
  const f = await createFile(store, { backgroundWrites: true });
  const ds = (await f.createDataset('d', { dtype: 'uint8', shape: [N, H, W], chunks: [1, H, W], compression: 'gzip', compressionOpts: 1 })) as Dataset;
  const a = frames(seed);
  for (let i = 0; i < N; i++) await ds.write(a.subarray(i * H * W, (i + 1) * H * W), frameSel(i));
  await f.flush();
  await ds.write(frames(seed + 1).subarray(4 * H * W, 20 * H * W), frameSel(4, 16));
  await f.close();
}

describe('gather writes of adjacent chunk images', () => {
  it('the chunks of a stream go out in fewer writes than chunks, and the file is the bytes of one written chunk by chunk', async () => {
    const gathered = new GatherStore(MIN);
    await writeFile(gathered, 1);
    const plain = new MemoryStore(); // no gather write: one write per image
    await writeFile(plain, 1);
    expect(gathered.gathers).toBeGreaterThan(0);
    expect(gathered.gathers + gathered.plain).toBeLessThan(2 * N - 8);
    expect(gathered.parts).toBeGreaterThan(gathered.gathers);
    expect(Buffer.compare(gathered.snapshot(), plain.toBytes())).toBe(0);
    const model = frames(1);
    model.set(frames(2).subarray(4 * H * W, 20 * H * W), 4 * H * W);
    expect(Buffer.compare(await readAll(gathered.snapshot()), model)).toBe(0);
  });

  it('a local file (pwritev) holds the same bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cf-gather-'));
    try {
      const path = join(dir, 'g.h5');
      await writeFile(path, 3);
      const plain = new MemoryStore();
      await writeFile(plain, 3);
      expect(Buffer.compare(readFileSync(path), plain.toBytes())).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a gather write failing half-way: a typed error naming a chunk, the flushed state readable, the chunks stored again by the next call', async () => {
    const store = new GatherStore(MIN);
    const f = await createFile(store, { backgroundWrites: true });
    const ds = (await f.createDataset('d', { dtype: 'uint8', shape: [N, H, W], chunks: [1, H, W], compression: 'gzip', compressionOpts: 1 })) as Dataset;
    const old = frames(5);
    await ds.write(old);
    await f.flush();
    const flushed = store.snapshot();
    const next = frames(6);
    store.failAt = store.gathers; // the first gather write of the next call tears and fails
    const first = await ds.write(next).catch((e: unknown) => e);
    const err = first ?? (await ds.read(frameSel(0)).catch((e: unknown) => e));
    expect(err).toBeInstanceOf(H5Error);
    expect(String((err as Error).message)).toMatch(/\/d \(chunk \[\d+, 0, 0\]\)/);
    expect(String((err as Error).message)).toMatch(/adjacent chunk images .* EIO: gather write \d+ failed/);
    // nothing flushed was written over
    expect(Buffer.compare(await readAll(store.snapshot()), old)).toBe(0);
    expect(Buffer.compare(await readAll(flushed), old)).toBe(0);
    // the next calls store the failed chunks again (the first write may have failed before queueing them all)
    if (first !== undefined) await ds.write(next);
    expect(Buffer.compare((await ds.read()) as Uint8Array, next)).toBe(0);
    await f.close();
    expect(Buffer.compare(await readAll(store.snapshot()), next)).toBe(0);
  });
});

describe('NodeFileStore.writev', () => {
  it('writes its parts one after the other, small (synchronous) and large (thread pool), more parts than one call takes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cf-writev-'));
    try {
      const path = join(dir, 'w.bin');
      const s = await NodeFileStore.open(path, 'w');
      const small = [Uint8Array.of(1, 2, 3), new Uint8Array(0), Uint8Array.of(4)];
      await s.writev(10, small);
      const big = Array.from({ length: 1500 }, (_, k) => new Uint8Array(300 + (k % 7)).fill(k & 0xff));
      const at = 100;
      await s.writev(at, big);
      await s.close();
      const got = readFileSync(path);
      expect([...got.subarray(10, 14)]).toEqual([1, 2, 3, 4]);
      let o = at;
      for (const p of big) {
        expect(Buffer.compare(got.subarray(o, o + p.length), p)).toBe(0);
        o += p.length;
      }
      expect(got.length).toBe(o);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
