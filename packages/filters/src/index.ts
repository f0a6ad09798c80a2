/**
 * @packageDocumentation
 * `@chunkform/filters`: HDF5 filters (deflate, shuffle, fletcher32, scale-offset, n-bit; later LZ4, bitshuffle, zstd) — arrives with chunked storage (issue #3).
 * The package exists now so the workspace has its final shape; it exports nothing yet.
 */
export {};
