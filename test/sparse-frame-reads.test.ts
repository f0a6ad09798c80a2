/**
 * Frame-by-frame `readDefined` of a sparse dataset with several frames per chunk and deflate on both
 * sections (issue #11 point-group reads, the one-chunk path of the chunk reader with its chunk cache):
 * frames must come out exactly as written — in order, backwards, skipping chunks — and as the whole
 * dataset does, a corrupt chunk must fail the read of its frames with a typed error naming it (and
 * nothing else, the chunks after it still read), and a writable file must see its own writes.
 */
import { describe, expect, it } from 'vitest';
import './setup-registrations.js';
import {
  createFile,
  MemoryStore,
  openFile,
  selectAll,
  selectBlocks,
  selectHyperslab,
  selectionCount,
  type Box,
  type Dataset,
  type Selection,
} from '../packages/core/src/index.js';
import { frameModelOps } from './support/frame-model.js';
import { expectChunkError, writeSparseFrames, type Frame } from './support/sparse-frames.js';

const FRAMES = 21;
const PER_CHUNK = 4;
const N = 64;
const { linOf } = frameModelOps(FRAMES, N, N);

/** Frame `f`: the pixels where (y·N + x + f) mod (3 + f mod 4) is 0 in every other row band, values from f and the pixel. */
function frame(f: number): Frame {
  const boxes: Box[] = [];
  const values: number[] = [];
  const step = 3 + (f % 4);
  for (let y = 0; y < N; y++) {
    if (((y >> 2) + f) % 2 === 1) continue;
    for (let x = 0; x < N; x++) {
      if ((y * N + x + f) % step !== 0) continue;
      boxes.push({ start: [f, y, x], end: [f + 1, y + 1, x + 1] });
      values.push((f * 977 + y * 31 + x) & 0xffff);
    }
  }
  return { boxes, values: Uint16Array.from(values) };
}

/** The defined pixels of `sel` (blocks, dataset coordinates) with their values (in C order), as "f,y,x=v" strings. */
function pixels(sel: Selection, values: Uint16Array): string[] {
  const at = linOf(sel);
  expect(at.length).toBe(values.length);
  return at.map((p, k) => `${Math.floor(p / (N * N))},${Math.floor(p / N) % N},${p % N}=${values[k]}`);
}

const expected = (f: number): string[] => {
  const { boxes, values } = frame(f);
  return boxes.map((b, i) => `${b.start.join(',')}=${values[i]}`);
};

/** The file: FRAMES frames written one by one, PER_CHUNK frames per chunk, deflate 1 on both sections. */
async function pointFile(store = new MemoryStore()): Promise<MemoryStore> {
  const f = await createFile(store);
  await writeSparseFrames(f, { h: N, w: N, chunks: [PER_CHUNK, N, N] }, FRAMES, frame);
  await f.close();
  return store;
}

const frameSel = (i: number) => selectHyperslab({ start: [i, 0, 0], block: [1, N, N] });

async function readFrame(ds: Dataset, i: number): Promise<string[]> {
  const { selection, values } = await ds.readDefined(frameSel(i));
  return pixels(selection as Selection, values as Uint16Array);
}

