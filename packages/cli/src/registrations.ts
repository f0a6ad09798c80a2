/**
 * The CLI reads every file it is given, so it installs every chunk format, chunk index and filter
 * this repository provides (once per process).
 * @module
 */
import { defaultContainer, type Container } from '@chunkform/core';
import { registerDenseFormats } from '@chunkform/format-dense';
import { registerSparseFormat } from '@chunkform/format-sparse';
import { registerFilters } from '@chunkform/filters';
import { registerIndexes } from '@chunkform/indexes';

const done = new WeakSet<Container>();

/** Registers all formats, indexes and filters in `container` (idempotent). */
export function registerEverything(container: Container = defaultContainer): void {
  if (done.has(container)) return;
  registerIndexes(container);
  registerDenseFormats(container);
  registerSparseFormat(container);
  registerFilters(container);
  done.add(container);
}
