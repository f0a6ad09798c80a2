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
