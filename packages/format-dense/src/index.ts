/**
 * @packageDocumentation
 * `@chunkform/format-dense`: Dense chunk formats (unfiltered and filtered) — arrives with chunked storage (issue #3).
 * The package exists now so the workspace has its final shape; it exports nothing yet.
 */
export {};
