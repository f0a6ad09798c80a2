/**
 * Profiling driver for the 8192-string columnar VL write (BENCHMARKS.md "vlwrite3"): builds the same
 * column as bench/vl.ts from a fixed seed, warms up on 65,536 strings, then writes the whole column
 * REPS times (default 1: the bench's one-write-per-process form), printing per write the wall time,
 * process CPU and each thread's CPU (Linux /proc). Usage: `node --import tsx bench/vl_prof.ts [REPS]`
 * (env: BENCH_VL_CHUNK (8192), VL_THREADS: the filter pool's size).
 * @module
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { createFile } from '../packages/core/src/index.js';
import { registerIndexes } from '../packages/indexes/src/index.js';
import { configureWorkers, registerFilters, startWorkers, stopWorkers } from '../packages/filters/src/index.js';
import { VLStrings, createVlDataset, registerVlFormat } from '../packages/format-vl/src/index.js';
import { logStrings } from './vl-strings.js';

const N = 1_000_000;
const CHUNK = Number(process.env.BENCH_VL_CHUNK ?? 8192);
const REPS = Number(process.argv[2] ?? 1);
function column(): VLStrings {
  const parts = logStrings(N);
  const offsets = new Uint32Array(N + 1);
  for (let i = 0, at = 0; i < N; i++) offsets[i + 1] = at += parts[i]!.length;
  return new VLStrings(new Uint8Array(Buffer.from(parts.join(''), 'latin1')), offsets);
}

function threadsCpu(): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of readdirSync('/proc/self/task')) {
    try {
      const ns = Number(readFileSync(`/proc/self/task/${t}/schedstat`, 'utf8').split(' ')[0]);
      m.set(Number(t) === process.pid ? 'main' : t, ns / 1e6);
    } catch { /* gone */ }
  }
  return m;
}

registerIndexes();
registerFilters();
registerVlFormat();
if (process.env.VL_THREADS !== undefined) configureWorkers({ threads: Number(process.env.VL_THREADS) });
const threads = await startWorkers();
const col = column();
const dir = mkdtempSync(join(tmpdir(), 'vlprof-'));
const file = join(dir, 'p.h5');
{
  const m = 1 << 16;
  const f = await createFile(file, { superblockVersion: 3 });
  await createVlDataset(f, 's', { dtype: 'str(ascii)', shape: [m], chunks: [Math.min(CHUNK, m)], data: new VLStrings(col.bytes, col.offsets.subarray(0, m + 1)) });
  await f.close();
}
for (let r = 0; r < REPS; r++) {
  rmSync(file, { force: true });
  (globalThis as { gc?: () => void }).gc?.();
  const prof = process.env.VL_PROF ? new Session() : null;
  if (prof) {
    prof.connect();
    await prof.post('Profiler.enable');
    await prof.post('Profiler.setSamplingInterval', { interval: 100 });
    await prof.post('Profiler.start');
  }
  const t0 = threadsCpu();
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  const f = await createFile(file, { superblockVersion: 3 });
  await createVlDataset(f, 's', { dtype: 'str(ascii)', shape: [N], chunks: [CHUNK], data: col });
  await f.close();
  const wall = performance.now() - w0;
  if (prof) {
    const { profile } = await prof.post('Profiler.stop');
    writeFileSync(`${process.env.VL_PROF}.${r}.cpuprofile`, JSON.stringify(profile));
    prof.disconnect();
  }
  const c = process.cpuUsage(c0);
  const t1 = threadsCpu();
  const per = [...t1].map(([k, v]) => [k, v - (t0.get(k) ?? 0)] as const).filter(([, v]) => v > 0).filter(([, v]) => v > 0.5).map(([k, v]) => `${k}=${v.toFixed(1)}`);
  console.log(`write ${r}: wall ${wall.toFixed(1)} ms, cpu ${((c.user + c.system) / 1000).toFixed(1)} ms, pool ${threads}; threads(ms) ${per.join(' ')}`);
}
await stopWorkers();
rmSync(dir, { recursive: true, force: true });
