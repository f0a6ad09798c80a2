/**
 * Opening files read-only: the `openFile` of `@chunkform/core/read` and its {@link ReadFile} handle.
 * Its groups, datasets and attributes are the read-only classes, whose modules do not import the
 * write path (creation, flush, encoders), so a browser bundle that only reads stays small.
 * `@chunkform/core`'s `openFile` shares the opening steps below.
 * @module
 */
import { InvalidStateError } from '../errors.js';
import { MemoryStore, type ByteSource, type ByteStore } from '../io/byte-store.js';
import type { HttpRangeOptions } from '../io/http-range.js';
import { isHttpUrl, isUrlOrBlob, toByteSource, type FileSourceInput } from '../io/source-input.js';
import { FileContext } from '../file/file-context.js';
import { ReadOnlyLock } from '../file/read-lock.js';
import type { HeaderModel } from '../file/header-model.js';
import type { Container } from '../di/container.js';
import { validReadLimit } from '../storage/read-limit.js';
import type { ObjectClasses } from './object-classes.js';
import { ReadAttributes } from './read-attributes.js';
import { ReadDataset } from './read-dataset.js';
import { ReadCommittedDatatype, ReadGroup } from './read-group.js';
import { ReadChunkedStorage } from '../storage/read-chunked-storage.js';
import { ReadCompactStorage } from '../storage/read-compact-storage.js';
import { ReadContiguousStorage } from '../storage/read-contiguous-storage.js';

/** Options of the read-only `openFile` (`@chunkform/core/read`). */
export interface ReadOpenOptions {
  /** Where filters, chunk indexes and chunk formats are looked up (default: chunkform's own container, `defaultContainer`). */
  container?: Container;
  /**
   * Largest result one dataset read may allocate, in bytes (default 1 GiB; `Infinity` for no limit but
   * the platform's). A larger read throws `ResourceLimitError` before allocating anything; a
   * read can raise it with its own `maxReadBytes` option. It protects against files whose dataspace
   * claims more elements than anyone stored.
   */
  maxReadBytes?: number;
  /** URLs: request headers, `fetch`, block size, cache budget and retries of the `HttpRangeSource`. */
  http?: HttpRangeOptions;
}

/** The read-only object classes. */
const READ_CLASSES: ObjectClasses = {
  Group: ReadGroup,
  Dataset: ReadDataset,
  CommittedDatatype: ReadCommittedDatatype,
  Attributes: ReadAttributes,
  ChunkedStorage: ReadChunkedStorage,
  CompactStorage: ReadCompactStorage,
  ContiguousStorage: ReadContiguousStorage,
  callOrder: () => new ReadOnlyLock(),
};

/** An HDF5 file open for reading: the root group, plus {@link close}. */
export class ReadFile extends ReadGroup {
  /** @internal */
  constructor(
    ctx: FileContext,
    root: HeaderModel,
    private readonly owned: ByteSource | null,
  ) {
    super(ctx, root, '/');
  }

  /** Name of the file (its path, or a label for in-memory sources). */
  get filename(): string {
    return this.ctx.name;
  }

  /**
   * Releases the file after the calls made before it have finished. Further use of its objects
   * throws `InvalidStateError`; closing again does nothing.
   */
  async close(): Promise<void> {
    return closeFile(this.ctx, this.owned, async () => {});
  }

  /** The bytes of a file read from memory. */
  toBytes(): Uint8Array {
    return fileBytes(this.ctx);
  }
}

/**
 * Opens an HDF5 file for reading: a path (Node), an `http(s)` URL (string or `URL`, read with range
 * requests: `HttpRangeSource`), a `Blob` / `File` (`BlobSource`), the file's bytes, or any `ByteSource`.
 * @throws FileAccessError the path does not exist or is a directory.
 * @example
 * import { openFile } from '@chunkform/core/read';
 * const f = await openFile('https://example.org/scan.h5');
 * const d = await f.get('/entry/data');
 */
