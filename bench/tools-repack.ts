/**
 * Repack benchmark (issue 12): BENCH_REPACK_FRAMES (default 100) frames of 2048×2048 uint16 with a
 * 10 % region of interest (the rest 0), written by h5py as a dense gzip dataset of one frame per
 * chunk, then
 * - `chunkform repack -l frames:SPARSECHUNK=1x2048x2048 --exclude 0` (dense gzip → sparse), and
 * - `h5repack -l frames:CHUNK=1x512x512 -f frames:GZIP=4` (dense gzip → re-chunked gzip),
 * each in its own process under /usr/bin/time: wall time and peak RSS side by side. Also runs
 * alone: `node --import tsx bench/tools-repack.ts`.
 * @module
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FRAMES = Number(process.env.BENCH_REPACK_FRAMES ?? 100);
const BIN = fileURLToPath(new URL('../packages/cli/bin/chunkform.js', import.meta.url));

/** Runs a command under /usr/bin/time: wall seconds, CPU seconds (user + system) and peak RSS in MB. */
function measured(cmd: string, args: string[]): { seconds: number; cpu: number; rssMB: number } {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', cmd, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  const [sec, user, sys, kb] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
  return { seconds: sec!, cpu: user! + sys!, rssMB: kb! / 1024 };
}

/** Runs the repack comparison and prints one table. */
export function runToolsRepack(): void {
  const dir = mkdtempSync(join(tmpdir(), 'chunkform-bench-repack-'));
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
    const ours = measured('node', [BIN, 'repack', '-q', '-l', 'frames:SPARSECHUNK=1x2048x2048', '--exclude', '0', input, sparse]);
    const theirs = measured('h5repack', ['-l', 'frames:CHUNK=1x512x512', '-f', 'frames:GZIP=4', input, rechunked]);
    const mb = (p: string): string => (statSync(p).size / 2 ** 20).toFixed(1);
    console.log(`\nrepack, ${FRAMES} frames 2048×2048 uint16, 10 % ROI, input ${mb(input)} MB (dense gzip 1)`);
    const row = (label: string, m: { seconds: number; cpu: number; rssMB: number }, out: string): string =>
      `${label.padEnd(46)} ${m.seconds.toFixed(2).padStart(8)} ${m.cpu.toFixed(2).padStart(8)} ${m.rssMB.toFixed(0).padStart(12)} ${out.padStart(10)}`;
    console.log(`${'tool'.padEnd(46)} ${'wall s'.padStart(8)} ${'cpu s'.padStart(8)} ${'peak RSS MB'.padStart(12)} ${'output MB'.padStart(10)}`);
    console.log(row('chunkform repack → SPARSECHUNK, --exclude 0', ours, mb(sparse)));
    console.log(row('h5repack → CHUNK=1x512x512 GZIP=4', theirs, mb(rechunked)));
    console.log(`${'ratio (chunkform / h5repack)'.padEnd(46)} ${(ours.seconds / theirs.seconds).toFixed(2).padStart(8)} ${(ours.cpu / theirs.cpu).toFixed(2).padStart(8)} ${(ours.rssMB / theirs.rssMB).toFixed(2).padStart(12)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) runToolsRepack();
