/**
 * The three functions of `@bokuweb/zstd-wasm` that the zstd filter uses, imported by name so that a
 * bundler keeps only them: `import()` of the package itself keeps its whole namespace (the dictionary
 * compressors and decompressors too, ≈ 0.35 KB min+gzip in a browser bundle). Loaded lazily by
 * `loadZstdWasm()` through `import('./wasm-module.js')`.
 */
export { compress, decompress, init } from '@bokuweb/zstd-wasm';
