/**
 * @packageDocumentation
 * `@chunkform/core/node`: Node-only helpers (local files). The main entry stays browser-safe.
 */
export { NodeFileStore } from './io/node-file.js';
