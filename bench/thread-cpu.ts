/**
 * Per-thread CPU accounting of the thread-scaling benches (bench/threads.ts, bench/threads-cpu.ts):
 * Linux /proc/self/task/<tid>/schedstat of every thread of this process, split into the main thread,
 * the filter workers and the rest (libuv's pool writing chunks into the page cache, V8's helper
 * threads), and the 2-core bound of a row's 1 → 2 thread scaling that follows from it. Elsewhere
 * (no /proc) every figure is NaN.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU milliseconds of every thread of this process so far, by thread id (empty without /proc). */
export function threadCpu(): Map<string, number> {
  const m = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return m;
  }
  for (const t of tasks) {
    try {
      m.set(t, Number(readFileSync(`/proc/self/task/${t}/schedstat`, 'utf8').split(' ')[0]) / 1e6);
    } catch {
      // (the thread ended meanwhile)
    }
  }
  return m;
}

/** CPU milliseconds of one timed run by kind of thread. */
export interface CpuSplit {
  main: number;
  workers: number;
  other: number;
}

/**
 * The CPU of each kind of thread between snapshots `a` and `b` of {@link threadCpu}, ÷ `runs`.
 * `isWorker(tid)`: the filter workers' threads (the threads that appeared after `baseline`, see
 * {@link workerThreads}).
 */
export function cpuSplit(a: Map<string, number>, b: Map<string, number>, isWorker: (tid: string) => boolean, runs = 1): CpuSplit {
  const per = { main: NaN, workers: 0, other: 0 };
  if (b.size === 0) return { main: NaN, workers: NaN, other: NaN };
  per.main = 0;
  for (const [tid, ms] of b) {
    const d = (ms - (a.get(tid) ?? 0)) / runs;
    if (tid === String(process.pid)) per.main += d;
    else if (isWorker(tid)) per.workers += d;
    else per.other += d;
  }
  return per;
}

/**
 * A predicate for {@link cpuSplit}: threads not in `baseline` (taken after libuv's pool started, i.e.
 * after the first asynchronous file call, and before any worker) are the filter workers. Node names
 * no thread, so this is how they are told apart; worker threads started for anything else (the zlib
 * ceiling's) must have ended before a run is accounted.
 */
export function workerThreads(baseline: Map<string, number>): (tid: string) => boolean {
  const known = new Set(baseline.keys());
  return (tid) => !known.has(tid);
}

/** Share of the process's CPU outside the filter workers (main + the rest). */
export const outsideShare = (s: CpuSplit): number => (s.main + s.other) / (s.main + s.workers + s.other);

/**
 * The most a row's 1 → 2 worker scaling can reach on 2 cores, from the CPU accounting of its 1-thread
 * run (`one`) and its 2-thread run (`two`): the 1-thread run lasts at least its one worker's CPU and at
 * least half the process's CPU (two cores), the 2-thread run at least half the process's CPU, so
 * 2 ÷ 1 ≤ max(W₁, C₁ / 2) ÷ (C₂ / 2), and never more than 2, the worker count. With the same work at
 * both counts this is 2 (1 − s), s the share of the CPU outside the workers. On a machine with a free
 * core for the main thread (and the rest) the 2-thread run needs only W₂ / 2 and the bound is the
 * worker count.
 */
export function bound2(one: CpuSplit, two: CpuSplit): number {
  const c1 = one.main + one.workers + one.other;
  const c2 = two.main + two.workers + two.other;
  return Math.min(2, Math.max(one.workers, c1 / 2) / (c2 / 2));
}
