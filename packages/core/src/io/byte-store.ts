/**
 * The storage interface every file goes through. Implementations: {@link MemoryStore} (here),
 * `NodeFileStore` (`@chunkform/core/node`), and any user object with the same shape (a browser
 * `Blob`, an HTTP range reader ...). Nothing in this module imports Node-only code.
 * @module
 */

/**
 * A local file that another thread of this process may open read-only and read itself (the filter
 * workers reading chunks' stored bytes: ../chunk/chunk-reader.ts), with the identity of the file
 * open here, so that the other thread reads that file and no other that took its path since.
 */
export interface LocalFile {
  /** Absolute path. */
  readonly path: string;
  /** Device and inode numbers of the file open here (`"dev:ino"`, from a bigint `fstat`). */
  readonly identity: string;
}

/** Random-access read-only bytes. */
export interface ByteSource {
  /** Total size in bytes. */
  size(): Promise<number>;
  /**
   * Reads `length` bytes at `offset`. May return fewer bytes only when the range passes the end
   * of the source. The returned array may be a view into a shared buffer: callers copy if they keep it.
   */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** Releases resources. */
  close?(): Promise<void>;
  /**
   * Reads `target.length` bytes at `offset` straight into `target` (no intermediate buffer);
   * returns the number of bytes read. Optional: callers fall back to {@link read}.
   */
  readInto?(offset: number, target: Uint8Array): Promise<number>;
  /**
   * Scatter read: fills `targets` one after the other from the bytes at `offset` (`preadv`); returns
   * the number of bytes read (fewer only when the range passes the end). Optional: callers read
   * into a buffer and copy instead.
   */
  readv?(offset: number, targets: readonly Uint8Array[]): Promise<number>;
  /**
   * True when scatter reads ({@link readv}) and large reads run on other threads (Node's thread
   * pool), so that reads issued together proceed in parallel and callers gain by keeping several
   * in flight.
   */
  readonly threadedReads?: boolean;
  /**
   * True when every `read` returns a new buffer that nobody else references, so callers may keep
   * it (and reuse its memory for results) without copying.
   */
  readonly freshReads?: boolean;
  /**
   * Optional: the local file whose bytes this source reads, for another thread of this process to
   * read them itself, or null while it must not — the source is closed, or a write to it is still
   * on its way to the operating system (another handle would not see it yet).
   */
  localFile?(): LocalFile | null;
}

/** Random-access read/write bytes. */
export interface ByteStore extends ByteSource {
  /** Writes `bytes` at `offset`, growing the store if needed. */
  write(offset: number, bytes: Uint8Array): Promise<void>;
  /**
   * Optional gather write: writes `parts` one after the other from `offset`, as {@link write} of
   * their bytes joined would, in one I/O (files: `pwritev`). None of them may change until this settles.
   */
  writev?(offset: number, parts: readonly Uint8Array[]): Promise<void>;
  /** Sets the size (used to trim a file to its end-of-file address). */
  truncate(size: number): Promise<void>;
  /**
   * Hands written bytes to the underlying storage (files: to the operating system; memory: no-op).
   * With `durable`, also makes them durable (files: fsync) before resolving; stores that cannot
   * may ignore it.
   */
  flush(opts?: { durable?: boolean }): Promise<void>;
}

/** True when `s` can be written. */
export function isByteStore(s: ByteSource): s is ByteStore {
  return typeof (s as ByteStore).write === 'function' && typeof (s as ByteStore).truncate === 'function';
}

/** An in-memory, growable byte store (browser-safe). */
export class MemoryStore implements ByteStore {
  private buf: Uint8Array;
  private len: number;

  /** Wraps `initial` (not copied) or starts empty. */
  constructor(initial?: Uint8Array | ArrayBuffer) {
    this.buf = initial ? (initial instanceof Uint8Array ? initial : new Uint8Array(initial)) : new Uint8Array(0);
    this.len = this.buf.length;
  }
  async size(): Promise<number> {
    return this.len;
  }
  async read(offset: number, length: number): Promise<Uint8Array> {
    const end = Math.min(this.len, offset + length);
    return this.buf.subarray(Math.min(offset, end), end);
  }
  async readInto(offset: number, target: Uint8Array): Promise<number> {
    const src = await this.read(offset, target.length);
    target.set(src);
    return src.length;
  }
  async write(offset: number, bytes: Uint8Array): Promise<void> {
    const end = offset + bytes.length;
    if (end > this.buf.length) {
      let cap = Math.max(1024, this.buf.length * 2);
      while (cap < end) cap *= 2;
      const nb = new Uint8Array(cap);
      nb.set(this.buf.subarray(0, this.len));
      this.buf = nb;
    }
    this.buf.set(bytes, offset);
    if (end > this.len) this.len = end;
  }
  async truncate(size: number): Promise<void> {
    if (size < this.len) this.buf.fill(0, size, this.len);
    else if (size > this.buf.length) await this.write(size, new Uint8Array(0));
    this.len = size;
  }
  async flush(): Promise<void> {}
  /** A copy of the current contents (e.g. to save or hand to another library). */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}
