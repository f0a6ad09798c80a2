/**
 * A stream writing the same region of each frame: the sparse format reuses the last empty chunk's
 * defined runs and selection for the next chunk written by the same request and the last chunk's
 * section 0 for the next chunk defining the same boxes (format-sparse encode-plan.ts). Chunks that share those arrays are then changed one by one — a second region
 * written into an earlier frame (after or before the first in C order), part of one erased, another
 * region between two equal ones — and every frame must read back as written, its stored sections
 * the bytes of a file written without any sharing (each frame in a dataset of its own), with the
 * filter workers and on the calling thread alike.
 */
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, MemoryStore, openFile, selectBlocks, selectionCount, type Dataset, type Selection } from '../packages/core/src/index.js';
import { pipelineOffload, setPipelineOffload } from '../packages/core/src/plugin.js';
import { configureWorkers, startWorkers } from '../packages/filters/src/index.js';

const S = 256;
type Box = [number, number, number, number]; // y0, x0, y1, x1
const A: Box = [64, 64, 192, 192]; // 32 KiB of uint16 values: filtered on the workers
const B: Box = [200, 10, 240, 250]; // after A in C order (an append to the chunk)
const C: Box = [0, 0, 40, 256]; // before A (a merge)
const D: Box = [60, 100, 100, 120]; // overlaps A
const E: Box = [70, 60, 198, 188]; // A moved: requests of the same length
/** The region written into each frame, in order (frame i gets plan[i]). */
const plan: Box[] = [A, A, A, D, A, E, A, B, A, E];
/** Later writes into earlier frames, after every frame was written: [frame, box]. */
const later: [number, Box][] = [
  [1, B],
  [2, C],
  [4, D],
];
/** Erased afterwards: [frame, box]. */
const erased: [number, Box][] = [
  [6, [100, 0, 150, 256]],
  [5, [0, 0, 80, 256]],
];

const sel = (i: number, b: Box): Selection => selectBlocks([{ start: [i, b[0], b[1]], end: [i + 1, b[2], b[3]] }]);
const valuesOf = (i: number, b: Box, k0: number): Uint16Array => {
  const v = new Uint16Array((b[2] - b[0]) * (b[3] - b[1]));
  for (let k = 0; k < v.length; k++) v[k] = 1 + ((k * 7 + i * 131 + k0) % 5003);
  return v;
};

/** Applies a write to the expected frame and its defined mask. */
function apply(frame: Uint16Array, mask: Uint8Array, b: Box, v: Uint16Array | null): void {
  let k = 0;
  for (let y = b[0]; y < b[2]; y++)
    for (let x = b[1]; x < b[3]; x++, k++) {
      frame[y * S + x] = v ? v[k]! : 0;
      mask[y * S + x] = v ? 1 : 0;
    }
}

const FILTERS = { selection: [{ id: 1, clientData: [1] }], values: [{ id: 2 }, { id: 1, clientData: [1] }] };
const create = (f: Awaited<ReturnType<typeof createFile>>, name: string, frames: number) =>
  f.createDataset(name, { layout: 'sparse', dtype: 'uint16', shape: [frames, S, S], maxShape: [null, S, S], chunks: [1, S, S], filters: FILTERS } as never) as Promise<Dataset>;

/** The writes, in order, into `ds` (`only`: just those of that frame, into frame 0 of a dataset of its own). */
async function writeAll(ds: Dataset, only?: number): Promise<void> {
  const at = (i: number) => (only === undefined ? i : 0);
  const roi = new Uint16Array(S * S); // one reused buffer, as a detector loop does
  const put = async (i: number, b: Box, k0: number) => {
    const v = valuesOf(i, b, k0);
    roi.set(v);
    await ds.write(roi.subarray(0, v.length), sel(at(i), b));
  };
  for (let i = 0; i < plan.length; i++) if (only === undefined || only === i) await put(i, plan[i]!, 0);
  for (const [i, b] of later) if (only === undefined || only === i) await put(i, b, 17);
  for (const [i, b] of erased) if (only === undefined || only === i) await ds.erase(sel(at(i), b));
}

afterAll(() => configureWorkers());

describe('a stream writing the same region of each frame', () => {
  for (const where of ['filter workers', 'calling thread'] as const) {
    it(`shares runs, selection and section 0 between frames and every frame keeps what was written to it (${where})`, async () => {
      configureWorkers({ threads: 2 });
      expect(await startWorkers()).toBe(2);
      const saved = pipelineOffload();
      if (where === 'calling thread') setPipelineOffload(null);
      const shared = new MemoryStore();
      const alone = new MemoryStore();
      try {
        const f = await createFile(shared, { superblockVersion: 3 });
        await writeAll(await create(f, 'd', plan.length));
        await f.close();
        const g = await createFile(alone, { superblockVersion: 3 });
        for (let i = 0; i < plan.length; i++) await writeAll(await create(g, `f${i}`, 1), i);
        await g.close();
      } finally {
        setPipelineOffload(saved ?? null);
      }
      const a = await openFile(shared.toBytes());
      const b = await openFile(alone.toBytes());
      const da = (await a.get('d')) as Dataset;
      for (let i = 0; i < plan.length; i++) {
        const frame = new Uint16Array(S * S);
        const mask = new Uint8Array(S * S);
        apply(frame, mask, plan[i]!, valuesOf(i, plan[i]!, 0));
        for (const [j, box] of later) if (j === i) apply(frame, mask, box, valuesOf(i, box, 17));
        for (const [j, box] of erased) if (j === i) apply(frame, mask, box, null);
        const got = (await da.read(sel(i, [0, 0, S, S]))) as Uint16Array;
        expect(Buffer.compare(Buffer.from(got.buffer, got.byteOffset, got.byteLength), Buffer.from(frame.buffer))).toBe(0);
        expect(selectionCount(await da.getDefined(sel(i, [0, 0, S, S])), [plan.length, S, S])).toBe(mask.reduce((n, m) => n + m, 0));
        // the same stored sections as the frame written into a dataset of its own
        const x = await da.readStructChunk([i, 0, 0]);
        const y = await ((await b.get(`f${i}`)) as Dataset).readStructChunk([0, 0, 0]);
        for (let s = 0; s < 2; s++) expect(Buffer.compare(x.sections[s]!, y.sections[s]!)).toBe(0);
      }
      await a.close();
      await b.close();
    });
  }
});
