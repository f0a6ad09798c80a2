/**
 * Reading a selection into a caller's buffer (`DatasetStorage.read(sel, count, into)`) for every
 * layout: the same values as a plain read, every byte of the buffer overwritten, a wrong-sized
 * buffer refused with a typed error.
 */
import { describe, expect, it } from 'vitest';
import { createFile, MemoryStore, openFile, ValueError, type Dataset } from '@chunkform/core';
import { selectAll, selectHyperslab } from '@chunkform/core/plugin';

describe('storage read into a caller buffer', () => {
  for (const layout of ['contiguous', 'compact', 'unwritten contiguous'] as const) {
    it(layout, async () => {
      const store = new MemoryStore();
      const f = await createFile(store);
      const data = Int16Array.from({ length: 6 * 5 }, (_, i) => i * 11 - 100);
      await f.createDataset('x', {
        dtype: 'int16',
        shape: [6, 5],
        fillValue: 3,
        ...(layout === 'compact' ? { layout: 'compact' as const } : {}),
        ...(layout === 'unwritten contiguous' ? {} : { data }),
      });
      await f.close();
      const g = await openFile(store.toBytes());
      const d = (await g.get('x')) as Dataset;
      expect(d.layout.class).toBe(layout === 'compact' ? 'compact' : 'contiguous');
      const storage = await d.storage();
      for (const sel of [selectAll(), selectHyperslab({ start: [1, 1], stride: [2, 2], count: [3, 2], block: [1, 1] })]) {
        const expected = Array.from((await d.read(sel)) as Int16Array);
        const into = new Uint8Array(expected.length * 2).fill(0xee);
        const got = await storage.read(sel, expected.length, into);
        expect(got.bytes).toBe(into);
        expect(got.owned).toBe(false);
        expect(Array.from(new Int16Array(into.buffer))).toEqual(expected);
      }
      await expect(storage.read(selectAll(), 30, new Uint8Array(59))).rejects.toThrow(ValueError);
      await g.close();
    });
  }
});
