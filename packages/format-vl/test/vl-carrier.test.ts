/**
 * The request buffers that carry the lanes of reads and writes (core's chunk/object-lane.ts): calls
 * one after another, calls at once and a call that fails leave every later call its own values.
 */
import { describe, expect, it } from 'vitest';
import { SelectionError, selectHyperslab, type Dataset } from '@chunkform/core';
import { VLStrings, createVlDataset } from '../src/index.js';
import { memoryFile } from './support.js';

describe('the lane carrier of VL reads and writes', () => {
  it('calls one after another and at once, and after a failed call, each read and write its own values', async () => {
    const { file } = await memoryFile();
    const a = Array.from({ length: 3000 }, (_, i) => `a${i}`);
    const b = Array.from({ length: 500 }, (_, i) => `bb${i}`);
    const da: Dataset = await createVlDataset(file, 'a', { dtype: 'string', shape: [3000], chunks: [256] });
    const db: Dataset = await createVlDataset(file, 'b', { dtype: 'string', shape: [500], chunks: [64] });
    await Promise.all([da.write(VLStrings.from(a)), db.write(b)]);
    for (let r = 0; r < 2; r++) {
      const [ra, rb, ca, cb] = await Promise.all([da.read(), db.read(), da.readColumnar<VLStrings>(), db.readColumnar<VLStrings>()]);
      expect(ra).toEqual(a);
      expect(rb).toEqual(b);
      expect(ca.toArray()).toEqual(a);
      expect(cb.toArray()).toEqual(b);
    }
    await expect(da.read(selectHyperslab({ start: [2999], count: [5] }))).rejects.toThrow(SelectionError);
    expect(((await db.readColumnar<VLStrings>()) as VLStrings).toArray()).toEqual(b);
    expect(await da.read(selectHyperslab({ start: [10], count: [3] }))).toEqual(a.slice(10, 13));
    await file.close();
  });
});
