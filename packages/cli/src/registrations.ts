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
  // Tools run filters on this thread (deflate on zlib's own threads), not on the worker pool: with it,
  // repack and dump of gzip chunks measured no faster on 2 cores (interleaved runs; deflate already
  // overlaps on zlib's threads) and started two more isolates (≈ 70 MB more peak RSS, flat in the data).
  configureWorkers({ threads: 0 });
  registerVlFormat(container);
  done.add(container);
}
