/**
 * The child side of test/oracle/corrupt-harness.ts's protocol, shared by the corrupt-input workers
 * (test/corrupt-worker.ts, test/chunked-corrupt-worker.ts; run with `node --import tsx`): walking a
 * mutated file while collecting every error thrown, classifying the errors into an outcome, and the
 * message loop that applies each mutation, walks the result under a timer and reports over IPC.
 *
 * Parent → child: { file, mutations, start, gc }.
 * Child → parent: { type: 'start', i } before mutation i, { type: 'result', i, ...outcome } after it,
 *                 { type: 'done' } at the end.
 * @module
 */
import { readFileSync } from 'node:fs';
import { FilterError, H5Error, openFile, type H5File } from '../../packages/core/src/index.js';
import type { HarnessOutcome } from './corrupt-harness.js';

/** The child's own timer (asynchronous hangs); the parent's watchdog catches synchronous ones. */
export const WALK_TIMEOUT_MS = 5000;

/**
 * The walks' read limit (openFile's `maxReadBytes`): a dataspace inflated by a mutation past it must
 * give a typed error before anything is allocated; below it, the read may allocate (peak memory per
 * mutation stays within the suites' 256 MB bound).
 */
export const WALK_MAX_READ_BYTES = 64 << 20;

/** Runs `fn`, recording an error it throws instead of propagating it (then: undefined). */
export type Attempt = <T>(fn: () => Promise<T>) => Promise<T | undefined>;

/**
 * Opens `bytes` and, if that succeeds, runs `visit` on the file, then closes it; every call made
 * through `attempt` records its error instead of throwing. Returns every error recorded.
 */
export async function walkFile(bytes: Uint8Array, visit: (f: H5File, attempt: Attempt) => Promise<void>): Promise<unknown[]> {
  const errors: unknown[] = [];
  const attempt: Attempt = async (fn) => {
    try {
      return await fn();
    } catch (e) {
      errors.push(e);
      return undefined;
    }
  };
  const f = await attempt(() => openFile(bytes, { maxReadBytes: WALK_MAX_READ_BYTES }));
  if (!f) return errors;
  await visit(f, attempt);
  await attempt(() => f.close());
  return errors;
}

/** One error of an outcome's `errors` list: class, message, and a FilterError's chunk and filter id. */
function describeError(e: unknown): NonNullable<HarnessOutcome['errors']>[number] {
  const err = e instanceof Error ? e : new Error(String(e));
  return {
    name: err.constructor.name,
    message: err.message.slice(0, 400),
    ...(e instanceof FilterError && e.chunk ? { chunk: [...e.chunk] } : {}),
    ...(e instanceof FilterError && e.filterId !== undefined ? { filterId: e.filterId } : {}),
  };
}

/**
 * The outcome of mutation `i` from the errors its walk met: 'ok' (none), 'h5error' (all H5Errors)
 * or 'bad' (any other, with its stack); `listErrors` adds the first six errors as `errors`.
 */
export function classify(i: number, errors: unknown[], listErrors = false): HarnessOutcome {
  const bad = errors.find((e) => !(e instanceof H5Error));
  const e = bad ?? errors[0];
  if (e === undefined) return { i, outcome: 'ok' };
  const err = e instanceof Error ? e : new Error(String(e));
  return {
    i,
    outcome: bad !== undefined ? 'bad' : 'h5error',
    errorName: e instanceof Error ? e.constructor.name : typeof e,
    message: err.message.slice(0, 300),
    ...(listErrors ? { errors: errors.slice(0, 6).map(describeError) } : {}),
    ...(bad !== undefined ? { stack: (err.stack ?? '').split('\n').slice(0, 8).join('\n') } : {}),
  };
}

/** What a worker does with each mutation. */
export interface WorkerSpec<M> {
  /** Name of the worker, for its failure message. */
  name: string;
  /** The bytes of the file with a mutation applied. */
  apply: (orig: Uint8Array, m: M) => Uint8Array;
  /** Walks a mutated file; returns every error met. */
  walk: (bytes: Uint8Array) => Promise<unknown[]>;
  /** Passed to {@link classify}. */
  listErrors?: boolean;
}

/** Resident set size in MB now, and the process's peak so far. */
function memory(): { rssMb: number; maxRssMb: number } {
  return { rssMb: process.memoryUsage.rss() / 2 ** 20, maxRssMb: process.resourceUsage().maxRSS / 1024 };
}

async function run<M>(spec: WorkerSpec<M>, file: string, mutations: M[], start: number, gcEach: boolean): Promise<void> {
  const orig = new Uint8Array(readFileSync(file));
  const send = (msg: unknown): Promise<void> => new Promise((res) => process.send!(msg, () => res()));
  const gc = (globalThis as { gc?: () => void }).gc;
  // The baseline: this child's resident size before its first mutation (modules loaded, nothing walked).
  gc?.();
  const baseRssMb = memory().rssMb;
  for (let i = start; i < mutations.length; i++) {
    if (gcEach) gc?.();
    await send({ type: 'start', i });
    const bytes = spec.apply(orig, mutations[i]!);
    let timer: NodeJS.Timeout | undefined;
    const hang = new Promise<'hang'>((res) => {
      timer = setTimeout(() => res('hang'), WALK_TIMEOUT_MS);
    });
    const r = await Promise.race([spec.walk(bytes), hang]);
    clearTimeout(timer);
    // Peak memory of the case: the process's peak resident size so far, over the baseline (an upper
    // bound: an earlier case of this child may have set it; without `gc`, uncollected garbage counts).
    const peakMb = Math.round(memory().maxRssMb - baseRssMb);
    await send({ type: 'result', ...(r === 'hang' ? { i, outcome: 'hang' } : classify(i, r, spec.listErrors)), peakMb });
  }
  await send({ type: 'done' });
}

/** Serves the parent's request (one per child): runs its mutations from `start` on, then exits. */
export function serveMutations<M>(spec: WorkerSpec<M>): void {
  process.on('message', (msg: { file: string; mutations: M[]; start: number; gc?: boolean }) => {
    run(spec, msg.file, msg.mutations, msg.start, msg.gc === true).then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`${spec.name} failed: ${e instanceof Error ? e.stack : String(e)}\n`);
        process.exit(1);
      },
    );
  });
}
