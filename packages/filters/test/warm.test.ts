/**
 * Warming a filter worker (src/workers/warm.ts): the codecs of the filters named are loaded on the
 * calling thread, so the first chunk after it does not load them; unknown ids are ignored.
 */
import { describe, expect, it } from 'vitest';
import { warmFilters } from '../src/workers/warm.js';
import { encodeChunk, setPipelineOffload, type FilterPipeline } from '@chunkform/core/plugin';
import { ALL_FILTERS, configureWorkers, startWorkers, stopWorkers, workerStats, zstdEncode } from '../src/index.js';

const byId = new Map(ALL_FILTERS.map((f) => [f.id, f]));
const resolve = (id: number) => byId.get(id);
const ctx = { datatype: { class: 'integer', size: 2, order: 'LE', signed: false } as const, elementSize: 2, chunkDims: [512, 512] };
const frame = (seed: number) => new Uint8Array(Uint16Array.from({ length: 512 * 512 }, (_, i) => ((i * 2654435761 + seed) >>> 20) & 0x3ff).buffer);

describe('warming filter workers', () => {
  it('loads the zstd WebAssembly module, after which compression is synchronous', async () => {
    await warmFilters([1, 32015, 99999, 32015]);
    expect(zstdEncode(new Uint8Array(4096).fill(7), 3)).toBeInstanceOf(Uint8Array); // not a Promise: the module is loaded
  });

  it('resolves for filters with nothing to load and for ids it does not know', async () => {
    await expect(warmFilters([])).resolves.toBeUndefined();
    await expect(warmFilters([1, 3, 5, 6, 2, 32004, 32008, 424242])).resolves.toBeUndefined();
  });

  it('a worker the pool starts later is ready once warmed, and its chunks have the bytes of the calling thread', async () => {
    const pipeline: FilterPipeline = { filters: [{ id: 32008, name: '', flags: 0, clientData: [0, 4, 2, 0, 2] }, { id: 32015, name: '', flags: 0, clientData: [3] }] };
    const where = { path: '/d', chunk: [0, 0] };
    configureWorkers({ threads: 1 });
    try {
      expect(await startWorkers()).toBe(1);
      await encodeChunk(frame(1), pipeline, resolve, ctx, where); // the pool has now used bitshuffle and zstd
      configureWorkers({ threads: 2 }); // the second worker loads their codecs before it is ready
      expect(await startWorkers()).toBe(2);
      const before = workerStats().done;
      const frames = [2, 3, 4, 5].map(frame);
      const ours = await Promise.all(frames.map((d) => encodeChunk(d, pipeline, resolve, ctx, where)));
      expect(workerStats().done - before).toBe(4);
      setPipelineOffload(null);
      for (let i = 0; i < frames.length; i++) expect(Buffer.compare(ours[i]!.bytes, (await encodeChunk(frames[i]!, pipeline, resolve, ctx, where)).bytes)).toBe(0);
    } finally {
      stopWorkers();
      setPipelineOffload(null);
    }
  });
});
