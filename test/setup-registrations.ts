/**
 * Registers the chunk indexes, the chunk formats and the core filters in chunkform's default
 * container, as an application would. Test files that need them import this module. The register
 * functions are idempotent, and each test file (its own module graph) has its own default container.
 * @module
 */
import { registerIndexes } from '../packages/indexes/src/index.js';
import { registerDenseFormats } from '../packages/format-dense/src/index.js';
import { registerSparseFormat } from '../packages/format-sparse/src/index.js';
import { registerFilters } from '../packages/filters/src/index.js';

registerIndexes();
registerDenseFormats();
registerSparseFormat();
registerFilters();
