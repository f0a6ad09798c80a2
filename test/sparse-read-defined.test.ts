/**
 * `readDefined` on sparse datasets whose chunks span every dimension but the first (frames): one pass
 * over the chunks (chunk/engine.ts `readDefined`, format-sparse `definedValues`) gives the same selection
 * and values as `getDefined` followed by `read`, for chunks still in the cache and after reopening, for
 * whole frames, parts of frames, several frames at once and the whole dataset; other chunk shapes take the
 * two-step path with the same result.
 */
import './setup-registrations.js';
import { describe, expect, it } from 'vitest';
import {
  MemoryStore,
  createFile,
  openFile,
  selectAll,
  selectBlocks,
  selectHyperslab,
  selectionEquals,
  type Box,
  type Dataset,
  type Selection,
} from '../packages/core/src/index.js';
import { writeSparseFrames, type Frame } from './support/sparse-frames.js';

const H = 40;
const W = 48;
const FRAMES = 12;

function frameBoxes(f: number): Box[] {
  const boxes: Box[] = [];
  for (let g = 0; g < 6; g++) {
    const y = (g * 7 + f * 3) % (H - 3);
    const x = (g * 11 + f * 5) % (W - 3);
    boxes.push({ start: [f, y, x], end: [f + 1, y + 2 + (g % 2), x + 3] });
  }
  // frames 4 and 5 hold the same groups: the defined union merges them in dimension 0
  return f === 5 ? frameBoxes(4).map((b) => ({ start: [5, b.start[1]!, b.start[2]!], end: [6, b.end[1]!, b.end[2]!] })) : boxes;
}

/** Frame `f`: its boxes and values 1 + ((k·37 + f·101) mod 60000) for the k-th pixel in C order. */
function frame(f: number): Frame {
  const boxes = frameBoxes(f);
  const count = boxes.reduce((a, b) => a + (b.end[1]! - b.start[1]!) * (b.end[2]! - b.start[2]!), 0);
  return { boxes, values: new Uint16Array(count).map((_, k) => 1 + ((k * 37 + f * 101) % 60000)) };
}

const QUERIES: [string, Selection][] = [
  ['all', selectAll()],
  ['frame 3', selectHyperslab({ start: [3, 0, 0], block: [1, H, W] })],
  ['frames 2–7', selectHyperslab({ start: [2, 0, 0], block: [6, H, W] })],
  ['part of frames 1–9', selectHyperslab({ start: [1, 5, 7], block: [9, 20, 30] })],
  ['two boxes', selectBlocks([{ start: [0, 0, 0], end: [3, 10, 10] }, { start: [8, 20, 20], end: [12, 40, 48] }])],
  ['nothing defined', selectHyperslab({ start: [0, 0, 0], block: [1, 1, 1] })],
];

async function twoStep(ds: Dataset, sel: Selection): Promise<{ selection: Selection; values: unknown }> {
  const selection = await ds.getDefined(sel);
  return { selection, values: await ds.read(selection) };
}

async function check(ds: Dataset): Promise<void> {
  for (const [name, q] of QUERIES) {
    const got = await ds.readDefined(q);
    const want = await twoStep(ds, q);
    expect(selectionEquals(got.selection, want.selection, ds.shape), name).toBe(true);
    expect(Array.from(got.values as Uint16Array), name).toEqual(Array.from(want.values as Uint16Array));
  }
}

describe('readDefined in one pass over frame chunks', () => {
  for (const chunks of [
    [1, H, W],
    [2, H, W],
    [1, 16, W],
  ]) {
    it(`chunks ${chunks.join('×')}: same result as getDefined + read, cached and reopened`, async () => {
      const store = new MemoryStore();
      const f = await createFile(store);
      const ds = await writeSparseFrames(f, { h: H, w: W, chunks }, FRAMES, frame);
      const total = Array.from({ length: FRAMES }, (_, i) => frame(i).values.length).reduce((a, n) => a + n, 0);
      await check(ds);
      const all = await ds.readDefined();
      expect((all.values as Uint16Array).length).toBe(total);
      await f.close();
      const g = await openFile(store);
      await check((await g.get('frames')) as Dataset);
      await g.close();
    });
  }
});
