/**
 * The `chunkform` program: global options, the command list and error reporting. Each command's
 * commander definition lives in `commands/<name>/command.ts`; its implementation is imported only
 * when the command runs, so `chunkform --help` loads commander and nothing else.
 * @module
 */
import { setFlagsFromString } from 'node:v8';
import { Command, CommanderError } from 'commander';
import { EXIT_ERROR, EXIT_USAGE, UsageError, type CliContext, type CliIO, type GlobalOptions, type RegisterCommand } from './io.js';
import { register as registerLs } from '../commands/ls/command.js';
import { register as registerDump } from '../commands/dump/command.js';
import { registerStat } from '../commands/stat/command.js';
import { registerDiff } from '../commands/diff/command.js';
import { registerRepack } from '../commands/repack/command.js';
import { registerImport } from '../commands/import/command.js';
import { registerCopy } from '../commands/copy/command.js';

/** Every command of the program, in the order `--help` lists them. */
export const COMMANDS: RegisterCommand[] = [registerLs, registerDump, registerStat, registerDiff, registerRepack, registerImport, registerCopy];

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function buildProgram(ctx: CliContext, version: string): Command {
  const program = new Command('chunkform');
  program
    .description('Inspect and convert HDF5 files (chunkform, after the HDF5 command-line tools).')
    .version(version, '-V, --version')
    .option('--plugin <package-or-path>', 'load a filter plug-in (repeatable; also $CHUNKFORM_PLUGINS)', collect)
    .option('--quiet', 'no progress bar and no summaries on stderr')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void ctx.io.stdout.write(s),
      writeErr: (s) => void ctx.io.stderr.write(s),
      outputError: (s, write) => write(`chunkform: ${s.replace(/^error: /, '')}`),
    });
  for (const register of COMMANDS) register(program, ctx);
  return program;
}

async function packageVersion(): Promise<string> {
  try {
    const { createRequire } = await import('node:module');
    return (createRequire(import.meta.url)('../../package.json') as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** The one-line message and exit code of an error a command threw. */
async function describeError(e: unknown): Promise<{ message: string; code: number }> {
  if (e instanceof UsageError) return { message: e.message, code: EXIT_USAGE };
  const { H5Error } = await import('@chunkform/core');
  const { FileAccessError, isSystemError, systemMessage } = await import('./with-file.js');
  if (e instanceof H5Error || e instanceof FileAccessError) return { message: e.message, code: EXIT_ERROR };
  if (isSystemError(e)) return { message: `${e.path ? `${e.path}: ` : ''}${systemMessage(e)}`, code: EXIT_ERROR };
  const { errorMessage } = await import('../error-message.js');
  return { message: `internal error: ${errorMessage(e)}`, code: EXIT_ERROR };
}

/**
 * Runs one command line (`argv` without the node executable and script, e.g. `['ls', '-r', 'f.h5']`)
 * and resolves to the exit code; never throws and never calls `process.exit`. Exit codes: 0
 * success, 1 an HDF5/file error (`chunkform: <message>` on stderr, no stack trace), 2 a usage error.
 */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
  let code = 0;
  let program: Command | undefined;
  let prepared: Promise<void> | undefined;
  const ctx: CliContext = {
    io,
    setCode: (c) => {
      code = c;
    },
    globals: () => (program?.opts() ?? {}) as GlobalOptions,
    prepare: () =>
      (prepared ??= (async () => {
        const { registerEverything } = await import('../registrations.js');
        const { defaultContainer } = await import('@chunkform/core');
        registerEverything(defaultContainer);
        const { loadPlugins, pluginSpecs } = await import('./plugins.js');
        const specs = pluginSpecs(ctx.globals().plugin);
        if (specs.length > 0) await loadPlugins(specs, defaultContainer);
      })()),
  };
  program = buildProgram(ctx, await packageVersion());
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    const { message, code: c } = await describeError(e);
    io.stderr.write(`chunkform: ${message}\n`);
    if (process.env['CHUNKFORM_DEBUG'] && e instanceof Error && e.stack) io.stderr.write(`${e.stack}\n`);
    return c;
  }
}

/** Entry point of `bin/chunkform.js`: runs `process.argv` and sets `process.exitCode`. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  // Keep V8's young generation at its initial size (1 MiB semi-spaces) instead of letting it grow
  // to 16 MiB: the commands stream through short-lived objects, so a small young generation costs
  // no time and keeps `dump`'s peak memory ≈ 25 MB lower (bench/dump.ts).
  setFlagsFromString('--semi-space-growth-factor=1');
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    // `chunkform dump f.h5 | head`: the reader went away; stop quietly.
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  process.exitCode = await run(argv, { stdout: process.stdout, stderr: process.stderr });
}
