/**
 * Warming a filter worker on the size of the chunks the pool has run (src/workers/warm.ts,
 * src/workers/pool.ts): a worker started after the pool ran chunks is asked to run its codecs over
 * as many bytes as the largest of them (at most WARM_MAX_BYTES), and warming on a size leaves the
 * codecs writing the bytes they write cold.
 */
import { describe, expect, it, vi } from 'vitest';
import { encodeChunk, setPipelineOffload, type FilterPipeline } from '@chunkform/core/plugin';

// the worker backend, its starts recorded (the real workers still start)
const starts: { warm: readonly number[]; warmBytes: number | undefined }[] = [];
vi.mock('#workers', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/workers/threads-node.js')>();
  return {
    ...real,
    startFilterWorker: (warm?: readonly number[], warmBytes?: number) => {
      starts.push({ warm: [...(warm ?? [])], warmBytes });
      return real.startFilterWorker(warm, warmBytes);
    },
  };
});

const { ALL_FILTERS, configureWorkers, lz4Decode, lz4Encode, startWorkers, stopWorkers, workerStats, zstdDecode, zstdEncode } = await import('../src/index.js');
const { warmFilters, WARM_MAX_BYTES } = await import('../src/workers/warm.js');

const byId = new Map(ALL_FILTERS.map((f) => [f.id, f]));
const resolve = (id: number) => byId.get(id);
const frame = (n: number, seed: number) => new Uint8Array(Uint16Array.from({ length: n }, (_, i) => ((i * 2654435761 + seed) >>> 22) & 0x3ff).buffer);

describe('warming filter workers on the chunk size', () => {
  it('a worker started after the pool ran chunks warms on the largest chunk size', async () => {
    const pipeline: FilterPipeline = { filters: [{ id: 32004, name: '', flags: 0, clientData: [] }] };
    const where = { path: '/d', chunk: [0, 0] };
    const ctx = (side: number) => ({ datatype: { class: 'integer', size: 2, order: 'LE', signed: false } as const, elementSize: 2, chunkDims: [side, side] });
    configureWorkers({ threads: 1, minBytes: 0 });
    try {
      starts.length = 0;
      expect(await startWorkers()).toBe(1);
      expect(starts).toEqual([{ warm: [], warmBytes: 0 }]); // nothing run yet
      const before = workerStats().done;
      await encodeChunk(frame(256 * 256, 1), pipeline, resolve, ctx(256), where);
      await encodeChunk(frame(512 * 512, 2), pipeline, resolve, ctx(512), where);
      await encodeChunk(frame(128 * 128, 3), pipeline, resolve, ctx(128), where);
      expect(workerStats().done - before).toBe(3);
      configureWorkers({ threads: 2, minBytes: 0 });
      expect(await startWorkers()).toBe(2);
      expect(starts[1]).toEqual({ warm: [32004], warmBytes: 512 * 512 * 2 });
      // the warmed worker's chunks are those of the calling thread
      const chunks = [4, 5, 6, 7].map((s) => frame(512 * 512, s));
      const ours = await Promise.all(chunks.map((d) => encodeChunk(d, pipeline, resolve, ctx(512), where)));
      setPipelineOffload(null);
      for (let i = 0; i < chunks.length; i++) expect(Buffer.compare(ours[i]!.bytes, (await encodeChunk(chunks[i]!, pipeline, resolve, ctx(512), where)).bytes)).toBe(0);
    } finally {
      stopWorkers();
      setPipelineOffload(null);
      configureWorkers({ threads: 0 });
      setPipelineOffload(null);
    }
  });

  it('warming on a size (capped) leaves LZ4 and zstd writing the same bytes', async () => {
    const d = frame(300_000, 9);
    const lz4 = lz4Encode(d);
    const zstd = await zstdEncode(d, 3);
    await warmFilters([32004, 32015, 1, 424242], 1 << 20);
    await warmFilters([32004], WARM_MAX_BYTES * 4); // taken as WARM_MAX_BYTES
    await warmFilters([32004, 32015], -5); // nothing sized
    expect(Buffer.compare(lz4Encode(d), lz4)).toBe(0);
    expect(Buffer.compare(await zstdEncode(d, 3), zstd)).toBe(0);
    expect(Buffer.compare(lz4Decode(lz4), d)).toBe(0);
    expect(Buffer.compare(await zstdDecode(zstd), d)).toBe(0);
  });
});
