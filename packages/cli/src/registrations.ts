/**
 * The CLI reads every file it is given, so it installs every chunk format, chunk index and filter
 * this repository provides (once per process).
 * @module
 */
import { defaultContainer, type Container } from '@chunkform/core';
import { registerDenseFormats } from '@chunkform/format-dense';
import { registerSparseFormat } from '@chunkform/format-sparse';
import { registerVlFormat } from '@chunkform/format-vl';
import { configureWorkers, registerFilters } from '@chunkform/filters';
import { registerIndexes } from '@chunkform/indexes';

const done = new WeakSet<Container>();

/** Registers all formats, indexes and filters in `container` (idempotent). */
export function registerEverything(container: Container = defaultContainer): void {
  if (done.has(container)) return;
  registerIndexes(container);
  registerDenseFormats(container);
  registerSparseFormat(container);
  registerFilters(container);
  // Tools keep their memory bounded chunk by chunk: filters run on this thread (deflate on zlib's own
  // threads), not on the worker pool, whose memory grew with the data a run wrote (repack).
  configureWorkers({ threads: 0 });
  registerVlFormat(container);
  done.add(container);
}
