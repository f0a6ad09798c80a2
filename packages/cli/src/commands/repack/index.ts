/**
 * `chunkform repack`: the command (command.ts) and its logic, for use as a library.
 * @module
 */
export { repack, type RepackOptions, type RepackResult } from './repack.js';
export { parseDefinedElements, DefinedElementsError, type DefinedElements } from './defined-elements.js';
export { registerRepack } from './command.js';
