/**
 * Columnar reads build each value's end offset as the runs arrive when they arrive in read order
 * (vl-column.ts `ColumnRead`): the same values as written when runs arrive in read order, out of
 * order from the start, out of order after some in order (chunks stored in reverse), with never
 * written chunks in the middle or at the end, in part, and over 2-D chunks; a corrupt chunk of such a read is a
 * `ChecksumError` naming it.
 */
import { describe, expect, it } from 'vitest';
import { ChecksumError, MemoryStore, createFile, openFile, selectHyperslab, type Dataset } from '@chunkform/core';
import { VLStrings, createVlDataset, type VlDatasetOptions } from '../src/index.js';
import { ColumnRead } from '../src/vl-column.js';
import './support.js';

const values = (n: number) => Array.from({ length: n }, (_, i) => (i % 4 === 3 ? '' : i % 5 === 0 ? `naïve ${i}` : `event ${i}`));

/** `v` written as chunks of 64 one write per chunk, in the order of `order` (chunk indices). */
async function written(v: string[], order: number[], opts: Partial<VlDatasetOptions> = {}): Promise<Uint8Array> {
  const store = new MemoryStore();
  const f = await createFile(store, { superblockVersion: 3 });
  const d = await createVlDataset(f, 's', { dtype: 'string', shape: [v.length], chunks: [64], ...opts } as VlDatasetOptions);
  for (const c of order) {
    const n = Math.min(64, v.length - c * 64);
    await d.write(VLStrings.from(v.slice(c * 64, c * 64 + n)), selectHyperslab({ start: [c * 64], count: [n] }));
  }
  await f.close();
  return store.toBytes();
}

async function open(bytes: Uint8Array): Promise<Dataset> {
  return (await (await openFile(new MemoryStore(bytes.slice()))).get('s')) as Dataset;
}

function expectColumn(col: VLStrings, want: string[]): void {
  expect(col.toArray()).toEqual(want);
  const enc = new TextEncoder();
  expect(col.offsets[0]).toBe(0);
  for (let i = 0; i < want.length; i++) expect(col.offsets[i + 1]! - col.offsets[i]!).toBe(enc.encode(want[i]!).length);
}

describe('columnar reads: end offsets as the runs arrive', () => {
  const v = values(1000); // 16 chunks, the last one in part

  it('chunks stored in read order, in reverse, and shuffled (runs out of order after some in order)', async () => {
    const orders = [
      [...Array(16).keys()],
      [...Array(16).keys()].reverse(),
      [3, 4, 5, 0, 1, 2, 15, 6, 7, 8, 9, 10, 11, 12, 13, 14],
    ];
    for (const order of orders) {
      const d = await open(await written(v, order));
      expectColumn(await d.readColumnar<VLStrings>(), v);
      const sel = selectHyperslab({ start: [30], count: [900] });
      expectColumn(await d.readColumnar<VLStrings>(sel), v.slice(30, 930));
    }
  });

  it('never written chunks in the middle and at the end read as empty strings', async () => {
    for (const sparse of [false, true]) {
      const d = await open(await written(v, [0, 1, 4, 5], { sparse } as Partial<VlDatasetOptions>));
      const want = v.map((s, i) => (i < 128 || (i >= 256 && i < 384) ? s : ''));
      expectColumn(await d.readColumnar<VLStrings>(), want);
    }
  });

  it('2-D chunks: runs of a chunk leave gaps in read order (offsets back to lengths at the second run)', async () => {
    const w = values(24 * 20);
    const store = new MemoryStore();
    const f = await createFile(store, { superblockVersion: 3 });
    await createVlDataset(f, 's', { dtype: 'string', shape: [24, 20], chunks: [8, 8], data: VLStrings.from(w) } as VlDatasetOptions);
    await f.close();
    const d = await open(store.toBytes());
    expectColumn(await d.readColumnar<VLStrings>(), w);
    const sel = selectHyperslab({ start: [3, 5], count: [17, 12] });
    const want: string[] = [];
    for (let r = 3; r < 20; r++) for (let c = 5; c < 17; c++) want.push(w[r * 20 + c]!);
    expectColumn(await d.readColumnar<VLStrings>(sel), want);
  });

  it('a corrupt chunk of a reversed file: ChecksumError naming that chunk', async () => {
    const bytes = await written(v, [...Array(16).keys()].reverse());
    const at = Buffer.from(bytes).indexOf(Buffer.from(`event ${9 * 64 + 2}`));
    expect(at).toBeGreaterThan(0);
    bytes[at + 1]! ^= 0x01;
    const e = await (await open(bytes)).readColumnar().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ChecksumError);
    expect((e as Error).message).toContain('[9]');
  });
});

describe('ColumnRead', () => {
  it('keeps end offsets while runs follow each other, lengths from the first run that does not', () => {
    const col = new ColumnRead(6);
    expect(col.continues(0, 2)).toBe(true);
    col.lengths.set([3, 7], 1); // end offsets of values 0, 1
    col.total = 7;
    expect(col.continues(4, 2)).toBe(false); // values 2, 3 skipped: back to lengths
    expect(col.running).toBe(false);
    expect([...col.lengths.subarray(0, 3)]).toEqual([0, 3, 4]);
    expect(col.continues(2, 2)).toBe(false);
  });
});
