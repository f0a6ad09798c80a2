/**
 * Kept image buffers (src/vl-image-pool.ts) are dropped once none came back for a second — one timer
 * for the pool, not one per buffer given back. (A file of its own: the pool's timer is module
 * state, and no other test may have armed it with real timers.)
 */
import { describe, expect, it, vi } from 'vitest';
import { POOLED_MIN_BYTES, giveBack, takeImage } from '../src/vl-image-pool.js';

describe('kept image buffers, when idle', () => {
  it('kept buffers are dropped once none came back for a second, not while buffers keep coming back', () => {
    vi.useFakeTimers();
    try {
      const size = POOLED_MIN_BYTES + 5000;
      const a = takeImage(size).image;
      const b = takeImage(size).image;
      giveBack(a);
      vi.advanceTimersByTime(700);
      giveBack(b); // the one timer looks again a second after this one
      vi.advanceTimersByTime(700);
      const again = takeImage(size);
      expect(again.reused).toBe(true);
      giveBack(again.image);
      vi.advanceTimersByTime(999);
      expect(takeImage(size).reused).toBe(true); // (the other one)
      vi.advanceTimersByTime(2);
      expect(takeImage(size).reused).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});
