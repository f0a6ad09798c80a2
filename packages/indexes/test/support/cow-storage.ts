/**
 * Test support for the copy-on-write suites: an {@link IndexStorage} that enforces the
 * copy-on-write contract (packages/core/src/chunk/chunk-index.ts) instead of trusting it.
 *
 * - Every write must lie inside space allocated since the last {@link CowStorage.markFlushed}
 *   ("fresh"); a write touching the flushed state — or space never allocated — throws.
 * - While {@link CowStorage.sealed} is set (outside `flush()`), any write throws.
 * - `release` must name exactly one live allocation (no double or partial releases). Fresh space is
 *   reusable at once; flushed space only after the next `markFlushed` (as core defers it).
 * - Space is reused first-fit, so a released structure's bytes really are overwritten later.
 * @module
 */
import { MemoryStore } from '@chunkform/core';
import { type IndexStorage, type MetadataReader, TruncatedError, DEFAULT_SIZES, type SizeContext } from '@chunkform/core/plugin';

interface Extent {
  address: number;
  size: number;
}

const inside = (e: Extent, address: number, size: number): boolean => address >= e.address && address + size <= e.address + e.size;
const overlaps = (e: Extent, address: number, size: number): boolean => address < e.address + e.size && e.address < address + size;

/** A strict copy-on-write IndexStorage over a MemoryStore (allocations 8-byte aligned from `start`). */
export class CowStorage implements IndexStorage {
  readonly store = new MemoryStore();
  /** End of allocated space. */
  next: number;
  /** Allocated since the last flush. */
  private fresh: Extent[] = [];
  /** Allocated before the last flush and not released before it: the flushed state's space. */
  private flushed: Extent[] = [];
  /** Flushed space released since the last flush (reusable after the next one). */
  private deferred: Extent[] = [];
  private free: Extent[] = [];
  /** Writes refused while set (the harness clears it around `flush()`). */
  sealed = false;
  /** Bytes written since the last {@link takeWritten}. */
  written = 0;
  /** When set, every write first yields to the event loop (as file I/O does), so other calls interleave. */
  slowWrites = false;

  constructor(start = 64) {
    this.next = start;
  }

  alloc(size: number): number {
    if (!(Number.isSafeInteger(size) && size > 0)) throw new Error(`alloc(${size})`);
    const want = Math.ceil(size / 8) * 8;
    const i = this.free.findIndex((f) => f.size >= want);
    let address: number;
    if (i >= 0) {
      const f = this.free[i]!;
      address = f.address;
      if (f.size === want) this.free.splice(i, 1);
      else this.free[i] = { address: f.address + want, size: f.size - want };
    } else {
      address = this.next;
      this.next += want;
    }
    this.fresh.push({ address, size });
    return address;
  }

  release(address: number, size: number): void {
    const match = (e: Extent): boolean => e.address === address && e.size === size;
    const f = this.fresh.findIndex(match);
    if (f >= 0) {
      this.fresh.splice(f, 1);
      this.free.push({ address, size: Math.ceil(size / 8) * 8 });
      return;
    }
    if (!this.flushed.some(match)) throw new Error(`release of ${size} bytes at ${address}: not a live allocation`);
    if (this.deferred.some(match)) throw new Error(`release of ${size} bytes at ${address}: released twice`);
    this.deferred.push({ address, size });
  }

  isFresh(address: number, size: number): boolean {
    return this.fresh.some((e) => inside(e, address, size));
  }

  async write(address: number, bytes: Uint8Array): Promise<void> {
    if (this.sealed) throw new Error(`write of ${bytes.length} bytes at ${address} outside flush()`);
    const hit = this.flushed.find((e) => overlaps(e, address, bytes.length));
    if (hit) throw new Error(`write of ${bytes.length} bytes at ${address} overwrites flushed space [${hit.address}, +${hit.size})`);
    if (!this.isFresh(address, bytes.length)) throw new Error(`write of ${bytes.length} bytes at ${address} outside fresh space`);
    if (this.slowWrites) await new Promise<void>((resolve) => setImmediate(resolve));
    this.written += bytes.length;
    await this.store.write(address, bytes);
  }

  /** The flush succeeded: fresh space joins the flushed state, deferred releases become reusable. */
  markFlushed(): void {
    const gone = (e: Extent): boolean => this.deferred.some((d) => d.address === e.address && d.size === e.size);
    this.flushed = [...this.flushed.filter((e) => !gone(e)), ...this.fresh];
    for (const d of this.deferred) this.free.push({ address: d.address, size: Math.ceil(d.size / 8) * 8 });
    this.deferred = [];
    this.fresh = [];
  }

  /** Bytes held by the flushed state (call right after {@link markFlushed}). */
  get liveBytes(): number {
    return this.flushed.reduce((n, e) => n + e.size, 0);
  }

  /** Bytes written since the last call. */
  takeWritten(): number {
    const n = this.written;
    this.written = 0;
    return n;
  }

  /** A copy of the file as it is now (padded to the allocated end). */
  snapshot(): Uint8Array {
    const out = new Uint8Array(this.next);
    const b = this.store.toBytes();
    out.set(b.subarray(0, Math.min(b.length, out.length)));
    return out;
  }

  /** A non-caching reader over the live store (space is reused, so no cache may outlive a write). */
  reader(): MetadataReader {
    return new BytesReader(
      () => this.next,
      async (address, length) => {
        const out = new Uint8Array(length);
        out.set(await this.store.read(address, length));
        return out;
      },
    );
  }

  /** A reader over a {@link snapshot}. */
  static snapshotReader(bytes: Uint8Array): MetadataReader {
    return new BytesReader(
      () => bytes.length,
      async (address, length) => bytes.slice(address, address + length),
    );
  }
}

/** A non-caching {@link MetadataReader} bounded by `eof()`. */
class BytesReader implements MetadataReader {
  readonly sizes: SizeContext = DEFAULT_SIZES;
  constructor(
    private readonly end: () => number,
    private readonly get: (address: number, length: number) => Promise<Uint8Array>,
  ) {}
  get eof(): number {
    return this.end();
  }
  async read(address: number, length: number, structure: string): Promise<Uint8Array> {
    const eof = this.end();
    if (!Number.isSafeInteger(address) || address < 0 || !Number.isSafeInteger(length) || length < 0 || address + length > eof) {
      throw new TruncatedError(`${length} bytes at address ${address} extend past the end of the file (${eof} bytes)`, { structure, address });
    }
    return this.get(address, length);
  }
}
