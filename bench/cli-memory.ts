/**
 * Bounded memory of the streaming tools on a ≥ 1 GB dataset (issue #12), part of `pnpm bench`
 * (`BENCH_ONLY=cli-memory`; standalone: `node --import tsx bench/cli-memory.ts`).
 *
 * Workload: one dataset of BENCH_CLI_MEMORY_MB MiB (default 1024) of uint32, chunks 64×1024,
 * unfiltered, written by chunkform. The compiled CLI (bench/cli-build.ts) runs, each in its own
 * process under /usr/bin/time (stdout to /dev/null):
 * - `dump -H` (header only: the start-up baseline),
 * - `dump` (all values as h5dump text) and `dump --json`,
 * - `repack -l d:CHUNK=128x512 -f d:GZIP=1` (re-chunk and compress, chunk by chunk),
 * and reports each run's peak RSS above the baseline against the bound (64 MiB). The CI
 * test packages/cli/test/dump-memory.test.ts checks the same on small datasets (peak RSS must not
 * grow with the dataset's size).
 * @module
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileCli } from './cli-build.js';
import { measure, writeUint32File } from './dump.js';

const MIB = Number(process.env.BENCH_CLI_MEMORY_MB ?? 1024);
/** The bound on memory above the start-up baseline. */
const BOUND_MIB = 64;

/** Runs the ≥ 1 GB memory check in `dir` and prints a table. */
export async function runCliMemory(dir: string): Promise<void> {
  const file = join(dir, 'big.h5');
  const out = join(dir, 'repacked.h5');
  const bytes = await writeUint32File(file, MIB);
  const cli = await compileCli();
  try {
    const node = process.execPath;
    const base = measure(node, [cli.script, 'dump', '-H', file]);
    const rows: [string, ReturnType<typeof measure>][] = [
      ['dump -H (start-up baseline)', base],
      ['dump (text)', measure(node, [cli.script, 'dump', file])],
      ['dump --json', measure(node, [cli.script, 'dump', '--json', file])],
      ['repack -l d:CHUNK=128x512 -f d:GZIP=1', measure(node, [cli.script, 'repack', '-q', '-l', 'd:CHUNK=128x512', '-f', 'd:GZIP=1', file, out])],
    ];
    console.log(`\n## memory on a ${(bytes / 2 ** 30).toFixed(2)} GiB dataset (uint32, chunks 64×1024; compiled CLI, stdout to /dev/null; repack output ${(statSync(out).size / 2 ** 20).toFixed(0)} MiB)`);
    console.log(`| command | wall (s) | CPU (s) | peak RSS (MiB) | above baseline (MiB) | ≤ ${BOUND_MIB} MiB |\n|---|---|---|---|---|---|`);
    for (const [name, m] of rows) {
      const above = m.rssMiB - base.rssMiB;
      console.log(`| ${name} | ${m.seconds.toFixed(1)} | ${m.cpu.toFixed(1)} | ${m.rssMiB.toFixed(0)} | ${above.toFixed(0)} | ${above <= BOUND_MIB ? 'yes' : 'NO'} |`);
    }
  } finally {
    cli.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = mkdtempSync(join(tmpdir(), 'chunkform-bench-cli-memory-'));
  try {
    await runCliMemory(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