export async function openFile(src: string | FileSourceInput, opts: ReadOpenOptions = {}): Promise<ReadFile> {
  if (opts.maxReadBytes !== undefined) validReadLimit(opts.maxReadBytes, 'openFile');
  const { source, name, owned } = await readSource(src, opts.http);
  const { ctx, root } = await openContext(source, name, owned, opts, READ_CLASSES);
  return new ReadFile(ctx, root, owned);
}

/**
 * The `#node-file` module, imported on the first open by path and kept: every `import()` call costs a
 * resolution (under a loader hook such as tsx's, a round trip to the hook thread, ≈ 0.3 ms per open).
 */
let nodeFile: Promise<typeof import('#node-file')> | undefined;

/** Opens a path through the `#node-file` import: Node's file store, or a clear error in browsers. @internal */
export async function nodeStore(path: string, mode: 'r' | 'r+' | 'w' | 'x'): Promise<ByteStore> {
  const mod = await (nodeFile ??= import('#node-file'));
  // Outside Node the `#node-file` stand-in (io/no-node-file.ts) has no store.
  const store = mod.NodeFileStore as typeof mod.NodeFileStore | null;
  if (!store) throw new InvalidStateError(`cannot open "${path}" by path outside Node; pass a ByteSource, a Blob reader or the file's bytes`);
  return store.open(path, mode);
}

/** The source a read-only open reads: a URL or Blob, a path, the bytes of a file, or a `ByteSource` as given. @internal */
export async function readSource(src: string | FileSourceInput, http: HttpRangeOptions | undefined): Promise<{ source: ByteSource; name: string; owned: ByteSource | null }> {
  if (typeof src === 'string' ? isHttpUrl(src) : isUrlOrBlob(src)) {
    const { source, name } = await toByteSource(src as string | URL | Blob, http);
    return { source, name, owned: null };
  }
  if (typeof src === 'string') {
    const store = await nodeStore(src, 'r');
    return { source: store, name: src, owned: store };
  }
  if (src instanceof Uint8Array || src instanceof ArrayBuffer) {
    return { source: new MemoryStore(src instanceof Uint8Array ? src : new Uint8Array(src)), name: '(memory)', owned: null };
  }
  return { source: src as ByteSource, name: '(source)', owned: null };
}

/**
 * Opens the file in `source`: its context (objects made with `classes`, `prepare` run on it) and root
 * object header; closes `owned` when that fails. @internal
 */
export async function openContext(
  source: ByteSource,
  name: string,
  owned: ByteSource | null,
  opts: ReadOpenOptions,
  classes: ObjectClasses,
  prepare?: (ctx: FileContext) => Promise<void>,
): Promise<{ ctx: FileContext; root: HeaderModel }> {
  try {
    const ctx = await FileContext.open(source, name);
    ctx.objects = classes;
    if (opts.container) ctx.container = opts.container;
    if (opts.maxReadBytes !== undefined) ctx.maxReadBytes = opts.maxReadBytes;
    await prepare?.(ctx);
    return { ctx, root: await ctx.header(ctx.rootAddress) };
  } catch (e) {
    await owned?.close?.();
    throw e;
  }
}

/**
 * Closes a file after the calls made before it: `flush` first (the full file writes its changes), then
 * the source is released, even if the flush fails. Closing again does nothing. @internal
 */
export async function closeFile(ctx: FileContext, owned: ByteSource | null, flush: () => Promise<void>): Promise<void> {
  return ctx.lock.file('write', async () => {
    if (ctx.closed) return;
    ctx.closing = true;
    try {
      await flush();
    } finally {
      ctx.closed = true;
      for (const f of ctx.onClose.splice(0)) f();
      await owned?.close?.();
    }
  });
}

/** The bytes of a file in a `MemoryStore`. @internal */
export function fileBytes(ctx: FileContext): Uint8Array {
  const s = ctx.source;
  if (s instanceof MemoryStore) return s.toBytes();
  throw new InvalidStateError('toBytes() is only available for in-memory files');
}
