/**
 * Frame reads from chunks of several frames (issue #11): `readDefined` of one frame (one box in one
 * chunk) takes the chunk from the cache and cuts the frame out of its decoded canonical boxes — also
 * where a group lies at the same place in consecutive frames, so the decoded list holds one box spanning
 * those frames. Writes, appends and erasures of a chunk whose frames were read (and whose decoded
 * boxes and index of them are cached) are seen by the next reads: no stale frame, no stale values; a
 * returned result is the caller's own (changing it changes nothing read later).
 */
import { describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { xorshift32 } from '../bench/xorshift.js';
import { createFile, H5Error, MemoryStore, openFile, type Dataset } from '../packages/core/src/index.js';
import { selectAll, selectBlocks, selectHyperslab, type Box, type Selection } from '../packages/core/src/selection/index.js';
import { frameModelOps, type FrameModel } from './support/frame-model.js';

const H = 32;
const W = 40;
const FRAMES = 14;
const PER_CHUNK = 6;
const dims = [FRAMES, H, W];

type Model = FrameModel;
const { linOf, modelRead, modelWrite } = frameModelOps(FRAMES, H, W);

/**
 * Groups of frame f in distinct 4×4 cells; frames 2–4 and 8–9 repeat groups of the frame before at
 * the same places (one box over several frames in the chunk's canonical list), frame 11 has none.
 */
function frameGroups(r: () => number, f: number, prev: Box[]): Box[] {
  if (f === 11) return [];
  const cells = new Set<number>();
  while (cells.size < 6) cells.add(r() % ((H / 4) * (W / 4)));
  const boxes = [...cells].map((c) => {
    const y = Math.floor(c / (W / 4)) * 4;
    const x = (c % (W / 4)) * 4;
    return { start: [f, y, x], end: [f + 1, y + 2 + (c % 2), x + 3] };
  });
  const repeat = (f >= 2 && f <= 4) || f === 8 || f === 9 ? prev.slice(0, 3).map((b) => ({ start: [f, b.start[1]!, b.start[2]!], end: [f + 1, b.end[1]!, b.end[2]!] })) : [];
  // frames 8 and 9 are the same groups exactly (equal cross-sections: one group of two frames)
  const all = f === 9 ? prev.map((b) => ({ start: [f, b.start[1]!, b.start[2]!], end: [f + 1, b.end[1]!, b.end[2]!] })) : [...repeat, ...boxes];
  // distinct cells only (a repeated group may fall on a new one)
  const seen = new Set<string>();
  return all.filter((b) => {
    const k = `${b.start[1]},${b.start[2]}`;
    return !seen.has(k) && (seen.add(k), true);
  });
}

/** Writes frames 0 … count−1 of point groups (frameGroups) into `ds` and `m`; `grow`: the dataset is resized to each frame first. */
async function writeFrames(ds: Dataset, r: () => number, m: Model, count: number, grow: boolean): Promise<void> {
  let prev: Box[] = [];
  for (let i = 0; i < count; i++) {
    if (grow) await ds.resize([i + 1, H, W]);
    const boxes = frameGroups(r, i, prev);
    if (boxes.length > 0) {
      const n = boxes.reduce((a, b) => a + (b.end[1]! - b.start[1]!) * (b.end[2]! - b.start[2]!), 0);
      const values = Uint16Array.from({ length: n }, () => 1 + (r() % 60000));
      await ds.write(values, selectBlocks(boxes));
      modelWrite(m, boxes, values);
    }
    prev = boxes;
  }
}

async function expectFrames(ds: Dataset, m: Model, what: string): Promise<void> {
  for (let i = 0; i < FRAMES; i++) {
    const got = await ds.readDefined(selectHyperslab({ start: [i, 0, 0], block: [1, H, W] }));
    const want = modelRead(m, { start: [i, 0, 0], end: [i + 1, H, W] });
    expect(linOf(got.selection), `${what}: frame ${i}`).toEqual(want.lin);
    expect(Array.from(got.values as Uint16Array), `${what}: frame ${i}`).toEqual(want.values);
  }
  const whole = await ds.readDefined(selectAll());
  const want = modelRead(m, { start: [0, 0, 0], end: dims.slice() as [number, number, number] });
  expect(linOf(whole.selection), `${what}: whole`).toEqual(want.lin);
  expect(Array.from(whole.values as Uint16Array), `${what}: whole`).toEqual(want.values);
}

describe('frame reads from cached chunks of several frames', () => {
  for (const gzip of [false, true]) {
    it(`groups repeated over frames; writes, appends and erasures after reads are seen (${gzip ? 'deflate' : 'unfiltered'})`, async () => {
      const r = xorshift32(gzip ? 21 : 22);
      const m: Model = new Uint16Array(FRAMES * H * W);
      const store = new MemoryStore();
      const f = await createFile(store);
      const opts = { layout: 'sparse' as const, dtype: 'uint16' as const, shape: [0, H, W], maxShape: [null, H, W], chunks: [PER_CHUNK, H, W] };
      const ds = await f.createDataset('frames', { ...opts, ...(gzip ? { compression: 'gzip' as const, compressionOpts: 1 } : {}) });
      await writeFrames(ds, r, m, FRAMES - 2, true);
      await ds.resize(dims);
      await f.close();

      // decoded from the file: section 0 lists the repeated groups as boxes over several frames
      const h = await openFile(store, { mode: 'r+' });
      const d = (await h.get('frames')) as Dataset;
      await expectFrames(d, m, 'reopened');
      // again, every chunk now from the cache
      await expectFrames(d, m, 'cached');

      // a result is the caller's: changing it leaves the chunk as it was
      const mine = await d.readDefined(selectHyperslab({ start: [3, 0, 0], block: [1, H, W] }));
      (mine.values as Uint16Array).fill(7);
      const sel = mine.selection;
      if (sel.kind === 'blocks') sel.boxes.fill(0);
      await expectFrames(d, m, 'after changing a result');

      // overwrite part of a frame read before (the general merge), in the middle of a cached chunk
      const over: Box[] = [{ start: [3, 0, 0], end: [4, 4, W] }];
      const ov = Uint16Array.from({ length: 4 * W }, (_, i) => 100 + i);
      await d.write(ov, selectBlocks(over));
      modelWrite(m, over, ov);
      await expectFrames(d, m, 'after an overwrite');

      // append to the last frames (after every defined element of their chunk) and start new ones
      for (const fr of [FRAMES - 2, FRAMES - 1]) {
        const boxes: Box[] = [{ start: [fr, 8, 4], end: [fr + 1, 10, 7] }, { start: [fr, 20, 12], end: [fr + 1, 23, 15] }];
        const values = Uint16Array.from({ length: 15 }, (_, i) => 500 + fr * 20 + i);
        await d.write(values, selectBlocks(boxes));
        modelWrite(m, boxes, values);
        await expectFrames(d, m, `after appending frame ${fr}`);
      }

      // erase inside a group spanning frames 8–9 and a whole frame
      for (const box of [
        { start: [9, 0, 0], end: [10, H / 2, W] },
        { start: [2, 0, 0], end: [3, H, W] },
      ] as Box[]) {
        await d.erase(selectBlocks([box]));
        for (const i of modelRead(m, box).lin) m[i] = 0;
        await expectFrames(d, m, `after erasing [${box.start.join(',')}]–[${box.end.join(',')}]`);
      }

      // parts of frames (one box in one chunk, not spanning the frame) and strided selections
      for (let k = 0; k < 12; k++) {
        const fr = r() % FRAMES;
        const y0 = r() % H;
        const x0 = r() % W;
        const box: Box = { start: [fr, y0, x0], end: [fr + 1, y0 + 1 + (r() % (H - y0)), x0 + 1 + (r() % (W - x0))] };
        const got = await d.readDefined(selectBlocks([box]));
        const want = modelRead(m, box);
        expect(linOf(got.selection)).toEqual(want.lin);
        expect(Array.from(got.values as Uint16Array)).toEqual(want.values);
      }
      const strided = selectHyperslab({ start: [1, 0, 0], stride: [1, 2, 1], count: [1, H / 2, 1], block: [1, 1, W] });
      const got = await d.readDefined(strided);
      const want = await d.getDefined(strided);
      expect(linOf(got.selection)).toEqual(linOf(want));
      await h.close();

      // and what was flushed reads back the same
      const h2 = await openFile(store);
      await expectFrames((await h2.get('frames')) as Dataset, m, 'flushed');
      await h2.close();
    });
  }

  it('a frame of a corrupt chunk fails naming the dataset and the chunk; frames of other chunks read', async () => {
    const store = new MemoryStore();
    const f = await createFile(store);
    const ds = await f.createDataset('frames', { layout: 'sparse', dtype: 'uint16', shape: [6, H, W], chunks: [3, H, W] });
    for (let fr = 0; fr < 6; fr++) await ds.write(Uint16Array.from({ length: 6 }, (_, i) => 1 + fr + i), selectBlocks([{ start: [fr, 4, 4], end: [fr + 1, 6, 7] }]));
    await f.close();
    const bytes = store.toBytes();
    const probe = await openFile(new MemoryStore(bytes.slice()));
    const info = await ((await probe.get('frames')) as Dataset).chunkInfoByCoord([3, 0, 0]);
    await probe.close();
    expect(info).not.toBeNull();
    bytes[info!.address + 20] ^= 0xff; // inside section 0 (the encoded selection): its checksum fails
    const h = await openFile(new MemoryStore(bytes));
    const d = (await h.get('frames')) as Dataset;
    expect(Array.from((await d.readDefined(selectHyperslab({ start: [1, 0, 0], block: [1, H, W] }))).values as Uint16Array)).toEqual([2, 3, 4, 5, 6, 7]);
    const err = await d.readDefined(selectHyperslab({ start: [4, 0, 0], block: [1, H, W] })).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(H5Error);
    expect(String((err as Error).message)).toMatch(/frames/);
    expect(String((err as Error).message)).toMatch(/\[1, 0, 0\]|\[3, 0, 0\]/);
    await h.close();
  });
});

/**
 * Everything a read returns, spoiled by the caller: every element changed, and the buffers detached
 * (transferred away, as a caller posting them to a worker does). Nothing of it may be shared with
 * the chunk cache, the decoded chunk or another result.
 */
function spoil(...arrays: ArrayBufferView[]): void {
  for (const a of arrays) {
    if (a instanceof Float64Array || a instanceof Uint16Array) a.fill(7);
  }
  const buffers = [...new Set(arrays.map((a) => a.buffer))].filter((b): b is ArrayBuffer => b instanceof ArrayBuffer && b.byteLength > 0);
  structuredClone(buffers, { transfer: buffers });
}

function arraysOf(sel: Selection): ArrayBufferView[] {
  return sel.kind === 'blocks' ? [sel.boxes] : [];
}

describe('results of frame reads are the caller\'s own', () => {
  for (const gzip of [false, true]) {
    for (const mode of ['r', 'r+'] as const) {
      it(`changing or detaching any returned array changes no later read (${gzip ? 'deflate' : 'unfiltered'}, mode ${mode})`, async () => {
        const r = xorshift32(gzip ? 31 : 32);
        const m: Model = new Uint16Array(FRAMES * H * W);
        const store = new MemoryStore();
        const f = await createFile(store);
        const ds = await f.createDataset('frames', { layout: 'sparse', dtype: 'uint16', shape: [FRAMES, H, W], chunks: [PER_CHUNK, H, W], ...(gzip ? { compression: 'gzip' as const, compressionOpts: 1 } : {}) });
        await writeFrames(ds, r, m, FRAMES, false);
        await f.close();
        const h = await openFile(store, { mode });
        const d = (await h.get('frames')) as Dataset;
        // forwards (reading ahead in a read-only file), the same frame twice, backwards, skipping
        const order = [...Array.from({ length: FRAMES }, (_, i) => i), 5, 5, ...Array.from({ length: FRAMES }, (_, i) => FRAMES - 1 - i), 0, 7, 13, 1, 12];
        for (const i of order) {
          const frame = selectHyperslab({ start: [i, 0, 0], block: [1, H, W] });
          const want = modelRead(m, { start: [i, 0, 0], end: [i + 1, H, W] });
          const got = await d.readDefined(frame);
          expect(linOf(got.selection), `frame ${i}`).toEqual(want.lin);
          expect(Array.from(got.values as Uint16Array), `frame ${i}`).toEqual(want.values);
          const defined = await d.getDefined(frame);
          expect(linOf(defined), `frame ${i} (getDefined)`).toEqual(want.lin);
          // a part of the frame too (the general path of a chunk's defined values)
          const part = await d.readDefined(selectBlocks([{ start: [i, 2, 3], end: [i + 1, H - 5, W - 2] }]));
          expect(linOf(part.selection), `part of frame ${i}`).toEqual(modelRead(m, { start: [i, 2, 3], end: [i + 1, H - 5, W - 2] }).lin);
          spoil(...arraysOf(got.selection), got.values as Uint16Array, ...arraysOf(defined), ...arraysOf(part.selection), part.values as Uint16Array);
          if (i % 4 === 0) {
            const whole = await d.readDefined(selectAll());
            const all = modelRead(m, { start: [0, 0, 0], end: [FRAMES, H, W] });
            expect(linOf(whole.selection)).toEqual(all.lin);
            expect(Array.from(whole.values as Uint16Array)).toEqual(all.values);
            spoil(...arraysOf(whole.selection), whole.values as Uint16Array);
          }
        }
        await expectFrames(d, m, 'after spoiling every result');
        await h.close();
      });
    }
  }
});
