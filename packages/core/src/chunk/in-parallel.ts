/** Bounded concurrency for the chunk engine's per-chunk work. @module */

/** Runs `fn` over `items` with at most `limit` promises in flight; rejects with the first failure. */
export async function inParallel<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  // one item (e.g. a frame written into its own chunk): no worker promises
  if (items.length === 1) return fn(items[0]!);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Bytes of chunks in flight that more filter threads may not push a read, write or flush past. */
const THREADS_IN_FLIGHT_BYTES = 256 << 20;

/**
 * Chunks to keep in flight so that each of `threads` filter worker threads has its next chunk (two per
 * thread plus two), but no more than `atLeast` when that would hold over 256 MiB of chunks.
 */
export function chunksForThreads(atLeast: number, chunkBytes: number, threads: number): number {
  return Math.max(atLeast, Math.min(2 * threads + 2, Math.floor(THREADS_IN_FLIGHT_BYTES / Math.max(1, chunkBytes))));
}
