/**
 * The hook through which the chunk reader reaches the reads of defined elements
 * (src/chunk/defined-walks.ts): a clear typed error naming `installDefinedReads()` until something
 * installs them, then the functions of src/chunk/defined.ts.
 */
import { describe, expect, it } from 'vitest';
import { UnsupportedError } from '../src/errors.js';
import { definedWalks } from '../src/chunk/defined-walks.js';
import { chunkParts, installDefinedReads } from '../src/chunk/defined.js';
import { concatSlabs } from '../src/selection/concat.js';

describe('defined walks hook', () => {
  it('names installDefinedReads() until installed, then gives the walks', () => {
    let err: unknown;
    try {
      definedWalks('mine', '/d');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UnsupportedError);
    expect((err as Error).message).toMatch(/chunk format "mine" tracks defined elements: .*installDefinedReads\(\)/);
    expect((err as UnsupportedError).path).toBe('/d');
    installDefinedReads();
    const w = definedWalks('mine', '/d');
    expect(w.chunkParts).toBe(chunkParts);
    expect(w.concatSlabs).toBe(concatSlabs);
  });
});
