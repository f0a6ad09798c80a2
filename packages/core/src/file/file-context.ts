/**
 * Per-file state shared by every object of an open file: the byte source, the superblock, the
 * metadata reader, caches of object headers and global heap collections, and (when writable) the
 * {@link FileWriter}.
 * @module
 */
import { FormatError, InvalidStateError, TruncatedError } from '../errors.js';
import type { SizeContext } from '../format/bytes.js';
import { isDefinedAddress } from '../format/bytes.js';
import { readGlobalHeapCollection } from '../format/heaps/global-heap.js';
import { readObjectHeader } from '../format/object-header.js';
import {
  SUPERBLOCK_MAX_SIZE,
  decodeSuperblock,
  findSuperblockOffsets,
  type Superblock,
} from '../format/superblock.js';
import type { ByteSource } from '../io/byte-store.js';
import type { StoredBytes } from '../filter/decode-into.js';
import type { GlobalHeapLookup } from '../values/decode.js';
import { HeaderModel } from './header-model.js';
import { SourceMetadataReader } from './metadata-reader.js';
import type { FileWriter } from './file-writer.js';
import type { CallOrder } from './lock.js';
import type { ObjectClasses } from '../objects/object-classes.js';
import { defaultContainer, type Container } from '../di/container.js';
import { DEFAULT_MAX_READ_BYTES } from '../storage/read-limit.js';

/** Shared state of one open file. */
export class FileContext {
  readonly reader: SourceMetadataReader;
  private headers = new Map<number, HeaderModel>();
  private pendingHeaders = new Map<number, Promise<HeaderModel>>();
  private heaps = new Map<number, Map<number, Uint8Array>>();
  /** Registrations (filters, chunk indexes, chunk formats) datasets of this file resolve from. */
  container: Container = defaultContainer;
  /** The classes of the file's groups, datasets and attributes (set by the `openFile` that opened it). */
  objects!: ObjectClasses;
  /** Set when the file is writable. */
  writer: FileWriter | null = null;
  closed = false;
  /** Set while `close()` flushes: the datasets' cached chunks are written for the last time. */
  closing = false;
  /** Run once the file is closed (no call on it runs any more): chunk caches hand their chunks back to their formats. */
  readonly onClose: (() => void)[] = [];
  private order: CallOrder | undefined;
  /**
   * Orders the API calls on this file: made by the file's object classes on first use (file/lock.ts;
   * a read-only open's file/read-lock.ts), so a read-only bundle does not carry the full lock.
   */
  get lock(): CallOrder {
    return (this.order ??= this.objects.callOrder());
  }
  /** Largest result (bytes) one dataset read may allocate (`openFile`'s `maxReadBytes`). */
  maxReadBytes = DEFAULT_MAX_READ_BYTES;
  /**
   * Bound on the bytes of chunks a dataset encodes behind the caller (`backgroundWrites` of
   * `openFile` / `createFile`; chunk/write-queue.ts); 0: chunks are stored within their call;
   * undefined: the default for the dataset's chunk size (`defaultBackgroundBytes`).
   */
  backgroundBytes: number | undefined = undefined;

  constructor(
    readonly source: ByteSource,
    readonly superblock: Superblock,
    readonly fileSize: number,
    readonly name: string,
  ) {
    this.reader = new SourceMetadataReader(source, superblock.sizes, Math.min(fileSize, superblock.eofAddress), superblock.baseAddress);
    this.reader.settle = () => this.settled();
  }

  /** Writes a flush holds back (to write them together) reach the source before any read: null when none are held. */
  private settled(): Promise<void> | null {
    return this.writer?.holdsWrites ? this.writer.settle() : null;
  }

  /** Offset/length sizes. */
  get sizes(): SizeContext {
    return this.superblock.sizes;
  }

