/**
 * The `chunkform` command-line program: `chunkform ls` and `chunkform dump`.
 *
 * {@link run} executes one command line in-process against any writable pair of streams (tests use
 * string collectors); {@link main} is what `bin/chunkform.js` calls. Exit codes: 0 success, 1 an
 * HDF5/file error (message on stderr as `chunkform: <message>`, no stack trace), 2 a usage error.
 * @module
 */
import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { H5Error, openFile, type Group, type H5File } from '@chunkform/core';
import { dumpObjects, dumpText } from './commands/dump.js';
import { listObjects } from './commands/ls.js';
import { errorMessage } from './error-message.js';
import { stringifyJson } from './format-value.js';
import { registerEverything } from './registrations.js';
import { registerRepack } from './commands/repack/index.js';
import { registerDiff } from './commands/diff/index.js';
import { registerStat } from './commands/stat/index.js';
import { registerImport } from './commands/import/index.js';
import { registerCopy } from './commands/copy/index.js';

export { registerEverything } from './registrations.js';
export { listObjects, type LsOptions, type LsResult } from './commands/ls.js';
export { layoutSummary, layoutText, type LayoutSummary, type LineSink, type FilterInfo } from './inspect.js';
export {
  dumpObjects,
  dumpText,
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
} from './commands/dump.js';
export * from './format-value.js';
export { errorMessage } from './error-message.js';

/** Something text can be written to (`process.stdout`, or a collector in tests). */
export interface TextWriter {
  write(text: string): unknown;
}

/** Where {@link run} writes its output and diagnostics. */
export interface CliIO {
  stdout: TextWriter;
  stderr: TextWriter;
}

/** Exit code of a file or HDF5 error. */
export const EXIT_ERROR = 1;
/** Exit code of a usage error (unknown command or option, missing argument). */
export const EXIT_USAGE = 2;

function packageVersion(): string {
  try {
    const req = createRequire(import.meta.url);
    return (req('../package.json') as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** A Node system error such as ENOENT from opening a file. */
function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && typeof (e as NodeJS.ErrnoException).syscall === 'string';
}

/** A system error (ENOENT, EISDIR ...) met while opening a file named on the command line. */
class FileAccessError extends Error {
  constructor(readonly file: string, override readonly cause: NodeJS.ErrnoException) {
    super(`${file}: ${systemMessage(cause)}`);
  }
}

/** Opens `file` read-only, runs `body` on it and closes it whatever happens. */
async function withFile<T>(file: string, body: (f: H5File) => Promise<T>): Promise<T> {
  let f: H5File;
  try {
    f = await openFile(file, { mode: 'r' });
  } catch (e) {
    throw isSystemError(e) ? new FileAccessError(file, e) : e;
  }
  try {
    return await body(f);
  } finally {
    await f.close();
  }
}

function buildProgram(io: CliIO, setCode: (code: number) => void): Command {
  const out = (line: string): void => {
    io.stdout.write(`${line}\n`);
  };
  const program = new Command('chunkform');
  program
    .description('Inspect HDF5 files (a chunkform tool).')
    .version(packageVersion(), '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void io.stdout.write(s),
      writeErr: (s) => void io.stderr.write(s),
    })
    .showHelpAfterError('(run "chunkform --help" for usage)');

  program
    .command('ls')
    .description('list the members of a group (or one dataset), like h5ls')
    .argument('<file>', 'HDF5 file')
    .argument('[path]', 'group or dataset inside the file', '/')
    .option('-r, --recursive', 'list everything below PATH, naming objects by full path')
    .option('-v, --verbose', 'show datatype, layout, filters, fill value and attributes')
    .action(async (file: string, path: string, opts: { recursive?: boolean; verbose?: boolean }) => {
      const { errors } = await withFile(file, (f: Group) =>
        listObjects(f, path, { recursive: opts.recursive === true, verbose: opts.verbose === true }, out),
      );
      if (errors > 0) io.stderr.write(`chunkform: ${errors} object${errors === 1 ? '' : 's'} could not be read\n`);
      setCode(errors > 0 ? EXIT_ERROR : 0);
    });

  program
    .command('dump')
    .description('print every object below PATH with its attributes and values')
    .argument('<file>', 'HDF5 file')
    .argument('[path]', 'group or dataset inside the file', '/')
    .option('--json', 'write one JSON document')
    .option('--no-values', 'leave out dataset values')
    .action(async (file: string, path: string, opts: { json?: boolean; values?: boolean }) => {
      const dumpOpts = { noValues: opts.values === false };
      const errors = await withFile(file, async (f: Group) => {
        if (!opts.json) return dumpText(f, path, dumpOpts, out);
        const { entry, errors: n } = await dumpObjects(f, path, dumpOpts);
        io.stdout.write(`${stringifyJson(entry)}\n`);
        return n;
      });
      if (errors > 0) io.stderr.write(`chunkform: ${errors} object${errors === 1 ? '' : 's'} could not be read completely\n`);
      setCode(errors > 0 ? EXIT_ERROR : 0);
    });

  registerRepack(program, { io, setCode });
  registerDiff(program, { io, setCode });
  registerStat(program, { io, setCode });
  registerImport(program, { io, setCode });
  registerCopy(program, { io, setCode });
  return program;
}

/**
 * Runs one command line (`argv` without the node executable and script, e.g. `['ls', '-r', 'f.h5']`)
 * and resolves to the exit code; never throws and never calls `process.exit`.
 */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
  registerEverything();
  let code = 0;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? 0 : EXIT_USAGE;
    }
    if (e instanceof H5Error) {
      io.stderr.write(`chunkform: ${e.message}\n`);
      return EXIT_ERROR;
    }
    if (e instanceof FileAccessError) {
      io.stderr.write(`chunkform: ${e.message}\n`);
      return EXIT_ERROR;
    }
    if (isSystemError(e)) {
      io.stderr.write(`chunkform: ${e.path ? `${e.path}: ` : ''}${systemMessage(e)}\n`);
      return EXIT_ERROR;
    }
    io.stderr.write(`chunkform: internal error: ${errorMessage(e)}\n`);
    if (process.env['CHUNKFORM_DEBUG'] && e instanceof Error && e.stack) io.stderr.write(`${e.stack}\n`);
    return EXIT_ERROR;
  }
}

function systemMessage(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    default:
      return e.message;
  }
}

/** Entry point of `bin/chunkform.js`: runs `process.argv` and sets `process.exitCode`. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    // `chunkform dump f.h5 | head`: the reader went away; stop quietly.
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  process.exitCode = await run(argv, { stdout: process.stdout, stderr: process.stderr });
}
