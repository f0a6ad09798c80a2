/**
 * A progress bar on stderr (cli-progress) for long work — only when stderr is a terminal, the
 * output does not go to that same terminal, and `--quiet` is not given.
 * @module
 */
import type { CliIO } from './io.js';

/** A started progress bar (or a no-op one). */
export interface Progress {
  /** Adds `n` units of work done. */
  tick(n: number): void;
  /** Removes the bar. */
  stop(): void;
}

const NONE: Progress = { tick() {}, stop() {} };

/**
 * Starts a bar of `total` units named `label`, or returns a no-op when no bar should show
 * (`quiet`, stderr not a TTY, or stdout on the terminal too unless `outputToFile`).
 */
export async function startProgress(io: CliIO, total: number, label: string, opts: { quiet?: boolean; outputToFile?: boolean }): Promise<Progress> {
  if (opts.quiet || !io.stderr.isTTY || (io.stdout.isTTY && !opts.outputToFile) || total <= 0) return NONE;
  const { SingleBar, Presets } = (await import('cli-progress')).default;
  const bar = new SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total} | ETA {eta_timeTotal}`, stream: io.stderr as NodeJS.WritableStream, clearOnComplete: true, hideCursor: true },
    Presets.shades_classic,
  );
  bar.start(total, 0);
  return {
    tick: (n) => bar.increment(n),
    stop: () => bar.stop(),
  };
}
