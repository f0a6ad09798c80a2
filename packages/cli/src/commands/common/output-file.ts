/**
 * Writing a tool's output file all-or-nothing: the file is built under a temporary name next to
 * the destination and renamed over it only when the whole run succeeded; on any failure the
 * temporary file is removed and an existing destination is left as it was.
 * @module
 */
import { rm, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createFile, type CreateOptions, type H5File } from '@chunkform/core';

/** Creates `path` through `body`; nothing is left at `path` (or changed there) when `body` throws. */
export async function withOutputFile<T>(path: string, opts: CreateOptions, body: (f: H5File) => Promise<T>): Promise<T> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  let f: H5File | undefined;
  try {
    // Tools bound their memory chunk by chunk: encoding behind the caller is kept to a small queue.
    f = await createFile(tmp, { backgroundWrites: { maxBytes: 8 << 20 }, ...opts });
    const result = await body(f);
    const closing = f;
    f = undefined;
    await closing.close();
    await rename(tmp, path);
    return result;
  } catch (e) {
    if (f) await f.close().catch(() => undefined);
    await rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
}
