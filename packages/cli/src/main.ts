/**
 * The light entry point of the `chunkform` executable (bin/chunkform.js): only the program and
 * the commands' definitions load at start; each command imports its implementation when it runs.
 * @module
 */
export { main, run } from './cli/program.js';
