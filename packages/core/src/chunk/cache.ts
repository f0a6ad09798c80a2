/**
 * The chunk cache (docs/architecture.md §5 "chunk cache", docs/architecture.md §4): decoded chunks kept in their memory form
 * under a byte budget, write-back for dirty chunks. Keys are exact chunk coordinates in a Map, so
 * there are no hash-slot collisions (docs/architecture.md §5: `nslots` pitfall). Eviction prefers chunks that were
 * read or written *in full* (docs/architecture.md §5: `w0`: they are unlikely to be touched again), then the least
 * recently used. A chunk larger than the whole budget is never cached.
 * @module
 */

/** Chunk cache settings (per dataset). */
export interface ChunkCacheOptions {
  /** Byte budget of decoded chunks (default 8 MiB). 0 disables caching. */
  bytes?: number;
  /**
   * Preference (0…1) for evicting fully read/written chunks before partially accessed ones, like
   * HDF5's `w0` (default 0.75). 0 = plain LRU.
   */
  w0?: number;
}

/** One cached chunk. */
export interface CacheEntry<Mem> {
  key: string;
  coords: number[];
  mem: Mem;
  bytes: number;
  dirty: boolean;
  /** Every element of the chunk was read or written by the last access. */
  fullyAccessed: boolean;
}

/** The default budget: large enough for a few 1024×1024×2-byte frames. */
export const DEFAULT_CHUNK_CACHE_BYTES = 8 << 20;

/** A per-dataset chunk cache; `evict` is called for dirty chunks that must be written out. */
export class ChunkCache<Mem> {
  readonly budget: number;
  readonly w0: number;
  private entries = new Map<string, CacheEntry<Mem>>();
  private used = 0;

  constructor(opts: ChunkCacheOptions = {}) {
    this.budget = Math.max(0, opts.bytes ?? DEFAULT_CHUNK_CACHE_BYTES);
    this.w0 = Math.min(1, Math.max(0, opts.w0 ?? 0.75));
  }

  /** Cached bytes. */
  get size(): number {
    return this.used;
  }

  /** Would a chunk of `bytes` be cached at all? */
  fits(bytes: number): boolean {
    return bytes > 0 && bytes <= this.budget;
  }

  /** The entry for `key`, marked most recently used. */
  get(key: string): CacheEntry<Mem> | undefined {
    const e = this.entries.get(key);
    if (e) {
      this.entries.delete(key);
      this.entries.set(key, e);
    }
    return e;
  }

  /**
   * Inserts (or replaces) an entry and returns the entries that had to leave to make room
   * (the caller writes the dirty ones). A chunk that does not fit the budget is not inserted and
   * is returned itself when dirty.
   */
  put(entry: CacheEntry<Mem>): CacheEntry<Mem>[] {
    const old = this.entries.get(entry.key);
    if (old) {
      this.entries.delete(entry.key);
      this.used -= old.bytes;
    }
    if (!this.fits(entry.bytes)) return entry.dirty ? [entry] : [];
    const out: CacheEntry<Mem>[] = [];
    while (this.used + entry.bytes > this.budget && this.entries.size > 0) {
      const victim = this.victim();
      this.entries.delete(victim.key);
      this.used -= victim.bytes;
      out.push(victim);
    }
    this.entries.set(entry.key, entry);
    this.used += entry.bytes;
    return out;
  }

  /** Removes an entry (e.g. a chunk pruned by a resize) without returning it for writing. */
  delete(key: string): void {
    const e = this.entries.get(key);
    if (e) {
      this.entries.delete(key);
      this.used -= e.bytes;
    }
  }

  /** All dirty entries (for a flush). */
  dirty(): CacheEntry<Mem>[] {
    return [...this.entries.values()].filter((e) => e.dirty);
  }

  /** All entries, least recently used first. */
  all(): IterableIterator<CacheEntry<Mem>> {
    return this.entries.values();
  }

  /** Drops everything (after a flush, or when the dataset is closed). */
  clear(): void {
    this.entries.clear();
    this.used = 0;
  }

  /**
   * Least recently used entry, except that with probability-like weight `w0` a fully accessed
   * entry among the older half is preferred (deterministic: the oldest fully accessed one when
   * it lies within the oldest `w0` fraction of the entries).
   */
  private victim(): CacheEntry<Mem> {
    const it = this.entries.values();
    const first = it.next().value as CacheEntry<Mem>;
    if (this.w0 === 0 || first.fullyAccessed) return first;
    const window = Math.max(1, Math.ceil(this.entries.size * this.w0));
    let i = 0;
    for (const e of this.entries.values()) {
      if (i++ >= window) break;
      if (e.fullyAccessed) return e;
    }
    return first;
  }
}
