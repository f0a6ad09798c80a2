/**
 * The filter worker pool where there are no worker threads (the `#pool` import for browsers and
 * other non-Node runtimes, whose `#workers` is ./threads-none.ts): the functions of ./pool.ts with
 * no workers — every filter runs on the calling thread, as the pool there does with no threads — and
 * none of the pool's machinery (job dispatch, input buffers, warm-up) in a browser bundle.
 * @module
 */
import { setPipelineOffload, type PipelineOffload } from '@chunkform/core/plugin';
import { checkWorkerOptions, DEFAULT_WORKER_MIN_BYTES, type WorkerOptions } from './options.js';

export { DEFAULT_WORKER_MIN_BYTES, type WorkerOptions };

/** Takes no chunk; `threads` 0 tells the chunk engine that pipelines run on the calling thread. */
const offload: PipelineOffload = { threads: 0, encode: () => null, decode: () => null };

/** No chunk ever runs on a worker here. */
export function workerStats(): { done: number; failed: number; read: number; takenBack: number } {
  return { done: 0, failed: 0, read: 0, takenBack: 0 };
}

/**
 * Checks the options as in Node and enables the (thread-less) pool: filters run on the calling thread.
 * @throws RangeError for a negative or fractional thread count or byte threshold.
 */
export function configureWorkers(opts: WorkerOptions = {}): void {
  checkWorkerOptions(opts);
  setPipelineOffload(offload);
}

/** Always 0: no worker threads in this runtime. */
export function workerPoolSize(): number {
  return 0;
}

/** Always 0: no worker threads in this runtime. */
export async function startWorkers(): Promise<number> {
  return 0;
}

/** Nothing to stop: no worker threads in this runtime. */
export function stopWorkers(): void {
  // no workers, no buffers kept for them
}

/** Enables the (thread-less) pool in core's pipeline (what `registerFilters()` does). */
export function installWorkerPool(): void {
  setPipelineOffload(offload);
}
