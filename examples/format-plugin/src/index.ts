/**
 * `@chunkform/example-format-plugin`: a third-party chunk format for chunkform, as a separate
 * package — run-length encoded chunks (`format: 'rle'`), stored in the structured chunk layout
 * with chunk type {@link RLE_CHUNK_TYPE}. Register it with {@link registerRleFormat}; then
 * `createDataset(path, { format: 'rle', … })` creates such datasets and `openFile` reads them.
 * @packageDocumentation
 */
import {
  defaultContainer,
  registerChunkFormat,
  type ChunkFormatContext,
  type Container,
} from '@chunkform/core';
import { RleFormat } from './rle-format.js';
import { RLE_CHUNK_TYPE, rleCreator } from './create.js';

export { RleFormat } from './rle-format.js';
export { rleCreator, RLE_CHUNK_TYPE } from './create.js';
export { rleDecode, rleEncode } from './rle.js';

/** The run-length format's provider: reads layouts of its chunk type, creates datasets for `format: 'rle'`. */
export const rleFormatProvider = {
  name: 'rle',
  layoutClass: 'structured' as const,
  chunkType: RLE_CHUNK_TYPE,
  packageName: '@chunkform/example-format-plugin',
  create: (ctx: ChunkFormatContext) => new RleFormat(ctx),
  creator: rleCreator,
};

/** Registers the run-length format in `container` (default: the process-wide one). */
export function registerRleFormat(container: Container = defaultContainer): void {
  registerChunkFormat(rleFormatProvider, container);
}
