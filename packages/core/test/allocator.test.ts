/**
 * The allocator's copy-on-write bookkeeping: fresh space (allocated since the last flush) is reused
 * at once when released; flushed space only after the next successful flush.
 */
import { describe, expect, it } from 'vitest';
import { Allocator } from '../src/file/allocator.js';

describe('Allocator fresh space', () => {
  it('space allocated since the last flush is fresh, also across adjacent allocations', () => {
    const a = new Allocator(100);
    const x = a.alloc(16);
    const y = a.alloc(16);
    expect(x).toBe(104);
    expect(y).toBe(120);
    expect(a.isFresh(x, 16)).toBe(true);
    expect(a.isFresh(x, 32)).toBe(true);
    expect(a.isFresh(x + 4, 8)).toBe(true);
    expect(a.isFresh(96, 16)).toBe(false);
    expect(a.isFresh(0, 8)).toBe(false);
    expect(a.isFresh(y, 24)).toBe(false);
  });

  it('released fresh space is reused at once', () => {
    const a = new Allocator(0);
    a.alloc(64);
    const x = a.alloc(32);
    a.alloc(64);
    a.release(x, 32);
    expect(a.isFresh(x, 32)).toBe(false);
    expect(a.alloc(32)).toBe(x);
    expect(a.isFresh(x, 32)).toBe(true);
  });

  it('released flushed space waits for the next flush; commit makes it reusable and clears freshness', () => {
    const a = new Allocator(0);
    const x = a.alloc(32);
    a.alloc(32);
    a.commit();
    expect(a.isFresh(x, 32)).toBe(false);
    a.release(x, 32);
    expect(a.deferredBytes).toBe(32);
    const y = a.alloc(32);
    expect(y).toBe(64);
    a.commit();
    expect(a.deferredBytes).toBe(0);
    expect(a.alloc(32)).toBe(x);
  });

  it('beginCommit ends freshness but keeps releases deferred (the commit may not complete)', () => {
    const a = new Allocator(0);
    a.alloc(32);
    a.commit();
    const x = a.alloc(32);
    a.release(0, 32);
    a.beginCommit();
    expect(a.isFresh(x, 32)).toBe(false);
    expect(a.deferredBytes).toBe(32);
    // a failed commit: a later release of x (written by it) is deferred too
    a.release(x, 32);
    expect(a.deferredBytes).toBe(64);
    expect(a.alloc(8)).toBe(64);
  });

  it('released space at the end shrinks the file; claim marks given space fresh', () => {
    const a = new Allocator(48);
    a.claim(48, 100);
    expect(a.eof).toBe(148);
    expect(a.isFresh(48, 100)).toBe(true);
    const x = a.alloc(16);
    expect(x).toBe(152);
    a.release(x, 16);
    expect(a.eof).toBe(148); // the alignment padding before the block goes with it
  });
});
