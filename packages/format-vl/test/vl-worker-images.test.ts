/**
 * Whole dense VL chunks of a column built in shared slabs, their checksums written on the filter
 * worker pool (src/vl-image-offload.ts, docs/format-vl.md §5.2): the file bytes are those of chunks
 * built on the calling thread without a pool (1-D chunks, 2-D chunks of whole rows; a chunk of
 * several runs is built the usual way), offsets of either type, a column starting inside its buffer,
 * empty strings, a filtered heap, random strings with non-ASCII ones, several writes reusing the
 * slabs, one after another and at once, more sections than the ring has slots); the caller's column
 * may change once the write returns; a job the pool declines, that fails there, that answers late,
 * that stops inside a section it claimed or is slow on one, and a pool without threads, give the
 * same bytes sealed here; a chunk used before it is encoded gets a sealed image of its own; the
 * worker's side seals only the sections it claims, waits on the ring for more and ends at a slab it
 * was not sent; a failed file write leaves the slab alone until the chunk is stored again.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore, createFile, openFile, type Dataset } from '@chunkform/core';
import { pipelineOffload, setPipelineOffload, type PipelineOffload } from '@chunkform/core/plugin';
import { configureWorkers, workerStats } from '@chunkform/filters';
import { VLStrings, createVlDataset, type VlDatasetOptions } from '../src/index.js';
import { VlChunk } from '../src/vl-chunk.js';
import { columnChunk } from '../src/vl-image.js';
import { MIN_POOL_THREADS, MIN_POOL_THREADS_FILTERED, encodeOwned, ownImage, slabChunk } from '../src/vl-image-offload.js';
import { CLAIMED, FREE, RING_ACTIVE, RING_CURSOR, RING_DESC, RING_HEAD, RING_HEADER, RING_SIZE, SEALED, descAt } from '../src/vl-image-ring.js';
import { sealRing, type SealRingArgs } from '../src/vl-image-task.js';
import { seal } from '../src/vl-sections.js';
import { fileBytes } from './support.js';

/** `n` strings of 0–60 bytes, some multi-byte UTF-8, some empty. */
function strings(n: number, seed: number): string[] {
  const out: string[] = [];
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    const len = x % 61;
    out.push(i % 97 === 0 ? '' : i % 31 === 0 ? `é ${i} 日本` : `line ${i} `.padEnd(len, String.fromCharCode(97 + (x % 26))));
  }
  return out;
}

/** Jobs sent to the pool's `runTask` by {@link poolBytes} (counted, then run by the pool). */
let tasks = 0;

/** The file bytes of one VL dataset written with `data` in one write, with the pool at `threads` threads (`minBytes` 0: every chunk goes). */
async function poolBytes(opts: VlDatasetOptions, data: unknown, threads: number): Promise<Uint8Array> {
  configureWorkers({ threads, minBytes: 0 });
  const pool = pipelineOffload()!;
  const counting: PipelineOffload = Object.create(pool) as PipelineOffload;
  Object.defineProperty(counting, 'runTask', { value: (t: Parameters<NonNullable<PipelineOffload['runTask']>>[0]) => (tasks++, pool.runTask!(t)) });
  setPipelineOffload(counting);
  try {
    return await fileBytes(opts, data);
  } finally {
    setPipelineOffload(pool);
  }
}

async function readBack(bytes: Uint8Array): Promise<string[]> {
  const f = await openFile(new MemoryStore(bytes.slice()));
  const d = (await f.get('s')) as Dataset;
  const v = (await d.readColumnar<VLStrings>()).toArray();
  await f.close();
  return v;
}

afterAll(() => configureWorkers());

