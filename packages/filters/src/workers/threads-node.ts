/**
 * Worker-thread backend of the filter pool (the `#workers` import condition `node`; browsers get
 * ./threads-none.ts): a `node:worker_threads` Worker running ./worker.ts (./worker.js once built).
 * Idle workers do not keep the process alive.
 * @module
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CLAIM_SLOTS, CLAIM_STARTED, CLAIM_TAKEN, READY_ID, type FilterJob, type FilterReply, type FilterResult, type FilterWorker, type FilterWorkerData, type SectionsJob, type TaskJob } from './protocol.js';

/** The machine's parallelism (`os.availableParallelism()`). */
export function machineThreads(): number {
  return availableParallelism();
}

/**
 * The worker's entry: the built ./worker.js, or — when this package runs from its TypeScript sources
 * (the monorepo's tests and benchmarks) — a small module that registers tsx's loader in the worker
 * and then imports ./worker.ts.
 */
function entry(): URL {
  if (!import.meta.url.endsWith('.ts')) return new URL('./worker.js', import.meta.url);
  const tsx = join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs');
  const boot = `import { register } from ${JSON.stringify(pathToFileURL(tsx).href)}; register(); await import(${JSON.stringify(new URL('./worker.ts', import.meta.url).href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(boot)}`);
}

/**
 * Starts one filter worker (null when workers cannot be created here), which loads the codecs of
 * the filters `warm` (and runs them over `warmBytes`: ./warm.ts) before it reports ready.
 */
export function startFilterWorker(warm: readonly number[] = [], warmBytes = 0): FilterWorker | null {
  let worker: Worker;
  // the claims of jobs that may be taken back before they start (protocol.ts)
  const claims = new Int32Array(new SharedArrayBuffer(4 * CLAIM_SLOTS)).fill(CLAIM_STARTED);
  try {
    worker = new Worker(entry(), { workerData: { warm: [...warm], warmBytes, claims } satisfies FilterWorkerData });
  } catch {
    return null;
  }
  let onReady!: () => void;
  let onFail!: (e: Error) => void;
  const ready = new Promise<void>((resolve, reject) => ((onReady = resolve), (onFail = reject)));
  ready.catch(() => undefined);
  let next = 0;
  let dead: Error | null = null;
  const pending = new Map<number, { resolve(v: FilterResult): void; reject(e: Error): void; slot?: number }>();
  /** A claim slot no pending job holds (undefined when all are held). */
  const freeSlot = (): number | undefined => {
    let used = 0;
    for (const p of pending.values()) if (p.slot !== undefined) used |= 1 << p.slot;
    for (let i = 0; i < CLAIM_SLOTS; i++) if (!((used >>> i) & 1)) return i;
    return undefined;
  };
  const settleAll = (e: Error): void => {
    dead ??= e;
    onFail(e);
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  worker.on('error', (e) => settleAll(e instanceof Error ? e : new Error(String(e))));
  worker.on('exit', () => settleAll(new Error('filters: a filter worker exited')));
  worker.on('message', (m: FilterReply) => {
    if (m.id === READY_ID) return onReady();
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (pending.size === 0) worker.unref();
    if (m.done) p.resolve({ filterMask: 0, value: m.value });
    else if (m.bytes || m.written || m.outLength !== undefined) {
      p.resolve({
        ...(m.bytes ? { bytes: m.bytes } : {}),
        filterMask: m.filterMask ?? 0,
        ...(m.input ? { input: m.input } : {}),
        ...(m.outLength !== undefined ? { outLength: m.outLength } : {}),
        ...(m.sizes ? { sizes: m.sizes, masks: m.masks! } : {}),
      });
    }
    else p.reject(new Error(m.error ?? 'filters: the worker failed'));
  });
  // The worker keeps the process alive until it is ready (someone may be waiting for that), then
  // only while requests are pending (unref after the listeners: attaching one refs the port again).
  void ready.then(() => {
    if (pending.size === 0) worker.unref();
  }, () => worker.unref());
  return {
    ready,
    get pending() {
      return dead ? Infinity : pending.size;
    },
    run(job: FilterJob | SectionsJob | TaskJob) {
      if (dead) return Promise.reject(dead);
      const id = next;
      next = (next + 1) & 0x7fffffff; // (ids are the claims' values: non-negative 32-bit integers)
      if (pending.size === 0) worker.ref(); // keep the process alive until the reply arrives
      // a chunk the worker reads from the file itself can be taken back until it starts (takeBack)
      const slot = job.direction === 'decode' && job.stored && !job.bytes ? freeSlot() : undefined;
      if (slot !== undefined) Atomics.store(claims, slot, id);
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, ...(slot !== undefined ? { slot } : {}) });
        // (no bytes transferred: the sections of a structured chunk and a task — shared memory, or small
        // ones the message copies — and a chunk whose stored bytes the worker reads from the file itself)
        const bytes = job.direction === 'sections' || job.direction === 'task' ? undefined : job.bytes;
        const shared = !bytes || (typeof SharedArrayBuffer === 'function' && bytes.buffer instanceof SharedArrayBuffer);
        worker.postMessage({ id, ...(slot !== undefined ? { slot } : {}), ...job }, shared ? [] : [bytes.buffer as ArrayBuffer]);
      });
    },
    takeBack() {
      // newest first: the job that would start last; a slot the worker has claimed no longer holds the id
      const ids = [...pending.keys()];
      for (let i = ids.length - 1; i >= 0; i--) {
        const id = ids[i]!;
        const p = pending.get(id)!;
        if (p.slot === undefined || Atomics.compareExchange(claims, p.slot, id, CLAIM_TAKEN) !== id) continue;
        // (the slot may go to a new job at once: the worker compares its own job's id, so it skips this one)
        pending.delete(id);
        if (pending.size === 0) worker.unref();
        p.resolve({ filterMask: 0, takenBack: true });
        return true;
      }
      return false;
    },
    terminate() {
      settleAll(new Error('filters: the filter worker was stopped'));
      void worker.terminate();
    },
  };
}
