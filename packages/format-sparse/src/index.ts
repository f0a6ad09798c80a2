/**
 * @packageDocumentation
 * `@chunkform/format-sparse`: Sparse structured-chunk format — arrives with sparse datasets (issue #4).
 * The package exists now so the workspace has its final shape; it exports nothing yet.
 */
export {};