  /** Locates and decodes the superblock of `source` and builds a context. */
  static async open(source: ByteSource, name: string): Promise<FileContext> {
    const size = await source.size();
    if (size < 8) throw new TruncatedError(`file is ${size} bytes long, too short for an HDF5 superblock`, { structure: 'superblock' });
    for (const at of findSuperblockOffsets(size)) {
      const head = await source.read(at, 8);
      if (!isSignature(head)) continue;
      const bytes = (await source.read(at, Math.min(SUPERBLOCK_MAX_SIZE, size - at))).slice();
      const sb = decodeSuperblock(bytes, at);
      // Addresses are relative to the base address, which is where the superblock sits (HDF5
      // corrects a stored base address the same way); the stored end-of-file address is absolute.
      const base = at;
      const storedEof = sb.eofAddress === -1 ? size : sb.eofAddress;
      const eof = storedEof - (sb.baseAddress === at ? at : 0);
      if (base + eof > size) {
        throw new TruncatedError(
          `file is truncated: the superblock gives an end-of-file address of ${storedEof} but the file has ${size} bytes`,
          { structure: 'superblock', address: at },
        );
      }
      return new FileContext(source, { ...sb, baseAddress: base, eofAddress: eof }, size - base, name);
    }
    throw new FormatError('not an HDF5 file: no superblock signature at offset 0, 512, 1024, ...', { structure: 'superblock' });
  }

  /** {@link TruncatedError} unless `length` raw bytes at `address` lie inside the file. */
  private checkRaw(address: number, length: number, structure: string): void {
    if (!isDefinedAddress(address) || address < 0 || address + length > this.reader.eof) {
      throw new TruncatedError(`${length} bytes at address ${address} extend past the end of the file (${this.reader.eof} bytes)`, { structure, address });
    }
  }

  /** Reads raw bytes at `address` straight into `target`, bounded by the end of the file. */
  async readRawInto(address: number, target: Uint8Array, structure: string): Promise<void> {
    this.ensureOpen();
    const length = target.length;
    if (length === 0) return;
    this.checkRaw(address, length, structure);
    const pos = this.superblock.baseAddress + address;
    await this.settled();
    let got: number;
    if (this.source.readInto) got = await this.source.readInto(pos, target);
    else {
      const b = await this.source.read(pos, length);
      target.set(b.subarray(0, length));
      got = Math.min(b.length, length);
    }
    if (got !== length) throw new TruncatedError(`only ${got} of ${length} bytes could be read`, { structure, address });
  }

  /**
   * Where another thread may read the `length` raw bytes at `address` itself (a local file: the
   * source's `localFile`), or null when it must not: the source is no local file, a write to it is
   * unfinished, or writes a flush holds back are not written yet (a read on this thread writes them
   * first). A filter worker then reads the bytes as a read here would see them.
   * @throws TruncatedError as {@link readRaw} when the range passes the end of the file.
   */
  rawStored(address: number, length: number, structure: string): StoredBytes | null {
    this.ensureOpen();
    this.checkRaw(address, length, structure);
    if (length === 0 || this.writer?.holdsWrites) return null;
    const file = this.source.localFile?.();
    return file ? { file, offset: this.superblock.baseAddress + address, length } : null;
  }

  /** True when the source is a local file another thread can read ({@link rawStored}). */
  get localFile(): boolean {
    return typeof this.source.localFile === 'function';
  }

  /** True when large reads of the source run on other threads (several in flight proceed in parallel). */
  get threadedReads(): boolean {
    return this.source.threadedReads === true;
  }

  /** True when the source reads scatter lists itself ({@link readRawScatter} is then one system call per list). */
  get canScatter(): boolean {
    return typeof this.source.readv === 'function';
  }

  /**
   * Scatter read: fills `targets` one after the other from the raw bytes at `address`, bounded by
   * the end of the file (sources without `readv` read into one buffer and copy).
   */
  async readRawScatter(address: number, targets: readonly Uint8Array[], structure: string): Promise<void> {
    this.ensureOpen();
    let length = 0;
    for (const t of targets) length += t.length;
    if (length === 0) return;
    this.checkRaw(address, length, structure);
    if (!this.source.readv) {
      const all = new Uint8Array(length);
      await this.readRawInto(address, all, structure);
      let at = 0;
      for (const t of targets) {
        t.set(all.subarray(at, at + t.length));
        at += t.length;
      }
      return;
    }
    await this.settled();
    const got = await this.source.readv(this.superblock.baseAddress + address, targets);
    if (got !== length) throw new TruncatedError(`only ${got} of ${length} bytes could be read`, { structure, address });
  }

  /** True when {@link readRaw} results are private buffers the caller may keep. */
  get freshReads(): boolean {
    return this.source.freshReads === true;
  }

