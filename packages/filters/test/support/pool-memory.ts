/**
 * Child process of workers-memory.test.ts: pushes `MB` megabytes of chunks (512 KiB, detector-like
 * uint16 counts that compress ≈ 2:1) through the filter worker pool (2 threads) — encoded, and the
 * encoded chunks decoded again — with gzip, shuffle + gzip, LZ4 and zstd pipelines in turn, four chunks
 * in flight as the chunk engine keeps them, then prints its peak RSS in bytes. Usage:
 * `node --import tsx pool-memory.ts MB`.
 */
import type { Datatype, FilterPipeline } from '@chunkform/core/plugin';
import { pipelineOffload } from '@chunkform/core/plugin';
import { ALL_FILTERS, configureWorkers, registerFilters, startWorkers, stopWorkers } from '../../src/index.js';

const MB = Number(process.argv[2]);
const CHUNK = 512 * 1024;
const IN_FLIGHT = 4;
const U16: Datatype = { class: 'integer', size: 2, order: 'LE', signed: false };
const ctx = { datatype: U16, elementSize: 2, chunkDims: [256, 1024] };
const f = (id: number, clientData: number[] = []) => ({ id, name: '', flags: 0, clientData });
const PIPELINES: FilterPipeline[] = [
  { filters: [f(1, [1])] },
  { filters: [f(2, [2]), f(1, [1])] },
  { filters: [f(32004, [0])] },
  { filters: [f(32015, [3])] },
];
const byId = new Map(ALL_FILTERS.map((x) => [x.id, x]));

/** Eight different chunks of 12-bit noise over a pedestal. */
const sources = Array.from({ length: 8 }, (_, k) => {
  const v = new Uint16Array(CHUNK / 2);
  let x = 2654435761 * (k + 1);
  for (let i = 0; i < v.length; i++) {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    v[i] = 100 + (x & 0x3f) + (x % 61 === 0 ? x & 0xfff : 0);
  }
  return new Uint8Array(v.buffer);
});

registerFilters();
configureWorkers({ threads: 2 });
if ((await startWorkers()) !== 2) throw new Error('the pool did not start');
const off = pipelineOffload()!;
const chunks = Math.round((MB * 1e6) / CHUNK);
let next = 0;
await Promise.all(
  Array.from({ length: IN_FLIGHT }, async () => {
    while (next < chunks) {
      const k = next++;
      const pipeline = PIPELINES[Math.floor(k / 16) % PIPELINES.length]!;
      const impls = pipeline.filters.map((x) => byId.get(x.id));
      const src = sources[k % sources.length]!;
      const enc = await off.encode(src, pipeline, impls, ctx);
      if (!enc) throw new Error('the pool declined a chunk');
      const dec = await off.decode(enc.bytes, pipeline, enc.filterMask, impls, ctx);
      if (!dec || dec.length !== src.length || dec[k % dec.length] !== src[k % src.length]) throw new Error(`chunk ${k} did not come back`);
    }
  }),
);
stopWorkers();
console.log(process.resourceUsage().maxRSS * 1024);
