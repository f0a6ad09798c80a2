/**
 * `chunkform copy`: the command (command.ts) and its logic, for use as a library.
 * @module
 */
export { copy, type CopyOptions } from './copy.js';
export { registerCopy } from './command.js';
