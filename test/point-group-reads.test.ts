/**
 * Point-group frames (issue #11): sparse frames of small pixel groups written frame by frame (with and
 * without deflate on the sections), then `readDefined` / `getDefined` per frame, over random boxes and
 * whole, before and after erasing some groups, equal a model of the defined pixels. The chunk walks
 * load each chunk with the index record that the search for candidate chunks found; un-awaited
 * writes and erases mixed with the reads (the index changes between the search and the loads of
 * other calls) must still give the result of the calls in order.
 */
import { describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { xorshift32 } from '../bench/xorshift.js';
import { createFile, MemoryStore, openFile, type Dataset } from '../packages/core/src/index.js';
import { selectAll, selectBlocks, selectHyperslab, selectionCount, type Box } from '../packages/core/src/selection/index.js';
import { frameModelOps, type FrameModel } from './support/frame-model.js';

const H = 64;
const W = 96;
const FRAMES = 12;

type Model = FrameModel;
const { linOf, modelRead, modelWrite } = frameModelOps(FRAMES, H, W);

/** Non-overlapping 3×3 (or 2×2) groups in distinct 4×4 cells of frame f. */
function groups(r: () => number, f: number, n: number): { boxes: Box[]; values: Uint16Array } {
  const cells = new Set<number>();
  while (cells.size < n) cells.add(r() % ((H / 4) * (W / 4)));
  const boxes = [...cells]
    .sort((a, b) => a - b)
    .map((c) => {
      const y = Math.floor(c / (W / 4)) * 4;
      const x = (c % (W / 4)) * 4;
      const s = 2 + (c % 2);
      return { start: [f, y, x], end: [f + 1, y + s, x + s] };
    });
  const n2 = boxes.reduce((a, b) => a + (b.end[1]! - b.start[1]!) * (b.end[2]! - b.start[2]!), 0);
  return { boxes, values: Uint16Array.from({ length: n2 }, () => 1 + (r() % 60000)) };
}

async function check(ds: Dataset, m: Model, box: Box): Promise<void> {
  const sel = selectBlocks([box]);
  const want = modelRead(m, box);
  const got = await ds.readDefined(sel);
  expect(linOf(got.selection)).toEqual(want.lin);
  expect(Array.from(got.values as Uint16Array)).toEqual(want.values);
  const defined = await ds.getDefined(sel);
  expect(selectionCount(defined, [FRAMES, H, W])).toBe(want.lin.length);
}

describe('point-group frames', () => {
  // one frame per chunk, and 5 per chunk (frames appended to a cached chunk, chunks read frame by frame kept in the cache)
  for (const [gzip, perChunk] of [[false, 1], [true, 1], [false, 5], [true, 5]] as const) {
    it(`write frame by frame, read per frame / boxes / whole, erase (${gzip ? 'deflate' : 'unfiltered'}, ${perChunk} per chunk)`, async () => {
      const r = xorshift32(gzip ? 7 : 8);
      const m: Model = new Uint16Array(FRAMES * H * W);
      const store = new MemoryStore();
      const f = await createFile(store);
      const ds = await f.createDataset('frames', { layout: 'sparse', dtype: 'uint16', shape: [0, H, W], maxShape: [null, H, W], chunks: [perChunk, H, W], ...(gzip ? { compression: 'gzip' as const, compressionOpts: 1 } : {}) });
      for (let i = 0; i < FRAMES; i++) {
        await ds.resize([i + 1, H, W]);
        const g = groups(r, i, 10 + (r() % 20));
        await ds.write(g.values, selectBlocks(g.boxes));
        modelWrite(m, g.boxes, g.values);
      }
      await f.close();
      const h = await openFile(store, { mode: 'r+' });
      const d = (await h.get('frames')) as Dataset;
      for (let i = 0; i < FRAMES; i++) {
        const got = await d.readDefined(selectHyperslab({ start: [i, 0, 0], block: [1, H, W] }));
        const want = modelRead(m, { start: [i, 0, 0], end: [i + 1, H, W] });
        expect(Array.from(got.values as Uint16Array)).toEqual(want.values);
        expect(linOf(got.selection)).toEqual(want.lin);
      }
      const whole = await d.readDefined(selectAll());
      expect(linOf(whole.selection)).toEqual(modelRead(m, { start: [0, 0, 0], end: [FRAMES, H, W] }).lin);
      for (let k = 0; k < 20; k++) {
        const f0 = r() % FRAMES;
        const y0 = r() % H;
        const x0 = r() % W;
        await check(d, m, { start: [f0, y0, x0], end: [f0 + 1 + (r() % (FRAMES - f0)), y0 + 1 + (r() % (H - y0)), x0 + 1 + (r() % (W - x0))] });
      }
      // erase random boxes (some frames lose every group: their chunks are removed)
      for (let k = 0; k < 6; k++) {
        const f0 = r() % FRAMES;
        const box: Box = k < 2 ? { start: [f0, 0, 0], end: [f0 + 1, H, W] } : { start: [f0, r() % H, r() % W], end: [f0 + 1, H, W] };
        await d.erase(selectBlocks([box]));
        for (const i of modelRead(m, box).lin) m[i] = 0;
      }
      await check(d, m, { start: [0, 0, 0], end: [FRAMES, H, W] });
      // un-awaited calls: reads between writes and erases see exactly the calls before them
      const r2 = xorshift32(99);
      const calls: Promise<unknown>[] = [];
      const expectations: Promise<void>[] = [];
      for (let k = 0; k < 10; k++) {
        const fr = r2() % FRAMES;
        if (k % 3 === 2) {
          const box: Box = { start: [fr, 0, 0], end: [fr + 1, H / 2, W] };
          calls.push(d.erase(selectBlocks([box])));
          for (const i of modelRead(m, box).lin) m[i] = 0;
        } else {
          const g = groups(r2, fr, 5);
          calls.push(d.write(g.values, selectBlocks(g.boxes)));
          modelWrite(m, g.boxes, g.values);
        }
        const want = modelRead(m, { start: [0, 0, 0], end: [FRAMES, H, W] });
        expectations.push(
          d.readDefined().then((got) => {
            expect(linOf(got.selection)).toEqual(want.lin);
            expect(Array.from(got.values as Uint16Array)).toEqual(want.values);
          }),
        );
      }
      await Promise.all([...calls, ...expectations]);
      await h.close();
    });
  }
});
