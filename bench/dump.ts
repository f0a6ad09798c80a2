/**
 * `chunkform dump` against h5dump (issue #12), part of `pnpm bench` (`BENCH_ONLY=dump` runs it alone;
 * `node --import tsx bench/dump.ts` runs it standalone).
 *
 * Workload: one 200 MB dataset (BENCH_DUMP_MB, default 200) of uint32 values (0…99,999 repeating, so the
 * text is ≈ 2.3× the data), chunked 64×1024, unfiltered, written by chunkform. Each tool dumps the whole
 * file as text to /dev/null (`chunkform dump FILE`, `chunkform dump --json FILE`, `h5dump FILE`), run as a
 * child process under /usr/bin/time: wall time, CPU time and peak RSS. The runs are interleaved
 * (BENCH_DUMP_REPEAT rounds, default 3, each round runs every row once) and medians are reported.
 * chunkform runs compiled (bench/cli-build.ts), as an installed package runs; the `-H` row (header
 * only) is its start-up baseline, and `ls` its start-up time. The two texts are checked equal once
 * (`cmp` of both outputs) when BENCH_DUMP_CHECK=1.
 * @module
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFile, selectHyperslab } from '../packages/core/src/index.js';
import { registerDenseFormats } from '../packages/format-dense/src/index.js';
import { registerIndexes } from '../packages/indexes/src/index.js';
import { compileCli } from './cli-build.js';

const MB = Number(process.env.BENCH_DUMP_MB ?? 200);
const REPEAT = Number(process.env.BENCH_DUMP_REPEAT ?? 3);
const W = 1024;

/** Writes `mib` MiB of uint32 (0…99,999 repeating) as dataset `d`, chunks 64×1024; resolves to its bytes. */
export async function writeUint32File(path: string, mib: number): Promise<number> {
  registerIndexes();
  registerDenseFormats();
  const rows = Math.ceil((mib * 1024 * 1024) / 4 / W);
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

/** Wall and CPU seconds and peak RSS (MiB) of one run. */
export interface Measured {
  seconds: number;
  cpu: number;
  rssMiB: number;
}

/** Runs a command under /usr/bin/time with stdout to /dev/null. */
export function measure(cmd: string, args: string[]): Measured {
  const r = spawnSync('/bin/sh', ['-c', '/usr/bin/time -f "%e %U %S %M" "$@" > /dev/null', 'sh', cmd, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  const [s, user, sys, kib] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
  return { seconds: s!, cpu: user! + sys!, rssMiB: kib! / 1024 };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Runs every row once per round, `rounds` times, and returns each row's medians. */
export function interleaved(rows: [string, string, string[]][], rounds: number): [string, Measured][] {
  const runs = rows.map(() => [] as Measured[]);
  for (let k = 0; k < rounds; k++) rows.forEach(([, cmd, args], i) => runs[i]!.push(measure(cmd, args)));
  return rows.map(([name], i) => [
    name,
    { seconds: median(runs[i]!.map((m) => m.seconds)), cpu: median(runs[i]!.map((m) => m.cpu)), rssMiB: median(runs[i]!.map((m) => m.rssMiB)) },
  ]);
}

/** Runs the dump comparison in `dir` and prints a table. */
export async function runDump(dir: string): Promise<void> {
  const file = join(dir, 'dump-bench.h5');
  const bytes = await writeUint32File(file, MB);
  const cli = await compileCli();
  try {
    const node = process.execPath;
    const rows = interleaved(
      [
        ['chunkform dump (text)', node, [cli.script, 'dump', file]],
        ['chunkform dump --json', node, [cli.script, 'dump', '--json', file]],
        ['chunkform dump -H (start-up baseline)', node, [cli.script, 'dump', '-H', file]],
        ['chunkform ls (start-up time)', node, [cli.script, 'ls', file]],
        ['h5dump 1.10 (text)', 'h5dump', [file]],
      ],
      REPEAT,
    );
    console.log(`\n## dump: one ${(bytes / 2 ** 20).toFixed(0)} MiB uint32 dataset (chunks 64×1024), stdout to /dev/null; medians of ${REPEAT} interleaved rounds`);
    console.log('| tool | wall (s) | CPU (s) | peak RSS (MiB) |\n|---|---|---|---|');
    for (const [name, m] of rows) console.log(`| ${name} | ${m.seconds.toFixed(2)} | ${m.cpu.toFixed(2)} | ${m.rssMiB.toFixed(0)} |`);
    const ref = rows[4]![1];
    for (const i of [0, 1]) {
      const [name, m] = rows[i]!;
      console.log(`${name} / h5dump: wall ${(m.seconds / ref.seconds).toFixed(2)}×, CPU ${(m.cpu / ref.cpu).toFixed(2)}×, peak RSS ${(m.rssMiB / ref.rssMiB).toFixed(2)}× (${(m.rssMiB - rows[2]![1].rssMiB).toFixed(0)} MiB above the start-up baseline)`);
    }
    if (process.env.BENCH_DUMP_CHECK === '1') {
      const a = join(dir, 'ours.txt');
      const b = join(dir, 'ref.txt');
      execFileSync('/bin/sh', ['-c', `"${node}" "${cli.script}" dump "${file}" > "${a}" && h5dump "${file}" > "${b}" && cmp "${a}" "${b}"`]);
      console.log('texts equal (cmp)');
    }
  } finally {
    cli.dispose();
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
