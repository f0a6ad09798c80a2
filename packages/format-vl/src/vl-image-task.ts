/**
 * The filter worker's side of ./vl-image-offload.ts: the checksums of chunk images the calling
 * thread built in shared memory, written in place, each section claimed first (the calling thread
 * seals those it claims itself). Imported by the worker pool's task jobs only; it imports what the
 * worker has loaded already (core's plugin entry), so a worker's first job loads nothing more.
 * @module
 */
import { lookup3, type OffloadTaskResult } from '@chunkform/core/plugin';
import type { SealImagesArgs } from './vl-image-offload.js';

/**
 * Writes the lookup3 of each section of `args` no one claimed into its last 4 bytes, little-endian
 * (as `seal` of ./vl-sections.ts does on the calling thread); returns how many sections it was sent.
 */
// docs/format-vl.md §2 (dense VL chunk: a checksum per section), §5.2 (on the worker pool).
export function sealImages(args: SealImagesArgs): OffloadTaskResult<number> {
  const { images, cells, sections } = args;
  for (let s = 0; s < sections.length; s += 3) {
    const start = sections[s]!;
    const end = sections[s + 1]!;
    const cell = sections[s + 2]!;
    if (!(start >= 0 && end >= start + 4 && end <= images.length && cell >= 0 && cell < cells.length)) throw new Error(`format-vl: section [${start}, ${end}) (cell ${cell}) is not within the images`);
    if (Atomics.compareExchange(cells, cell, 0, 1) !== 0) continue; // (claimed by the calling thread)
    new DataView(images.buffer, images.byteOffset + end - 4, 4).setUint32(0, lookup3(images.subarray(start, end - 4)), true);
    Atomics.store(cells, cell, 2);
  }
  return { value: sections.length / 3, transfer: [] };
}
