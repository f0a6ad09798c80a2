/**
 * The child-process harness of the corrupt-input suites (test/corrupt.test.ts,
 * test/chunked-corrupt.test.ts): a worker script (run with `node --import tsx`; its side of the
 * protocol is test/oracle/corrupt-worker-common.ts) applies each mutation to a file's bytes and walks
 * the result, reporting over IPC; the parent restarts it after a synchronous hang (watchdog) or a
 * crash and attributes both to the mutation being processed.
 *
 * Parent → child: { file, mutations, start, gc }.
 * Child → parent: { type: 'start', i } before mutation i, { type: 'result', i, ...outcome } after it,
 *                 { type: 'done' } at the end.
 * @module
 */
import { fork, type ChildProcess } from 'node:child_process';

/** What happened to one mutation (a superset of mutations.ts's Outcome). */
export interface HarnessOutcome {
  i: number;
  outcome: 'ok' | 'h5error' | 'bad' | 'hang' | 'crash';
  errorName?: string;
  message?: string;
  stack?: string;
  /**
   * Peak resident memory (MB) of the child over its baseline (its size before its first mutation) by
   * the end of this mutation: the process's peak so far, so an upper bound for this one mutation.
   */
  peakMb?: number;
  /** Every error the walk met (worker-specific details). */
  errors?: { name: string; message: string; chunk?: number[]; filterId?: number }[];
}

/** Options of {@link runMutations}. */
export interface HarnessOptions {
  /** The watchdog: a mutation not answered within this many ms is a hang (default 7000). */
  watchdogMs?: number;
  /** V8 heap limit of the child in MB (default 2048): allocations sized by corrupt numbers crash it. */
  maxOldSpaceMb?: number;
  /**
   * Collect garbage before each mutation, so that `peakMb` reflects the mutation rather than garbage
   * V8 has not collected yet (a few ms per mutation; the size-field suites use it).
   */
  gcEachCase?: boolean;
}

/** Runs `mutations` of `file` in children of `worker`, restarting after a hang or crash. */
export function runMutations<M>(worker: string, file: string, mutations: M[], opts: HarnessOptions = {}): Promise<HarnessOutcome[]> {
  const watchdogMs = opts.watchdogMs ?? 7000;
  const outcomes: HarnessOutcome[] = [];
  return new Promise((resolveAll, rejectAll) => {
    const startChild = (start: number): void => {
      if (start >= mutations.length) {
        resolveAll(outcomes);
        return;
      }
      let current = start;
      let finished = false;
      let stderr = '';
      const child: ChildProcess = fork(worker, [], {
        execArgv: ['--import', 'tsx', '--expose-gc', `--max-old-space-size=${opts.maxOldSpaceMb ?? 2048}`],
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        serialization: 'advanced',
      });
      child.stderr?.on('data', (d: Buffer) => {
        stderr = (stderr + d.toString()).slice(-4000);
      });
      let watchdog: NodeJS.Timeout | undefined;
      let started = false;
      const arm = (): void => {
        clearTimeout(watchdog);
        watchdog = setTimeout(
          () => {
            if (!started) {
              finished = true;
              child.kill('SIGKILL');
              rejectAll(new Error(`${worker} did not start:\n${stderr}`));
              return;
            }
            outcomes.push({ i: current, outcome: 'hang', message: `no answer within ${watchdogMs} ms (synchronous loop?)` });
            finished = true;
            child.kill('SIGKILL');
            startChild(current + 1);
          },
          started ? watchdogMs : 60_000,
        );
      };
      child.on('message', (msg: { type: string } & Partial<HarnessOutcome>) => {
        started = true;
        if (msg.type === 'start') {
          current = msg.i!;
          arm();
        } else if (msg.type === 'result') {
          const { type: _t, ...o } = msg;
          outcomes.push(o as HarnessOutcome);
        } else if (msg.type === 'done') {
          clearTimeout(watchdog);
          finished = true;
          resolveAll(outcomes);
        }
      });
      child.on('exit', (code, signal) => {
        clearTimeout(watchdog);
        if (finished) return;
        finished = true;
        if (!started) {
          rejectAll(new Error(`${worker} exited (${code ?? signal}) before starting:\n${stderr}`));
          return;
        }
        outcomes.push({ i: current, outcome: 'crash', message: `worker exited with ${code ?? signal}: ${stderr.slice(-1500)}` });
        startChild(current + 1);
      });
      arm();
      child.send({ file, mutations, start, gc: opts.gcEachCase === true });
    };
    startChild(0);
  });
}
