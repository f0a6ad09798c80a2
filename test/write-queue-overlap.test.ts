/**
 * File writes of the background write queue in flight while the next chunks are built and encoded
 * (packages/core/src/chunk/write-queue.ts, `ChunkPlacement.startMany`): first the queue alone with
 * writes the test completes in any order or fails (also: the chunks encoded meanwhile start
 * together, one start call per batch, a batch counting as one write in flight), then whole files on a store whose chunk writes
 * finish late and out of order (the bytes are read when the write completes, as libuv's threads
 * do) or fail half-written. Checked: several writes are in flight while a call returns; chunks are
 * recorded only after their bytes are in the file, in queue order; buffers are given back
 * (`ChunkImage.written`) only then; a failed write surfaces as a typed error naming the chunk,
 * leaves the flushed state readable and the chunk's old value in place, and is stored again by the
 * next call; un-awaited calls give the result of their call order.
 */
import { afterEach, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { xorshiftBytes } from './support/xorshift-bytes.js';
import { createFile, H5Error, MemoryStore, openFile, selectBlocks, type ByteStore, type Dataset } from '../packages/core/src/index.js';
import { pipelineOffload, setPipelineOffload } from '../packages/core/src/plugin.js';
import { poisoningOffload } from './support/poisoning-offload.js';
import { WriteQueue, WRITES_IN_FLIGHT } from '../packages/core/src/chunk/write-queue.js';
import type { ChunkImage } from '../packages/core/src/chunk/chunk-format.js';
import type { ImageToWrite, StartedWrite, StartedWrites } from '../packages/core/src/chunk/placement.js';
import { promiseState } from './support/gate-filter.js';

const saved = pipelineOffload();
afterEach(() => setPipelineOffload(saved));

/** A write the test settles: `ok()` or `fail()`. */
interface FakeWrite {
  coords: number;
  ok(): void;
  fail(e: unknown): void;
}

/** A queue whose writes the test completes (one per chunk); logs starts, records and abandons, and the chunks of each start call; `refuse`: a chunk whose place is refused once. */
function fakeQueue(opts: { maxChunks?: number; inFlight?: number; refuse?: number } = {}) {
  const log: string[] = [];
  const writes: FakeWrite[] = [];
  const calls: number[][] = [];
  let refuse = opts.refuse;
  const startOne = (coords: readonly number[], image: ChunkImage): StartedWrite => {
    const c = coords[0]!;
    log.push(`start ${c}`);
    let ok!: () => void;
    let fail!: (e: unknown) => void;
    const done = new Promise<void>((res, rej) => ((ok = res), (fail = rej)));
    done.catch(() => undefined);
    writes.push({ coords: c, ok, fail });
    return {
      done,
      finish: async () => {
        log.push(`record ${c}`);
        image.written?.();
      },
      abandon: () => void log.push(`abandon ${c}`),
    };
  };
  const start = async (items: readonly ImageToWrite[]): Promise<StartedWrites> => {
    calls.push(items.map((it) => it.coords[0]!));
    const out: StartedWrite[] = [];
    for (const it of items) {
      if (it.coords[0] === refuse) {
        refuse = undefined; // once
        log.push(`refuse ${it.coords[0]}`);
        return { writes: out, failure: { error: new H5Error(`no place for chunk ${it.coords[0]}`) } };
      }
      out.push(startOne(it.coords, it.image));
    }
    return { writes: out };
  };
  const q = new WriteQueue(1 << 30, start, opts.maxChunks ?? 8, opts.inFlight ?? WRITES_IN_FLIGHT);
  const image = (c: number): ChunkImage => ({ bytes: new Uint8Array(4), filterMask: 0, written: () => void log.push(`written ${c}`) });
  const add = (c: number) => q.add([c], 4, async () => image(c));
  const flushMicrotasks = () => new Promise((r) => setTimeout(r, 0));
  /** The last write started for chunk `c`. */
  const at = (c: number): FakeWrite => [...writes].reverse().find((w) => w.coords === c)!;
  return { q, log, writes, calls, at, add, flushMicrotasks };
}

describe('write queue: several file writes in flight', () => {
  it('starts writes of encoded chunks without waiting for them, up to the bound, and records them in queue order once written', async () => {
    const { q, log, writes, add, flushMicrotasks } = fakeQueue({ inFlight: 2 });
    for (let c = 0; c < 4; c++) {
      expect(await promiseState(add(c))).toBe('done'); // no call waits for a file write
      await flushMicrotasks();
    }
    expect(log).toEqual(['start 0', 'start 1']); // two in flight
    writes[1]!.ok(); // completes out of order
    await q.storeEncoded();
    expect(log).toEqual(['start 0', 'start 1']); // chunk 1 waits for chunk 0 to be recorded
    writes[0]!.ok();
    await q.storeEncoded();
    expect(log).toEqual(['start 0', 'start 1', 'record 0', 'written 0', 'record 1', 'written 1', 'start 2', 'start 3']);
    const s = q.settle();
    expect(await promiseState(s)).toBe('pending'); // settle waits for the writes in flight
    writes[3]!.ok();
    writes[2]!.ok();
    await s;
    expect(log.slice(8)).toEqual(['record 2', 'written 2', 'record 3', 'written 3']);
    expect(q.busy).toBe(false);
  });

  it('back-pressure counts chunks whose writes are in flight', async () => {
    const { q, log, writes, add, flushMicrotasks } = fakeQueue({ maxChunks: 2, inFlight: 2 });
    await add(0);
    await flushMicrotasks();
    await add(1);
    await flushMicrotasks();
    const third = add(2);
    expect(await promiseState(third)).toBe('pending'); // two chunks queued, both being written
    expect(log).toEqual(['start 0', 'start 1']);
    writes[0]!.ok();
    await third;
    expect(log).toEqual(['start 0', 'start 1', 'record 0', 'written 0']);
    writes[1]!.ok();
    await flushMicrotasks();
    const s = q.settle();
    await flushMicrotasks();
    writes[2]!.ok();
    await s;
    expect(log.filter((l) => l.startsWith('record'))).toEqual(['record 0', 'record 1', 'record 2']);
  });

  it('a failed write: the chunks written are recorded, the failed one gives its space back, stays queued and is written again by the next call', async () => {
    const { q, log, writes, add, flushMicrotasks } = fakeQueue({ inFlight: 3 });
    for (let c = 0; c < 3; c++) {
      await add(c);
      await flushMicrotasks();
    }
    await q.storeEncoded();
    expect(writes.length).toBe(3);
    writes[2]!.ok();
    writes[1]!.fail(new H5Error('disk full'));
    writes[0]!.ok();
    const err = await q.storeEncoded().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(H5Error);
    expect(log.filter((l) => !l.startsWith('start'))).toEqual(['record 0', 'written 0', 'abandon 1', 'record 2', 'written 2']);
    expect(q.has('1')).toBe(true);
    expect(q.has('2')).toBe(false);
    expect(q.busy).toBe(true);
    const s = q.settle(); // reported once; stores chunk 1 again
    await flushMicrotasks();
    expect(log.at(-1)).toBe('start 1');
    writes[3]!.ok();
    await s;
    expect(log.slice(-2)).toEqual(['record 1', 'written 1']);
    expect(q.busy).toBe(false);
  });

  it('a chunk queued twice is not written twice at once: the second write starts once the first is recorded', async () => {
    const { q, log, writes, flushMicrotasks } = fakeQueue({ inFlight: 4 });
    const img = (): ChunkImage => ({ bytes: new Uint8Array(4), filterMask: 0 });
    await q.add([5], 4, async () => img());
    await flushMicrotasks();
    await q.add([5], 4, async () => img());
    await flushMicrotasks();
    await q.storeEncoded();
    expect(log).toEqual(['start 5']);
    writes[0]!.ok();
    await q.storeEncoded();
    expect(log).toEqual(['start 5', 'record 5', 'start 5']);
    writes[1]!.ok();
    await q.settle();
    expect(log).toEqual(['start 5', 'record 5', 'start 5', 'record 5']);
  });
});

/** The log without the images' `written` entries. */
const seen = (log: readonly string[]): string[] => log.filter((l) => !l.startsWith('written'));

describe('write queue: chunks encoded meanwhile start together', () => {
  it('chunks encoded while the writes are in flight go out with one start call, which counts as one write in flight', async () => {
    const { q, log, calls, at, add, flushMicrotasks: turn } = fakeQueue({ maxChunks: 16, inFlight: 1 });
    await add(0);
    await turn();
    for (let c = 1; c < 6; c++) {
      await add(c);
      await turn();
    }
    expect(calls).toEqual([[0]]); // one batch in flight: the others wait, encoded
    at(0)!.ok();
    await q.storeEncoded();
    expect(calls).toEqual([[0], [1, 2, 3, 4, 5]]);
    expect(seen(log)).toEqual(['start 0', 'record 0', 'start 1', 'start 2', 'start 3', 'start 4', 'start 5']);
    await add(6);
    await turn();
    await q.storeEncoded();
    expect(calls.length).toBe(2); // the batch of five is one write in flight: chunk 6 waits
    // finished out of order: recorded in queue order, each once its bytes are written
    for (const c of [5, 3, 1]) at(c)!.ok();
    await q.storeEncoded();
    expect(seen(log).slice(7)).toEqual(['record 1']);
    for (const c of [2, 4]) at(c)!.ok();
    await q.storeEncoded();
    expect(seen(log).slice(8)).toEqual(['record 2', 'record 3', 'record 4', 'record 5', 'start 6']);
    const s = q.settle();
    await turn();
    at(6)!.ok();
    await s;
    expect(q.busy).toBe(false);
  });

  it('a batch holds a chunk once: a chunk queued again waits for its first write to be recorded', async () => {
    const { q, calls, at, add, flushMicrotasks: turn } = fakeQueue({ maxChunks: 16, inFlight: 1 });
    await add(0);
    await turn();
    for (const c of [1, 2, 1, 3]) {
      await add(c);
      await turn();
    }
    at(0)!.ok();
    await q.storeEncoded();
    expect(calls).toEqual([[0], [1, 2]]);
    at(1)!.ok();
    at(2)!.ok();
    await q.storeEncoded();
    expect(calls).toEqual([[0], [1, 2], [1, 3]]);
    at(1)!.ok();
    at(3)!.ok();
    await q.settle();
  });

  it('a place refused in the middle of a batch: the chunks before it are written and recorded, it and those after stay queued and are stored by the next call', async () => {
    const { q, log, calls, at, add, flushMicrotasks: turn } = fakeQueue({ maxChunks: 16, inFlight: 1, refuse: 3 });
    await add(0);
    await turn();
    for (let c = 1; c < 5; c++) {
      await add(c);
      await turn();
    }
    at(0)!.ok();
    const storing = q.storeEncoded().catch((e: unknown) => e);
    await turn();
    // started 1 and 2, refused 3: the call reports once the writes of 1 and 2 have settled
    expect(calls).toEqual([[0], [1, 2, 3, 4]]);
    expect(seen(log)).toEqual(['start 0', 'record 0', 'start 1', 'start 2', 'refuse 3']);
    expect(await Promise.race([storing, turn().then(() => 'waiting')])).toBe('waiting');
    at(2)!.ok();
    at(1)!.ok();
    const err = await storing;
    expect(err).toBeInstanceOf(H5Error);
    expect(String((err as Error).message)).toMatch(/no place for chunk 3/);
    expect(seen(log).slice(5)).toEqual(['record 1', 'record 2']);
    expect(q.has('1') || q.has('2')).toBe(false);
    expect(q.has('3') && q.has('4')).toBe(true);
    const s = q.settle();
    await turn();
    expect(calls.at(-1)).toEqual([3, 4]);
    expect(seen(log).slice(7)).toEqual(['start 3', 'start 4']);
    at(3)!.ok();
    at(4)!.ok();
    await s;
    expect(seen(log).slice(-2)).toEqual(['record 3', 'record 4']);
    expect(q.busy).toBe(false);
  });

  it('a failed write of a batch: every chunk of it gives its space back and stays queued; the chunks of the batch before it are recorded', async () => {
    const { q, log, at, add, flushMicrotasks: turn } = fakeQueue({ maxChunks: 16, inFlight: 2 });
    for (let c = 0; c < 5; c++) {
      await add(c);
      await turn();
    }
    // 0 and 1 alone (two batches in flight), then 2–4 together once 0 is recorded
    at(0)!.ok();
    await q.storeEncoded();
    expect(seen(log)).toEqual(['start 0', 'start 1', 'record 0', 'start 2', 'start 3', 'start 4']);
    at(1)!.ok();
    const ioError = new H5Error('EIO');
    for (const c of [2, 3, 4]) at(c)!.fail(ioError); // one gather write: all its chunks fail
    const err = await q.storeEncoded().catch((e: unknown) => e);
    expect(err).toBe(ioError);
    expect(seen(log).slice(6)).toEqual(['record 1', 'abandon 2', 'abandon 3', 'abandon 4']);
    expect([2, 3, 4].every((c) => q.has(String(c)))).toBe(true);
    const s = q.settle(); // written again, together
    await turn();
    expect(seen(log).slice(10)).toEqual(['start 2', 'start 3', 'start 4']);
    for (const c of [2, 3, 4]) at(c)!.ok();
    await s;
    expect(q.busy).toBe(false);
  });
});

/**
 * A store over memory whose writes of `min` bytes or more (chunk images; the file's own small
 * writes go through at once) finish after a random delay, reading the bytes when they finish;
 * `failAt(n)` makes the n-th such write (from 0) write half its bytes and fail, `failAll` every one.
 */
class LateStore implements ByteStore {
  readonly mem = new MemoryStore();
  inFlight = 0;
  maxInFlight = 0;
  count = 0;
  failAt = -1;
  failAll = false;
  private rnd = 12345;
  constructor(private readonly min: number) {}
  size(): Promise<number> {
    return this.mem.size();
  }
  read(offset: number, length: number): Promise<Uint8Array> {
    return this.mem.read(offset, length);
  }
  truncate(size: number): Promise<void> {
    return this.mem.truncate(size);
  }
  flush(): Promise<void> {
    return this.mem.flush();
  }
  async write(offset: number, bytes: Uint8Array): Promise<void> {
    if (bytes.length < this.min) return this.mem.write(offset, bytes);
    const n = this.count++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    this.rnd = (this.rnd * 1103515245 + 12345) >>> 0;
    await new Promise((r) => setTimeout(r, (this.rnd >>> 16) % 4));
    this.inFlight--;
    if (this.failAll || n === this.failAt) {
      await this.mem.write(offset, bytes.subarray(0, bytes.length >> 1)); // torn
      throw new Error(`EIO: write ${n} failed`);
    }
    await this.mem.write(offset, bytes);
  }
  /** The bytes as they are now (a file a crash would leave). */
  snapshot(): Uint8Array {
    return this.mem.toBytes().slice();
  }
}

const N = 12;
const H = 32;
const W = 64; // uint8 frames, one chunk each (2 KiB; the bytes below do not deflate)
/** Writes of chunk images (the file's own small writes go through at once). */
const MIN = 1500;
const frameSel = (i: number, n = 1) => selectBlocks([{ start: [i, 0, 0], end: [i + n, H, W] }]);
function frames(seed: number, n = N): Uint8Array {
  return xorshiftBytes(seed, n * H * W);
}

async function readAll(bytes: Uint8Array): Promise<Uint8Array> {
  const g = await openFile(bytes);
  try {
    return (await ((await g.get('d')) as Dataset).read()) as Uint8Array;
  } finally {
    await g.close();
  }
}

async function newFile(store: ByteStore) {
  const f = await createFile(store, { backgroundWrites: true });
  const ds = (await f.createDataset('d', { dtype: 'uint8', shape: [N, H, W], chunks: [1, H, W], compression: 'gzip', compressionOpts: 1 })) as Dataset;
  return { f, ds };
}

/** A file on a {@link LateStore} whose dataset holds `frames(seed)`, flushed. */
async function flushedFile(seed: number) {
  setPipelineOffload(poisoningOffload((n) => n % 3));
  const store = new LateStore(MIN);
  const { f, ds } = await newFile(store);
  const old = frames(seed);
  await ds.write(old);
  await f.flush();
  return { store, f, ds, old };
}

describe('background writes on a store whose writes finish late and out of order', () => {
  it('several chunk writes are in flight; every chunk reads back, also before close; buffers are given back only once written', async () => {
    const off = poisoningOffload((n) => n % 3);
    setPipelineOffload(off);
    const store = new LateStore(MIN);
    const { f, ds } = await newFile(store);
    const data = frames(1);
    for (let i = 0; i < N / 2; i++) await ds.write(data.subarray(i * H * W, (i + 1) * H * W), frameSel(i)); // frame by frame
    await ds.write(data.subarray((N / 2) * H * W), frameSel(N / 2, N / 2)); // the rest in one call
    expect(store.maxInFlight).toBeGreaterThanOrEqual(2);
    expect(Buffer.compare((await ds.read()) as Uint8Array, data)).toBe(0);
    const again = frames(2);
    await ds.write(again); // every chunk rewritten (fresh space): old space released once recorded
    await f.close();
    expect(off.written).toBe(off.encoded);
    setPipelineOffload(saved);
    expect(Buffer.compare(await readAll(store.snapshot()), again)).toBe(0);
  });

  it('un-awaited writes and reads of the same frames give the result of their call order', async () => {
    setPipelineOffload(poisoningOffload((n) => n % 3));
    const store = new LateStore(MIN);
    const { f, ds } = await newFile(store);
    const a = frames(3);
    const b = frames(4);
    const calls = [ds.write(a), ds.read(frameSel(5)), ds.write(b.subarray(0, 6 * H * W), frameSel(0, 6)), ds.read(frameSel(4, 2)), ds.write(a.subarray(5 * H * W, 6 * H * W), frameSel(5)), ds.read()];
    const results = await Promise.all(calls);
    const frame = (d: Uint8Array, i: number) => d.subarray(i * H * W, (i + 1) * H * W);
    expect(Buffer.compare(results[1] as Uint8Array, frame(a, 5))).toBe(0);
    expect(Buffer.compare(results[3] as Uint8Array, b.subarray(4 * H * W, 6 * H * W))).toBe(0);
    const model = a.slice();
    model.set(b.subarray(0, 5 * H * W));
    expect(Buffer.compare(results[5] as Uint8Array, model)).toBe(0);
    await f.close();
  });

  it('a write that fails half-way surfaces as a typed error naming the chunk; the flushed state stays readable; the chunk is stored again by the next call', async () => {
    const { store, f, ds, old } = await flushedFile(5);
    const flushed = store.snapshot();
    const next = frames(6);
    // the last chunk's write fails (started by the next call, while the one before may still be in flight)
    store.failAt = store.count + N - 1;
    await ds.write(next); // returns before the writes finish
    const err = await ds.read(frameSel(0)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(H5Error);
    expect(String((err as Error).message)).toMatch(/chunk \[\d+, 0, 0\]/);
    expect(String((err as Error).message)).toMatch(/EIO: write \d+ failed/);
    expect(String((err as Error).message)).toMatch(/\/d/);
    // nothing flushed was written over: the flushed state reads back from the bytes now
    expect(Buffer.compare(await readAll(store.snapshot()), old)).toBe(0);
    expect(Buffer.compare(await readAll(flushed), old)).toBe(0);
    // the next call stores the failed chunk again: every frame has its new value
    expect(Buffer.compare((await ds.read()) as Uint8Array, next)).toBe(0);
    await f.close();
    expect(Buffer.compare(await readAll(store.snapshot()), next)).toBe(0);
  });

  it('writes that keep failing: each call reports it, reads see the chunks stored, and the file on disk keeps the last flushed state', async () => {
    const { store, f, ds, old } = await flushedFile(7);
    store.failAll = true;
    // the first failures may surface in the write itself (back-pressure stores chunks in it)
    const first = await ds.write(frames(8)).catch((e: unknown) => e);
    if (first !== undefined) expect(first).toBeInstanceOf(H5Error);
    for (let k = 0; k < 3; k++) {
      const err = await ds.read(frameSel(0)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(H5Error);
      expect(String((err as Error).message)).toMatch(/chunk \[\d+, 0, 0\]/);
    }
    expect(Buffer.compare(await readAll(store.snapshot()), old)).toBe(0);
    const closing = await f.close().catch((e: unknown) => e);
    expect(closing).toBeInstanceOf(Error); // a chunk's write, or the file's own (metadata: not typed here)
    expect(Buffer.compare(await readAll(store.snapshot()), old)).toBe(0);
  });
});
