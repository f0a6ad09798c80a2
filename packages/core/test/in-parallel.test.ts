/**
 * Bounded concurrency of the chunk engine (src/chunk/in-parallel.ts): every item runs once with at
 * most `limit` in flight; after a failure no item is begun, and the call rejects with the first
 * failure only once the items already begun have settled (nothing of the call goes on behind it).
 */
import { describe, expect, it } from 'vitest';
import { inParallel } from '../src/chunk/in-parallel.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('inParallel', () => {
  it('runs every item once, at most `limit` at a time', async () => {
    const seen: number[] = [];
    let running = 0;
    let most = 0;
    await inParallel(Array.from({ length: 20 }, (_, i) => i), 4, async (i) => {
      most = Math.max(most, ++running);
      await tick(i % 3);
      seen.push(i);
      running--;
    });
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(most).toBe(4);
  });

  it('after a failure begins no item and rejects with the first failure once the begun ones have settled', async () => {
    const begun: number[] = [];
    const settled: number[] = [];
    const run = inParallel(Array.from({ length: 20 }, (_, i) => i), 4, async (i) => {
      begun.push(i);
      try {
        if (i === 1) throw new Error('item 1 fails');
        if (i === 5) throw new Error('item 5 fails too');
        await tick(20);
      } finally {
        settled.push(i);
      }
    });
    await expect(run).rejects.toThrow('item 1 fails');
    // at the rejection: the items in flight when item 1 failed (0, 2 and 3) are done, and no other began
    expect(begun.sort((a, b) => a - b)).toEqual([0, 1, 2, 3]);
    expect(settled.sort((a, b) => a - b)).toEqual(begun);
    await tick(50);
    expect(begun.length).toBe(4);
  });
});
