/**
 * Browser test page (bundled by esbuild in test/browser.test.ts): opens an HDF5 file over HTTP with the
 * public packages — the read-only entry `@chunkform/core/read` — and exposes `readDataset(url, path, frame?)`, which returns a digest of what it read, for
 * the test to compare with the same read in Node. Zstd's WebAssembly is deliberately not served beside the
 * bundle: the read must still finish, through the pure-JavaScript fallback.
 */
import { readDigest, type ReadDigest } from './read-digest.js';
import { openFile } from '../../packages/core/src/read.js';
import { registerDenseFormats } from '../../packages/format-dense/src/index.js';
import { registerSparseFormat } from '../../packages/format-sparse/src/index.js';
import { registerIndexes } from '../../packages/indexes/src/index.js';
import { configureZstdWasm, registerFilters } from '../../packages/filters/src/index.js';

registerIndexes();
registerDenseFormats();
registerSparseFormat();
registerFilters();
// zstd.wasm is not served here and the module's failed load is only noticed at the time limit (10 s by
// default): a short limit keeps the test quick; the values then come from the fzstd fallback.
configureZstdWasm({ timeoutMs: 1500 });

declare global {
  interface Window {
    readDataset(url: string, path: string, frame?: number): Promise<ReadDigest>;
  }
}

window.readDataset = async (url, path, frame) => {
  const f = await openFile(url);
  try {
    return await readDigest(f, path, frame);
  } finally {
    await f.close();
  }
};
