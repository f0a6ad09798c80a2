/**
 * A frame-by-frame sparse ROI stream with filtered values on the filter worker pool: each chunk's
 * two sections are encoded in one worker job that joins them (`PipelineOffload.encodeSections`),
 * the values of each frame are copied once into a reused shared buffer (format-sparse
 * owned-values.ts) that goes to the worker as it is and is reused once the chunk is stored. The
 * stored sections are those the calling thread encodes, and every frame reads back (buffers are
 * reused while other frames are still queued or cached: none of theirs may change).
 */
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, MemoryStore, openFile, selectBlocks, type Dataset } from '../packages/core/src/index.js';
import { pipelineOffload, setPipelineOffload } from '../packages/core/src/plugin.js';
import { configureWorkers, startWorkers, workerStats } from '../packages/filters/src/index.js';

const S = 512; // frames of S×S uint16; the ROI (half of each side) is 128 KiB of values
const R = S / 2;
const N = 40; // more frames than the queue and a small cache hold: value buffers are reused
const roiSel = (i: number) => selectBlocks([{ start: [i, S / 4, S / 4], end: [i + 1, S / 4 + R, S / 4 + R] }]);
const roiOf = (i: number) => {
  const v = new Uint16Array(R * R);
  for (let k = 0; k < v.length; k++) v[k] = 1 + ((k * 13 + i * 101) % 4093);
  return v;
};

afterAll(() => configureWorkers());

/** Streams N frames (each write awaited, one reused ROI buffer) into a new in-memory file. */
async function stream(): Promise<MemoryStore> {
  const store = new MemoryStore();
  const f = await createFile(store, { superblockVersion: 3 });
  const ds = (await f.createDataset('d', {
    layout: 'sparse',
    dtype: 'uint16',
    shape: [0, S, S],
    maxShape: [null, S, S],
    chunks: [1, S, S],
    chunkCache: { bytes: 3 * R * R * 2 },
    filters: { selection: [{ id: 1, clientData: [1] }], values: [{ id: 2 }, { id: 1, clientData: [1] }] },
  } as never)) as Dataset;
  const roi = new Uint16Array(R * R);
  for (let i = 0; i < N; i++) {
    await ds.resize([i + 1, S, S]);
    roi.set(roiOf(i));
    await ds.write(roi, roiSel(i));
  }
  await f.close();
  return store;
}

describe('sparse ROI stream on the filter worker pool', () => {
  it('one job per chunk gives the sections the calling thread encodes; every frame reads back', async () => {
    configureWorkers({ threads: 2 });
    expect(await startWorkers()).toBe(2);
    const saved = pipelineOffload()!;
    const calls = { sections: 0, encode: 0 };
    setPipelineOffload({
      ...saved,
      threads: saved.threads,
      encode: (...a) => (calls.encode++, saved.encode(...a)),
      encodeSections: (x) => (calls.sections++, saved.encodeSections!(x)),
    });
    const before = workerStats();
    let pooled: MemoryStore;
    try {
      pooled = await stream();
    } finally {
      setPipelineOffload(saved);
    }
    expect(calls).toEqual({ sections: N, encode: 0 }); // both sections of each chunk in one job
    expect(workerStats().done - before.done).toBe(N);
    expect(workerStats().failed).toBe(before.failed);
    setPipelineOffload(null);
    let inline: MemoryStore;
    try {
      inline = await stream();
    } finally {
      setPipelineOffload(saved);
    }
    const a = await openFile(pooled.toBytes());
    const b = await openFile(inline.toBytes());
    const da = (await a.get('d')) as Dataset;
    const db = (await b.get('d')) as Dataset;
    for (let i = 0; i < N; i++) {
      const x = await da.readStructChunk([i, 0, 0]);
      const y = await db.readStructChunk([i, 0, 0]);
      expect(x.sections.length).toBe(2);
      for (let s = 0; s < 2; s++) expect(Buffer.compare(x.sections[s]!, y.sections[s]!)).toBe(0);
      expect(x.info.filterMasks ?? null).toEqual(y.info.filterMasks ?? null);
      const got = (await da.read(roiSel(i))) as Uint16Array;
      expect(Buffer.compare(Buffer.from(got.buffer, got.byteOffset, got.byteLength), Buffer.from(roiOf(i).buffer))).toBe(0);
    }
    await a.close();
    await b.close();
  });
});
