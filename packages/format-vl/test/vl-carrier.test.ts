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

  it('a larger call before a smaller one, sparse reads that write fill bytes, and un-awaited calls of other datasets at once', async () => {
    const { file } = await memoryFile();
    const big = Array.from({ length: 4000 }, (_, i) => `big-${i}`);
    const sp = await createVlDataset(file, 'sp', { dtype: 'string', shape: [300], chunks: [32], sparse: true });
    const ints = await createVlDataset(file, 'ints', { dtype: 'vlen<i4>', shape: [40], chunks: [8] });
    const dbig = await createVlDataset(file, 'big', { dtype: 'string', shape: [4000], chunks: [512] });
    await dbig.write(big);
    expect(await dbig.read()).toEqual(big); // leaves the largest request buffer for the calls below
    // a sparse read writes fill bytes into the request buffer of the undefined elements: the next
    // calls (writes of other values, smaller reads) take no value from its bytes
    await sp.write(['x', 'y'], selectHyperslab({ start: [100], count: [2] }));
    const spWant = Array.from({ length: 300 }, (_, i) => (i === 100 ? 'x' : i === 101 ? 'y' : ''));
    expect(await sp.read()).toEqual(spWant);
    const intsWant = Array.from({ length: 40 }, (_, i) => Int32Array.from({ length: i % 5 }, (_, j) => i * 10 + j));
    await ints.write(intsWant);
    expect(await ints.read()).toEqual(intsWant);
    expect(await dbig.read(selectHyperslab({ start: [7], count: [3] }))).toEqual(big.slice(7, 10));
    // un-awaited calls of different datasets at once: each returns its own values
    const next = big.map((v) => `${v}!`);
    const calls = [
      dbig.write(VLStrings.from(next)),
      sp.read(),
      ints.read(),
      sp.readColumnar<VLStrings>(),
      sp.write(['z'], selectHyperslab({ start: [299], count: [1] })),
      ints.read(selectHyperslab({ start: [3], count: [4] })),
    ];
    const [, spr, ir, spc, , ir2] = await Promise.all(calls);
    expect(spr).toEqual(spWant);
    expect(ir).toEqual(intsWant);
    expect((spc as VLStrings).toArray()).toEqual(spWant);
    expect(ir2).toEqual(intsWant.slice(3, 7));
    const [br, spr2] = await Promise.all([dbig.read(), sp.read()]);
    expect(br).toEqual(next);
    expect(spr2).toEqual(spWant.map((v, i) => (i === 299 ? 'z' : v)));
    await file.close();
  });
});
