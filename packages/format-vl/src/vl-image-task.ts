/**
 * The filter worker's side of ./vl-image-offload.ts: a whole dense VL chunk's stored image built
 * from its staged strings by the calling thread's own function ({@link columnChunk}), sent back with
 * its buffer moved. Imported by the worker pool's task jobs only.
 * @module
 */
import type { OffloadTaskResult } from '@chunkform/core/plugin';
import { columnChunk } from './vl-image.js';
import type { ColumnImageArgs, ColumnImagesArgs } from './vl-image-offload.js';

/** The stored image (entries + heap, both sealed) of the chunk of `args`. */
// docs/format-vl.md §2 (dense VL chunk), §5.1 (built in one pass).
export function columnImage(args: ColumnImageArgs): OffloadTaskResult<Uint8Array> {
  const mem = columnChunk(args.n, args.runs, args, 0);
  if (!mem) throw new Error('format-vl: VL chunk images are built in one pass on little-endian hosts only');
  const image = mem.image!;
  return { value: image, transfer: [image.buffer as ArrayBuffer] };
}

/**
 * The stored images of several chunks (as {@link columnImage}), each written into the shared memory
 * `args.out` from `args.at[i]`: nothing is sent back but their sizes.
 */
// docs/format-vl.md §2 (dense VL chunk), §5.2 (built on the worker pool).
export function columnImages(args: ColumnImagesArgs): OffloadTaskResult<Float64Array> {
  const { chunks, out, at } = args;
  const sizes = new Float64Array(chunks.length);
  for (let i = 0; i < chunks.length; i++) {
    const image = columnImage(chunks[i]!).value;
    if (image.length > at[i + 1]! - at[i]!) throw new Error(`format-vl: the image of chunk ${i} of the job has ${image.length} bytes, more than its ${at[i + 1]! - at[i]!}`);
    out.set(image, at[i]!);
    sizes[i] = image.length;
  }
  return { value: sizes, transfer: [] };
}
