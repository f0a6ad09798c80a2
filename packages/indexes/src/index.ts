/**
 * @packageDocumentation
 * `@chunkform/indexes`: HDF5 chunk indexes (single chunk, implicit, fixed array, extensible array, v1/v2 B-trees) — arrives with chunked storage (issue #3).
 * The package exists now so the workspace has its final shape; it exports nothing yet.
 */
export {};
