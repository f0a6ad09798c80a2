/**
 * Child process of workers-memory.test.ts: decodes LZ4 chunks on two worker threads into `READS`
 * new results in shared memory (8 MiB each, four 2 MiB chunks, as `read()` does with a large
 * filtered dataset), dropping each result and letting this thread collect its garbage after every
 * one, then prints how many bytes of array buffers are still allocated beyond the start. Memory a
 * worker kept alive shows here: the workers' objects over the results keep them allocated until
 * the workers collect them. Usage: `node --import tsx shared-release.ts READS`.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Datatype, FilterPipeline } from '@chunkform/core/plugin';
import { pipelineOffload } from '@chunkform/core/plugin';
import { ALL_FILTERS, configureWorkers, registerFilters, startWorkers, stopWorkers } from '../../src/index.js';

const READS = Number(process.argv[2]);
const CHUNK = 2 << 20;
const CHUNKS = 4;
const U16: Datatype = { class: 'integer', size: 2, order: 'LE', signed: false };
const ctx = { datatype: U16, elementSize: 2, chunkDims: [1024, 1024] };
const pipeline: FilterPipeline = { filters: [{ id: 32004, name: '', flags: 0, clientData: [0] }] };
const impls = pipeline.filters.map((x) => ALL_FILTERS.find((f) => f.id === x.id));

// this thread's collector (the workers' own is what is tested)
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
setFlagsFromString('--no-expose-gc');

registerFilters();
configureWorkers({ threads: 2 });
if ((await startWorkers()) !== 2) throw new Error('the pool did not start');
const off = pipelineOffload()!;
const src = new Uint16Array(CHUNK / 2);
for (let i = 0; i < src.length; i++) src[i] = 100 + ((i * 2654435761) >>> 27);
const enc = await off.encode(new Uint8Array(src.buffer), pipeline, impls, ctx);
if (!enc) throw new Error('the pool declined the chunk');

async function read(): Promise<void> {
  const out = new Uint8Array(new SharedArrayBuffer(CHUNK * CHUNKS));
  await Promise.all(
    Array.from({ length: CHUNKS }, async (_, k) => {
      const target = { out, runs: Float64Array.of(0, (k * CHUNK) / 2, CHUNK / 2), elementSize: 2, chunkBytes: CHUNK };
      if (!(await off.decodeInto!(enc!.bytes.slice(), pipeline, enc!.filterMask, impls, ctx, target))) throw new Error('the pool declined the chunk');
    }),
  );
  if (out[CHUNK * CHUNKS - 2] !== new Uint8Array(src.buffer)[CHUNK - 2]) throw new Error('a wrong result');
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
await read();
gc();
const base = process.memoryUsage().arrayBuffers;
for (let i = 0; i < READS; i++) {
  await read();
  await pause(20); // (the workers are idle now, as between a program's reads)
  gc();
}
await pause(20);
gc();
console.log(process.memoryUsage().arrayBuffers - base);
stopWorkers();
