/**
 * `chunkform diff`: the command (command.ts) and its logic, for use as a library.
 * @module
 */
export { diff, DIFF_SAME, DIFF_DIFFERENT, DIFF_ERROR, type DiffOptions } from './diff.js';
export { formatG } from './format.js';
export { registerDiff } from './command.js';
