/**
 * Opening a file named on the command line read-only, and telling file-system errors apart.
 * @module
 */
import { openFile, type H5File } from '@chunkform/core';

/** A Node system error such as ENOENT from opening a file. */
export function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && typeof (e as NodeJS.ErrnoException).syscall === 'string';
}

/** The short text of a system error: "no such file or directory" ... */
export function systemMessage(e: NodeJS.ErrnoException): string {
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

/** A system error (ENOENT, EISDIR ...) met while opening a file named on the command line. */
export class FileAccessError extends Error {
  constructor(readonly file: string, override readonly cause: NodeJS.ErrnoException) {
    super(`${file}: ${systemMessage(cause)}`);
  }
}

/** Opens `file` read-only, runs `body` on it and closes it whatever happens. */
export async function withFile<T>(file: string, body: (f: H5File) => Promise<T>): Promise<T> {
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