describe('readDefined frame by frame, several frames per chunk, deflate', () => {
  it('gives every frame as written, in order, backwards and skipping chunks, and the whole dataset alike', async () => {
    const bytes = (await pointFile()).toBytes();
    for (const order of [
      Array.from({ length: FRAMES }, (_, i) => i),
      Array.from({ length: FRAMES }, (_, i) => FRAMES - 1 - i),
      [0, 1, 2, 9, 10, 11, 3, 17, 18, 19, 20, 4, 5],
    ]) {
      const f = await openFile(bytes);
      const ds = (await f.get('frames')) as Dataset;
      for (const i of order) expect(await readFrame(ds, i), `frame ${i}`).toEqual(expected(i));
      await f.close();
    }
    const f = await openFile(bytes);
    const ds = (await f.get('frames')) as Dataset;
    const all = await ds.readDefined(selectAll());
    expect(pixels(all.selection as Selection, all.values as Uint16Array)).toEqual(Array.from({ length: FRAMES }, (_, i) => expected(i)).flat());
    expect(selectionCount(all.selection as Selection, [FRAMES, N, N])).toBe(all.values.length);
    await f.close();
  });

  it('a corrupt chunk fails the read of its frames with a typed error naming it, and nothing else', async () => {
    const store = await pointFile();
    const f0 = await openFile(store.toBytes());
    const info = (await ((await f0.get('frames')) as Dataset).chunkInfoByCoord([2 * PER_CHUNK, 0, 0]))!;
    await f0.close();
    const bytes = store.toBytes().slice();
    for (let i = info.address + info.size - 40; i < info.address + info.size - 8; i++) bytes[i] ^= 0xa5;
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const f = await openFile(bytes);
      const ds = (await f.get('frames')) as Dataset;
      for (let i = 0; i < 2 * PER_CHUNK; i++) expect(await readFrame(ds, i)).toEqual(expected(i));
      await expectChunkError(readFrame(ds, 2 * PER_CHUNK), [2, 0, 0]);
      // the chunks after it still read
      for (let i = 3 * PER_CHUNK; i < FRAMES; i++) expect(await readFrame(ds, i)).toEqual(expected(i));
      await f.close();
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });

  it('closing the file between frames leaves nothing behind', async () => {
    const bytes = (await pointFile()).toBytes();
    const f = await openFile(bytes);
    const ds = (await f.get('frames')) as Dataset;
    await readFrame(ds, 0);
    await readFrame(ds, 1);
    await f.close();
    const again = await openFile(bytes);
    expect(await readFrame((await again.get('frames')) as Dataset, PER_CHUNK)).toEqual(expected(PER_CHUNK));
    await again.close();
  });

  it('a writable file reads its own writes to the next chunk between frames', async () => {
    const store = await pointFile();
    const f = await openFile(store, { mode: 'r+' });
    const ds = (await f.get('frames')) as Dataset;
    expect(await readFrame(ds, 0)).toEqual(expected(0));
    expect(await readFrame(ds, 1)).toEqual(expected(1));
    const next = PER_CHUNK;
    const { boxes, values } = frame(next);
    const changed = values.map((v) => v ^ 0x5555);
    await ds.write(changed, selectBlocks(boxes));
    await f.flush();
    for (let i = 2; i < next; i++) expect(await readFrame(ds, i)).toEqual(expected(i));
    expect(await readFrame(ds, next)).toEqual(boxes.map((b, i) => `${b.start.join(',')}=${changed[i]}`));
    await f.close();
  });

  it('results held across evictions, closes and re-reads (chunk buffers reused after a close) never change', async () => {
    // 3×3 pixel groups (section 0 a block list) in 256² frames, `count` per frame in distinct 4×4 cells placed by
    // `seed`, values scattered: stored chunks above 64 KiB (the format's memo of small chunks shares them instead)
    const W = 256;
    const groups = (count: number, seed: number) => (f: number): Frame => {
      const boxes: Box[] = [];
      for (let k = 0; k < count; k++) {
        const c = (k * 7 + f * seed) % 4096;
        boxes.push({ start: [f, (c >> 6) * 4, (c & 63) * 4], end: [f + 1, (c >> 6) * 4 + 3, (c & 63) * 4 + 3] });
      }
      return { boxes, values: Uint16Array.from({ length: 9 * count }, (_, k) => (Math.imul(k + 1, 0x9e3779b1) ^ Math.imul(f + seed, 0x85ebca6b)) >>> 16) };
    };
    const sel = (i: number, n = 1) => selectHyperslab({ start: [i, 0, 0], block: [n, W, W] });
    const fileOf = async (frame: (f: number) => Frame): Promise<Uint8Array> => {
      const store = new MemoryStore();
      const f = await createFile(store);
      await writeSparseFrames(f, { h: W, w: W, chunks: [PER_CHUNK, W, W] }, FRAMES, frame);
      await f.close();
      return store.toBytes();
    };
    const bytes = await fileOf(groups(1200, 3));
    // another file, of fewer groups elsewhere: read after each close, its block lists go where the first file's were
    const otherBytes = await fileOf(groups(900, 5));
    const held: { what: string; sel: Selection; values: Uint16Array; boxes: Float64Array; copy: Uint16Array }[] = [];
    const hold = (what: string, sel: Selection, values: Uint16Array): void => {
      held.push({ what, sel, values, boxes: sel.kind === 'blocks' ? sel.boxes.slice() : new Float64Array(0), copy: values.slice() });
    };
    const orders = [
      Array.from({ length: FRAMES }, (_, i) => i),
      Array.from({ length: FRAMES }, (_, i) => FRAMES - 1 - i),
      [0, 5, 1, 9, 2, 13, 3, 17, 20, 4, 8, 12, 16],
    ];
    for (let round = 0; round < 6; round++) {
      const f = await openFile(bytes);
      const ds = (await f.get('frames')) as Dataset;
      // about one chunk cached (frames of other chunks evict it), or all of them
      ds.setAccess({ chunkCache: { bytes: round % 2 === 0 ? 150_000 : 4 << 20 } });
      for (const i of orders[round % 3]!) {
        const r = await ds.readDefined(sel(i));
        expect(r.values.length, `round ${round} frame ${i}`).toBe(1200 * 9);
        hold(`round ${round} frame ${i}`, r.selection as Selection, r.values as Uint16Array);
      }
      const slab = await ds.readDefined(sel(PER_CHUNK, PER_CHUNK));
      hold(`round ${round} chunk 1`, slab.selection as Selection, slab.values as Uint16Array);
      const all = await ds.readDefined(selectAll());
      hold(`round ${round} whole`, all.selection as Selection, all.values as Uint16Array);
      hold(`round ${round} getDefined`, await ds.getDefined(sel(1, 2 * PER_CHUNK)), new Uint16Array(0));
      await f.close();
      const g = await openFile(otherBytes);
      const gs = (await g.get('frames')) as Dataset;
      for (let i = 0; i < FRAMES; i++) expect((await gs.readDefined(sel(FRAMES - 1 - i))).values.length).toBe(900 * 9);
      await g.close();
    }
    expect(held.length).toBeGreaterThan(6 * FRAMES);
    for (const h of held) {
      expect(h.sel.kind === 'blocks' ? Array.from(h.sel.boxes) : [], h.what).toEqual(Array.from(h.boxes));
      expect(Array.from(h.values), h.what).toEqual(Array.from(h.copy));
    }
  });
});
