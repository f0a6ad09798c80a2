/**
 * Background streaming writes (packages/core/src/chunk/write-queue.ts): whole-chunk writes return
 * once their data is owned while the chunks encode behind the caller; the queue is bounded by bytes
 * (back-pressure); reads, flush and close see every queued chunk; an encoding failure surfaces at
 * the next call on the dataset or at flush, naming the chunk, without touching what was flushed;
 * `backgroundWrites: false` keeps errors in the write itself. Filter 301 ("gate", test/support/gate-filter.ts) is a test
 * filter whose encodings finish when the test says so.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createContainer, createFile, FilterError, MemoryStore, openFile, registerFilter, selectBlocks, type Dataset } from '../packages/core/src/index.js';
import { PYTHON } from './oracle/fixtures.js';
import { GateFilter, promiseState } from './support/gate-filter.js';

const H = 32;
const W = 32;
const FRAME = H * W; // uint8 frames: one chunk each
const dir = mkdtempSync(join(tmpdir(), 'chunkform-bg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const frameSel = (i: number) => selectBlocks([{ start: [i, 0, 0], end: [i + 1, H, W] }]);
const frame = (v: number) => new Uint8Array(FRAME).fill(v);

async function setup(opts: { backgroundWrites?: boolean | { maxBytes: number } } = {}) {
  const gate = new GateFilter(301, 'gate', (d) => d[0] === 0xee, 'poisoned frame');
  const container = createContainer();
  registerFilter(gate.filter, container);
  const store = new MemoryStore();
  const f = await createFile(store, { container, ...opts });
  const ds = (await f.createDataset('frames', { dtype: 'uint8', shape: [8, H, W], chunks: [1, H, W], filters: [{ id: 301 }] })) as Dataset;
  return { gate, container, store, f, ds };
}

describe('background writes', () => {
  it('a whole-chunk write returns before its chunk is encoded; the caller may reuse its buffer at once', async () => {
    const { gate, f, ds } = await setup();
    const buf = frame(7);
    const w = ds.write(buf, frameSel(0));
    expect(await promiseState(w)).toBe('done');
    expect(gate.finished).toBe(0);
    buf.fill(99); // the write owns a copy
    const r = ds.read(frameSel(0)); // a read after the write sees it: it waits for the chunk
    expect(await promiseState(r)).toBe('pending');
    gate.open(false);
    expect(Array.from((await r) as Uint8Array)).toEqual(Array.from(frame(7)));
    await f.close();
  });

  it('back-pressure: a write waits while the queue holds more than its bound of bytes', async () => {
    const { gate, f, ds } = await setup({ backgroundWrites: { maxBytes: 2 * FRAME } });
    expect(await promiseState(ds.write(frame(1), frameSel(0)))).toBe('done');
    expect(await promiseState(ds.write(frame(2), frameSel(1)))).toBe('done');
    const third = ds.write(frame(3), frameSel(2));
    expect(await promiseState(third)).toBe('pending'); // 3 frames > the bound of 2
    expect(gate.started).toBe(2); // its encoding has not even started
    gate.open(true); // the two queued encodings finish
    await third;
    expect(gate.started).toBe(3);
    gate.open(false);
    await f.close();
  });

  it('flush and close wait for queued chunks; the file holds every frame', async () => {
    const { gate, f, ds, store, container } = await setup();
    for (let i = 0; i < 5; i++) await ds.write(frame(10 + i), frameSel(i));
    const fl = f.flush();
    expect(await promiseState(fl)).toBe('pending');
    gate.open(false);
    await fl;
    await f.close();
    const g = await openFile(store.toBytes(), { container });
    const d = (await g.get('frames')) as Dataset;
    const all = (await d.read()) as Uint8Array;
    for (let i = 0; i < 5; i++) expect(all[i * FRAME]).toBe(10 + i);
    expect(all[5 * FRAME]).toBe(0);
    await g.close();
  });

  it('a failed encoding surfaces at the next call on the dataset, naming the chunk; other frames and the flushed state are kept', async () => {
    const { gate, f, ds, store, container } = await setup();
    await ds.write(frame(1), frameSel(0));
    gate.open(false);
    await f.flush(); // frame 0 flushed
    gate.held = true;
    await ds.write(frame(0xee), frameSel(0)); // rewrites the flushed chunk 0: fails behind the caller
    await ds.write(frame(5), frameSel(3));
    gate.open(false);
    const err = await ds.read(frameSel(3)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FilterError);
    expect(String((err as Error).message)).toMatch(/chunk \[0, 0, 0\]/);
    expect(String((err as Error).message)).toMatch(/frames/);
    // reported once; the failed chunk keeps what it had, later frames are there
    const back = (await ds.read()) as Uint8Array;
    expect(back[0]).toBe(1);
    expect(back[3 * FRAME]).toBe(5);
    await f.close();
    const g = await openFile(store.toBytes(), { container });
    const all = (await ((await g.get('frames')) as Dataset).read()) as Uint8Array;
    expect(all[0]).toBe(1);
    expect(all[3 * FRAME]).toBe(5);
    await g.close();
  });

  it('a failed encoding surfaces at flush when no other call comes first', async () => {
    const { gate, f, ds } = await setup();
    await ds.write(frame(0xee), frameSel(2));
    gate.open(false);
    const err = await f.flush().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FilterError);
    expect(String((err as Error).message)).toMatch(/chunk \[2, 0, 0\]/);
    await f.flush(); // reported once: the next flush succeeds
    expect(((await ds.read()) as Uint8Array)[2 * FRAME]).toBe(0);
    await f.close();
  });

  it('partial writes (a ROI per frame) do not wait for the chunks encoding behind the caller; a failure surfaces at the next one', async () => {
    const { gate, f, store, container } = await setup();
    // a cache of one chunk: each ROI write evicts the previous frame's chunk into the queue
    const ds = (await f.createDataset('roi', { dtype: 'uint8', shape: [8, H, W], chunks: [1, H, W], filters: [{ id: 301 }], chunkCache: { bytes: FRAME } })) as Dataset;
    const roi = (i: number) => selectBlocks([{ start: [i, 0, 0], end: [i + 1, 8, 8] }]); // the gate looks at byte 0
    const part = (v: number) => new Uint8Array(64).fill(v);
    for (let i = 0; i < 4; i++) expect(await promiseState(ds.write(part(20 + i), roi(i)))).toBe('done');
    expect(gate.finished).toBe(0); // frames 0–2 queued, none encoded: no write waited for them
    expect(gate.started).toBe(3);
    gate.open(true);
    await ds.write(part(0xee), roi(4)); // evicts frame 3; frame 4's chunk fails behind the caller...
    await ds.write(part(25), roi(5));
    gate.open(false);
    await new Promise((r) => setTimeout(r, 20));
    const err = await ds.write(part(26), roi(6)).catch((e: unknown) => e); // ...and surfaces at this partial write
    expect(err).toBeInstanceOf(FilterError);
    expect(String((err as Error).message)).toMatch(/chunk \[4, 0, 0\]/);
    await ds.write(part(26), roi(6));
    await f.close();
    const g = await openFile(store.toBytes(), { container });
    const all = (await ((await g.get('roi')) as Dataset).read()) as Uint8Array;
    for (const i of [0, 1, 2, 3, 5, 6]) expect(all[i * FRAME + 7 * W + 7]).toBe(20 + i);
    expect(all[4 * FRAME]).toBe(0); // the failed chunk was never stored
    await g.close();
  });

  // Chunks a ROI stream hands on (larger than 64 KiB: smaller ones stay cached for the flush's gathered writes).
  const BH = 256;
  const BW = 260;
  const BIG = BH * BW;
  const roiSet = async (f: Awaited<ReturnType<typeof setup>>['f']) =>
    (await f.createDataset('roi', { dtype: 'uint8', shape: [8, BH, BW], chunks: [1, BH, BW], filters: [{ id: 301 }] })) as Dataset; // default cache: 8 MiB
  const roi = (i: number, y = 0) => selectBlocks([{ start: [i, y, 0], end: [i + 1, y + 8, 8] }]);
  const part = (v: number) => new Uint8Array(64).fill(v);

  it('a ROI stream hands the chunk of each frame to the encoder once the next frame is written, though the cache could hold them all', async () => {
    const { gate, f, store, container } = await setup();
    const ds = await roiSet(f);
    await ds.write(part(30), roi(0));
    await ds.write(part(31), roi(0, 8)); // the same frame again: nothing moved on
    expect(gate.started).toBe(0);
    await ds.write(part(32), roi(1));
    expect(gate.started).toBe(1); // frame 0 left behind: encoding
    await ds.write(part(33), roi(2));
    expect(gate.started).toBe(2);
    expect(gate.finished).toBe(0);
    gate.open(false);
    await ds.write(part(34), roi(0, 16)); // back to frame 0 (queued): stored first, then read back and changed
    await ds.write(part(35), roi(1, 16)); // frame 1 (stored, read back): frame 0 is handed on again
    const back = (await ds.read(selectBlocks([{ start: [0, 0, 0], end: [3, BH, BW] }]))) as Uint8Array;
    const at = (i: number, y: number) => back[i * BIG + y * BW];
    expect([at(0, 0), at(0, 8), at(0, 16), at(1, 0), at(1, 16), at(2, 0), at(2, 24)]).toEqual([30, 31, 34, 32, 35, 33, 0]);
    await f.close();
    const g = await openFile(store.toBytes(), { container });
    const all = (await ((await g.get('roi')) as Dataset).read()) as Uint8Array;
    expect([all[0], all[8 * BW], all[16 * BW], all[BIG], all[BIG + 16 * BW], all[2 * BIG]]).toEqual([30, 31, 34, 32, 35, 33]);
    await g.close();
  });

  it('small chunks (64 KiB or less) a ROI stream leaves behind stay cached for the flush', async () => {
    const { gate, f } = await setup();
    const ds = (await f.createDataset('small', { dtype: 'uint8', shape: [8, H, W], chunks: [1, H, W], filters: [{ id: 301 }] })) as Dataset;
    for (let i = 0; i < 4; i++) await ds.write(part(60 + i), roi(i));
    expect(gate.started).toBe(0);
    gate.open(false);
    await f.flush();
    expect(gate.started).toBe(4);
    await f.close();
  });

  it('chunks a ROI stream hands on count against the queue bound: the write that would exceed it waits', async () => {
    const { gate, f } = await setup({ backgroundWrites: { maxBytes: 2 * BIG + 1024 } });
    const ds = await roiSet(f);
    for (let i = 0; i < 3; i++) expect(await promiseState(ds.write(part(50 + i), roi(i)))).toBe('done'); // frames 0 and 1 queued
    const fourth = ds.write(part(53), roi(3)); // would queue a third chunk
    expect(await promiseState(fourth)).toBe('pending');
    expect(gate.started).toBe(2);
    gate.open(false);
    await fourth;
    expect(gate.started).toBe(3);
    const back = (await ds.read(selectBlocks([{ start: [0, 0, 0], end: [4, 1, 1] }]))) as Uint8Array;
    expect(Array.from(back)).toEqual([50, 51, 52, 53]);
    await f.close();
  });

  it('a chunk handed on by a ROI stream that fails to encode surfaces at the next call, naming it; the chunks after it are kept', async () => {
    const { gate, f, store, container } = await setup();
    const ds = await roiSet(f);
    await ds.write(part(0xee), roi(0)); // poisoned: fails once handed on
    await ds.write(part(41), roi(1)); // hands frame 0 on (its encoding waits at the gate)
    gate.open(false);
    await new Promise((r) => setTimeout(r, 20));
    const err = await ds.write(part(42), roi(2)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FilterError);
    expect(String((err as Error).message)).toMatch(/chunk \[0, 0, 0\]/);
    await ds.write(part(42), roi(2)); // the failed call changed nothing: written again
    await f.close();
    const g = await openFile(store.toBytes(), { container });
    const all = (await ((await g.get('roi')) as Dataset).read()) as Uint8Array;
    expect([all[0], all[BIG], all[2 * BIG]]).toEqual([0, 41, 42]);
    await g.close();
  });

  it('un-awaited calls give the result of their call order (write, read, rewrite, read)', async () => {
    const { gate, f, ds } = await setup();
    gate.open(false);
    const calls = [ds.write(frame(1), frameSel(4)), ds.read(frameSel(4)), ds.write(frame(2), frameSel(4)), ds.read(frameSel(4))];
    const [, r1, , r2] = await Promise.all(calls);
    expect((r1 as Uint8Array)[0]).toBe(1);
    expect((r2 as Uint8Array)[0]).toBe(2);
    await f.close();
  });

  it('backgroundWrites: false encodes within the call, which throws the failure itself', async () => {
    const { gate, f, ds } = await setup({ backgroundWrites: false });
    const w = ds.write(frame(3), frameSel(0));
    expect(await promiseState(w)).toBe('pending');
    gate.open(false);
    await w;
    const err = await ds.write(frame(0xee), frameSel(1)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FilterError);
    expect(String((err as Error).message)).toMatch(/chunk \[1, 0, 0\]/);
    await f.close();
  });

  it('rejects a bad bound', async () => {
    await expect(createFile(new MemoryStore(), { backgroundWrites: { maxBytes: 0 } })).rejects.toThrow(/maxBytes/);
  });

  it('frames streamed with shuffle+gzip on the worker pool, dense and sparse ROI, read back in h5py', async () => {
    const path = join(dir, 'stream.h5');
    const f = await createFile(path, { superblockVersion: 3 });
    const N = 12;
    const S = 256;
    const dense = await f.createDataset('dense', { dtype: 'uint16', shape: [0, S, S], maxShape: [null, S, S], chunks: [1, S, S], shuffle: true, compression: 'gzip', compressionOpts: 1 });
    const sparse = await f.createDataset('sparse', { layout: 'sparse', dtype: 'uint16', shape: [0, S, S], maxShape: [null, S, S], chunks: [1, S, S], shuffle: true, compression: 'gzip', compressionOpts: 1 });
    const v = new Uint16Array(S * S);
    const roi = new Uint16Array((S / 2) * (S / 2));
    for (let i = 0; i < N; i++) {
      for (let k = 0; k < v.length; k++) v[k] = (k * 7 + i) % 251;
      for (let k = 0; k < roi.length; k++) roi[k] = 1 + ((k + i) % 1000);
      await dense.resize([i + 1, S, S]);
      await dense.write(v, selectBlocks([{ start: [i, 0, 0], end: [i + 1, S, S] }]));
      await sparse.resize([i + 1, S, S]);
      await sparse.write(roi, selectBlocks([{ start: [i, S / 4, S / 4], end: [i + 1, (3 * S) / 4, (3 * S) / 4] }]));
    }
    await f.close();
    const out = execFileSync(
      PYTHON,
      ['-c', `import h5py, numpy as np, sys\nf = h5py.File(sys.argv[1], 'r')\nd = f['dense'][()]\nprint(d.shape[0], int(d[5, 3, 10]), int(d[11].sum()))`, path],
      { encoding: 'utf8' },
    ).trim();
    let sum = 0;
    for (let k = 0; k < v.length; k++) sum += (k * 7 + 11) % 251;
    expect(out).toBe(`${N} ${(3 * S + 10) * 7 + 5 - 251 * Math.floor(((3 * S + 10) * 7 + 5) / 251)} ${sum}`);
    const g = await openFile(path);
    const sp = (await g.get('sparse')) as Dataset;
    const got = (await sp.read(selectBlocks([{ start: [7, S / 4, S / 4], end: [8, (3 * S) / 4, (3 * S) / 4] }]))) as Uint16Array;
    expect(got[0]).toBe(1 + (7 % 1000));
    expect(got[roi.length - 1]).toBe(1 + ((roi.length - 1 + 7) % 1000));
    await g.close();
  });
});
