/**
 * Gathered full-chunk writes of unfiltered dense datasets (chunk/gather.ts, format-dense `fullImages`):
 * tiles built from row patterns in pooled gather buffers and written on the thread pool. The pooled
 * buffers never mix the data of writes in flight at the same time (two datasets of one file, a second
 * file, two un-awaited writes of one dataset), and once a write has returned the caller may change its
 * buffer: what was written stays. Boxes that start inside a chunk and edge chunks give the same values
 * as a plain read-modify-write.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, openFile, type Dataset } from '../packages/core/src/index.js';
import { selectHyperslab } from '../packages/core/src/selection/index.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkform-gather-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Frames of `n`×512×512 uint16: 12 MiB for 24 frames, three gather groups (4 MiB) of 128×128 tiles. */
function frames(n: number, seed: number): Uint16Array {
  const v = new Uint16Array(n * 512 * 512);
  for (let i = 0; i < v.length; i++) v[i] = (i * 2654435761 + seed * 40503) >>> 16;
  return v;
}

/** `a` and `b` hold the same values (compared as bytes: `toEqual` walks millions of elements slowly). */
function expectSame(a: Uint16Array, b: Uint16Array): void {
  expect(a.length).toBe(b.length);
  expect(Buffer.compare(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), new Uint8Array(b.buffer, b.byteOffset, b.byteLength))).toBe(0);
}

async function readAll(path: string, name: string): Promise<Uint16Array> {
  const f = await openFile(path);
  try {
    return (await ((await f.get(name)) as Dataset).read()) as Uint16Array;
  } finally {
    await f.close();
  }
}

describe('gathered full-chunk writes', () => {
  it('writes in flight together (two datasets, two files) keep their own data; sources changed afterwards do not reach the file', async () => {
    const a = frames(24, 1);
    const b = frames(24, 2);
    const c = frames(24, 3);
    const want = [a.slice(), b.slice(), c.slice()];
    const p1 = join(dir, 'one.h5');
    const p2 = join(dir, 'two.h5');
    const f1 = await createFile(p1);
    const f2 = await createFile(p2);
    const opts = { dtype: 'uint16' as const, shape: [24, 512, 512], chunks: [1, 128, 128] };
    const [da, db, dc] = await Promise.all([f1.createDataset('a', opts), f1.createDataset('b', opts), f2.createDataset('c', opts)]);
    await Promise.all([da.write(a), db.write(b), dc.write(c)]);
    // the caller's buffers are the caller's again: changing them changes nothing written
    a.fill(0xffff);
    b.fill(0xffff);
    c.fill(0xffff);
    await f1.close();
    await f2.close();
    expectSame(await readAll(p1, 'a'), want[0]!);
    expectSame(await readAll(p1, 'b'), want[1]!);
    expectSame(await readAll(p2, 'c'), want[2]!);
  });

  it('two un-awaited whole writes of one dataset give the second one, never a mix', async () => {
    const path = join(dir, 'same.h5');
    const first = frames(24, 4);
    const second = frames(24, 5);
    const want = second.slice();
    const f = await createFile(path);
    const d = await f.createDataset('x', { dtype: 'uint16', shape: [24, 512, 512], chunks: [1, 128, 128] });
    const w1 = d.write(first);
    const w2 = d.write(second);
    await w1;
    first.fill(0); // while the second write may still be in flight
    await w2;
    second.fill(0);
    await f.close();
    expectSame(await readAll(path, 'x'), want);
  });

  it('boxes starting inside chunks and edge chunks: whole tiles from row patterns, the rest read-modify-write', async () => {
    const path = join(dir, 'box.h5');
    const f = await createFile(path);
    // 3 × 300 × 500: edge chunks in both frame dimensions
    const d = await f.createDataset('x', { dtype: 'uint16', shape: [3, 300, 500], chunks: [1, 64, 128], fillValue: 7 });
    const model = new Uint16Array(3 * 300 * 500).fill(7);
    const boxes = [
      { start: [0, 0, 0], count: [3, 300, 500] },
      { start: [1, 64, 128], count: [2, 192, 256] }, // whole interior tiles
      { start: [0, 10, 30], count: [2, 200, 400] }, // starts inside a chunk
      { start: [2, 256, 384], count: [1, 44, 116] }, // the corner edge chunk exactly
    ];
    let seed = 10;
    for (const box of boxes) {
      const n = box.count.reduce((x, y) => x * y, 1);
      const src = new Uint16Array(n);
      for (let i = 0; i < n; i++) src[i] = (i * 7 + seed * 131) & 0xffff;
      seed++;
      await d.write(src, selectHyperslab(box));
      let i = 0;
      for (let z = 0; z < box.count[0]!; z++) {
        for (let y = 0; y < box.count[1]!; y++) {
          for (let x = 0; x < box.count[2]!; x++) model[((box.start[0]! + z) * 300 + box.start[1]! + y) * 500 + box.start[2]! + x] = src[i++]!;
        }
      }
      src.fill(1);
      expectSame((await d.read()) as Uint16Array, model);
    }
    await f.close();
    expectSame(await readAll(path, 'x'), model);
  });
});
