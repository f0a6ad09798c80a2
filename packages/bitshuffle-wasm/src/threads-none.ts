/**
 * No worker threads (the `#threads` import for browsers and other non-Node runtimes): the
 * bitshuffle+LZ4 encoder stays on the calling thread.
 * @module
 */

/** A worker thread that runs bshufLz4Compress on its own WebAssembly instance. */
export interface BshufLz4Worker {
  /** True once the worker is running (requests made before are queued, so callers wait for this). */
  readonly ready: boolean;
  /**
   * bshufLz4Compress of `data` (whose buffer is transferred to the worker: pass a fresh copy):
   * the framed blocks and the raw leftover elements.
   */
  compress(data: Uint8Array, elemSize: number, blockSize: number): Promise<Uint8Array>;
  /** Stops the worker (pending requests are rejected). */
  terminate(): void;
}

/** Always null here: no worker threads in this runtime. */
export function startBshufLz4Worker(_module: WebAssembly.Module): BshufLz4Worker | null {
  return null;
}
