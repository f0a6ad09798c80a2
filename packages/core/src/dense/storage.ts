/**
 * The file's write side seen as an {@link IndexStorage}: what the copy-on-write structures of dense
 * storage (fractal heaps, v2 B-trees) allocate, write and release through.
 * @module
 */
import type { IndexStorage } from '../chunk/chunk-index.js';
import type { FileContext } from '../file/file-context.js';

/** Storage for the metadata structures of the object whose header is at `owner` (for error messages). */
export function fileIndexStorage(ctx: FileContext, owner: number): IndexStorage {
  const what = `write dense storage of the object at ${owner}`;
  return {
    alloc: (size) => ctx.requireWriter(what).allocator.alloc(size),
    release: (address, size) => ctx.writer?.allocator.release(address, size),
    write: (address, bytes) => ctx.requireWriter(what).writeRaw(address, bytes),
    isFresh: (address, size) => ctx.writer?.isFresh(address, size) ?? false,
  };
}
