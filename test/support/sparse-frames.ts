/**
 * A growing sparse dataset of frames, written one frame at a time the way a detector writes them: the
 * set-up shared by the frame-read tests.
 */
import { expect } from 'vitest';
import { H5Error, selectBlocks, type Box, type Dataset, type H5File } from '../../packages/core/src/index.js';

/** One frame's defined boxes (dataset coordinates, one frame deep) and their values in C order of the boxes' union. */
export interface Frame {
  boxes: Box[];
  values: Uint16Array;
}

/**
 * Creates the sparse uint16 dataset `frames` of `h` × `w` frames (unlimited in the first dimension,
 * `chunks` per chunk, deflate 1 on both sections) in `file`, then appends `count` frames one by one
 * (resize, then write `frame(i)`).
 */
export async function writeSparseFrames(file: H5File, geometry: { h: number; w: number; chunks: number[] }, count: number, frame: (i: number) => Frame): Promise<Dataset> {
  const { h, w, chunks } = geometry;
  const ds = await file.createDataset('frames', {
    layout: 'sparse',
    dtype: 'uint16',
    shape: [0, h, w],
    maxShape: [null, h, w],
    chunks,
    compression: 'gzip',
    compressionOpts: 1,
  });
  for (let i = 0; i < count; i++) {
    await ds.resize([i + 1, h, w]);
    const { boxes, values } = frame(i);
    await ds.write(values, selectBlocks(boxes));
  }
  return ds;
}

/** Expects `read` (a read of the dataset `frames`) to fail with a typed error naming the dataset and chunk `chunk` (chunk coordinates). */
export async function expectChunkError(read: Promise<unknown>, chunk: readonly number[]): Promise<void> {
  const e = await read.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(H5Error);
  expect(String((e as Error).message)).toMatch(/frames/);
  expect(String((e as Error).message)).toContain(`chunk [${chunk.join(', ')}]`);
}
