/**
 * vitest setup file (add it to `setupFiles` in vitest.config.ts): registers the chunk indexes, the dense
 * chunk formats and the core filters in the process-wide container once per worker, as an application
 * would. Test files that need them also import this module, so they work without the setup entry too.
 * @module
 */
import { registerIndexes } from '../packages/indexes/src/index.js';
import { registerDenseFormats } from '../packages/format-dense/src/index.js';
import { registerSparseFormat } from '../packages/format-sparse/src/index.js';
import { registerFilters } from '../packages/filters/src/index.js';

const FLAG = Symbol.for('chunkform.test.registrations');
const g = globalThis as { [FLAG]?: boolean };
if (!g[FLAG]) {
  g[FLAG] = true;
  registerIndexes();
  registerDenseFormats();
  registerSparseFormat();
  registerFilters();
}
