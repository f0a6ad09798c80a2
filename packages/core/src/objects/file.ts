/**
 * Opening and creating files: {@link openFile}, {@link createFile} and the {@link H5File} handle
 * (the root group plus flush/close).
 * @module
 */
import { FileAccessError, UnsupportedError, ValueError } from '../errors.js';
import { DEFAULT_SIZES, UNDEFINED_ADDRESS, isDefinedAddress } from '../format/bytes.js';
import { FILE_SPACE_INFO, NIL, messageTypeName } from '../format/messages/message-types.js';
import { encodeSuperblock } from '../format/superblock.js';
import { isByteStore, type ByteSource, type ByteStore } from '../io/byte-store.js';
import { isHttpUrl, isUrlOrBlob, type FileSourceInput } from '../io/source-input.js';
import { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import { FileWriter, type FlushOptions } from '../file/file-writer.js';
import { FileLock } from '../file/lock.js';
import { CommittedDatatype, Group } from './group.js';
import { Dataset } from './dataset.js';
import { Attributes } from './attributes.js';
import { ChunkedStorage } from '../storage/chunked-storage.js';
import { CompactStorage } from '../storage/compact-storage.js';
import { ContiguousStorage } from '../storage/contiguous-storage.js';
import { LinkGraph } from './link-graph.js';
import { groupMessages } from './group-create.js';
import type { Container } from '../di/container.js';
import { validReadLimit } from '../storage/read-limit.js';
import type { ObjectClasses } from './object-classes.js';
import { closeFile, fileBytes, nodeStore, openContext, readSource, type ReadOpenOptions } from './read-file.js';

/** How {@link openFile} opens a file (h5py's `mode`). */
export type FileMode = 'r' | 'r+' | 'w' | 'w-' | 'x' | 'a';

/** The modes {@link openFile} accepts. */
export const FILE_MODES: readonly FileMode[] = ['r', 'r+', 'w', 'w-', 'x', 'a'];

/** Options of {@link openFile}. */
export interface OpenOptions extends ReadOpenOptions {
  /**
   * As h5py's `mode`:
   * - `'r'` read-only, the file must exist (default);
   * - `'r+'` read and write, the file must exist;
   * - `'w'` create the file, or truncate it if it exists (as {@link createFile});
   * - `'w-'` or `'x'` create the file, failing with {@link FileAccessError} (`reason: 'exists'`) if
   *   it exists (for a {@link ByteStore}: if it is not empty);
   * - `'a'` read and write if the file exists (an empty {@link ByteStore} counts as absent), create
   *   it otherwise.
   *
   * Any other value is a {@link ValueError} thrown before the file is touched. A missing path or a
   * directory is a {@link FileAccessError} naming the path. Modes that write need a path or a
   * {@link ByteStore}; the bytes of a file (`Uint8Array`, `ArrayBuffer`) can only be read (`'r'`).
   */
  mode?: FileMode;
  /** Superblock version of a file the mode creates (`'w'`, `'w-'`, `'x'`, `'a'`): see {@link CreateOptions}. */
  superblockVersion?: 2 | 3;
  /**
   * Streaming writes (default: on; the bound per dataset is two chunks per filter worker thread plus
   * two, within 8–256 MiB): a write of whole chunks of a
   * filtered dataset returns once its data is copied, the chunks are compressed behind the caller (on
   * the filter worker pool / zlib's threads, several frames at once) and stored by the dataset's next
   * call, or by `flush()` / `close()`, which wait for them. A call waits while a dataset has more than
   * `maxBytes` queued (back-pressure). A chunk that fails to encode is not stored, and its error (naming
   * the chunk) is thrown by the next call on that dataset or by the flush; nothing flushed is touched.
   * `false`: every chunk is encoded and stored within its call (errors thrown by the write itself).
   */
  backgroundWrites?: boolean | { maxBytes: number };
}

/** Options of {@link createFile}. */
export interface CreateOptions {
  /**
   * Superblock version: 2 (default; HDF5 ≥ 1.8 reads it) or 3 (HDF5 ≥ 1.10; use it for files that will
   * hold sparse datasets).
   */
  superblockVersion?: 2 | 3;
  /** Where filters, chunk indexes and chunk formats are looked up (default: chunkform's own container, `defaultContainer`). */
  container?: Container;
  /** Streaming writes behind the caller: see {@link OpenOptions.backgroundWrites}. */
  backgroundWrites?: boolean | { maxBytes: number };
}

/** The bound on background-encoded bytes that `backgroundWrites` asks for (0: off). */
function backgroundBytes(opt: boolean | { maxBytes: number } | undefined): number | undefined {
  if (opt === undefined || opt === true) return undefined;
  if (opt === false) return 0;
  if (!(Number.isInteger(opt?.maxBytes) && opt.maxBytes > 0)) throw new ValueError(`backgroundWrites.maxBytes must be a positive integer, got ${String(opt?.maxBytes)}`);
  return opt.maxBytes;
}

/** The full object classes (groups, datasets and attributes that write). */
const FULL_CLASSES: ObjectClasses = {
  Group,
  Dataset,
  CommittedDatatype,
  Attributes,
  ChunkedStorage,
  CompactStorage,
  ContiguousStorage,
  callOrder: () => new FileLock(),
};

/** An open HDF5 file: the root group, plus {@link flush} and {@link close}. */
export class H5File extends Group {
  /** @internal */
  constructor(
    ctx: FileContext,
    root: HeaderModel,
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

  /**
   * Writes all pending changes to the store (no-op for read-only files). It takes its turn after
   * the calls made before it (un-awaited writes included) and before those made after it, so what
   * it writes is the state after every earlier call and no later one.
   *
   * Until a flush, changes live in memory and in new file space only: the file on disk keeps its
   * last flushed state. A flush commits the new state with one in-place write, the superblock:
   * changed object headers are written copy-on-write to new space, with the links to them updated up
   * to a new root group header, which the superblock then points at. So a crash or kill (or a store
   * that fails) at any point — also during a flush — leaves the file exactly in its last flushed
   * state or, once the superblock is written, exactly in the new one. Nothing a flushed state
   * references is overwritten; space it no longer references is reused after the flush that stops
   * referencing it. Open `Dataset` and `Group` handles follow their objects to the new addresses
   * (a `LinkInfo.address` read before the flush may be out of date after it).
   *
   * Pinned objects keep their address and have chunk 0 of their header rewritten in place after the
   * superblock (each object whole, but objects changed together may be a mix of old and new after a
   * kill): objects hard-linked from several groups (reference count above 1), objects whose link was
   * deleted in this session, committed datatypes,
   * objects under a group with symbol-table link storage or a version-1 header, and every
   * object of a file that stores object references (datasets or attributes of a reference type).
   * See docs/data-safety.md.
   *
   * `durable: true` also syncs the store (fsync for files): new data and metadata first, then the
   * superblock (and pinned headers), so once the promise resolves the new state survives a power loss.
   * Without it the bytes are handed to the operating system, as HDF5's `H5Fflush` does.
   * @param opts.durable sync to stable storage (default false).
   */
  async flush(opts: FlushOptions = {}): Promise<void> {
    return this.ctx.lock.file('write', async () => {
      this.ctx.ensureOpen();
      await this.ctx.writer?.flush(opts);
    });
  }

  /**
   * Flushes (see {@link flush}; `durable` as there) and releases the file, after the calls made before
   * it have finished. The file is released even if the flush fails (the error is then thrown, and the
   * file on disk keeps its last flushed state). Further use of its objects (calls made after `close()`
   * included) throws {@link InvalidStateError}; closing again does nothing.
   * @param opts.durable sync to stable storage before closing (default false).
   */
  async close(opts: FlushOptions = {}): Promise<void> {
    return closeFile(this.ctx, this.owned, async () => this.ctx.writer?.flush(opts));
  }

  /** The bytes of a file created in memory (`createFile(new MemoryStore())`), after a flush. */
  toBytes(): Uint8Array {
    return fileBytes(this.ctx);
  }
}

/**
 * Opens an HDF5 file: a path (Node), an `http(s)` URL (string or `URL`, read with range requests:
 * {@link HttpRangeSource}), a `Blob` / `File` ({@link BlobSource}), the file's bytes, or any
 * {@link ByteSource}.
 * `mode` is h5py's (see {@link OpenOptions.mode}): `'r'` (default), `'r+'`, `'w'`, `'w-'`/`'x'`, `'a'`.
 * @throws ValueError an unknown mode, or a writing mode on something that cannot be written
 *   (checked before anything is opened or changed).
 * @throws FileAccessError the path does not exist (`'r'`, `'r+'`), is a directory, or exists (`'w-'`, `'x'`).
 * @example
 * const f = await openFile('scan.h5');
 * const d = await f.get('/entry/data');
 * const out = await openFile('out.h5', { mode: 'a' }); // open, or create when missing
 */
export async function openFile(src: string | FileSourceInput, opts: OpenOptions = {}): Promise<H5File> {
  const mode = opts.mode ?? 'r';
  if (opts.maxReadBytes !== undefined) validReadLimit(opts.maxReadBytes, 'openFile');
  if (!FILE_MODES.includes(mode)) {
    throw new ValueError(`unknown mode ${JSON.stringify(mode)}; use one of ${FILE_MODES.map((m) => `'${m}'`).join(', ')}`);
  }
  if (opts.superblockVersion !== undefined) checkSuperblockVersion(opts.superblockVersion);
  backgroundBytes(opts.backgroundWrites);
  const bytes = src instanceof Uint8Array || src instanceof ArrayBuffer;
  const remote = typeof src === 'string' ? isHttpUrl(src) : isUrlOrBlob(src);
  if (mode !== 'r' && (bytes || remote || (typeof src !== 'string' && !isByteStore(src as ByteSource)))) {
    const what = bytes ? ', not the bytes of a file' : remote ? ', not a URL or Blob (they are read-only)' : '';
    throw new ValueError(`mode "${mode}" needs a path or a writable ByteStore${what}`);
  }
  if (mode === 'r') {
    const { source, name, owned } = await readSource(src, opts.http);
    return openSource(source, name, 'r', owned, opts);
  }
  const create: CreateOptions = {
    ...(opts.superblockVersion !== undefined ? { superblockVersion: opts.superblockVersion } : {}),
    ...(opts.container ? { container: opts.container } : {}),
    ...(opts.backgroundWrites !== undefined ? { backgroundWrites: opts.backgroundWrites } : {}),
  };
  if (mode === 'w') return createFile(src as string | ByteStore, create);
  if (mode === 'w-' || mode === 'x') {
    if (typeof src === 'string') return createIn(await nodeStore(src, 'x'), src, create, true);
    if ((await (src as ByteStore).size()) > 0) throw new FileAccessError('(store)', 'exists');
    return createFile(src as ByteStore, create);
  }
  if (mode === 'a') {
    if (typeof src === 'string') {
      let store: ByteStore;
      try {
        store = await nodeStore(src, 'r+');
      } catch (e) {
        if (!(e instanceof FileAccessError && e.reason === 'not-found')) throw e;
        // As h5py: create it exclusively (a file that appeared meanwhile is not truncated).
        return createIn(await nodeStore(src, 'x'), src, create, true);
      }
      return openSource(store, src, 'r+', store, opts);
    }
    if ((await (src as ByteStore).size()) === 0) return createFile(src as ByteStore, create);
    return openSource(src as ByteStore, '(source)', 'r+', null, opts);
  }
  if (typeof src === 'string') {
    const store = await nodeStore(src, mode);
    return openSource(store, src, mode, store, opts);
  }
  return openSource(src as ByteSource, '(source)', mode, null, opts);
}

/** Opens an existing file in `source` ('r' or 'r+'); closes `owned` when that fails. */
async function openSource(source: ByteSource, name: string, mode: 'r' | 'r+', owned: ByteSource | null, opts: OpenOptions): Promise<H5File> {
  const { ctx, root } = await openContext(source, name, owned, opts, FULL_CLASSES, async (ctx) => {
    const bg = backgroundBytes(opts.backgroundWrites);
    if (bg !== undefined) ctx.backgroundBytes = bg;
    if (mode === 'r+') {
      if (!isByteStore(source)) throw new ValueError('mode "r+" needs a writable ByteStore');
      if (ctx.superblock.version < 2) {
        throw new ValueError(
          `writing to files with superblock version ${ctx.superblock.version} (libver="earliest") is not supported; open them read-only`,
          { structure: 'superblock' },
        );
      }
      await checkSuperblockExtension(ctx);
      ctx.writer = new FileWriter(source, ctx, ctx.superblock.eofAddress, ctx.superblock.version as 2 | 3);
      ctx.writer.graph = new LinkGraph(ctx, false);
    }
  });
  return new H5File(ctx, root, mode, owned);
}

/**
 * A flush rewrites the superblock without its extension. That is safe when the extension only records
 * a persistent free-space manager (HDF5 then treats that space as unaccounted), but shared object header
 * messages, non-default B-tree K values or driver information would be lost with it and the file's
 * existing objects misread: such files are refused for writing before anything is touched.
 * @throws UnsupportedError naming the extension's messages.
 */
async function checkSuperblockExtension(ctx: FileContext): Promise<void> {
  const address = ctx.superblock.superblockExtensionAddress;
  if (!isDefinedAddress(address)) return;
  const ext = await ctx.header(address);
  const kept = ext.messages.filter((m) => m.type !== NIL && m.type !== FILE_SPACE_INFO);
  if (kept.length === 0) return;
  const names = [...new Set(kept.map((m) => messageTypeName(m.type)))].join(', ');
  throw new UnsupportedError(
    `writing to this file is not supported: its superblock extension holds ${names}, which chunkform does not keep when it writes; open it read-only`,
    { structure: 'superblock extension' },
  );
}

function checkSuperblockVersion(version: unknown): void {
  if (version !== 2 && version !== 3) throw new ValueError(`superblockVersion must be 2 or 3, got ${String(version)}`);
}

/**
 * Creates (or truncates) an HDF5 file at a path (Node) or in a {@link ByteStore}
 * (e.g. `new MemoryStore()`), with an empty root group. Same as `openFile(dst, { mode: 'w' })`.
 * @throws FileAccessError the path is a directory or cannot be created.
 */
export async function createFile(dst: string | ByteStore, opts: CreateOptions = {}): Promise<H5File> {
  checkSuperblockVersion(opts.superblockVersion ?? 2);
  backgroundBytes(opts.backgroundWrites);
  if (typeof dst === 'string') return createIn(await nodeStore(dst, 'w'), dst, opts, true);
  return createIn(dst, '(memory)', opts, false);
}

/** Writes a new empty file (superblock and root group) into `store`, truncating it first. */
async function createIn(store: ByteStore, name: string, opts: CreateOptions, owned: boolean): Promise<H5File> {
  const version = opts.superblockVersion ?? 2;
  try {
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
      name,
    );
    ctx.objects = FULL_CLASSES;
    if (opts.container) ctx.container = opts.container;
    const bg = backgroundBytes(opts.backgroundWrites);
    if (bg !== undefined) ctx.backgroundBytes = bg;
    const writer = new FileWriter(store, ctx, superblockSize, version);
    writer.graph = new LinkGraph(ctx, true);
    ctx.writer = writer;
    const root = writer.createHeader(groupMessages(ctx, false), superblockSize);
    await writer.flush();
    return new H5File(ctx, root, 'r+', owned ? store : null);
  } catch (e) {
    if (owned) await store.close?.();
    throw e;
  }
}