describe('dense VL chunks of a column built on the worker pool', () => {
  const v = strings(5000, 7);
  const cases: [string, VlDatasetOptions, () => VLStrings][] = [
    ['1-D chunks (one run each), a partial edge chunk', { dtype: 'string', shape: [5000], chunks: [640] }, () => VLStrings.from(v)],
    ['offsets of 64-bit floats', { dtype: 'string', shape: [5000], chunks: [640] }, () => { const c = VLStrings.from(v); return new VLStrings(c.bytes, Float64Array.from(c.offsets)); }],
    ['a column starting inside its buffer', { dtype: 'string', shape: [5000], chunks: [1000] }, () => { const c = VLStrings.from(['skipped', ...v]); return new VLStrings(c.bytes, c.offsets.subarray(1)); }],
    ['2-D chunks of whole rows (one run each)', { dtype: 'string', shape: [50, 100], chunks: [16, 100] }, () => VLStrings.from(v)],
    ['deflate on the heap', { dtype: 'string', shape: [5000], chunks: [640], filters: { heap: [{ id: 1, clientData: [1] }] } }, () => VLStrings.from(v)],
    ['every string empty', { dtype: 'string', shape: [3000], chunks: [1000] }, () => VLStrings.from(Array.from({ length: 3000 }, () => ''))],
  ];
  for (const [name, opts, col] of cases) {
    it(`${name}: the bytes of chunks built on the calling thread`, async () => {
      const here = await poolBytes(opts, col(), 0);
      const before = tasks;
      const threads = opts.filters ? MIN_POOL_THREADS_FILTERED : MIN_POOL_THREADS;
      const there = await poolBytes(opts, col(), threads);
      expect(tasks).toBeGreaterThan(before); // (the chunks' checksums went to the workers)
      expect(Buffer.from(await poolBytes(opts, col(), threads + 1)).equals(Buffer.from(here))).toBe(true);
      expect(Buffer.from(there).equals(Buffer.from(here))).toBe(true);
      const expected = opts.shape.length === 1 ? col().toArray() : col().toArray().slice(0, 5000);
      expect(await readBack(there)).toEqual(expected);
    });
  }

  it("the caller's column changed right after the write returns: the file holds what was written", async () => {
    configureWorkers({ threads: MIN_POOL_THREADS, minBytes: 0 });
    const store = new MemoryStore();
    const f = await createFile(store, { superblockVersion: 3 });
    const d = await createVlDataset(f, 's', { dtype: 'string', shape: [5000], chunks: [500] });
    const col = VLStrings.from(v);
    await d.write(col);
    col.bytes.fill(0x21); // (the chunks still being built on the workers use their staged copy)
    await f.close();
    expect(await readBack(store.toBytes())).toEqual(v);
  });

  /** A file of datasets `d0`, `d1`, … written from `cols` (chunks of `chunk`), one after another or all at once. */
  async function manyBytes(cols: VLStrings[], chunk: number, threads: number, atOnce: boolean): Promise<Uint8Array> {
    configureWorkers({ threads, minBytes: 0 });
    const store = new MemoryStore();
    const f = await createFile(store, { superblockVersion: 3 });
    const sets = [];
    for (let k = 0; k < cols.length; k++) sets.push(await createVlDataset(f, `d${k}`, { dtype: 'string', shape: [cols[k]!.length], chunks: [Math.min(chunk, cols[k]!.length)] }));
    if (atOnce) await Promise.all(sets.map((d, k) => d.write(cols[k]!)));
    else for (let k = 0; k < cols.length; k++) await sets[k]!.write(cols[k]!);
    await f.close();
    return store.toBytes();
  }

  /** The stored bytes of every chunk of every dataset of `bytes` (the file layouts may differ: chunks queued behind a call are stored by a later one). */
  async function chunkImages(bytes: Uint8Array, cols: VLStrings[], chunk: number): Promise<Buffer[]> {
    const f = await openFile(new MemoryStore(bytes.slice()));
    const out: Buffer[] = [];
    for (let k = 0; k < cols.length; k++) {
      const d = (await f.get(`d${k}`)) as Dataset;
      const c = Math.min(chunk, cols[k]!.length);
      for (let at = 0; at < cols[k]!.length; at += c) out.push(Buffer.from((await d.readChunk([at])).bytes));
    }
    await f.close();
    return out;
  }

  it('random strings (some not ASCII) in several datasets, written one after another and at once, the slabs reused: the same chunk bytes', async () => {
    let x = 0x9e3779b9;
    const rnd = (): number => ((x = (x ^ (x << 13)) >>> 0), (x = (x ^ (x >>> 17)) >>> 0), (x = (x ^ (x << 5)) >>> 0));
    const alphabet = ['a', 'Z', '0', ' ', 'é', 'ß', '日', '本', '😀', '\u0000', '~'];
    const random = (n: number): string[] => Array.from({ length: n }, () => Array.from({ length: rnd() % 40 }, () => alphabet[rnd() % alphabet.length]).join(''));
    const values = [random(7000), random(3001), random(12000), random(1)];
    const cols = values.map((v) => VLStrings.from(v));
    for (const chunk of [256, 1000]) {
      const here = await chunkImages(await manyBytes(cols, chunk, 0, false), cols, chunk);
      for (const atOnce of [false, true]) {
        const there = await manyBytes(cols, chunk, MIN_POOL_THREADS, atOnce);
        expect((await chunkImages(there, cols, chunk)).every((b, i) => b.equals(here[i]!))).toBe(true);
        const f = await openFile(new MemoryStore(there.slice()));
        for (let k = 0; k < values.length; k++) expect((await ((await f.get(`d${k}`)) as Dataset).readColumnar<VLStrings>()).toArray()).toEqual(values[k]);
        await f.close();
      }
    }
  });

  /** What a file holds after a file write of `a` fails once, `b` is written twice to another dataset and the file flushed and closed. */
  async function afterFailure(threads: number): Promise<{ a: string[]; b: string[] }> {
    configureWorkers({ threads, minBytes: 0 });
    /** A memory store whose next write of more than 1000 bytes fails once when armed. */
    class FailingStore extends MemoryStore {
      armed = false;
      override async write(offset: number, bytes: Uint8Array): Promise<void> {
        if (this.armed && bytes.length > 1000) {
          this.armed = false;
          throw new Error('disk full (test)');
        }
        return super.write(offset, bytes);
      }
    }
    const store = new FailingStore();
    const f = await createFile(store, { superblockVersion: 3 });
    const da = await createVlDataset(f, 'a', { dtype: 'string', shape: [6000], chunks: [500] });
    const db = await createVlDataset(f, 'b', { dtype: 'string', shape: [6000], chunks: [500] });
    store.armed = true;
    await da.write(VLStrings.from(strings(6000, 3))).catch(() => undefined);
    await db.write(VLStrings.from(strings(6000, 4)));
    await db.write(VLStrings.from(strings(6000, 4)));
    await f.flush().catch(() => undefined); // (the chunk whose write failed is stored now)
    await f.close();
    const g = await openFile(new MemoryStore(store.toBytes()));
    const got = { a: (await ((await g.get('a')) as Dataset).readColumnar<VLStrings>()).toArray(), b: (await ((await g.get('b')) as Dataset).readColumnar<VLStrings>()).toArray() };
    await g.close();
    return got;
  }

  it('a failed file write: every other chunk, and those written after it to the same slabs, hold their values (as without a pool)', async () => {
    const want = strings(6000, 3);
    for (const threads of [0, MIN_POOL_THREADS]) {
      const got = await afterFailure(threads);
      expect(got.b).toEqual(strings(6000, 4));
      // (the chunk whose write failed holds what it held before, the fill: which one it is depends on timing)
      const lost = [];
      for (let c = 0; c < 6000; c += 500) {
        const part = got.a.slice(c, c + 500);
        if (part.every((v) => v === '')) lost.push(c);
        else expect(part).toEqual(want.slice(c, c + 500));
      }
      expect(lost.length).toBeLessThanOrEqual(1);
    }
  });
});

