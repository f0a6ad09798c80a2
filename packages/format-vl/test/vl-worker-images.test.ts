/**
 * Whole dense VL chunks of a column built on the filter worker pool (src/vl-image-offload.ts,
 * docs/format-vl.md §5.1): the file bytes are those of chunks built on the calling thread (1-D chunks,
 * 2-D chunks of whole rows; a chunk of several runs is built there), offsets of either type, a column starting inside its
 * buffer, empty strings, a filtered heap); the caller's column may change once the write returns; a
 * job the pool declines or that fails there, and a pool without threads, give the same bytes built
 * here; a staged chunk used before it is encoded is built here from its staged copy.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore, createFile, openFile, type Dataset } from '@chunkform/core';
import { pipelineOffload, setPipelineOffload, type PipelineOffload } from '@chunkform/core/plugin';
import { configureWorkers, workerStats } from '@chunkform/filters';
import { VLStrings, createVlDataset, type VlDatasetOptions } from '../src/index.js';
import { VlChunk } from '../src/vl-chunk.js';
import { columnChunk } from '../src/vl-image.js';
import { MIN_POOL_THREADS, settleStaged, stageColumn, unstage } from '../src/vl-image-offload.js';
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

/** The file bytes of one VL dataset written with `data` in one write, with the pool at `threads` threads (`minBytes` 0: every chunk goes). */
async function poolBytes(opts: VlDatasetOptions, data: unknown, threads: number): Promise<Uint8Array> {
  configureWorkers({ threads, minBytes: 0 });
  return fileBytes(opts, data);
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
      const before = workerStats();
      const there = await poolBytes(opts, col(), 3);
      expect(workerStats().done).toBeGreaterThan(before.done); // (the chunks went to the workers)
      expect(workerStats().failed).toBe(before.failed);
      expect(Buffer.from(there).equals(Buffer.from(here))).toBe(true);
      const expected = opts.shape.length === 1 ? col().toArray() : col().toArray().slice(0, 5000);
      expect(await readBack(there)).toEqual(expected);
    });
  }

  it("the caller's column changed right after the write returns: the file holds what was written", async () => {
    configureWorkers({ threads: 3, minBytes: 0 });
    const store = new MemoryStore();
    const f = await createFile(store, { superblockVersion: 3 });
    const d = await createVlDataset(f, 's', { dtype: 'string', shape: [5000], chunks: [500] });
    const col = VLStrings.from(v);
    await d.write(col);
    col.bytes.fill(0x21); // (the chunks still being built on the workers use their staged copy)
    await f.close();
    expect(await readBack(store.toBytes())).toEqual(v);
  });
});

describe('fallback to the calling thread', () => {
  const v = strings(4000, 11);
  const opts: VlDatasetOptions = { dtype: 'string', shape: [4000], chunks: [500] };

  /** Runs `fn` with the pool's offload wrapped: `runTask` answered by `answer` (null: declined). */
  async function withRunTask(answer: PipelineOffload['runTask'], fn: () => Promise<void>): Promise<void> {
    configureWorkers({ threads: 3, minBytes: 0 });
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

  it('a job the pool declines, one that failed there and one that answered nonsense: the chunks are built here, same bytes', async () => {
    const here = await poolBytes(opts, VLStrings.from(v), 0);
    for (const answer of [() => null, () => Promise.resolve(null), () => Promise.resolve(new Uint8Array(3))] as PipelineOffload['runTask'][]) {
      let bytes!: Uint8Array;
      let asked = 0;
      await withRunTask((t) => (asked++, answer!(t)), async () => void (bytes = await written()));
      expect(asked).toBeGreaterThan(0);
      expect(Buffer.from(bytes).equals(Buffer.from(here))).toBe(true);
    }
  });

  it('a task that throws on the worker is counted as failed and the chunk is built here', async () => {
    configureWorkers({ threads: 1, minBytes: 0 });
    const pool = pipelineOffload()!;
    const before = workerStats().failed;
    const r = await pool.runTask!({ module: new URL('../src/vl-image-task.ts', import.meta.url).href, fn: 'columnImage', args: null, bytes: 1 }); // (throws there: no arguments)
    expect(r).toBeNull();
    expect(workerStats().failed).toBe(before + 1);
    const missing = await pool.runTask!({ module: new URL('../src/vl-image-task.ts', import.meta.url).href, fn: 'noSuchFunction', args: {}, bytes: 1 });
    expect(missing).toBeNull();
  });

  it('no worker pool (threads 0), one of fewer than MIN_POOL_THREADS threads, or chunks below its threshold: nothing is staged', () => {
    const col = VLStrings.from(v);
    configureWorkers({ threads: 0 });
    expect(stageColumn(500, Float64Array.of(0, 0, 500), col, 0)).toBeNull();
    configureWorkers({ threads: MIN_POOL_THREADS - 1, minBytes: 0 });
    expect(stageColumn(500, Float64Array.of(0, 0, 500), col, 0)).toBeNull();
    configureWorkers({ threads: 3, minBytes: 1 << 30 });
    expect(stageColumn(500, Float64Array.of(0, 0, 500), col, 0)).toBeNull();
    configureWorkers({ threads: 3, minBytes: 0 });
    expect(stageColumn(500, Float64Array.of(0, 0, 500), col, 0)).not.toBeNull();
    expect(stageColumn(500, Float64Array.of(0, 1000, 300, 400, 1500, 100), col, 0)).toBeNull(); // (several runs: built here)
  });

  it('a staged chunk used before it is encoded is built here from its copy; the job answering later changes nothing', async () => {
    configureWorkers({ threads: 3, minBytes: 0 });
    const col = VLStrings.from(v);
    const runs = Float64Array.of(0, 1000, 500);
    const expected = columnChunk(500, runs, col, 0)!.image!;
    const mem = new VlChunk(500, null);
    mem.staged = stageColumn(500, runs, col, 0);
    expect(mem.staged).not.toBeNull();
    col.bytes.fill(0); // (the staged copy is the chunk's own)
    const job = unstage(mem); // (sent to a worker)
    settleStaged(mem); // (used meanwhile: built here)
    expect(Buffer.from(mem.image!).equals(Buffer.from(expected))).toBe(true);
    await job;
    expect(mem.staged).toBeNull();
    expect(Buffer.from(mem.image!).equals(Buffer.from(expected))).toBe(true);
  });
});
