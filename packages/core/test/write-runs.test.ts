/**
 * Joined writes (io/write-runs.ts): runs of adjacent blocks written with one I/O, later blocks
 * winning where they overlap; and a flush holding its small metadata writes back to write them
 * together while reads of the file still see them.
 */
import { describe, expect, it } from 'vitest';
import { createFile, MemoryStore, openFile, type Dataset, type Group } from '../src/index.js';
import { joinRuns, WriteBatch } from '../src/io/write-runs.js';

/** A MemoryStore that counts its writes. */
class CountingStore extends MemoryStore {
  writes = 0;
  override async write(offset: number, bytes: Uint8Array): Promise<void> {
    this.writes++;
    return super.write(offset, bytes);
  }
}

describe('joinRuns', () => {
  it('joins adjacent blocks, keeps gaps apart and sorts by address', () => {
    const runs = joinRuns([
      { address: 20, bytes: Uint8Array.of(3, 4) },
      { address: 10, bytes: Uint8Array.of(1, 2) },
      { address: 12, bytes: Uint8Array.of(9) },
      { address: 22, bytes: Uint8Array.of(5) },
    ]);
    expect(runs.map((r) => [r.address, Array.from(r.bytes), r.first])).toEqual([
      [10, [1, 2, 9], 1],
      [20, [3, 4, 5], 0],
    ]);
  });

  it('writes blocks consecutive in one buffer from that buffer, without a copy', () => {
    const buf = Uint8Array.of(1, 2, 3, 4, 5, 6);
    const [run, ...rest] = joinRuns([
      { address: 100, bytes: buf.subarray(0, 2) },
      { address: 102, bytes: buf.subarray(2, 6) },
    ]);
    expect(rest).toEqual([]);
    expect(run!.bytes.buffer).toBe(buf.buffer);
    expect(Array.from(run!.bytes)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('where blocks overlap, the later one wins', () => {
    const runs = joinRuns([
      { address: 4, bytes: Uint8Array.of(1, 1, 1, 1) },
      { address: 2, bytes: Uint8Array.of(2, 2, 2) },
      { address: 5, bytes: Uint8Array.of(3) },
    ]);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.address).toBe(2);
    expect(Array.from(runs[0]!.bytes)).toEqual([2, 2, 2, 3, 1, 1]);
  });
});

describe('WriteBatch', () => {
  it('copies what it holds, and writes it in runs', async () => {
    const b = new WriteBatch();
    const src = Uint8Array.of(7, 7);
    b.add(8, src);
    src.fill(0); // the caller reuses its buffer at once
    b.add(10, Uint8Array.of(8));
    b.add(64, Uint8Array.of(9));
    expect(b.bytes).toBe(4);
    const out: [number, number[]][] = [];
    await b.drain(async (a, bytes) => void out.push([a, Array.from(bytes)]));
    expect(out).toEqual([
      [8, [7, 7, 8]],
      [64, [9]],
    ]);
    expect(b.empty).toBe(true);
  });

  it('keeps everything when a write fails, and writes it at the next drain', async () => {
    const b = new WriteBatch();
    b.add(0, Uint8Array.of(1));
    b.add(16, Uint8Array.of(2));
    let calls = 0;
    await expect(
      b.drain(async () => {
        if (++calls === 2) throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect(b.empty).toBe(false);
    const out: number[] = [];
    await b.drain(async (a) => void out.push(a));
    expect(out).toEqual([0, 16]);
  });

  it('blocks added while a drain waits stay for the next one, in order', async () => {
    const b = new WriteBatch();
    b.add(0, Uint8Array.of(1));
    const out: [number, number][] = [];
    const first = b.drain(async (a, bytes) => {
      await new Promise((r) => setTimeout(r, 5));
      out.push([a, bytes[0]!]);
    });
    await new Promise((r) => setTimeout(r, 1)); // the first drain is writing
    b.add(0, Uint8Array.of(2));
    const second = b.drain(async (a, bytes) => void out.push([a, bytes[0]!]));
    await Promise.all([first, second]);
    expect(out).toEqual([
      [0, 1],
      [0, 2],
    ]);
  });
});

describe('a flush writes its metadata together', () => {
  it('300 new datasets in 3 groups (dense link storage) take a handful of writes, and read back', async () => {
    const store = new CountingStore();
    const f = await createFile(store);
    for (let g = 0; g < 3; g++) {
      const grp = await f.createGroup(`g${g}`);
      for (let d = 0; d < 100; d++) await grp.createDataset(`d${d}`, { dtype: 'float32', shape: [4] });
    }
    store.writes = 0;
    await f.flush();
    // ~300 object headers, 3 fractal heaps and B-trees, the superblock: one I/O per run of adjacent blocks
    expect(store.writes).toBeLessThan(40);
    await f.close();
    const r = await openFile(store.toBytes());
    for (let g = 0; g < 3; g++) {
      const grp = (await r.get(`g${g}`)) as Group;
      expect((await grp.keys()).length).toBe(100);
      expect(((await grp.get('d99')) as Dataset).shape).toEqual([4]);
    }
  });

  it('a flush that moves headers under dense groups reads the structures it wrote in the same flush', async () => {
    const f0 = await createFile(new MemoryStore());
    const a = await f0.createGroup('a');
    for (let d = 0; d < 20; d++) await a.createGroup(`s${d}`);
    await f0.flush();
    const bytes = f0.toBytes().slice();
    await f0.close();
    const f = await openFile(new MemoryStore(bytes), { mode: 'r+' });
    // new links in a dense group, and datasets in its subgroups (their headers move, relinked in `a`)
    const ga = (await f.get('a')) as Group;
    for (let d = 20; d < 40; d++) await ga.createGroup(`s${d}`);
    for (let d = 0; d < 40; d += 3) await ((await f.get(`a/s${d}`)) as Group).createDataset('x', { dtype: 'int8', shape: [2], data: Int8Array.of(d, 100 - d) });
    await f.flush();
    const again = f.toBytes().slice();
    await f.close();
    const r = await openFile(again);
    expect((await ((await r.get('a')) as Group).keys()).length).toBe(40);
    for (let d = 0; d < 40; d += 3) expect(Array.from((await ((await r.get(`a/s${d}/x`)) as Dataset).read()) as Int8Array)).toEqual([d, 100 - d]);
  });
});
