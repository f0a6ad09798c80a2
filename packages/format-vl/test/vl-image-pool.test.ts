/**
 * Whole dense chunk images in kept buffers (src/vl-image-pool.ts): a buffer is taken again only
 * after the file wrote the image it held (core's `ChunkImage.written`), never while a write is in
 * flight, never when the image was handed out without `last`; images built in a reused buffer
 * (its old bytes left as they were) store the same bytes as the value-by-value path — edge chunks
 * whose entries the runs do not cover, empty strings, multi-byte UTF-8, ASCII `string[]` values —
 * and un-awaited writes of two datasets at once (through a store slow to take the bytes) read back as written.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore, createFile, openFile, type Dataset } from '@chunkform/core';
import { VLStrings, createVlDataset, type VlDatasetOptions } from '../src/index.js';
import { columnChunk } from '../src/vl-image.js';
import { POOLED_MIN_BYTES, giveBack, takeImage } from '../src/vl-image-pool.js';
import { encodeVlChunk } from '../src/vl-sections.js';
import { fileBytes, stringChunkContext } from './support.js';

/** Strings of 0–60 bytes from a seed: ASCII words, empty strings and some multi-byte UTF-8. */
function strings(n: number, seed: number, utf8 = true): string[] {
  let s = seed >>> 0 || 1;
  const next = (): number => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>>= 0);
  };
  return Array.from({ length: n }, () => {
    const r = next();
    if (r % 11 === 0) return '';
    const base = `ev ${r.toString(36)} ${'x'.repeat(r % 40)}`;
    return utf8 && r % 7 === 0 ? `${base} café 日本 😀` : base;
  });
}

/** Gives the pool `k` buffers of about `size` bytes, every byte 0xAB (what a reused buffer may hold). */
function poison(k: number, size: number): void {
  for (let i = 0; i < k; i++) giveBack(new Uint8Array(size + i * 64).fill(0xab));
}

/** A store whose writes of chunk images take the bytes a timer later (a write in flight holds them). */
class SlowStore extends MemoryStore {
  override async write(offset: number, bytes: Uint8Array): Promise<void> {
    if (bytes.length >= POOLED_MIN_BYTES) await new Promise((r) => setTimeout(r, 1));
    await super.write(offset, bytes);
  }
}

const big: Partial<VlDatasetOptions> = { chunks: [8192] }; // (entries alone 128 KiB: images kept)

describe('kept image buffers', () => {
  it('a buffer given back is taken again by an image that fits it; small and shared buffers are not kept', () => {
    const a = takeImage(POOLED_MIN_BYTES + 1000).image;
    giveBack(a);
    giveBack(a); // (twice: kept once)
    const b = takeImage(POOLED_MIN_BYTES + 900);
    expect(b.reused).toBe(true);
    expect(b.image.buffer).toBe(a.buffer);
    expect(b.image.length).toBe(POOLED_MIN_BYTES + 900);
    const c = takeImage(POOLED_MIN_BYTES + 900);
    expect(c.image.buffer).not.toBe(a.buffer);
    const small = new Uint8Array(1000);
    giveBack(small);
    expect(takeImage(1000).image.buffer).not.toBe(small.buffer);
    const shared = new Uint8Array(new SharedArrayBuffer(POOLED_MIN_BYTES + 10));
    giveBack(shared);
    expect(takeImage(POOLED_MIN_BYTES + 10).image.buffer).not.toBe(shared.buffer);
  });

  it('an image is given back only by `written` of an image made with `last`', async () => {
    const n = 8192;
    const col = VLStrings.from(strings(n, 5));
    const ctx = stringChunkContext(n);
    const shape = { sparse: false, n, bs: 1 };
    const built = () => columnChunk(n, Float64Array.of(0, 0, n), col, 0)!;
    const kept = built();
    const notLast = await encodeVlChunk(kept, ctx, shape, [0]);
    expect(notLast.written).toBeUndefined();
    const other = built();
    const last = await encodeVlChunk(other, ctx, shape, [0], true);
    expect(last.bytes).toBe(other.image);
    // not written yet: no image built meanwhile takes its buffer (nor the one handed out without `last`)
    const meanwhile = Array.from({ length: 4 }, built);
    for (const m of meanwhile) {
      expect(m.image!.buffer).not.toBe(last.bytes.buffer);
      expect(m.image!.buffer).not.toBe(notLast.bytes.buffer);
    }
    const copy = last.bytes.slice();
    last.written!();
    const again = built();
    expect(again.image!.buffer).toBe(last.bytes.buffer);
    expect(Buffer.from(again.image!).equals(Buffer.from(copy))).toBe(true);
    // the image handed out without `last` kept its bytes
    expect(Buffer.from(notLast.bytes).equals(Buffer.from(copy))).toBe(true);
  });
});

