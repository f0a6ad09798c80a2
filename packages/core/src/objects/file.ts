/**
 * Opening and creating files: {@link openFile}, {@link createFile} and the {@link H5File} handle
 * (the root group plus flush/close).
 * @module
 */
import { H5Error, InvalidStateError, ValueError } from '../errors.js';
import { DEFAULT_SIZES, UNDEFINED_ADDRESS } from '../format/bytes.js';
import { encodeGroupInfo } from '../format/messages/group-info.js';
import { encodeLinkInfo } from '../format/messages/link-info.js';
import { GROUP_INFO, LINK_INFO } from '../format/messages/message-types.js';
import { encodeSuperblock } from '../format/superblock.js';
import { isByteStore, MemoryStore, type ByteSource, type ByteStore } from '../io/byte-store.js';
import type { HttpRangeOptions } from '../io/http-range.js';
import { isHttpUrl, openSource, type FileSourceInput } from '../io/open-source.js';
import { FileContext } from '../file/file-context.js';
import { FileWriter } from '../file/file-writer.js';
import { Group } from './group.js';
import type { Container } from '../di/container.js';

/** Options of {@link openFile}. */
export interface OpenOptions {
  /** 'r' read-only (default); 'r+' read and write an existing file. */
  mode?: 'r' | 'r+';
  /** Where filters, chunk indexes and chunk formats are looked up (default: the process-wide container). */
  container?: Container;
  /** URLs: request headers, `fetch`, block size, cache budget and retries of the {@link HttpRangeSource}. */
  http?: HttpRangeOptions;
}

/** Options of {@link createFile}. */
export interface CreateOptions {
  /**
   * Superblock version: 2 (default; HDF5 ≥ 1.8 reads it) or 3 (HDF5 ≥ 1.10; use it for files that will
   * hold sparse datasets).
   */
  superblockVersion?: 2 | 3;
  /** Where filters, chunk indexes and chunk formats are looked up (default: the process-wide container). */
  container?: Container;
}

/** An open HDF5 file: the root group, plus {@link flush} and {@link close}. */
export class H5File extends Group {
  /** @internal */
  constructor(
    ctx: FileContext,
    root: Awaited<ReturnType<FileContext['header']>>,
    /** 'r' or 'r+' ('w' files report 'r+'). */
    readonly mode: 'r' | 'r+',
    private readonly owned: ByteSource | null,
  ) {
    super(ctx, root, '/');
  }

  /** Name of the file (its path, or a label for in-memory sources). */
  get filename(): string {
    return this.ctx.name;
  }

  /** Writes all pending changes to the store (no-op for read-only files). */
  async flush(): Promise<void> {
    this.ctx.ensureOpen();
    await this.ctx.writer?.flush();
  }

  /** Flushes and releases the file. Further use of its objects throws {@link InvalidStateError}. */
  async close(): Promise<void> {
    if (this.ctx.closed) return;
    try {
      await this.ctx.writer?.flush();
    } finally {
      this.ctx.closed = true;
      await this.owned?.close?.();
    }
  }

  /** The bytes of a file created in memory (`createFile(new MemoryStore())`), after a flush. */
  toBytes(): Uint8Array {
    const s = this.ctx.source;
    if (s instanceof MemoryStore) return s.toBytes();
    throw new InvalidStateError('toBytes() is only available for in-memory files');
  }
}

/** Opens a path through the `#node-file` import: Node's file store, or a clear error in browsers. */
async function nodeStore(path: string, mode: 'r' | 'r+' | 'w'): Promise<ByteStore> {
  const mod = await import('#node-file');
  return mod.NodeFileStore.open(path, mode);
}

/**
 * Opens an HDF5 file: a path (Node), an `http(s)` URL (string or `URL`, read with range requests:
 * {@link HttpRangeSource}), a `Blob` / `File` ({@link BlobSource}), the file's bytes, or any
 * {@link ByteSource}.
 * @example
 * const f = await openFile('scan.h5');
 * const d = await f.get('/entry/data');
 */
export async function openFile(src: string | FileSourceInput, opts: OpenOptions = {}): Promise<H5File> {
  const mode = opts.mode ?? 'r';
  let source: ByteSource;
  let owned: ByteSource | null = null;
  let name: string;
  if (typeof src === 'string' && !isHttpUrl(src)) {
    source = owned = await nodeStore(src, mode);
    name = src;
  } else {
    ({ source, name } = await openSource(src, opts.http));
  }
  try {
    const ctx = await FileContext.open(source, name);
    if (opts.container) ctx.container = opts.container;
    if (mode === 'r+') {
      if (!isByteStore(source)) throw new ValueError('mode "r+" needs a writable ByteStore');
      if (ctx.superblock.version < 2) {
        throw new ValueError(
          `writing to files with superblock version ${ctx.superblock.version} (libver="earliest") is not supported; open them read-only`,
          { structure: 'superblock' },
        );
      }
      ctx.writer = new FileWriter(source, ctx, ctx.superblock.eofAddress, ctx.superblock.version as 2 | 3, ctx.rootAddress);
    }
    const root = await ctx.header(ctx.rootAddress);
    return new H5File(ctx, root, mode, owned);
  } catch (e) {
    await owned?.close?.();
    throw e instanceof H5Error ? e : e;
  }
}

/**
 * Creates (or truncates) an HDF5 file at a path (Node) or in a {@link ByteStore}
 * (e.g. `new MemoryStore()`), with an empty root group.
 */
export async function createFile(dst: string | ByteStore, opts: CreateOptions = {}): Promise<H5File> {
  const version = opts.superblockVersion ?? 2;
  if (version !== 2 && version !== 3) throw new ValueError(`superblockVersion must be 2 or 3, got ${String(version)}`);
  const store = typeof dst === 'string' ? await nodeStore(dst, 'w') : dst;
  // Truncating an already empty file is not free: ext4 then flushes the whole file on close.
  if ((await store.size()) > 0) await store.truncate(0);
  const superblockSize = encodeSuperblock({ version, sizes: DEFAULT_SIZES, eofAddress: 0, rootObjectHeaderAddress: 0 }).length;
  const ctx = new FileContext(
    store,
    {
      version,
      sizes: DEFAULT_SIZES,
      baseAddress: 0,
      eofAddress: superblockSize,
      rootObjectHeaderAddress: superblockSize,
      superblockExtensionAddress: UNDEFINED_ADDRESS,
      consistencyFlags: 0,
    },
    superblockSize,
    typeof dst === 'string' ? dst : '(memory)',
  );
  if (opts.container) ctx.container = opts.container;
  const writer = new FileWriter(store, ctx, superblockSize, version, superblockSize);
  ctx.writer = writer;
  const root = writer.createHeader(
    [
      {
        type: LINK_INFO,
        flags: 0,
        body: encodeLinkInfo(
          { trackCreationOrder: false, indexCreationOrder: false, fractalHeapAddress: UNDEFINED_ADDRESS, nameIndexAddress: UNDEFINED_ADDRESS },
          DEFAULT_SIZES,
        ),
      },
      { type: GROUP_INFO, flags: 0, body: encodeGroupInfo({}) },
    ],
    superblockSize,
  );
  await writer.flush();
  return new H5File(ctx, root, 'r+', typeof dst === 'string' ? store : null);
}
