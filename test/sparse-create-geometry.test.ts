/**
 * Sparse and dense chunked datasets share one chunk-geometry check at creation: the same typed
 * errors for a wrong chunk rank, a non-positive or oversized chunk dimension and HDF5's 4 GiB limit.
 */
import { describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, MemoryStore, ValueError } from '../packages/core/src/index.js';

describe('chunk geometry at creation (dense and sparse alike)', () => {
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['rank', { shape: [10, 10], chunks: [5] }, /chunks have rank 1, the dataset rank 2/],
    ['non-positive', { shape: [10, 10], chunks: [5, 0] }, /chunk dimension 1 must be a positive integer/],
    ['above maxShape', { shape: [10, 10], maxShape: [10, 10], chunks: [5, 20] }, /chunk dimension 1 \(20\) exceeds the maximum dimension/],
    ['4 GiB', { shape: [1, 1], maxShape: [null, null], chunks: [65536, 16384] }, /exceed HDF5's 4 GiB chunk limit/],
  ];
  for (const layout of ['chunked', 'sparse'] as const) {
    for (const [name, opts, message] of bad) {
      it(`${layout}: ${name}`, async () => {
        const f = await createFile(new MemoryStore());
        const p = f.createDataset('x', { dtype: 'uint32', ...(layout === 'sparse' ? { layout } : {}), ...opts } as never);
        await expect(p).rejects.toThrow(ValueError);
        await expect(f.createDataset('y', { dtype: 'uint32', ...(layout === 'sparse' ? { layout } : {}), ...opts } as never)).rejects.toThrow(message);
        await f.close();
      });
    }
  }
});