describe('images built in reused buffers store the value-by-value bytes', () => {
  const cases: [string, string[], Partial<VlDatasetOptions>][] = [
    ['a column of UTF-8 and empty strings, a partial edge chunk', strings(8192 * 2 + 700, 1), big],
    ['a column of 2-D chunks of several runs, partial edge chunks', strings(40 * 1000, 2), { shape: [40, 1000], chunks: [16, 512] }],
    ['a chunk whose strings are all empty but one', Array.from({ length: 8192 }, (_, i) => (i === 4000 ? 'only' : '')), big],
  ];
  for (const [name, v, opts] of cases) {
    it(name, async () => {
      const o: VlDatasetOptions = { dtype: 'string', shape: [v.length], ...opts };
      const slow = await fileBytes(o, v.map((s) => s)); // (non-ASCII: value by value)
      for (let round = 0; round < 3; round++) {
        poison(8, 200_000);
        poison(8, 140_000);
        const fast = await fileBytes(o, VLStrings.from(v));
        expect(Buffer.from(fast).equals(Buffer.from(slow))).toBe(true);
      }
    });
  }

  it('ASCII `string[]` values (textChunk) and an ASCII dataset', async () => {
    const v = strings(8192 * 2 + 300, 3, false);
    const o: VlDatasetOptions = { dtype: 'str(ascii)', shape: [v.length], ...big };
    const ref = await fileBytes(o, VLStrings.from(v));
    poison(8, 400_000);
    const fromText = await fileBytes(o, v);
    expect(Buffer.from(fromText).equals(Buffer.from(ref))).toBe(true);
    poison(8, 400_000);
    const d = (await (await openFile(new MemoryStore(fromText))).get('s')) as Dataset;
    expect(await d.read()).toEqual(v);
  });
});

describe('writes in flight keep their images', () => {
  it('un-awaited writes of two datasets through a slow store read back as written', async () => {
    // more chunks than the engine writes at once (64), each image over 64 KiB: buffers come back
    // while the write goes on, and later chunks are built in them
    const c = 4200;
    const opts: Partial<VlDatasetOptions> = { chunks: [c] };
    const va = strings(c * 90 + 5, 7);
    const vb = strings(c * 20 + 100, 8);
    {
      const store = new SlowStore();
      const f = await createFile(store, { superblockVersion: 3 });
      const a = await createVlDataset(f, 'a', { dtype: 'string', shape: [va.length], ...opts });
      const b = await createVlDataset(f, 'b', { dtype: 'string', shape: [vb.length], ...opts });
      await Promise.all([a.write(VLStrings.from(va)), b.write(VLStrings.from(vb))]);
      await f.close();
      const g = await openFile(new MemoryStore(store.toBytes()));
      expect((await ((await g.get('a')) as Dataset).readColumnar<VLStrings>()).toArray()).toEqual(va);
      expect((await ((await g.get('b')) as Dataset).readColumnar<VLStrings>()).toArray()).toEqual(vb);
      await g.close();
    }
  });
});
