/**
 * A filter worker reading a chunk's stored bytes from the local file itself (`StoredBytes` from
 * core's `ChunkStore.stored`), so that the calling thread only sends the chunk's place: the file is
 * opened read-only by its path and used only when it is the file open on the calling thread (same
 * device and inode; while the handle is open the inode cannot be reused). Handles are kept while
 * the worker has jobs and closed when it has none (a file closed and deleted on the calling thread
 * is not held open by an idle worker). Node only: ./worker.ts is its sole importer.
 * @module
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { StoredBytes } from '@chunkform/core/plugin';
import { STORED_READ_FAILED } from './protocol.js';

/** Open handles by file identity. */
const handles = new Map<string, number>();
/** Jobs begun and not finished (the handles close when it drops to 0). */
let active = 0;

/** Read buffers kept for the next jobs (a job's input is free once its chunk is decoded). */
const kept: ArrayBuffer[] = [];
const KEPT = 2;

/** The handle of `file`, opened when needed and checked to be the file open on the calling thread. */
function handle(file: StoredBytes['file']): number {
  const have = handles.get(file.identity);
  if (have !== undefined) return have;
  const fd = openSync(file.path, 'r');
  let st;
  try {
    st = fstatSync(fd, { bigint: true });
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  if (`${st.dev}:${st.ino}` !== file.identity) {
    closeSync(fd);
    throw new Error(`"${file.path}" is another file than the one open on the calling thread`);
  }
  handles.set(file.identity, fd);
  return fd;
}

/**
 * Reads the stored bytes of a chunk into a kept or new buffer; give it back with {@link endRead}
 * once the chunk is decoded (also after a failure).
 * @throws Error starting with `STORED_READ_FAILED` when the file cannot be opened, is not the file
 * open on the calling thread, or ends before the chunk does.
 */
export function beginRead(stored: StoredBytes): Uint8Array {
  active++;
  let buf = kept.pop();
  if (!buf || buf.byteLength < stored.length) buf = new ArrayBuffer(stored.length);
  const bytes = new Uint8Array(buf, 0, stored.length);
  try {
    const fd = handle(stored.file);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, stored.offset + got);
      if (n === 0) throw new Error(`the file ends after ${got} of the chunk's ${bytes.length} bytes at ${stored.offset}`);
      got += n;
    }
  } catch (e) {
    endRead(bytes);
    throw new Error(STORED_READ_FAILED + (e instanceof Error ? e.message : String(e)));
  }
  return bytes;
}

/** Gives back the buffer of {@link beginRead}; the last job out closes the handles. */
export function endRead(bytes: Uint8Array): void {
  if (kept.length < KEPT) kept.push(bytes.buffer as ArrayBuffer);
  if (--active > 0) return;
  for (const fd of handles.values()) closeSync(fd);
  handles.clear();
}
