/**
 * Opening a file named on the command line read-only, and telling file-system errors apart.
 * @module
 */
import { FileAccessError as CoreFileAccessError, openFile, type H5File } from '@chunkform/core';

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

/** How the command line words core's {@link CoreFileAccessError} reasons (as the shell would). */
const ACCESS_TEXT: Record<CoreFileAccessError['reason'], string> = {
  'not-found': 'no such file or directory',
  'is-directory': 'is a directory',
  exists: 'file exists',
  'permission-denied': 'permission denied',
};

/** A file named on the command line that cannot be opened (missing, a directory, no permission ...). */
export class FileAccessError extends Error {
  constructor(readonly file: string, override readonly cause: NodeJS.ErrnoException | CoreFileAccessError) {
    super(`${file}: ${cause instanceof CoreFileAccessError ? ACCESS_TEXT[cause.reason] : systemMessage(cause)}`);
  }
}

/** The {@link FileAccessError} for an error met opening `file`, or null for other errors. */
export function accessError(file: string, e: unknown): FileAccessError | null {
  return e instanceof CoreFileAccessError || isSystemError(e) ? new FileAccessError(file, e) : null;
}

/** Opens `file` read-only, runs `body` on it and closes it whatever happens. */
export async function withFile<T>(file: string, body: (f: H5File) => Promise<T>): Promise<T> {
  let f: H5File;
  try {
    f = await openFile(file, { mode: 'r' });
  } catch (e) {
    throw accessError(file, e) ?? e;
  }
  try {
    return await body(f);
  } finally {
    await f.close();
  }
}
