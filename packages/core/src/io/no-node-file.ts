/**
 * Browser stand-in for `node-file.ts` (selected by the `#node-file` import condition): opening a
 * file by path needs Node; in browsers pass a `ByteSource` or the file's bytes instead.
 * There is no store here: `nodeStore` (objects/read-file.ts) refuses the path with an
 * InvalidStateError. This module imports nothing, so that bundlers need not wrap the error classes
 * (and everything importing them) in lazy initialisers for this dynamic import.
 * @module
 */

/** No file store outside Node. */
export const NodeFileStore = null;
