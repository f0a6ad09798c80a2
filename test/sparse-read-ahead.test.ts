/**
 * Reading ahead of a frame-by-frame reader (core chunk/read-ahead.ts, format-sparse `decodeAhead`):
 * when `readDefined` reads a read-only sparse dataset one frame after another, the next chunk is read
 * and inflated off the calling thread before the reader gets there. Frames must come out as written
 * whatever the order (in order, random jumps, repeats), a chunk decoded ahead must be the one the
 * reader takes, a corrupt chunk ahead must fail only the reads of its own frames with a typed error
 * naming the dataset and the chunk, a writable file never reads ahead, and closing the file with a
 * chunk under way leaves nothing behind (no unhandled rejection).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import './setup-registrations.js';
import { MemoryStore, createFile, openFile, selectAll, selectHyperslab, type Box, type Dataset, type Selection } from '../packages/core/src/index.js';
import { SparseFormat } from '../packages/format-sparse/src/index.js';
import { frameModelOps } from './support/frame-model.js';
import { expectChunkError, writeSparseFrames, type Frame } from './support/sparse-frames.js';
import { xorshift32 } from '../bench/xorshift.js';

const FRAMES = 23;
const PER_CHUNK = 5;
const N = 256;
const { linOf } = frameModelOps(FRAMES, N, N);

/** Frame `f`: 3×3 groups at seeded places (enough of them that both sections of a chunk exceed 16 KiB), values from f and the pixel. */
function frame(f: number): Frame {
  const rnd = xorshift32(0x9e37 + f);
  const cells = new Set<number>();
  const per = N / 4;
  while (cells.size < 300) cells.add(rnd() % (per * per));
  const boxes: Box[] = [...cells].sort((a, b) => a - b).map((c) => ({ start: [f, Math.floor(c / per) * 4, (c % per) * 4], end: [f + 1, Math.floor(c / per) * 4 + 3, (c % per) * 4 + 3] }));
  const lin: number[] = [];
  for (const b of boxes) for (let y = b.start[1]!; y < b.end[1]!; y++) for (let x = b.start[2]!; x < b.end[2]!; x++) lin.push(y * N + x);
  lin.sort((a, b) => a - b);
  return { boxes, values: Uint16Array.from(lin, (p) => (f * 7919 + p * 31) & 0xffff) };
}

const expected = (f: number): string[] => {
  const { boxes } = frame(f);
  const lin: number[] = [];
  for (const b of boxes) for (let y = b.start[1]!; y < b.end[1]!; y++) for (let x = b.start[2]!; x < b.end[2]!; x++) lin.push(y * N + x);
  return lin.sort((a, b) => a - b).map((p) => `${f},${Math.floor(p / N)},${p % N}=${(f * 7919 + p * 31) & 0xffff}`);
};

function pixels(sel: Selection, values: Uint16Array): string[] {
  const at = linOf(sel);
  expect(at.length).toBe(values.length);
  return at.map((p, k) => `${Math.floor(p / (N * N))},${Math.floor(p / N) % N},${p % N}=${values[k]}`);
}

const readFrame = async (ds: Dataset, i: number): Promise<string[]> => {
  const { selection, values } = await ds.readDefined(selectHyperslab({ start: [i, 0, 0], block: [1, N, N] }));
  return pixels(selection as Selection, values as Uint16Array);
};

