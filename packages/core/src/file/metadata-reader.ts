/**
 * The read interface that traversals of multi-block structures (B-trees, heaps, object header
 * continuation chains) use. It sits between pure decoders and the byte store: it bounds every read
 * by the end of the file (so a bogus size in a file can never cause a huge allocation) and may cache.
 * @module
 */
import { TruncatedError } from '../errors.js';
import type { SizeContext } from '../format/bytes.js';
import type { ByteSource } from '../io/byte-store.js';

/** Reads metadata blocks by address. */
export interface MetadataReader {
  /** Offset/length sizes from the superblock. */
  readonly sizes: SizeContext;
  /** End of the readable file (bytes); no structure may extend past it. */
  readonly eof: number;
  /**
   * Reads exactly `length` bytes at `address` (relative to the superblock base address), or throws
   * {@link TruncatedError} naming `structure` if the range leaves the file.
   */
  read(address: number, length: number, structure: string): Promise<Uint8Array>;
}

/** A {@link MetadataReader} over a {@link ByteSource} with a small block cache. */
export class SourceMetadataReader implements MetadataReader {
  private cache = new Map<string, Uint8Array>();
  private cachedBytes = 0;
  /** Called before reading the source: writes held back by the file's writer reach it first (null: none held). */
  settle: (() => Promise<void> | null) | null = null;

  constructor(
    private readonly source: ByteSource,
    readonly sizes: SizeContext,
    public eof: number,
    private readonly baseAddress = 0,
    private readonly cacheBudget = 4 << 20,
  ) {}

  async read(address: number, length: number, structure: string): Promise<Uint8Array> {
    if (!Number.isSafeInteger(address) || address < 0 || !Number.isSafeInteger(length) || length < 0 || address + length > this.eof) {
      throw new TruncatedError(`${length} bytes at address ${address} extend past the end of the file (${this.eof} bytes)`, {
        structure,
        address,
      });
    }
    const key = `${address}:${length}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const held = this.settle?.();
    if (held) await held;
    const bytes = await this.source.read(this.baseAddress + address, length);
    if (bytes.length !== length) {
      throw new TruncatedError(`only ${bytes.length} of ${length} bytes could be read`, { structure, address });
    }
    const copy = bytes.slice();
    if (length <= 65536) {
      if (this.cachedBytes + length > this.cacheBudget) {
        this.cache.clear();
        this.cachedBytes = 0;
      }
      this.cache.set(key, copy);
      this.cachedBytes += length;
    }
    return copy;
  }

  /** Drops cached blocks overlapping [address, address+length) (after a write). */
  invalidate(): void {
    this.cache.clear();
    this.cachedBytes = 0;
  }
}
