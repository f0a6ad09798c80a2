/**
 * Variable-length strings in VL chunks (`@chunkform/format-vl`, issue #13) side by side with h5py
 * (HDF5 1.10, global-heap vlen strings), part of `pnpm bench` (`BENCH_ONLY=vl`); standalone:
 * `node --import tsx bench/vl.ts`.
 *
 * Workload: BENCH_VL_N (default 1,000,000) log-line / event-label strings of 5–60 bytes (ASCII, from a
 * fixed seed), written as one 1-D dataset and read back whole, then BENCH_VL_RANDOM (default 1,000)
 * single-string reads at random indices (after reopening the file). chunkform: dense VL chunks of
 * BENCH_VL_CHUNK (default 1,024) strings with deflate level 1 on the heap section; the same plus
 * shuffle + deflate on the entries section; no filters; and chunks four times larger. h5py: `create_dataset(data=…, dtype=string_dtype())`
 * (contiguous, one global-heap object per string), read with `.asstr()[()]` and `d[i]`. Each side's
 * time covers file create/open to close. Median of BENCH_REPEAT (default 3) runs; files are new each run.
 * @module
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFile, openFile, selectHyperslab, type Dataset } from '../packages/core/src/index.js';
import { registerIndexes } from '../packages/indexes/src/index.js';
import { registerFilters } from '../packages/filters/src/index.js';
import { createVlDataset, registerVlFormat, type VlDatasetOptions } from '../packages/format-vl/src/index.js';
import { xorshift32 } from './xorshift.js';

const N = Number(process.env.BENCH_VL_N ?? 1_000_000);
const RANDOM = Number(process.env.BENCH_VL_RANDOM ?? 1000);
const CHUNK = Number(process.env.BENCH_VL_CHUNK ?? 1024);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const PY = fileURLToPath(new URL('./vl_h5py.py', import.meta.url));

const WORDS = ['INFO', 'WARN', 'DEBUG', 'ERROR', 'det', 'CSPAD', 'epix', 'jungfrau', 'hit', 'miss', 'photon', 'event', 'run', 'shot', 'gain', 'calib', 'ok', 'timeout', 'retry', 'seq'];

/** N strings of 5–60 ASCII bytes: words, numbers and hex ids, like log lines and event labels. */
function strings(): string[] {
  const rnd = xorshift32(0x5eed1234);
  const out = new Array<string>(N);
  for (let i = 0; i < N; i++) {
    const len = 5 + (rnd() % 56);
    let s = '';
    while (s.length < len) {
      const r = rnd();
      const k = r & 3;
      s += k === 0 ? WORDS[(r >>> 2) % WORDS.length] : k === 1 ? String((r >>> 2) % 100000) : k === 2 ? ((r >>> 2) & 0xffffff).toString(16) : '=';
      s += ' ';
    }
    out[i] = s.slice(0, len);
  }
  return out;
}

