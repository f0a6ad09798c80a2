/**
 * Profiling driver for the VL string reads of bench/vl.ts: writes the same 1,000,000 strings once
 * (dense VL chunks of BENCH_VL_CHUNK, default 8192, no filters, or deflate 1 on the heap with
 * VL_DEFLATE=1), warms up, then reads the file REPS times (default 5) each way — `readColumnar`,
 * `read()` (a `string[]`) and BENCH_VL_RANDOM (1,000) single-string reads — printing per read the
 * wall time, process CPU, the main thread's CPU and each other thread's (Linux /proc schedstat; the
 * numbered `node` threads are V8's GC helpers, then libuv's I/O pool). Usage:
 * `node --expose-gc --import tsx bench/vl_read_prof.ts [REPS] [columnar,strings,random]`; for a CPU
 * profile add `--cpu-prof` (with REPS 1 and one kind), `--single-threaded-gc` to keep GC on the main thread.
 * @module
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFile, openFile, selectHyperslab, type Dataset } from '../packages/core/src/index.js';
import { registerIndexes } from '../packages/indexes/src/index.js';
import { registerFilters, startWorkers, stopWorkers } from '../packages/filters/src/index.js';
import { VLStrings, createVlDataset, registerVlFormat } from '../packages/format-vl/src/index.js';
import { logStrings } from './vl-strings.js';
import { xorshift32 } from './xorshift.js';

const N = Number(process.env.BENCH_VL_N ?? 1_000_000);
const CHUNK = Number(process.env.BENCH_VL_CHUNK ?? 8192);
const RANDOM = Number(process.env.BENCH_VL_RANDOM ?? 1000);
const REPS = Number(process.argv[2] ?? 5);
const KINDS = (process.argv[3] ?? 'columnar,strings,random').split(',');

function mainCpu(): number {
  return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

/** CPU ms of each thread so far, by thread name (Linux /proc; threads of one name summed). */
function threadsCpu(): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of readdirSync('/proc/self/task')) {
    try {
      const ns = Number(readFileSync(`/proc/self/task/${t}/schedstat`, 'utf8').split(' ')[0]);
      const name = Number(t) === process.pid ? "main" : `${readFileSync(`/proc/self/task/${t}/comm`, "utf8").trim()}:${t}`;
      m.set(name, (m.get(name) ?? 0) + ns / 1e6);
    } catch { /* gone */ }
  }
  return m;
}

registerIndexes();
registerFilters();
registerVlFormat();
const threads = await startWorkers();
// (the strings themselves are kept only for the kinds that check against them: a columnar read's
// process holds no JS string, as bench/vl_side.ts's does not, so its collections stay small)
let parts: string[] | null = logStrings(N);
const offsets = new Uint32Array(N + 1);
for (let i = 0, at = 0; i < N; i++) offsets[i + 1] = at += parts[i]!.length;
const col = new VLStrings(new Uint8Array(Buffer.from(parts.join(''), 'latin1')), offsets);
if (!KINDS.some((k) => k !== 'columnar')) parts = null;
const strings = (): string[] => parts ?? col.toArray();
const rnd = xorshift32(77);
const idx = Array.from({ length: RANDOM }, () => rnd() % N);
const dir = mkdtempSync(join(tmpdir(), 'vlrprof-'));
// VL_FILE: a file written by an earlier run with the same settings, read as it is (no write in a profile)
const file = process.env.VL_FILE ?? join(dir, 'p.h5');
const filters = process.env.VL_DEFLATE ? { filters: { heap: [{ id: 1, clientData: [1] }] } } : {};
if (!process.env.VL_FILE || !existsSync(file)) {
  const f = await createFile(file, { superblockVersion: 3 });
  await createVlDataset(f, 's', { dtype: 'str(ascii)', shape: [N], chunks: [CHUNK], data: col, ...filters });
  await f.close();
}

/** One read of `kind` (open to close); returns what it read, checked by {@link check} after the timing. */
async function once(kind: string): Promise<unknown> {
  const f = await openFile(file);
  const d = (await f.get('s')) as Dataset;
  let got: unknown;
  if (kind === 'columnar') got = await d.readColumnar<VLStrings>();
  else if (kind === 'strings') got = await d.read();
  else {
    const picked: string[] = [];
    for (const i of idx) picked.push(((await d.read(selectHyperslab({ start: [i], count: [1] }))) as string[])[0]!);
    got = picked;
  }
  await f.close();
  return got;
}

function check(kind: string, got: unknown): void {
  if (kind === 'columnar') {
    const c = got as VLStrings;
    if (c.length !== N || Buffer.compare(c.bytes, col.bytes) !== 0 || c.offsets.some((o, i) => o !== offsets[i])) throw new Error('columnar read: other strings');
  } else if (kind === 'strings') {
    const s = got as string[];
    const want = strings();
    if (s.length !== N || s.some((v, i) => v !== want[i])) throw new Error('read: other strings');
  } else if ((got as string[]).some((v, j) => v !== strings()[idx[j]!])) throw new Error('random read: another string');
}

for (const kind of KINDS) check(kind, await once(kind)); // warm-up
for (const kind of KINDS) {
  const walls: number[] = [];
  const mains: number[] = [];
  for (let r = 0; r < REPS; r++) {
    (globalThis as { gc?: () => void }).gc?.();
    const t0 = threadsCpu();
    const m0 = mainCpu();
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    let got: unknown = await once(kind);
    const wall = performance.now() - w0;
    const c = process.cpuUsage(c0);
    const m = mainCpu() - m0;
    const per = [...threadsCpu()].map(([k, v]) => [k, v - (t0.get(k) ?? 0)] as const).filter(([, v]) => v > 0.5).map(([k, v]) => `${k}=${v.toFixed(1)}`);
    check(kind, got);
    got = null;
    walls.push(wall);
    mains.push(m);
    console.log(`${kind} ${r}: wall ${wall.toFixed(1)} ms, cpu ${((c.user + c.system) / 1000).toFixed(1)} ms, main ${m.toFixed(1)} ms; threads (ms) ${per.join(' ')}`);
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  console.log(`${kind}: median wall ${med(walls).toFixed(1)} ms, main ${med(mains).toFixed(1)} ms (pool ${threads})`);
}
await stopWorkers();
rmSync(dir, { recursive: true, force: true });
