/** Bounded concurrency for the chunk engine's per-chunk work. @module */

/**
 * Runs `fn` over `items` with at most `limit` promises in flight; rejects with the first failure,
 * once the items already begun have settled (none is begun after it): when the call rejects, no
 * work of it goes on behind the caller (no chunk still written into the caller's buffer or the file).
 */
export async function inParallel<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  // one item (e.g. a frame written into its own chunk): no worker promises
  if (items.length === 1) return fn(items[0]!);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (!failure && next < items.length) {
      try {
        await fn(items[next++]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw (failure as { error: unknown }).error;
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
