/**
 * The options of the filter worker pool (./pool.ts, and ./pool-none.ts where there are no worker
 * threads): defaults and their validation.
 * @module
 */

/** Chunks from this many bytes (raw or stored) go to the pool by default. */
export const DEFAULT_WORKER_MIN_BYTES = 128 * 1024;

/** Options of `configureWorkers`. */
export interface WorkerOptions {
  /**
   * Worker threads (default: `os.availableParallelism()` in Node, 0 elsewhere). 0 runs every filter on
   * the calling thread (deflate then still uses Node's zlib thread pool for large chunks).
   */
  threads?: number;
  /** Smallest chunk handed to a worker, in bytes (default {@link DEFAULT_WORKER_MIN_BYTES}). */
  minBytes?: number;
}

/** @throws RangeError for a negative or fractional thread count or byte threshold. */
export function checkWorkerOptions(opts: WorkerOptions): void {
  if (opts.threads !== undefined && !(Number.isInteger(opts.threads) && opts.threads >= 0)) {
    throw new RangeError(`configureWorkers: threads must be a whole number ≥ 0, got ${opts.threads}`);
  }
  if (opts.minBytes !== undefined && !(Number.isInteger(opts.minBytes) && opts.minBytes >= 0)) {
    throw new RangeError(`configureWorkers: minBytes must be a whole number ≥ 0, got ${opts.minBytes}`);
  }
}
