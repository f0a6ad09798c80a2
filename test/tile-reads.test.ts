/**
 * Batched reads of unfiltered dense tiles (format-dense `CoalescingReader`): whole tiles are mapped as
 * row patterns (core chunk/row-pieces.ts) and copied from them in turn; other chunks from run lists.
 * Random geometries (rank 2–4, edge chunks, unwritten chunks) and boxes (chunk-aligned, starting inside
 * chunks, whole dataset), read with `readInto` into memory already touched and with `read`, from a local
 * file (reads on the thread pool) and from memory, give the values of a model; and a tiled file written by
 * h5py (HDF5 C) reads back with the values h5py wrote.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, openFile, type Dataset } from '../packages/core/src/index.js';
import { selectHyperslab } from '../packages/core/src/selection/index.js';
import { runPython } from './oracle/fixtures.js';
import { mulberry32 } from '../packages/core/test/support/prng.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkform-tile-reads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A seeded source of unsigned 32-bit values. */
function rng(seed: number): () => number {
  const m = mulberry32(seed);
  return () => Math.floor(m() * 2 ** 32);
}

/** C-order strides of `dims`. */
function strides(dims: readonly number[]): number[] {
  const s = dims.map(() => 1);
  for (let d = dims.length - 2; d >= 0; d--) s[d] = s[d + 1]! * dims[d + 1]!;
  return s;
}

/** The elements of the box (`start`, `count`) of `model` (shape `dims`), in C order. */
function boxOf(model: Uint16Array, dims: readonly number[], start: readonly number[], count: readonly number[]): Uint16Array {
  const st = strides(dims);
  const n = count.reduce((a, b) => a * b, 1);
  const out = new Uint16Array(n);
  const idx = count.map(() => 0);
  for (let i = 0; i < n; i++) {
    let at = 0;
    for (let d = 0; d < dims.length; d++) at += (start[d]! + idx[d]!) * st[d]!;
    out[i] = model[at]!;
    for (let d = dims.length - 1; d >= 0 && ++idx[d]! === count[d]!; d--) idx[d] = 0;
  }
  return out;
}

/** `a` and `b` hold the same values (compared as bytes). */
function expectSame(a: Uint16Array, b: Uint16Array, what: string): void {
  expect(a.length, what).toBe(b.length);
  expect(Buffer.compare(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), new Uint8Array(b.buffer, b.byteOffset, b.byteLength)), what).toBe(0);
}

/** A random box of `dims`: aligned to the chunks (whole tiles, and edge chunks where it reaches the end), or anywhere. */
function randomBox(next: () => number, dims: readonly number[], chunks: readonly number[], aligned: boolean): { start: number[]; count: number[] } {
  const start: number[] = [];
  const count: number[] = [];
  for (let d = 0; d < dims.length; d++) {
    if (aligned) {
      const n = Math.ceil(dims[d]! / chunks[d]!);
      const a = next() % n;
      const b = a + 1 + (next() % (n - a));
      start.push(a * chunks[d]!);
      count.push(Math.min(dims[d]!, b * chunks[d]!) - a * chunks[d]!);
    } else {
      const a = next() % dims[d]!;
      start.push(a);
      count.push(1 + (next() % (dims[d]! - a)));
    }
  }
  return { start, count };
}

describe('batched reads of whole tiles from row patterns', () => {
  it('random geometries and boxes: readInto (touched memory) and read, local file and memory, equal the model', async () => {
    const next = rng(2026);
    for (let trial = 0; trial < 12; trial++) {
      const rank = 2 + (trial % 3);
      const chunks = Array.from({ length: rank }, (_, d) => (d < rank - 2 ? 1 + (next() % 2) : 4 + (next() % 28)));
      const dims = chunks.map((c, d) => (d < rank - 2 ? c + (next() % 3) : c * (1 + (next() % 4)) + (next() % 2 === 0 ? 0 : next() % c)));
      const n = dims.reduce((a, b) => a * b, 1);
      const model = new Uint16Array(n).fill(3);
      // written: the whole dataset, or (every other trial) an aligned box only, the rest left unwritten (fill 3)
      const written = trial % 2 === 0 ? { start: dims.map(() => 0), count: [...dims] } : randomBox(next, dims, chunks, true);
      const src = new Uint16Array(written.count.reduce((a, b) => a * b, 1));
      for (let i = 0; i < src.length; i++) src[i] = next() & 0xffff;
      const st = strides(dims);
      {
        const idx = written.count.map(() => 0);
        for (let i = 0; i < src.length; i++) {
          let at = 0;
          for (let d = 0; d < rank; d++) at += (written.start[d]! + idx[d]!) * st[d]!;
          model[at] = src[i]!;
          for (let d = rank - 1; d >= 0 && ++idx[d]! === written.count[d]!; d--) idx[d] = 0;
        }
      }
      const path = join(dir, `t${trial}.h5`);
      const f = await createFile(path);
      const ds = await f.createDataset('x', { dtype: 'uint16', shape: dims, chunks, fillValue: 3 });
      await ds.write(src, selectHyperslab(written));
      await f.close();
      for (const source of [path, new Uint8Array(readFileSync(path))]) {
        const g = await openFile(source);
        const d = (await g.get('x')) as Dataset;
        const boxes = [{ start: dims.map(() => 0), count: [...dims] }, randomBox(next, dims, chunks, true), randomBox(next, dims, chunks, true), randomBox(next, dims, chunks, false)];
        for (const box of boxes) {
          const want = boxOf(model, dims, box.start, box.count);
          const what = `trial ${trial} dims ${dims} chunks ${chunks} box ${JSON.stringify(box)} from ${typeof source === 'string' ? 'file' : 'memory'}`;
          const into = new Uint16Array(want.length).fill(0xbeef); // touched memory
          await d.readInto(into, selectHyperslab(box));
          expectSame(into, want, `readInto: ${what}`);
          expectSame((await d.read(selectHyperslab(box))) as Uint16Array, want, `read: ${what}`);
        }
        await g.close();
      }
    }
  });

  it("a file of 1×64×64 tiles written by h5py (HDF5 C) reads back with h5py's values, whole and by aligned boxes", async () => {
    const path = join(dir, 'h5py-tiles.h5');
    runPython(
      [
        'import sys, h5py, numpy as np',
        'v = (np.arange(3 * 200 * 300, dtype=np.uint64) * 2654435761 >> 7).astype(np.uint16).reshape(3, 200, 300)',
        "with h5py.File(sys.argv[1], 'w') as f:",
        "    f.create_dataset('x', data=v, chunks=(1, 64, 64))",
      ].join('\n'),
      path,
    );
    const model = new Uint16Array(3 * 200 * 300);
    for (let i = 0; i < model.length; i++) model[i] = Number((BigInt(i) * 2654435761n) >> 7n) & 0xffff;
    const g = await openFile(path);
    const d = (await g.get('x')) as Dataset;
    const dims = [3, 200, 300];
    for (const box of [
      { start: [0, 0, 0], count: dims },
      { start: [1, 64, 128], count: [2, 128, 128] },
      { start: [0, 192, 256], count: [3, 8, 44] },
    ]) {
      const want = boxOf(model, dims, box.start, box.count);
      const into = new Uint16Array(want.length).fill(1);
      await d.readInto(into, selectHyperslab(box));
      expectSame(into, want, `readInto ${JSON.stringify(box)}`);
      expectSame((await d.read(selectHyperslab(box))) as Uint16Array, want, `read ${JSON.stringify(box)}`);
    }
    await g.close();
  });
});
