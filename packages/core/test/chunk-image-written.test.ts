/**
 * `ChunkImage.written` (chunk/chunk-format.ts): `ChunkPlacement.put` calls it once the image's bytes
 * are written and its record inserted — not before the store's write has resolved, and never when
 * the write or the record failed (the write queue stores that image again later); the chunk
 * engine's batched `writePlaced` once all the batch's writes resolved and that image is recorded.
 */
import { describe, expect, it } from 'vitest';
import { ChunkPlacement } from '../src/chunk/placement.js';
import { writePlaced, type WriteSteps } from '../src/chunk/gather.js';
import type { ChunkIndex, ChunkRecord } from '../src/chunk/chunk-index.js';
import type { ChunkStore } from '../src/chunk/chunk-format.js';

function setup(o: { failWrite?: boolean; failInsert?: boolean } = {}) {
  const log: string[] = [];
  let release: () => void = () => undefined;
  const store = {
    alloc: () => 4096,
    release: () => undefined,
    isFresh: () => true,
    read: async () => new Uint8Array(0),
    readInto: async () => undefined,
    write: async () => {
      log.push('write started');
      await new Promise<void>((r) => (release = r));
      if (o.failWrite) throw new Error('disk full');
      log.push('write done');
    },
  } as unknown as ChunkStore;
  const index = {
    type: 'test',
    lookup: async () => null,
    insert: async (rec: ChunkRecord) => {
      if (o.failInsert) throw new Error('index full');
      log.push(`recorded ${rec.size}`);
    },
  } as unknown as ChunkIndex;
  const p = new ChunkPlacement({ path: '/d', index, store });
  return { p, log, finishWrite: () => release() };
}

describe('ChunkImage.written', () => {
  it('is called after the write and the record, not while the write is in flight', async () => {
    const { p, log, finishWrite } = setup();
    const put = p.put([0], { bytes: new Uint8Array(100), filterMask: 0, written: () => log.push('written') });
    await new Promise((r) => setTimeout(r, 5));
    expect(log).toEqual(['write started']);
    finishWrite();
    await put;
    expect(log).toEqual(['write started', 'write done', 'recorded 100', 'written']);
  });

  for (const [name, o] of [
    ['the write', { failWrite: true }],
    ['the record', { failInsert: true }],
  ] as const) {
    it(`is not called when ${name} fails`, async () => {
      const { p, log, finishWrite } = setup(o);
      const put = p.put([0], { bytes: new Uint8Array(100), filterMask: 0, written: () => log.push('written') });
      await new Promise((r) => setTimeout(r, 5));
      finishWrite();
      await expect(put).rejects.toThrow();
      expect(log).not.toContain('written');
    });
  }

  it('a batched store (writePlaced) calls it for each image after every write of the batch resolved and that image is recorded', async () => {
    const log: string[] = [];
    const store = {
      write: async (address: number, bytes: Uint8Array) => {
        await new Promise((r) => setTimeout(r, 2));
        log.push(`write ${address}+${bytes.length}`);
      },
    } as unknown as ChunkStore;
    const steps = {
      guard: (_c: readonly number[], fn: () => Promise<void>) => fn(),
      record: async (coords: readonly number[]) => void log.push(`recorded ${coords[0]}`),
    } as unknown as WriteSteps;
    // (two images apart in the file: two writes)
    const placed = [0, 1].map((k) => ({
      coords: [k],
      address: 1000 * k,
      old: null,
      image: { bytes: new Uint8Array(100), filterMask: 0, written: () => log.push(`written ${k}`) },
      written: () => undefined,
    }));
    await writePlaced(store, steps, placed);
    expect(log).toEqual(['write 0+100', 'write 1000+100', 'recorded 0', 'written 0', 'recorded 1', 'written 1']);
  });
});
