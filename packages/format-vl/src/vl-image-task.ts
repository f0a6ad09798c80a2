/**
 * The filter worker's side of ./vl-image-offload.ts: a whole dense VL chunk's stored image built
 * from its staged strings by the calling thread's own function ({@link columnChunk}), sent back with
 * its buffer moved. Imported by the worker pool's task jobs only.
 * @module
 */
import type { OffloadTaskResult } from '@chunkform/core/plugin';
import { columnChunk } from './vl-image.js';
import type { ColumnImageArgs } from './vl-image-offload.js';

/** The stored image (entries + heap, both sealed) of the chunk of `args`. */
// docs/format-vl.md §2 (dense VL chunk), §5.1 (built in one pass).
export function columnImage(args: ColumnImageArgs): OffloadTaskResult<Uint8Array> {
  const mem = columnChunk(args.n, args.runs, args, 0);
  if (!mem) throw new Error('format-vl: VL chunk images are built in one pass on little-endian hosts only');
  const image = mem.image!;
  return { value: image, transfer: [image.buffer as ArrayBuffer] };
}
