/**
 * `chunkform dump` against h5dump (issue #12), part of `pnpm bench` (`BENCH_ONLY=dump` runs it alone;
 * `node --import tsx bench/dump.ts` runs it standalone).
 *
 * Workload: one 200 MB dataset (BENCH_DUMP_MB, default 200) of uint32 values (0…99,999 repeating, so the
 * text is ≈ 2.3× the data), chunked 64×1024, unfiltered, written by chunkform. Each tool dumps the whole
 * file as text to /dev/null (`chunkform dump FILE`, `chunkform dump --json FILE`, `h5dump FILE`), run as a
 * child process under /usr/bin/time: wall time and peak RSS. The two texts are checked equal once
 * (`cmp` of both outputs) when BENCH_DUMP_CHECK=1.
 * @module
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFile, selectHyperslab } from '../packages/core/src/index.js';
import { registerDenseFormats } from '../packages/format-dense/src/index.js';
import { registerIndexes } from '../packages/indexes/src/index.js';

const MB = Number(process.env.BENCH_DUMP_MB ?? 200);
const BIN = fileURLToPath(new URL('../packages/cli/bin/chunkform.js', import.meta.url));
const W = 1024;

async function writeFile(path: string): Promise<number> {
  registerIndexes();
  registerDenseFormats();
  const rows = Math.ceil((MB * 1024 * 1024) / 4 / W);
  const f = await createFile(path);
  const ds = await f.createDataset('d', { dtype: 'uint32', shape: [rows, W], chunks: [64, W] });
  const slab = 256;
  for (let r = 0; r < rows; r += slab) {
    const n = Math.min(slab, rows - r);
    const v = new Uint32Array(n * W);
    for (let i = 0; i < v.length; i++) v[i] = ((r * W + i) % 100000) >>> 0;
    await ds.write(v, selectHyperslab({ start: [r, 0], block: [n, W] }));
  }
  await f.close();
  return rows * W * 4;
}

/** Wall seconds and peak RSS (MiB) of a command with stdout to /dev/null. */
function measure(cmd: string, args: string[]): { seconds: number; rssMiB: number } {
  const r = spawnSync('/bin/sh', ['-c', '/usr/bin/time -f "%e %M" "$@" > /dev/null', 'sh', cmd, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  const [s, kib] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
  return { seconds: s!, rssMiB: kib! / 1024 };
}

/** Runs the dump comparison in `dir` and prints a table. */
export async function runDump(dir: string): Promise<void> {
  const file = join(dir, 'dump-bench.h5');
  const bytes = await writeFile(file);
  console.log(`\n## dump: one ${(bytes / 2 ** 20).toFixed(0)} MiB uint32 dataset (chunks 64×1024) as text, stdout to /dev/null`);
  const rows: [string, { seconds: number; rssMiB: number }][] = [
    ['chunkform dump (text)', measure(process.execPath, [BIN, 'dump', file])],
    ['chunkform dump --json', measure(process.execPath, [BIN, 'dump', '--json', file])],
    ['chunkform dump -H (startup baseline)', measure(process.execPath, [BIN, 'dump', '-H', file])],
    ['h5dump 1.10 (text)', measure('h5dump', [file])],
  ];
  console.log('| tool | time (s) | peak RSS (MiB) |\n|---|---|---|');
  for (const [name, m] of rows) console.log(`| ${name} | ${m.seconds.toFixed(1)} | ${m.rssMiB.toFixed(0)} |`);
  const ours = rows[0]![1];
  const ref = rows[3]![1];
  console.log(`ratios chunkform/h5dump: time ${(ours.seconds / ref.seconds).toFixed(2)}×, peak RSS ${(ours.rssMiB / ref.rssMiB).toFixed(2)}×`);
  if (process.env.BENCH_DUMP_CHECK === '1') {
    const a = join(dir, 'ours.txt');
    const b = join(dir, 'ref.txt');
    execFileSync('/bin/sh', ['-c', `"${process.execPath}" "${BIN}" dump "${file}" > "${a}" && h5dump "${file}" > "${b}" && cmp "${a}" "${b}"`]);
    console.log('texts equal (cmp)');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = mkdtempSync(join(tmpdir(), 'chunkform-bench-dump-'));
  try {
    await runDump(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