const dir = mkdtempSync(join(tmpdir(), 'chunkform-read-ahead-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

let fileBytes: Uint8Array | null = null;
/** The frames file's bytes (written once). */
async function pointBytes(): Promise<Uint8Array> {
  if (fileBytes) return fileBytes;
  const store = new MemoryStore();
  const f = await createFile(store);
  await writeSparseFrames(f, { h: N, w: N, chunks: [PER_CHUNK, N, N] }, FRAMES, frame);
  await f.close();
  return (fileBytes = store.toBytes());
}

/** `bytes` as a file on disk (reads go through the thread pool as with any local file). */
function onDisk(bytes: Uint8Array, name: string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** Catches unhandled rejections while `fn` runs (and shortly after). */
async function noUnhandled(fn: () => Promise<void>): Promise<void> {
  const seen: unknown[] = [];
  const on = (e: unknown) => seen.push(e);
  process.on('unhandledRejection', on);
  try {
    await fn();
    await new Promise((r) => setTimeout(r, 30));
  } finally {
    process.off('unhandledRejection', on);
  }
  expect(seen).toEqual([]);
}

describe('reading ahead of a frame-by-frame reader', () => {
  it('decodes each next chunk ahead, and the frames are as written (disk file and memory)', async () => {
    const bytes = await pointBytes();
    for (const source of [onDisk(bytes, 'in-order.h5'), bytes]) {
      const ahead = vi.spyOn(SparseFormat.prototype, 'decodeAhead');
      const decoded = vi.spyOn(SparseFormat.prototype, 'fileToMem');
      const f = await openFile(source);
      const ds = (await f.get('frames')) as Dataset;
      for (let i = 0; i < FRAMES; i++) expect(await readFrame(ds, i), `frame ${i}`).toEqual(expected(i));
      await f.close();
      const chunks = Math.ceil(FRAMES / PER_CHUNK);
      // chunk 0 the usual way, every later chunk decoded ahead (and nothing twice)
      expect(ahead).toHaveBeenCalledTimes(chunks - 1);
      expect(decoded).toHaveBeenCalledTimes(1);
      expect(ahead.mock.calls.map((c) => c[1].coords[0])).toEqual(Array.from({ length: chunks - 1 }, (_, k) => k + 1));
      vi.restoreAllMocks();
    }
  });

  it('reading on after a jump into a chunk (not its first frame) decodes the next chunks ahead too', async () => {
    const f = await openFile(onDisk(await pointBytes(), 'mid-chunk.h5'));
    const ds = (await f.get('frames')) as Dataset;
    const ahead = vi.spyOn(SparseFormat.prototype, 'decodeAhead');
    // a jump into chunk 1 (not its first frame: no read-ahead on its load), then reading on to the end
    const order = [0, 7, ...Array.from({ length: FRAMES - 8 }, (_, i) => i + 8), 3, 4, 5, 6];
    for (const i of order) expect(await readFrame(ds, i), `frame ${i}`).toEqual(expected(i));
    await f.close();
    const chunks = Math.ceil(FRAMES / PER_CHUNK);
    // chunk 2 only from a frame of chunk 1 served from the cache while reading on
    const started = ahead.mock.calls.map((c) => c[1].coords[0]);
    for (let k = 2; k < chunks; k++) expect(started, `chunk ${k} decoded ahead`).toContain(k);
    vi.restoreAllMocks();
  });

  it('gives the frames as written in random orders with jumps and repeats', async () => {
    const path = onDisk(await pointBytes(), 'random.h5');
    const rnd = xorshift32(0x51ab);
    for (let round = 0; round < 4; round++) {
      const order: number[] = [];
      while (order.length < 40) {
        const start = rnd() % FRAMES;
        const len = 1 + (rnd() % 8);
        for (let i = start; i < Math.min(FRAMES, start + len); i++) order.push(i);
      }
      const f = await openFile(path);
      const ds = (await f.get('frames')) as Dataset;
      await noUnhandled(async () => {
        for (const i of order) expect(await readFrame(ds, i), `frame ${i} of ${order.join(' ')}`).toEqual(expected(i));
      });
      const all = await ds.readDefined(selectAll());
      expect(pixels(all.selection as Selection, all.values as Uint16Array)).toEqual(Array.from({ length: FRAMES }, (_, i) => expected(i)).flat());
      await f.close();
    }
  });

  it('a corrupt chunk read ahead fails only the reads of its frames, naming the dataset and the chunk', async () => {
    const bytes = (await pointBytes()).slice();
    const f0 = await openFile(bytes);
    const info = (await ((await f0.get('frames')) as Dataset).chunkInfoByCoord([2 * PER_CHUNK, 0, 0]))!;
    await f0.close();
    const off = info.sections!.offsets[0]!;
    // section 0 (the selection) and section 1 (the values) each corrupted in turn
    for (const [from, to] of [
      [info.address + 20, info.address + off - 20],
      [info.address + off + 20, info.address + info.size - 20],
    ] as const) {
      const bad = bytes.slice();
      for (let i = from; i < to; i += 7) bad[i] ^= 0x5a;
      const path = onDisk(bad, 'corrupt.h5');
      await noUnhandled(async () => {
        const ahead = vi.spyOn(SparseFormat.prototype, 'decodeAhead');
        const f = await openFile(path);
        const ds = (await f.get('frames')) as Dataset;
        for (let i = 0; i < 2 * PER_CHUNK; i++) expect(await readFrame(ds, i)).toEqual(expected(i));
        expect(ahead.mock.calls.some((c) => c[1].coords[0] === 2)).toBe(true);
        for (const i of [2 * PER_CHUNK, 2 * PER_CHUNK + 1]) await expectChunkError(readFrame(ds, i), [2, 0, 0]);
        // the chunks after it still read
        for (let i = 3 * PER_CHUNK; i < FRAMES; i++) expect(await readFrame(ds, i)).toEqual(expected(i));
        await f.close();
        vi.restoreAllMocks();
      });
    }
  });

  it('never reads ahead in a writable file', async () => {
    const store = new MemoryStore((await pointBytes()).slice());
    const ahead = vi.spyOn(SparseFormat.prototype, 'decodeAhead');
    const f = await openFile(store, { mode: 'r+' });
    const ds = (await f.get('frames')) as Dataset;
    for (let i = 0; i < 2 * PER_CHUNK + 2; i++) expect(await readFrame(ds, i)).toEqual(expected(i));
    await f.close();
    expect(ahead).not.toHaveBeenCalled();
  });

  it('closing the file with a chunk under way leaves nothing behind', async () => {
    const path = onDisk(await pointBytes(), 'close.h5');
    await noUnhandled(async () => {
      for (let k = 0; k < 3; k++) {
        const f = await openFile(path);
        const ds = (await f.get('frames')) as Dataset;
        for (let i = 0; i <= k; i++) await readFrame(ds, i);
        await f.close();
      }
    });
    const again = await openFile(readFileSync(path));
    expect(await readFrame((await again.get('frames')) as Dataset, PER_CHUNK)).toEqual(expected(PER_CHUNK));
    await again.close();
  });
});
