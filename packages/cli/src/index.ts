/**
 * The `chunkform` command-line program (ls, dump …) and its library API.
 *
 * {@link run} executes one command line in-process against any writable pair of streams (tests use
 * string collectors); {@link main} is what `bin/chunkform.js` calls. Exit codes: 0 success, 1 an
 * HDF5/file error (message on stderr as `chunkform: <message>`, no stack trace), 2 a usage error.
 * @module
 */
export { run, main, COMMANDS } from './cli/program.js';
export { EXIT_ERROR, EXIT_USAGE, UsageError, type CliIO, type CliContext, type TextWriter, type GlobalOptions, type RegisterCommand } from './cli/io.js';
export { loadPlugins, pluginSpecs, resolvePlugin, PLUGINS_ENV } from './cli/plugins.js';
export { registerEverything } from './registrations.js';
export { listObjects, type LsOptions, type LsResult } from './commands/ls/list.js';
export { layoutSummary, layoutText, type LayoutSummary, type LineSink, type FilterInfo } from './inspect.js';
export {
  dumpObjects,
  type DumpOptions,
  type DumpResult,
  type DumpEntry,
  type DumpGroup,
  type DumpDataset,
  type DumpHardLink,
  type DumpSoftLink,
  type DumpExternalLink,
  type DumpUnreadable,
  type DumpDatatype,
  type DumpUserLink,
} from './commands/dump/objects.js';
export { JSON_SCHEMA } from './commands/dump/json.js';
export { dumpText, type DumpTextOptions } from './commands/dump/text-api.js';
export * from './format-value.js';
export { errorMessage } from './error-message.js';
export * as repackCommand from './commands/repack/index.js';
export * as diffCommand from './commands/diff/index.js';
export * as statCommand from './commands/stat/index.js';
export * as importCommand from './commands/import/index.js';
export * as copyCommand from './commands/copy/index.js';
