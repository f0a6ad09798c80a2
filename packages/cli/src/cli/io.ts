/**
 * What every command receives: the output streams, the exit-code setter and the global options
 * (`--plugin`, `--quiet`). Nothing here imports `@chunkform/core`, so `chunkform --help` stays fast.
 * @module
 */

/** Something text can be written to (`process.stdout`, or a collector in tests). */
export interface TextWriter {
  /**
   * Writes `text`; a stream returns false when its buffer is full (then `once('drain')` is awaited).
   * A Node writable stream (one with `writableLength`) is handed UTF-8 bytes (a `Uint8Array`) instead.
   */
  write(text: string): unknown;
  /** Node streams: 'drain' after a write returned false. */
  once?(event: 'drain', listener: () => void): unknown;
  /** Node TTY streams: true when a terminal is attached. */
  isTTY?: boolean;
}

/** Where a command writes its output and diagnostics. */
export interface CliIO {
  stdout: TextWriter;
  stderr: TextWriter;
}

/** Exit code of a file or HDF5 error. */
export const EXIT_ERROR = 1;
/** Exit code of a usage error (unknown command or option, missing argument, bad option value). */
export const EXIT_USAGE = 2;

/** Options given before or after any command. */
export interface GlobalOptions {
  /** Filter plug-ins to load (`--plugin`, repeatable; plus CHUNKFORM_PLUGINS). */
  plugin?: string[];
  /** No progress bar and no summary lines on stderr. */
  quiet?: boolean;
}

/** Context handed to each command's `register`. */
export interface CliContext {
  io: CliIO;
  /** Sets the exit code of the run (0 unless a command sets it). */
  setCode(code: number): void;
  /** The global options as parsed. */
  globals(): GlobalOptions;
  /** Registers formats, indexes, filters and the plug-ins (once); call before opening a file. */
  prepare(): Promise<void>;
}

/** A usage error detected after parsing (a bad option value): exit 2 with one line. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A command module: adds its commander definition to the program. */
export type RegisterCommand = (program: import('commander').Command, ctx: CliContext) => void;
