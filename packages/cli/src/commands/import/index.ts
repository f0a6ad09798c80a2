/**
 * `chunkform import`: the command (command.ts) and its logic, for use as a library.
 * @module
 */
export { importFile, type ImportOptions, type ImportFormat } from './import.js';
export { registerImport } from './command.js';
