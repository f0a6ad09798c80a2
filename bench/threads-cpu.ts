/**
 * Issue #11, thread scaling: where the CPU time of a filtered whole-dataset write or read goes, per
 * thread (Linux /proc/self/task/<tid>/schedstat): the main thread, the filter workers, and the rest
 * (libuv's pool writing the chunks into the page cache, V8's helper threads). CPU time does not
 * change with other processes on the machine the way wall time does, so this measures on a shared
 * machine what bench/threads.ts's ratios cannot. `bound2` = 2 (1 − s), s the share of the
 * process's CPU outside the filter workers: what 1 → 2 workers give on 2 cores if the 1-thread run
 * took exactly its worker's CPU time (the other work overlapping on the second core) and the
 * 2-thread run shared both cores without a gap. Serial parts (create, close, the first chunk's
 * copy) lengthen the 1-thread run too, so measured ratios land a little above or below it.
 *
 * Alone: `node --import tsx bench/threads-cpu.ts [lz4|bslz4|zstd|gzip|none] [threads] [plain|shared] [write|read]`
 * (defaults lz4 2 plain write; `shared`: the frames in a SharedArrayBuffer, which the workers read
 * themselves — from an ordinary ArrayBuffer the main thread copies every chunk into shared memory).
 * BENCH_CPU_REPS (default 20) timed runs after 3 untimed ones, 16 frames of 1024² uint16 as in
 * bench/threads.ts. Prints one JSON line: milliseconds per run.
 * @module
 */
import { rmSync, mkdtempSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFile, openFile, type CreateDatasetOptions, type Dataset } from '../packages/core/src/index.js';
import { registerIndexes } from '../packages/indexes/src/index.js';
import { registerDenseFormats } from '../packages/format-dense/src/index.js';
import { configureWorkers, registerFilters, startWorkers } from '../packages/filters/src/index.js';
import { makeFrames, H, W } from './thread-frames.js';
import { cpuSplit, outsideShare, threadCpu, workerThreads } from './thread-cpu.js';

type Filters = Pick<CreateDatasetOptions, 'compression' | 'compressionOpts' | 'shuffle' | 'filters'>;
const FILTERS: Record<string, Filters> = {
  lz4: { filters: [{ id: 32004 }] },
  bslz4: { filters: [{ id: 32008, clientData: [0, 2] }] },
  zstd: { filters: [{ id: 32015, clientData: [3] }] },
  gzip: { compression: 'gzip', compressionOpts: 1 },
  none: {},
};

async function main(): Promise<void> {
  const [filter = 'lz4', th = '2', source = 'plain', mode = 'write'] = process.argv.slice(2);
  const opts = FILTERS[filter];
  if (!opts || !['plain', 'shared'].includes(source) || !['write', 'read'].includes(mode)) throw new Error(`usage: threads-cpu.ts [${Object.keys(FILTERS).join('|')}] [threads] [plain|shared] [write|read]`);
  const reps = Number(process.env.BENCH_CPU_REPS ?? 20);
  const frames = 16;
  registerIndexes();
  registerDenseFormats();
  registerFilters();
  const plain = makeFrames(frames);
  const data = source === 'shared' ? new Uint16Array(new SharedArrayBuffer(plain.byteLength)) : plain;
  if (data !== plain) data.set(plain);
  const into = new Uint16Array(new SharedArrayBuffer(plain.byteLength));
  const dir = mkdtempSync(join(tmpdir(), 'chunkform-threads-cpu-'));
  const path = join(dir, 'd.h5');
  try {
    await stat(dir); // (libuv's pool starts on the first file call: its threads are not the workers')
    const isWorker = workerThreads(threadCpu());
    configureWorkers({ threads: Number(th) });
    await startWorkers();
    const write = async () => {
      rmSync(path, { force: true });
      const f = await createFile(path);
      const ds = (await f.createDataset('d', { dtype: 'uint16', shape: [frames, H, W], chunks: [1, H, W], ...opts })) as Dataset;
      await ds.write(data);
      await f.close();
    };
    const read = async () => {
      const f = await openFile(path);
      await ((await f.get('d')) as Dataset).readInto(into);
      await f.close();
    };
    const run = mode === 'write' ? write : read;
    await write();
    for (let i = 0; i < 3; i++) await run();
    const a = threadCpu();
    const t = performance.now();
    for (let i = 0; i < reps; i++) await run();
    const wall = (performance.now() - t) / reps;
    const b = threadCpu();
    const per = cpuSplit(a, b, isWorker, reps);
    const outside = outsideShare(per);
    const r = (x: number) => Math.round(x * 10) / 10;
    console.log(JSON.stringify({ filter, threads: Number(th), source, mode, wallMs: r(wall), mainMs: r(per.main), workersMs: r(per.workers), otherMs: r(per.other), outsideShare: r(100 * outside), bound2: Math.round(200 * (1 - outside)) / 100 }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
