/**
 * chunkform's side of bench/vl.ts for one row and repetition, in a process of its own as h5py's side
 * is (bench/vl_h5py.py): the process holds only its input and what it reads back, so neither side's
 * timings include collecting another row's garbage. Usage (bench/vl.ts runs it):
 *
 *   vl_side.ts H5 DATA IDX CONFIG -> one JSON line { w, r, rand, size, pool } (each step { s, cpu }:
 *   wall and process CPU seconds, all threads; pool: pipelines run on the filter worker pool)
 *
 * DATA: the bench's strings (u32 count, u32 byte lengths[count], the bytes); IDX: u32 count, u32
 * indices; CONFIG: JSON { chunk, opts, columnar, threads } (threads: the filter worker pool's size, default the machine's). The input is built before the timing as the user
 * would hold it: a `VLStrings` (one buffer + offsets, no JS string) for the columnar rows, a
 * `string[]` otherwise; the same steps run once, untimed, on the first 65,536 strings (compiled
 * code), and each timed step starts from a collected heap (`--expose-gc`). Timed: write (file create to close), read whole (open to close), and for the
 * `string[]` rows the single-string reads at the indices (open to close). Everything read is checked
 * against the input after its timing.
 * @module
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { createFile, openFile, selectHyperslab, type Dataset } from '../packages/core/src/index.js';
import { registerIndexes } from '../packages/indexes/src/index.js';
import { configureWorkers, registerFilters, startWorkers, stopWorkers, workerStats } from '../packages/filters/src/index.js';
import { VLStrings, createVlDataset, registerVlFormat, type VlDatasetOptions } from '../packages/format-vl/src/index.js';

interface Sample {
  s: number;
  cpu: number;
  /** CPU seconds of the main thread alone (Linux: /proc, 10 ms ticks; null elsewhere). */
  main: number | null;
}

/** CPU seconds of this process's main thread so far (Linux), else null. */
function mainThreadCpu(): number | null {
  try {
    const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return null;
  }
}

/** Wall, process CPU and main-thread CPU seconds of `fn` (from a collected heap when the process may collect on demand). */
async function timed(fn: () => Promise<void>): Promise<Sample> {
  (globalThis as { gc?: () => void }).gc?.();
  const m0 = mainThreadCpu();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const c = process.cpuUsage(c0);
  const m1 = mainThreadCpu();
  return { s: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6, main: m0 === null || m1 === null ? null : m1 - m0 };
}

function fail(what: string): never {
  throw new Error(`bench vl_side: ${what}`);
}

const [h5, dataFile, idxFile, configJson] = process.argv.slice(2);
if (!h5 || !dataFile || !idxFile || !configJson) fail('usage: vl_side.ts H5 DATA IDX CONFIG');
const config = JSON.parse(configJson) as { chunk: number; opts: Partial<VlDatasetOptions>; columnar?: boolean; threads?: number };

registerIndexes();
registerFilters();
registerVlFormat();
if (config.threads !== undefined) configureWorkers({ threads: config.threads });
const threads = await startWorkers();

// the input, as the user holds it
const raw = readFileSync(dataFile);
const n = raw.readUInt32LE(0);
const offsets = new Uint32Array(n + 1);
for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i]! + raw.readUInt32LE(4 + 4 * i);
const bytes = new Uint8Array(raw.subarray(4 + 4 * n));
const column = new VLStrings(bytes, offsets);
const strings = config.columnar ? null : column.toArray();
const idxRaw = readFileSync(idxFile);
const idx = Array.from({ length: idxRaw.readUInt32LE(0) }, (_, j) => idxRaw.readUInt32LE(4 + 4 * j));

// warm-up, untimed: the same steps on the first strings (compiled code, as in a process that has
// written and read before; h5py's side is compiled C)
{
  const m = Math.min(n, 1 << 16);
  const warm = `${h5}.warm`;
  const f = await createFile(warm, { superblockVersion: 3 });
  const part = config.columnar ? new VLStrings(bytes, offsets.subarray(0, m + 1)) : strings!.slice(0, m);
  await createVlDataset(f, 's', { dtype: 'str(ascii)', shape: [m], chunks: [Math.min(config.chunk, m)], data: part, ...config.opts });
  await f.close();
  const g = await openFile(warm);
  const d = (await g.get('s')) as Dataset;
  if (config.columnar) await d.readColumnar<VLStrings>();
  else {
    await d.read();
    for (let j = 0; j < 50; j++) await d.read(selectHyperslab({ start: [(j * 7919) % m], count: [1] }));
  }
  await g.close();
  rmSync(warm, { force: true });
}

const w = await timed(async () => {
  const f = await createFile(h5, { superblockVersion: 3 });
  await createVlDataset(f, 's', { dtype: 'str(ascii)', shape: [n], chunks: [config.chunk], data: config.columnar ? column : strings, ...config.opts });
  await f.close();
});

let back: VLStrings | string[] | null = null;
const r = await timed(async () => {
  const f = await openFile(h5);
  const d = (await f.get('s')) as Dataset;
  back = config.columnar ? await d.readColumnar<VLStrings>() : ((await d.read()) as string[]);
  await f.close();
});
const got = back as VLStrings | string[] | null;
if (got instanceof VLStrings) {
  if (got.length !== n || Buffer.compare(got.bytes, bytes) !== 0 || got.offsets.some((o, i) => o !== offsets[i])) fail('the columnar read returned other strings');
} else if (!got || got.length !== n || got.some((s, i) => s !== strings![i])) fail('the read returned other strings');
back = null;

let rand: Sample | null = null;
if (strings) {
  const picked: string[] = [];
  rand = await timed(async () => {
    const f = await openFile(h5);
    const d = (await f.get('s')) as Dataset;
    for (const i of idx) picked.push(((await d.read(selectHyperslab({ start: [i], count: [1] }))) as string[])[0]!);
    await f.close();
  });
  if (picked.some((s, j) => s !== strings[idx[j]!])) fail('a single-string read returned another string');
}
const pool = workerStats();
await stopWorkers();
console.log(JSON.stringify({ w, r, rand, size: statSync(h5).size, pool: { done: pool.done, failed: pool.failed }, threads }));