describe('fallback to the calling thread', () => {
  const v = strings(4000, 11);
  const opts: VlDatasetOptions = { dtype: 'string', shape: [4000], chunks: [500] };

  /** Runs `fn` with the pool's offload wrapped: `runTask` answered by `answer` (null: declined). */
  async function withRunTask(answer: PipelineOffload['runTask'], fn: () => Promise<void>): Promise<void> {
    configureWorkers({ threads: MIN_POOL_THREADS, minBytes: 0 });
    const pool = pipelineOffload()!;
    const wrapped: PipelineOffload = Object.create(pool) as PipelineOffload;
    Object.defineProperty(wrapped, 'runTask', { value: answer });
    setPipelineOffload(wrapped);
    try {
      await fn();
    } finally {
      setPipelineOffload(pool);
    }
  }

  const written = (): Promise<Uint8Array> => fileBytes(opts, VLStrings.from(v));

  it('a job the pool declines, one that failed there, one that answered nonsense and one that answers late: the chunks are sealed here, same bytes', async () => {
    const here = await poolBytes(opts, VLStrings.from(v), 0);
    // (late: the job runs here 30 ms after it was sent, and does not wait on the ring)
    const late = (t: Parameters<NonNullable<PipelineOffload['runTask']>>[0]): Promise<unknown> => new Promise((ok) => setTimeout(() => ok(sealRing({ ...(t.args as SealRingArgs), idleMs: 0 }).value), 30));
    for (const answer of [() => null, () => Promise.resolve(null), () => Promise.resolve(new Uint8Array(3)), late] as PipelineOffload['runTask'][]) {
      let bytes!: Uint8Array;
      let asked = 0;
      await withRunTask((t) => (asked++, answer!(t)), async () => void (bytes = await written()));
      expect(asked).toBeGreaterThan(0);
      expect(Buffer.from(bytes).equals(Buffer.from(here))).toBe(true);
    }
    await new Promise((ok) => setTimeout(ok, 60)); // (the late job runs after the write: let it end)
  });

  /** Claims the first free section published in the job's ring (as a worker starting on it): its cell index, or -1. */
  function claimOne(args: SealRingArgs): number {
    const { ring } = args;
    for (let d = Atomics.load(ring, RING_CURSOR); d !== Atomics.load(ring, RING_HEAD); d = (d + 1) | 0) {
      if (Atomics.compareExchange(ring, descAt(d) + 3, FREE, CLAIMED) === FREE) return descAt(d);
    }
    return -1;
  }

  it('a worker that stops inside a section (its job fails with the section claimed) and one slow on a section: the calling thread seals them, same bytes', async () => {
    const here = await poolBytes(opts, VLStrings.from(v), 0);
    // stops: claims a section, writes nothing, and its job fails (the section stays claimed for good)
    const stops = (t: Parameters<NonNullable<PipelineOffload['runTask']>>[0]): Promise<unknown> => {
      const args = t.args as SealRingArgs;
      claimOne(args);
      Atomics.store(args.ring, RING_ACTIVE, 0);
      return Promise.resolve(null);
    };
    // slow: claims a section, seals it 5 ms later (the calling thread waits for it, sealing the others), then the rest
    const slow = (t: Parameters<NonNullable<PipelineOffload['runTask']>>[0]): Promise<unknown> => {
      const args = t.args as SealRingArgs;
      const at = claimOne(args);
      return new Promise((ok) =>
        setTimeout(() => {
          if (at >= 0) {
            const { ring, slabs } = args;
            seal(slabs.get(ring[at]!)!.subarray(ring[at + 1]!, ring[at + 2]!));
            Atomics.store(ring, at + 3, SEALED);
            Atomics.notify(ring, at + 3);
          }
          ok(sealRing({ ...args, idleMs: 0 }).value);
        }, 5),
      );
    };
    for (const answer of [stops, slow]) {
      let bytes!: Uint8Array;
      let asked = 0;
      await withRunTask((t) => (asked++, answer(t)), async () => void (bytes = await written()));
      expect(asked).toBeGreaterThan(0);
      expect(Buffer.from(bytes).equals(Buffer.from(here))).toBe(true);
    }
    // (the slabs of sections left claimed are not reused: the next writes on the pool give the same bytes)
    expect(Buffer.from(await poolBytes(opts, VLStrings.from(v), MIN_POOL_THREADS)).equals(Buffer.from(here))).toBe(true);
  });

  it('more sections than the ring has slots (a slot is reused only once its section is sealed): the same bytes', async () => {
    const many = strings(24000, 5);
    const o: VlDatasetOptions = { dtype: 'string', shape: [24000], chunks: [16] }; // (1500 chunks, 3000 sections)
    expect(3000).toBeGreaterThan(RING_SIZE);
    const here = await poolBytes(o, VLStrings.from(many), 0);
    const before = tasks;
    const there = await poolBytes(o, VLStrings.from(many), MIN_POOL_THREADS);
    expect(tasks).toBeGreaterThan(before); // (slots a stopped worker left claimed, above, are skipped: the ring goes on)
    expect(Buffer.from(there).equals(Buffer.from(here))).toBe(true);
  });

  /** A ring holding descriptors `(slab, start, end, state)`, published. */
  function ringOf(...descs: [number, number, number, number][]): Int32Array {
    const ring = new Int32Array(new SharedArrayBuffer(4 * (RING_HEADER + RING_DESC * RING_SIZE)));
    descs.forEach((d, k) => ring.set(d, descAt(k)));
    ring[RING_HEAD] = descs.length;
    ring[RING_ACTIVE] = 1;
    return ring;
  }

  it('a job on a worker seals the free sections in the shared memory, as the calling thread does, waiting on the ring for more', async () => {
    configureWorkers({ threads: MIN_POOL_THREADS, minBytes: 0 });
    const images = new Uint8Array(new SharedArrayBuffer(8192));
    for (let i = 0; i < images.length; i++) images[i] = (i * 31) & 0xff;
    const want = images.slice();
    for (const [a, b] of [[0, 1000], [1000, 4096], [4096, 8192]] as const) seal(want.subarray(a, b));
    const ring = ringOf([5, 0, 1000, FREE], [5, 1000, 4096, FREE]);
    const job = pipelineOffload()!.runTask!({ module: new URL('../src/vl-image-task.ts', import.meta.url).href, fn: 'sealRing', args: { ring, slabs: new Map([[5, images]]), idleMs: 200 } satisfies SealRingArgs, bytes: 4096 });
    // (a third section published while the job waits on the ring)
    while (Atomics.load(ring, descAt(1) + 3) !== SEALED) await new Promise((ok) => setTimeout(ok, 1));
    ring.set([5, 4096, 8192, FREE], descAt(2));
    Atomics.store(ring, RING_HEAD, 3);
    Atomics.notify(ring, RING_HEAD);
    expect(await job).toBe(3);
    expect([0, 1, 2].map((d) => ring[descAt(d) + 3])).toEqual([SEALED, SEALED, SEALED]);
    expect(ring[RING_ACTIVE]).toBe(0);
    expect(Buffer.from(images).equals(Buffer.from(want))).toBe(true);
  });

  it('a task that throws on the worker is counted as failed and the chunk is built here', async () => {
    configureWorkers({ threads: 1, minBytes: 0 });
    const pool = pipelineOffload()!;
    const before = workerStats().failed;
    const r = await pool.runTask!({ module: new URL('../src/vl-image-task.ts', import.meta.url).href, fn: 'sealRing', args: null, bytes: 1 }); // (throws there: no arguments)
    expect(r).toBeNull();
    expect(workerStats().failed).toBe(before + 1);
    const missing = await pool.runTask!({ module: new URL('../src/vl-image-task.ts', import.meta.url).href, fn: 'noSuchFunction', args: {}, bytes: 1 });
    expect(missing).toBeNull();
  });

  it('no worker pool (threads 0), one of fewer than MIN_POOL_THREADS threads, or chunks below its threshold: nothing is built in a slab', () => {
    const col = VLStrings.from(v);
    const one = Float64Array.of(0, 0, 500);
    configureWorkers({ threads: 0 });
    expect(slabChunk(500, one, col, 0, false)).toBeNull();
    configureWorkers({ threads: MIN_POOL_THREADS - 1, minBytes: 0 });
    expect(slabChunk(500, one, col, 0, false)).toBeNull();
    configureWorkers({ threads: MIN_POOL_THREADS, minBytes: 1 << 30 });
    expect(slabChunk(500, one, col, 0, false)).toBeNull();
    configureWorkers({ threads: MIN_POOL_THREADS_FILTERED - 1, minBytes: 0 });
    expect(slabChunk(500, one, col, 0, true)).toBeNull(); // (filters: a pool of MIN_POOL_THREADS_FILTERED)
    configureWorkers({ threads: 2, minBytes: 0 });
    expect(slabChunk(500, one, col, 0, false)).toBeNull(); // (a pool of 2: built the usual way, see MIN_POOL_THREADS)
    configureWorkers({ threads: MIN_POOL_THREADS, minBytes: 0 });
    const mem = slabChunk(500, one, col, 0, false);
    expect(mem).not.toBeNull();
    ownImage(mem!);
    expect(slabChunk(500, Float64Array.of(0, 1000, 300, 400, 1500, 100), col, 0, false)).toBeNull(); // (several runs: built the usual way)
  });

  it('a chunk used before it is encoded gets a sealed image of its own, which later chunks in the slab leave alone', async () => {
    configureWorkers({ threads: MIN_POOL_THREADS, minBytes: 0 });
    const col = VLStrings.from(v);
    const runs = Float64Array.of(0, 1000, 500);
    const expected = columnChunk(500, runs, col, 0)!.image!;
    const mem = slabChunk(500, runs, col, 0, false)!;
    expect(mem).not.toBeNull();
    col.bytes.fill(0); // (the slab's copy is the chunk's own)
    ownImage(mem);
    expect(Buffer.from(mem.image!).equals(Buffer.from(expected))).toBe(true);
    for (let k = 0; k < 20; k++) {
      const other = slabChunk(500, Float64Array.of(0, 2000, 500), VLStrings.from(v), 0, false)!;
      await encodeOwned(other, true, async () => ({ bytes: other.image!, filterMask: 0 }));
    }
    expect(Buffer.from(mem.image!).equals(Buffer.from(expected))).toBe(true);
  });

  it('an image encoded while the engine keeps the chunk (not `last`) is a copy: the slab is not in the stored bytes', async () => {
    configureWorkers({ threads: MIN_POOL_THREADS, minBytes: 0 });
    const col = VLStrings.from(v);
    const runs = Float64Array.of(0, 0, 500);
    const mem = slabChunk(500, runs, col, 0, false)!;
    const image = await encodeOwned(mem, false, async () => ({ bytes: mem.image!, filterMask: 0 }));
    expect(image.bytes.buffer instanceof SharedArrayBuffer).toBe(false);
    expect(image.written).toBeUndefined();
    expect(Buffer.from(image.bytes).equals(Buffer.from(columnChunk(500, runs, col, 0)!.image!))).toBe(true);
  });

  it('the encoder is told when the image is in a slab (its `written` is then the slab\'s, never a kept buffer\'s too)', async () => {
    configureWorkers({ threads: MIN_POOL_THREADS, minBytes: 0 });
    const col = VLStrings.from(v);
    const runs = Float64Array.of(0, 0, 500);
    const told: boolean[] = [];
    const encode = (mem: VlChunk) => async (inSlab: boolean) => {
      told.push(inSlab);
      return { bytes: mem.image!, filterMask: 0 };
    };
    const inSlab = slabChunk(500, runs, col, 0, false)!;
    const image = await encodeOwned(inSlab, true, encode(inSlab));
    expect(image.bytes.buffer instanceof SharedArrayBuffer).toBe(true);
    expect(image.written).toBeTypeOf('function');
    image.written!();
    const kept = slabChunk(500, runs, col, 0, false)!;
    await encodeOwned(kept, false, encode(kept)); // (a copy of its own first)
    const plain = columnChunk(500, runs, col, 0)!;
    await encodeOwned(plain, true, encode(plain));
    expect(told).toEqual([true, false, false]);
  });

  it("the worker's side seals the sections no one claimed and leaves the claimed ones; it ends at a slab it was not sent; a bad section is an error", () => {
    const images = new Uint8Array(new SharedArrayBuffer(64));
    for (let i = 0; i < 64; i++) images[i] = i * 7;
    const before = images.slice();
    const ring = ringOf([1, 0, 24, FREE], [1, 32, 64, CLAIMED]); // (the second claimed by the calling thread)
    expect(sealRing({ ring, slabs: new Map([[1, images]]), idleMs: 0 }).value).toBe(1);
    const want = before.slice(0, 24);
    seal(want);
    expect(Buffer.from(images.subarray(0, 24)).equals(Buffer.from(want))).toBe(true);
    expect(Buffer.from(images.subarray(24)).equals(Buffer.from(before.subarray(24)))).toBe(true);
    expect([ring[descAt(0) + 3], ring[descAt(1) + 3], ring[RING_ACTIVE]]).toEqual([SEALED, CLAIMED, 0]);
    const unknown = ringOf([2, 0, 24, FREE], [1, 32, 64, FREE]);
    expect(sealRing({ ring: unknown, slabs: new Map([[1, images]]), idleMs: 0 }).value).toBe(0);
    expect([unknown[descAt(0) + 3], unknown[descAt(1) + 3], unknown[RING_ACTIVE]]).toEqual([FREE, FREE, 0]);
    expect(() => sealRing({ ring: ringOf([1, 60, 70, FREE]), slabs: new Map([[1, images]]), idleMs: 0 })).toThrow(/not within/);
  });
});
