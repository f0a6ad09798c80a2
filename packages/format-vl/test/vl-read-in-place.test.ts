/**
 * Whole column reads staged in place (vl-read-many.ts `stage`, vl-column.ts `ColumnRead.stageInPlace`):
 * the stored chunks of groups that fit are read into the result's own buffer and their values moved
 * down within it, the other groups through the two read buffers. Reads of more than one group
 * (8 MiB) give the same strings as written: chunks written at once (values in heap order), chunks
 * whose heaps were changed since (values out of order, unused bytes), sparse chunks, and a 2-D
 * dataset whose chunks each serve several rows; a corrupt chunk staged in place is still a
 * `ChecksumError` naming it.
 */
import { describe, expect, it } from 'vitest';
import { ChecksumError, MemoryStore, createFile, openFile, selectHyperslab, type Dataset } from '@chunkform/core';
import { VLStrings, createVlDataset, type VlDatasetOptions } from '../src/index.js';
import { GROUP_BYTES } from '../src/vl-read-many.js';
import './support.js';

/** `n` strings of 10–40 bytes, a few not ASCII. */
const lines = (n: number, seed = 0): string[] => Array.from({ length: n }, (_, i) => `${i % 977 === 0 ? 'é ' : ''}event ${i + seed} ${'x'.repeat((i * 7 + seed) % 28)}`);

async function written(opts: VlDatasetOptions, data: unknown, then?: (d: Dataset) => Promise<void>): Promise<Uint8Array> {
  const store = new MemoryStore();
  const f = await createFile(store, { superblockVersion: 3 });
  const d = await createVlDataset(f, 's', { ...opts, data });
  if (then) await then(d);
  await f.close();
  return store.toBytes();
}

async function open(bytes: Uint8Array): Promise<Dataset> {
  const f = await openFile(new MemoryStore(bytes));
  return (await f.get('s')) as Dataset;
}

const N = 400_000; // ≈ 10 MB of values + 6.4 MB of entries: two groups, the first staged in place
const v = lines(N);

describe('whole column reads staged in the result buffer', () => {
  it('chunks written at once: the same strings, in a buffer of exactly their bytes (no copy of the values)', async () => {
    const bytes = await written({ dtype: 'string', shape: [N], chunks: [8192] }, VLStrings.from(v));
    expect(bytes.length).toBeGreaterThan(GROUP_BYTES);
    const col = await (await open(bytes)).readColumnar<VLStrings>();
    expect(col.toArray()).toEqual(v);
    expect(col.bytes.buffer.byteLength).toBe(col.bytes.length);
    expect(col.bytes.byteOffset).toBe(0);
  });

  it('heaps changed since (values out of order, unused bytes), and sparse chunks with gaps', async () => {
    const want = v.slice();
    const longer = lines(3000, 7).map((s) => `${s} rewritten, longer than before`);
    const shorter = lines(3000, 9).map((s) => s.slice(0, 3));
    const change = async (d: Dataset) => {
      // every 100th element of the first half longer (appended), every 100th of the second half shorter (in place)
      for (let k = 0; k < 3000; k++) {
        const i = k * 66;
        const j = N / 2 + k * 66;
        want[i] = longer[k]!;
        want[j] = shorter[k]!;
        await d.write([longer[k]!], selectHyperslab({ start: [i], count: [1] }));
        await d.write([shorter[k]!], selectHyperslab({ start: [j], count: [1] }));
      }
    };
    const dense = await written({ dtype: 'string', shape: [N], chunks: [8192] }, VLStrings.from(v), change);
    expect((await (await open(dense)).readColumnar<VLStrings>()).toArray()).toEqual(want);
    // sparse: the elements of a few ranges never written (empty strings)
    const sparseWant = want.map((s, i) => (i % 50_000 < 1000 ? '' : s));
    const sparse = await written({ dtype: 'string', shape: [N], chunks: [8192], sparse: true }, undefined, async (d) => {
      for (let s = 0; s < N; s += 50_000) await d.write(VLStrings.from(want.slice(s + 1000, s + 50_000)), selectHyperslab({ start: [s + 1000], count: [49_000] }));
    });
    expect((await (await open(sparse)).readColumnar<VLStrings>()).toArray()).toEqual(sparseWant);
  });

  it('a 2-D dataset whose chunks each serve several rows of the result', async () => {
    const rows = 500;
    const cols = 800;
    const w = lines(rows * cols, 3);
    const bytes = await written({ dtype: 'string', shape: [rows, cols], chunks: [50, 400] }, VLStrings.from(w));
    expect(bytes.length).toBeGreaterThan(GROUP_BYTES);
    const d = await open(bytes);
    expect((await d.readColumnar<VLStrings>()).toArray()).toEqual(w);
    expect((await d.readColumnar<VLStrings>(selectHyperslab({ start: [100, 0], count: [300, 800] }))).toArray()).toEqual(w.slice(100 * cols, 400 * cols));
  });

  it('a corrupt chunk staged in place: ChecksumError naming it; the chunks after it still read', async () => {
    const bytes = await written({ dtype: 'string', shape: [N], chunks: [8192] }, VLStrings.from(v));
    const target = 3 * 8192 + 5; // a value of chunk 3: in the first group, staged in place
    const at = Buffer.from(bytes).indexOf(Buffer.from(v[target]!));
    expect(at).toBeGreaterThan(0);
    bytes[at + 1]! ^= 0x01;
    const e = await (await open(bytes)).readColumnar().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ChecksumError);
    expect((e as Error).message).toContain('[3]');
    const after = await (await open(bytes)).readColumnar<VLStrings>(selectHyperslab({ start: [4 * 8192], count: [N - 4 * 8192] }));
    expect(after.toArray()).toEqual(v.slice(4 * 8192));
  });
});
