/**
 * No worker threads (the `#workers` import for browsers and other non-Node runtimes): filters run
 * on the calling thread.
 * @module
 */
import type { FilterWorker } from './protocol.js';

/** Threads a pool would use by default here: none. */
export function machineThreads(): number {
  return 0;
}

/** Always null: no worker threads in this runtime. */
export function startFilterWorker(_warm?: readonly number[], _warmBytes?: number): FilterWorker | null {
  return null;
}
