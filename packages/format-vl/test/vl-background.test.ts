/**
 * Background writes of VL datasets (core's chunk/write-queue.ts): a write of whole VL chunks
 * returns once the values are in the engine's chunks while the sections encode behind the caller;
 * the caller may change its arrays at once; reads, flush and close see every queued chunk; an
 * encoding failure surfaces at the next call on the dataset or at flush, naming the chunk, and the
 * flushed state is kept; `backgroundWrites: false` keeps the failure in the write itself. Filter 302
 * ("vl-gate") on the heap section finishes its encodings when the test says so and fails a heap
 * whose first value starts with "!".
 */
import { describe, expect, it } from 'vitest';
import { createContainer, createFile, FilterError, MemoryStore, openFile, registerFilter, selectHyperslab, type Dataset } from '@chunkform/core';
import { createVlDataset } from '../src/index.js';
import './support.js';
import { GateFilter, promiseState } from '../../../test/support/gate-filter.js';

const CHUNK = 4;
const chunkSel = (c: number) => selectHyperslab({ start: [c * CHUNK], count: [CHUNK] });
const words = (c: number, first = `c${c}`) => [first, `héllo ${c}`, '', `𝄞 ${c} end`];


async function setup(opts: { backgroundWrites?: boolean } = {}, dtype: 'string' | 'vlen<i4>' = 'string') {
  const gate = new GateFilter(302, 'vl-gate', (d) => d[4] === 0x21, 'poisoned heap');
  const container = createContainer();
  registerFilter(gate.filter, container);
  const store = new MemoryStore();
  const f = await createFile(store, { container, superblockVersion: 3, ...opts });
  const ds = await createVlDataset(f, 'log', { dtype, shape: [6 * CHUNK], chunks: [CHUNK], filters: { heap: [{ id: 302 }] } });
  return { gate, container, store, f, ds };
}

describe('background writes of VL chunks', () => {
  it('a whole-chunk write returns before its heap is encoded; the caller may change its array at once', async () => {
    const { gate, f, ds } = await setup();
    const data = words(0);
    expect(await promiseState(ds.write(data, chunkSel(0)))).toBe('done');
    expect(gate.finished).toBe(0);
    data.fill('changed'); // the chunk holds the values already
    const r = ds.read(chunkSel(0));
    expect(await promiseState(r)).toBe('pending'); // a read waits for the queued chunk
    gate.open(false);
    expect(await r).toEqual(words(0));
    await f.close();
  });

  it('sequences: the caller may change its TypedArrays after the write returns', async () => {
    const { gate, f, ds, store, container } = await setup({}, 'vlen<i4>');
    const data = [Int32Array.of(1, 2, 3), Int32Array.of(), Int32Array.of(-7), Int32Array.of(9, 9)];
    expect(await promiseState(ds.write(data, chunkSel(1)))).toBe('done');
    data[0]!.fill(0);
    gate.open(false);
    await f.close();
    const g = await openFile(store.toBytes(), { container });
    const back = (await ((await g.get('log')) as Dataset).read(chunkSel(1))) as Int32Array[];
    expect(back.map((v) => Array.from(v))).toEqual([[1, 2, 3], [], [-7], [9, 9]]);
    await g.close();
  });

  it('flush and close wait for queued chunks; the file holds every value, non-ASCII included', async () => {
    const { gate, f, ds, store, container } = await setup();
    for (let c = 0; c < 5; c++) await ds.write(words(c), chunkSel(c));
    const fl = f.flush();
    expect(await promiseState(fl)).toBe('pending');
    gate.open(false);
    await fl;
    await f.close();
    const g = await openFile(store.toBytes(), { container });
    const all = (await ((await g.get('log')) as Dataset).read()) as string[];
    expect(all).toEqual([...[0, 1, 2, 3, 4].flatMap((c) => words(c)), '', '', '', '']);
    await g.close();
  });

  it('a failed encoding surfaces at the next call, naming the chunk; the flushed values and later chunks are kept', async () => {
    const { gate, f, ds, store, container } = await setup();
    await ds.write(words(0), chunkSel(0));
    gate.open(false);
    await f.flush();
    gate.held = true;
    await ds.write(words(0, '!bad'), chunkSel(0)); // fails behind the caller
    await ds.write(words(3), chunkSel(3));
    gate.open(false);
    const err = await ds.read(chunkSel(3)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FilterError);
    expect(String((err as Error).message)).toMatch(/chunk \[0\]/);
    expect(String((err as Error).message)).toMatch(/log/);
    // reported once; chunk 0 keeps its flushed values, chunk 3 is there
    expect(await ds.read(chunkSel(0))).toEqual(words(0));
    expect(await ds.read(chunkSel(3))).toEqual(words(3));
    await f.close();
    const g = await openFile(store.toBytes(), { container });
    const d = (await g.get('log')) as Dataset;
    expect(await d.read(chunkSel(0))).toEqual(words(0));
    expect(await d.read(chunkSel(3))).toEqual(words(3));
    await g.close();
  });

  it('a failed encoding surfaces at flush when no other call comes first', async () => {
    const { gate, f, ds } = await setup();
    await ds.write(words(2, '!bad'), chunkSel(2));
    gate.open(false);
    const err = await f.flush().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FilterError);
    expect(String((err as Error).message)).toMatch(/chunk \[2\]/);
    await f.flush(); // reported once
    expect(await ds.read(chunkSel(2))).toEqual(['', '', '', '']);
    await f.close();
  });

  it('un-awaited calls give the result of their call order', async () => {
    const { gate, f, ds } = await setup();
    gate.open(false);
    const [, r1, , r2] = await Promise.all([ds.write(words(4), chunkSel(4)), ds.read(chunkSel(4)), ds.write(words(4, 'second'), chunkSel(4)), ds.read(chunkSel(4))]);
    expect(r1).toEqual(words(4));
    expect(r2).toEqual(words(4, 'second'));
    await f.close();
  });

  it('backgroundWrites: false encodes within the call, which throws the failure itself', async () => {
    const { gate, f, ds } = await setup({ backgroundWrites: false });
    const w = ds.write(words(0), chunkSel(0));
    expect(await promiseState(w)).toBe('pending');
    gate.open(false);
    await w;
    const err = await ds.write(words(1, '!bad'), chunkSel(1)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FilterError);
    expect(String((err as Error).message)).toMatch(/chunk \[1\]/);
    await f.close();
  });
});
