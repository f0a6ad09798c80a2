/**
 * @packageDocumentation
 * `@chunkform/format-dense`: the dense chunk formats (unfiltered and filtered) for `@chunkform/core`,
 * and the creation of chunked datasets (`format: 'dense'`, the default for chunked storage).
 * Register them once with {@link registerDenseFormats} (the CLI and `examples/` do).
 */
import {
  defaultContainer,
  registerChunkFormat,
  type ChunkFormatProvider,
  type Container,
} from '@chunkform/core';
import { DenseFilteredFormat, DenseUnfilteredFormat } from './dense.js';
import { denseCreator } from './create.js';

export { DenseFilteredFormat, DenseUnfilteredFormat } from './dense.js';
export { denseCreator } from './create.js';

/** Chunked (class 2) layouts without filters; creates chunked datasets (`format: 'dense'`, filtered or not). */
export const denseUnfilteredProvider: ChunkFormatProvider = {
  name: 'dense',
  matches: (layout, pipeline) => layout.class === 'chunked' && pipeline.filters.length === 0,
  create: (ctx) => new DenseUnfilteredFormat(ctx),
  creator: denseCreator,
};

/** Chunked (class 2) layouts with a filter pipeline. */
export const denseFilteredProvider: ChunkFormatProvider = {
  name: 'dense-filtered',
  matches: (layout, pipeline) => layout.class === 'chunked' && pipeline.filters.length > 0,
  create: (ctx) => new DenseFilteredFormat(ctx),
};

/** Registers both dense formats in `container` (default: the process-wide one). */
export function registerDenseFormats(container: Container = defaultContainer): void {
  registerChunkFormat(denseUnfilteredProvider, container);
  registerChunkFormat(denseFilteredProvider, container);
}
