/**
 * A model of a [frames, H, W] sparse dataset for point-group frame tests: the value of every pixel
 * of every frame, 0 where undefined, with the reads and writes the tests compare chunkform against.
 */
import { toBlocks, type Box, type Selection } from '../../packages/core/src/selection/index.js';

/** Value per pixel of every frame (C order over [frames, H, W]), 0 where undefined. */
export type FrameModel = Uint16Array;

/** Model operations for frames of `h` × `w` pixels, `frames` frames. */
export function frameModelOps(frames: number, h: number, w: number) {
  const dims = [frames, h, w];
  return {
    /** Linear indices (C order) of a selection's elements. */
    linOf(sel: Selection): number[] {
      const b = toBlocks(sel, dims);
      if (b.kind === 'none') return [];
      const out: number[] = [];
      for (let i = 0; i < b.boxCount; i++) {
        const o = i * 6;
        for (let f = b.boxes[o]!; f < b.boxes[o + 1]!; f++)
          for (let y = b.boxes[o + 2]!; y < b.boxes[o + 3]!; y++) for (let x = b.boxes[o + 4]!; x < b.boxes[o + 5]!; x++) out.push((f * h + y) * w + x);
      }
      return out.sort((a, c) => a - c);
    },

    /** Defined pixels of the model inside box `b` (linear indices, C order) and their values. */
    modelRead(m: FrameModel, b: Box): { lin: number[]; values: number[] } {
      const lin: number[] = [];
      const values: number[] = [];
      for (let f = b.start[0]!; f < b.end[0]!; f++)
        for (let y = b.start[1]!; y < b.end[1]!; y++)
          for (let x = b.start[2]!; x < b.end[2]!; x++) {
            const i = (f * h + y) * w + x;
            if (m[i]) (lin.push(i), values.push(m[i]!));
          }
      return { lin, values };
    },

    /** Writes `values` into the model in C order of the (disjoint) boxes' union. */
    modelWrite(m: FrameModel, boxes: Box[], values: Uint16Array): void {
      const idx: number[] = [];
      for (const b of boxes)
        for (let f = b.start[0]!; f < b.end[0]!; f++)
          for (let y = b.start[1]!; y < b.end[1]!; y++) for (let x = b.start[2]!; x < b.end[2]!; x++) idx.push((f * h + y) * w + x);
      idx.sort((a, b) => a - b);
      idx.forEach((i, k) => (m[i] = values[k]!));
    },
  };
}
