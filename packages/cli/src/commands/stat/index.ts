/**
 * `chunkform stat`: the command (command.ts) and its logic, for use as a library.
 * @module
 */
export { stat, statText, type StatOptions } from './stat.js';
export type { FileStats, SparseStats, DatatypeStats } from './collect.js';
export { registerStat } from './command.js';
