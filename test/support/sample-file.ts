/**
 * Files written with every registration, for tests that then read them back through containers that
 * register less (read-only bundles, missing plug-ins, third-party providers).
 */
import { MemoryStore, createContainer, createFile, type Container, type H5File } from '../../packages/core/src/index.js';
import { registerDenseFormats } from '../../packages/format-dense/src/index.js';
import { registerSparseFormat } from '../../packages/format-sparse/src/index.js';
import { registerFilters } from '../../packages/filters/src/index.js';
import { registerIndexes } from '../../packages/indexes/src/index.js';

/** A fresh container (not the default one) with the indexes, the dense and sparse formats and the core filters. */
export function fullContainer(): Container {
  const c = createContainer(null);
  registerIndexes(c);
  registerDenseFormats(c);
  registerSparseFormat(c);
  registerFilters(c);
  return c;
}

/** The bytes of an in-memory file that `build` fills, created in a {@link fullContainer} and closed. */
export async function writtenFile(build: (f: H5File) => Promise<void>): Promise<Uint8Array> {
  const store = new MemoryStore();
  const f = await createFile(store, { container: fullContainer() });
  await build(f);
  await f.close();
  return store.toBytes();
}
