/**
 * Repack benchmark (issue 12): BENCH_REPACK_FRAMES (default 100) frames of 2048×2048 uint16 with a
 * 10 % region of interest (the rest 0), written by h5py as a dense gzip dataset of one frame per
 * chunk, then
 * - `chunkform repack -l frames:SPARSECHUNK=1x2048x2048 --exclude 0` (dense gzip → sparse), and
 * - `h5repack -l frames:CHUNK=1x512x512 -f frames:GZIP=4` (dense gzip → re-chunked gzip),
 * each in its own process under /usr/bin/time: wall time, CPU time and peak RSS side by side, the
 * runs interleaved (BENCH_REPACK_REPEAT rounds, default 3) and medians reported. chunkform runs
 * compiled (bench/cli-build.ts), as an installed package runs. Also runs alone:
 * `node --import tsx bench/tools-repack.ts`.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileCli } from './cli-build.js';
import { interleaved, type Measured } from './dump.js';

const FRAMES = Number(process.env.BENCH_REPACK_FRAMES ?? 100);
const REPEAT = Number(process.env.BENCH_REPACK_REPEAT ?? 3);

/** Runs the repack comparison and prints one table. */
export async function runToolsRepack(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chunkform-bench-repack-'));
  const cli = await compileCli();
  try {
    const input = join(dir, 'dense.h5');
    execFileSync('/usr/bin/python3', ['-c', `
import h5py, numpy as np
rng = np.random.default_rng(1)
with h5py.File('${input}', 'w') as f:
    d = f.create_dataset('frames', shape=(${FRAMES}, 2048, 2048), dtype='u2', chunks=(1, 2048, 2048), compression='gzip', compression_opts=1)
    frame = np.zeros((2048, 2048), dtype='u2')
    for i in range(${FRAMES}):
        frame[700:1348, 700:1348] = rng.integers(1, 4000, (648, 648), dtype='u2')
        d[i] = frame
`]);
    const sparse = join(dir, 'sparse.h5');
    const rechunked = join(dir, 'rechunked.h5');
    const [ours, theirs] = interleaved(
      [
        ['chunkform repack → SPARSECHUNK, --exclude 0', process.execPath, [cli.script, 'repack', '-q', '-l', 'frames:SPARSECHUNK=1x2048x2048', '--exclude', '0', input, sparse]],
        ['h5repack → CHUNK=1x512x512 GZIP=4', 'h5repack', ['-l', 'frames:CHUNK=1x512x512', '-f', 'frames:GZIP=4', input, rechunked]],
      ],
      REPEAT,
    ).map(([, m]) => m) as [Measured, Measured];
    const mb = (p: string): string => (statSync(p).size / 2 ** 20).toFixed(1);
    console.log(`\n## repack, ${FRAMES} frames 2048×2048 uint16, 10 % ROI, input ${mb(input)} MiB (dense gzip 1); compiled CLI; medians of ${REPEAT} interleaved rounds`);
    const row = (label: string, m: Measured, out: string): string => `| ${label} | ${m.seconds.toFixed(2)} | ${m.cpu.toFixed(2)} | ${m.rssMiB.toFixed(0)} | ${out} |`;
    console.log('| tool | wall (s) | CPU (s) | peak RSS (MiB) | output (MiB) |\n|---|---|---|---|---|');
    console.log(row('chunkform repack → SPARSECHUNK, --exclude 0', ours, mb(sparse)));
    console.log(row('h5repack → CHUNK=1x512x512 GZIP=4', theirs, mb(rechunked)));
    console.log(`| ratio (chunkform / h5repack) | ${(ours.seconds / theirs.seconds).toFixed(2)}× | ${(ours.cpu / theirs.cpu).toFixed(2)}× | ${(ours.rssMiB / theirs.rssMiB).toFixed(2)}× | |`);
  } finally {
    cli.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await runToolsRepack();