  /** Address of the root group's object header. */
  get rootAddress(): number {
    const sb = this.superblock;
    if (sb.version >= 2) return sb.rootObjectHeaderAddress;
    return sb.rootSymbolTableEntry!.objectHeaderAddress;
  }

  /** Throws if the file was closed. */
  ensureOpen(): void {
    if (this.closed) throw new InvalidStateError(`file "${this.name}" is closed`);
  }

  /** The object header model at `address` (decoded once, then shared). */
  async header(address: number): Promise<HeaderModel> {
    this.ensureOpen();
    const have = this.headers.get(address);
    if (have) return have;
    let p = this.pendingHeaders.get(address);
    if (!p) {
      p = readObjectHeader(this.reader, address).then((h) => {
        const m = HeaderModel.fromHeader(h);
        this.headers.set(address, m);
        return m;
      });
      this.pendingHeaders.set(address, p);
      p.finally(() => this.pendingHeaders.delete(address)).catch(() => undefined);
    }
    return p;
  }

  /** The object header model at `address` when it is already decoded (or created in this session). */
  loadedHeader(address: number): HeaderModel | undefined {
    return this.headers.get(address);
  }

  /** Registers a header created in this session. */
  addHeader(model: HeaderModel): void {
    this.headers.set(model.address, model);
  }

  /**
   * Records that a flush moved `model` (copy-on-write) to `address`: later lookups by the new
   * address find the same model, and the root group's address follows when `model` is the root.
   */
  moveHeader(model: HeaderModel, address: number): void {
    const from = model.address;
    if (this.headers.get(from) === model) this.headers.delete(from);
    const sb = this.superblock;
    if (sb.version >= 2 && sb.rootObjectHeaderAddress === from) sb.rootObjectHeaderAddress = address;
    model.address = address;
    this.headers.set(address, model);
  }

  /** Forgets a header created in this session (a failed create). */
  forgetHeader(model: HeaderModel): void {
    if (this.headers.get(model.address) === model) this.headers.delete(model.address);
  }

  /** All header models created or loaded so far. */
  allHeaders(): Iterable<HeaderModel> {
    return this.headers.values();
  }

  /**
   * Reads raw (dataset) bytes, bounded by the end of the file; no caching. The result may be a view
   * of the source's memory unless {@link freshReads}.
   */
  async readRaw(address: number, length: number, structure: string): Promise<Uint8Array> {
    this.ensureOpen();
    if (length === 0) return new Uint8Array(0);
    this.checkRaw(address, length, structure);
    await this.settled();
    const b = await this.source.read(this.superblock.baseAddress + address, length);
    if (b.length !== length) throw new TruncatedError(`only ${b.length} of ${length} bytes could be read`, { structure, address });
    return b;
  }

  /** A global heap lookup holding the collections at `addresses` (loaded once and cached). */
  async globalHeap(addresses: Iterable<number>): Promise<GlobalHeapLookup> {
    for (const a of addresses) {
      if (!this.heaps.has(a) && isDefinedAddress(a) && a !== 0) {
        const pending = this.writer?.pendingHeapCollection(a);
        this.heaps.set(a, pending ?? (await readGlobalHeapCollection(this.reader, a)));
      }
    }
    const heaps = this.heaps;
    const writer = this.writer;
    return {
      get(collection: number, index: number): Uint8Array {
        const c = writer?.pendingHeapCollection(collection) ?? heaps.get(collection);
        const obj = c?.get(index);
        if (!obj) {
          throw new FormatError(`global heap object ${index} not found in collection`, {
            structure: 'global heap collection',
            address: collection,
          });
        }
        return obj;
      },
    };
  }

  /** Forgets cached metadata bytes and heap collections (after the file was written). */
  invalidateCaches(): void {
    this.reader.invalidate();
    this.heaps.clear();
  }

  /** The writable store, or an error naming `what` was attempted. */
  requireWriter(what: string): FileWriter {
    this.ensureOpen();
    if (!this.writer) throw new InvalidStateError(`cannot ${what}: file "${this.name}" is open read-only`);
    return this.writer;
  }
}

function isSignature(b: Uint8Array): boolean {
  const sig = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a];
  return b.length >= 8 && sig.every((v, i) => b[i] === v);
}

