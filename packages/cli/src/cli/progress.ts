/**
 * The progress bar of long tool runs: cli-progress on stderr, shown only when stderr is a terminal and
 * `--quiet` is not given; otherwise every call is a no-op. One implementation for every command:
 * {@link createProgress} for work whose total grows as it is found (repack, import, copy),
 * {@link startProgress} for a total known up front (dump).
 * @module
 */
import cliProgress from 'cli-progress';
import type { CliIO, TextWriter } from './io.js';

/** Progress of one run, in work units (bytes or elements). */
export interface Progress {
  /** Adds `n` to the total amount of work. */
  grow(n: number): void;
  /** Marks `n` more units done. */
  advance(n: number): void;
  /** Removes the bar. */
  stop(): void;
}

const NONE: Progress = { grow() {}, advance() {}, stop() {} };

/** A progress bar on `stderr` labelled `label`, or a silent one (`quiet`, or stderr not a terminal). */
export function createProgress(stderr: TextWriter, quiet: boolean, label: string): Progress {
  if (quiet || stderr.isTTY !== true) return NONE;
  const bar = new cliProgress.SingleBar(
    {
      stream: stderr as NodeJS.WritableStream,
      format: `${label} [{bar}] {percentage}% | ETA {eta_formatted}`,
      clearOnComplete: true,
      hideCursor: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let total = 0;
  let done = 0;
  let started = false;
  return {
    grow(n) {
      total += n;
      if (!started) {
        bar.start(Math.max(total, 1), done);
        started = true;
      } else bar.setTotal(Math.max(total, 1));
    },
    advance(n) {
      done += n;
      if (started) bar.update(done);
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}

/**
 * A bar of `total` units named `label` for dump: none when `quiet`, when stderr is not a terminal, when
 * there is nothing to count, or when stdout is that terminal too (unless the output goes to a file).
 */
export async function startProgress(
  io: CliIO,
  total: number,
  label: string,
  opts: { quiet?: boolean; outputToFile?: boolean },
): Promise<{ tick(n: number): void; stop(): void }> {
  const quiet = opts.quiet === true || total <= 0 || (io.stdout.isTTY === true && !opts.outputToFile);
  const p = createProgress(io.stderr, quiet, label);
  p.grow(total);
  return { tick: (n) => p.advance(n), stop: () => p.stop() };
}