function python(args: string[]): { s: number; [k: string]: unknown } {
  const r = spawnSync('/usr/bin/python3', [PY, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`vl_h5py.py ${args[0]} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as { s: number };
}

/** Median of REPEAT runs (seconds) of an h5py command, with the last run's other fields. */
function pyMedian(args: string[], before?: () => void): { s: number; [k: string]: unknown } {
  const runs: { s: number }[] = [];
  for (let r = 0; r < REPEAT; r++) {
    before?.();
    runs.push(python(args));
  }
  return { ...runs[runs.length - 1]!, s: median(runs.map((x) => x.s)) };
}

function median(xs: number[]): number {
  const a = [...xs].sort((p, q) => p - q);
  const m = a.length >> 1;
  return a.length % 2 ? a[m]! : (a[m - 1]! + a[m]!) / 2;
}

/** Median seconds of REPEAT runs of `fn` (`before` runs untimed before each). */
async function med(fn: () => Promise<void>, before?: () => void): Promise<number> {
  const t: number[] = [];
  for (let r = 0; r < REPEAT; r++) {
    before?.();
    const t0 = performance.now();
    await fn();
    t.push((performance.now() - t0) / 1000);
  }
  return median(t);
}

const fmt = (x: number, d = 2) => x.toFixed(d);

/** Runs the VL comparison in `dir` and prints a table. */
export async function runVl(dir: string): Promise<void> {
  registerIndexes();
  registerFilters();
  registerVlFormat();
  const data = strings();
  const bytes = data.reduce((n, s) => n + s.length, 0);
  const rnd = xorshift32(77);
  const idx = Array.from({ length: RANDOM }, () => rnd() % N);

  // the same strings and indices for h5py
  const dataFile = join(dir, 'vl-strings.bin');
  const enc = Buffer.from(data.join(''), 'latin1');
  const head = new Uint32Array(1 + N);
  head[0] = N;
  data.forEach((s, i) => (head[1 + i] = s.length));
  writeFileSync(dataFile, Buffer.concat([Buffer.from(head.buffer), enc]));
  const idxFile = join(dir, 'vl-idx.bin');
  writeFileSync(idxFile, Buffer.from(Uint32Array.from([RANDOM, ...idx]).buffer));

  console.log(`\n## variable-length strings (issue #13): ${N.toLocaleString('en')} strings of 5–60 bytes (${fmt(bytes / 1e6, 1)} MB of text), median of ${REPEAT} runs`);
  const h5 = join(dir, 'vl-h5py.h5');
  const pw = pyMedian(['write', h5, dataFile], () => rmSync(h5, { force: true }));
  const pr = pyMedian(['read', h5]);
  if (pr.n !== N || pr.first !== data[0] || pr.last !== data[N - 1]) throw new Error('bench: h5py read back other strings');
  const prand = pyMedian(['random', h5, idxFile]);
  if (prand.first !== data[idx[0]!]) throw new Error('bench: h5py random read returned another string');
  const pySize = statSync(h5).size;

  const heapDeflate = { filters: { heap: [{ id: 1, clientData: [1] }] } };
  const configs: [number, string, Partial<VlDatasetOptions>][] = [
    [CHUNK, 'deflate 1 on the heap', heapDeflate],
    [CHUNK, 'deflate 1 on the heap, shuffle + deflate 1 on the entries', { filters: { ...heapDeflate.filters, entries: [{ id: 2 }, { id: 1, clientData: [1] }] } }],
    [CHUNK, 'no filters', {}],
    [4 * CHUNK, 'deflate 1 on the heap', heapDeflate],
  ];
  const rows: string[] = [];
  rows.push(`| h5py 1.10 (global heap) | ${fmt(pw.s)} s | ${fmt(pr.s)} s | ${fmt(prand.s * 1000, 1)} ms | ${fmt(pySize / 1e6, 1)} MB | | | |`);
  for (const [chunk, label, filters] of configs) {
    const file = join(dir, `vl-chunkform.h5`);
    const w = await med(
      async () => {
        const f = await createFile(file, { superblockVersion: 3 });
        await createVlDataset(f, 's', { dtype: 'str(ascii)', shape: [N], chunks: [chunk], data, ...filters });
        await f.close();
      },
      () => rmSync(file, { force: true }),
    );
    let got: string[] = [];
    const r = await med(async () => {
      const f = await openFile(file);
      got = (await ((await f.get('s')) as Dataset).read()) as string[];
      await f.close();
    });
    if (got.length !== N || got[0] !== data[0] || got[N - 1] !== data[N - 1] || got[N >> 1] !== data[N >> 1]) throw new Error('bench: chunkform read back other strings');
    let first = '';
    const rr = await med(async () => {
      const f = await openFile(file);
      const d = (await f.get('s')) as Dataset;
      for (let k = 0; k < idx.length; k++) {
        const v = (await d.read(selectHyperslab({ start: [idx[k]!], count: [1] }))) as string[];
        if (k === 0) first = v[0]!;
      }
      await f.close();
    });
    if (first !== data[idx[0]!]) throw new Error('bench: chunkform random read returned another string');
    const size = statSync(file).size;
    rows.push(
      `| chunkform, VL chunks of ${chunk}, ${label} | ${fmt(w)} s | ${fmt(r)} s | ${fmt(rr * 1000, 1)} ms | ${fmt(size / 1e6, 1)} MB | ${fmt(pw.s / w, 1)}× | ${fmt(pr.s / r, 1)}× | ${fmt(size / pySize, 2)}× |`,
    );
  }
  console.log(`| | write | read whole | ${RANDOM} random reads | file | write vs h5py | read vs h5py | size vs h5py |`);
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = mkdtempSync(join(tmpdir(), 'chunkform-bench-vl-'));
  try {
    await runVl(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
