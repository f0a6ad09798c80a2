/**
 * Whole column chunks built when the engine encodes them (src/vl-deferred.ts): `fromRequest` hands
 * back a chunk that is built at its first use — its encoding (the same bytes as a chunk built at
 * once), a read or a write into it — and counts its values' bytes before; the engine encodes every
 * such chunk inside the write call, so a caller who changes the column after the call returned
 * changes nothing in the file; and a write of many chunks builds its images a few at a time, in the
 * buffers the file took the earlier images from, not one new buffer per chunk.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore, createFile, openFile, type ChunkRequest, type Dataset } from '@chunkform/core';
import { VLStrings, createVlDataset } from '../src/index.js';
import { VlFormat } from '../src/vl-format.js';
import { columnChunk } from '../src/vl-image.js';
import { POOLED_MIN_BYTES } from '../src/vl-image-pool.js';
import { deferredChunk, pendingBytes } from '../src/vl-deferred.js';
import { encodeVlChunk } from '../src/vl-sections.js';
import { stringChunkContext } from './support.js';

/** `n` ASCII strings of 0–40 bytes from a seed. */
function strings(n: number, seed: number): string[] {
  let s = seed >>> 0 || 1;
  return Array.from({ length: n }, () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % 9 === 0 ? '' : `${s.toString(36)} ${'y'.repeat(s % 33)}`;
  });
}

/** A store that notes the buffer of every chunk image it is given (images over 64 KiB) and takes the bytes a timer later. */
class NotingStore extends MemoryStore {
  readonly buffers = new Set<ArrayBufferLike>();
  images = 0;
  override async write(offset: number, bytes: Uint8Array): Promise<void> {
    if (bytes.length >= POOLED_MIN_BYTES) {
      this.buffers.add(bytes.buffer);
      this.images++;
      await new Promise((r) => setTimeout(r, 0));
    }
    await super.write(offset, bytes);
  }
}

describe('column chunks built at their first use', () => {
  const n = 1000;
  const v = strings(n, 3);
  const col = VLStrings.from(v);
  const runs = Float64Array.of(0, 0, n);
  const shape = { sparse: false, n, bs: 1 };
  const deferred = () => deferredChunk(n, col.offsets[n]!, (mem) => void columnChunk(n, runs, col, 0, mem));

  it('its encoding builds it: the bytes of a chunk built at once; its bytes are counted before', async () => {
    const f = new VlFormat(stringChunkContext(n), false);
    const mem = deferred();
    expect(mem.image).toBeNull();
    expect(pendingBytes(mem)).toBe(col.offsets[n]);
    expect(f.memSize(mem)).toBe(col.offsets[n]! + n * 16 + 64);
    const image = await f.memToFile(mem, [0], true);
    expect(pendingBytes(mem)).toBeUndefined();
    expect(Buffer.from(image.bytes).equals(Buffer.from(columnChunk(n, runs, col, 0)!.image!))).toBe(true);
  });

  it('a write into it builds it first (then changes it)', async () => {
    const ctx = stringChunkContext(n);
    const f = new VlFormat(ctx, false);
    // (element bytes of zeros: the fill, empty values, at elements 10–19)
    const req = { coords: [0], full: false, count: 10, runs: Float64Array.of(10, 0, 10) } as ChunkRequest;
    const mem = deferred();
    f.memWrite(mem, req, new Uint8Array(16 * 10));
    const ref = columnChunk(n, runs, col, 0)!;
    f.memWrite(ref, req, new Uint8Array(16 * 10));
    const got = await f.memToFile(mem, [0]);
    const want = await encodeVlChunk(ref, ctx, shape, [0]);
    expect(Buffer.from(got.bytes).equals(Buffer.from(want.bytes))).toBe(true);
  });
});

/**
 * Writes `v` as a column of 50-string chunks into a new file on `store`, then overwrites the
 * column's bytes and offsets: what the file holds must not change.
 */
async function writeThenClobber(store: MemoryStore, v: string[]): Promise<{ f: Awaited<ReturnType<typeof createFile>>; d: Dataset }> {
  const col = VLStrings.from(v);
  const f = await createFile(store, { superblockVersion: 3 });
  const d = await createVlDataset(f, 's', { dtype: 'str(ascii)', shape: [v.length], chunks: [50] });
  await d.write(col);
  col.bytes.fill(0x21);
  col.offsets.fill(0);
  return { f, d };
}

/** Opens `store` and expects dataset `s` to read back as `v`. */
async function expectReopened(store: MemoryStore, v: string[]): Promise<void> {
  const g = await openFile(store);
  expect((await ((await g.get('s')) as Dataset).readColumnar<VLStrings>()).toArray()).toEqual(v);
  await g.close();
}

describe('a write of many column chunks', () => {
  it('builds every chunk inside the call: a column changed afterwards changes nothing in the file', async () => {
    // more chunks than the engine works on at once (64) and than its queue holds
    const v = strings(50 * 200, 5);
    const store = new NotingStore();
    const { f } = await writeThenClobber(store, v);
    await f.close();
    await expectReopened(new MemoryStore(store.toBytes()), v);
  });

  for (const chunks of [1, 2, 5]) {
    it(`builds a write of ${chunks} chunk(s) inside the call too (chunks the cache may hold): read before and after close`, async () => {
      const v = strings(50 * chunks, 7);
      const store = new MemoryStore();
      const { f, d } = await writeThenClobber(store, v);
      expect((await d.readColumnar<VLStrings>()).toArray()).toEqual(v);
      await f.close();
      await expectReopened(store, v);
    });
  }

  it('builds its images a few at a time, in the buffers of images already written', async () => {
    const c = 4200; // (entries alone over 64 KiB: images in kept buffers)
    const chunks = 80; // (more than the 64 chunks the engine works on at once)
    const v = strings(c * chunks, 9);
    const store = new NotingStore();
    const f = await createFile(store, { superblockVersion: 3 });
    const d = await createVlDataset(f, 's', { dtype: 'str(ascii)', shape: [v.length], chunks: [c] });
    await d.write(VLStrings.from(v));
    await f.close();
    expect(store.images).toBe(chunks);
    // (the engine's queue holds at most 8 chunks; built when mapped, it was one new buffer for each of
    // the 64 chunks the engine works on at once: 67 here)
    expect(store.buffers.size).toBeLessThanOrEqual(12);
    const g = await openFile(new MemoryStore(store.toBytes()));
    expect((await ((await g.get('s')) as Dataset).readColumnar<VLStrings>()).toArray()).toEqual(v);
    await g.close();
  });
});
