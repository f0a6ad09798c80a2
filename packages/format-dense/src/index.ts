/**
 * @packageDocumentation
 * `@chunkform/format-dense`: the dense chunk formats (unfiltered and filtered) for `@chunkform/core`,
 * and the creation of chunked datasets (`format: 'dense'`, the default for chunked storage).
 * Register them once with {@link registerDenseFormats} (the CLI and `examples/` do).
 */
import { registerChunkFormat, type ChunkFormat, type ChunkFormatContext, type ChunkFormatProvider, type Container, type RegisterOptions } from '@chunkform/core';
import { DenseFilteredFormat, DenseFilteredReader, DenseUnfilteredFormat, DenseUnfilteredReader } from './dense.js';
import { denseCreator } from './create.js';

export { DenseFilteredFormat, DenseFilteredReader, DenseUnfilteredFormat, DenseUnfilteredReader } from './dense.js';
export { denseCreator } from './create.js';

/**
 * Chunked (class 2) layouts: the one provider for the `"chunked"` key. A dataset with a filter
 * pipeline gets the filtered format, one without the unfiltered one.
 */
export const denseFormatProvider: ChunkFormatProvider = {
  name: 'dense',
  layoutClass: 'chunked',
  packageName: '@chunkform/format-dense',
  creator: denseCreator,
  create: denseFormat,
};

/**
 * The dense formats for apps that only read: {@link denseFormatProvider} without its dataset creator
 * and with the reading classes ({@link DenseUnfilteredReader}, {@link DenseFilteredReader}), so a
 * bundle leaves the creation code, the write methods and the filter pipeline's encoder out
 * (≈ 2 KB min+gzip). Creating a chunked dataset through it is an `UnsupportedError` ("reads datasets
 * but cannot create them"), and so is changing one (refused before anything changes).
 */
export const denseReadOnlyProvider: ChunkFormatProvider = {
  name: 'dense',
  layoutClass: 'chunked',
  packageName: '@chunkform/format-dense',
  create: (ctx) => (ctx.pipeline.filters.length > 0 ? new DenseFilteredReader(ctx) : new DenseUnfilteredReader(ctx)),
};

/** The format of one dataset: filtered when it has a filter pipeline, unfiltered otherwise. */
function denseFormat(ctx: ChunkFormatContext): ChunkFormat<unknown> {
  return ctx.pipeline.filters.length > 0 ? new DenseFilteredFormat(ctx) : new DenseUnfilteredFormat(ctx);
}

/** Registers the dense chunk format (default container: chunkform's own). Calling it again does nothing. */
export function registerDenseFormats(opts?: Container | RegisterOptions): void {
  registerChunkFormat(denseFormatProvider, opts);
}

/**
 * Registers the dense chunk format for reading only ({@link denseReadOnlyProvider}: no dataset
 * creation). Use it or {@link registerDenseFormats} per container (the other then needs `{ replace: true }`).
 */
export function registerDenseReadOnly(opts?: Container | RegisterOptions): void {
  registerChunkFormat(denseReadOnlyProvider, opts);
}
