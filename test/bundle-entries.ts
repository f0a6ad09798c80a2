/**
 * The two browser bundles whose budgets test/bundle-size.test.ts checks (entry modules in the
 * repository root) and the esbuild options both are built with; scripts/bundle-weigh.ts builds the
 * same bundles to say which modules the bytes come from.
 * @module
 */
import type { BuildOptions } from 'esbuild';

/** Everything registered: all chunk formats but VL, all indexes and filters, read and write, `import * as core`. */
export const EVERYTHING_ENTRY = `import * as core from './packages/core/src/index.ts';
import { registerDenseFormats } from './packages/format-dense/src/index.ts';
import { registerSparseFormat } from './packages/format-sparse/src/index.ts';
import { registerFilters } from './packages/filters/src/index.ts';
import { registerIndexes } from './packages/indexes/src/index.ts';
registerIndexes(); registerDenseFormats(); registerSparseFormat(); registerFilters();
globalThis.chunkform = core;`;

/** Read-only dense + deflate + the fixed array index from `@chunkform/core/read`. */
export const READ_ONLY_ENTRY = `import { openFile, ReadDataset, ReadGroup } from './packages/core/src/read.ts';
import { registerDenseReadOnly } from './packages/format-dense/src/index.ts';
import { registerInflate } from './packages/filters/src/index.ts';
import { registerFixedArrayReadOnly } from './packages/indexes/src/index.ts';
registerDenseReadOnly(); registerInflate(); registerFixedArrayReadOnly();
export { openFile, ReadDataset, ReadGroup };`;

/** esbuild options of a one-file minified browser bundle of `contents` (resolved from `root`). */
export function browserBundleOptions(name: string, contents: string, root: string): BuildOptions & { write: false } {
  return {
    stdin: { contents, resolveDir: root, loader: 'ts', sourcefile: `${name}.ts` },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'error',
  };
}
