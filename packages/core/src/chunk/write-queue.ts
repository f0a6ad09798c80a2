/**
 * Background chunk encoding for streaming writes: a whole chunk written by a call is owned by the
 * engine at once (its bytes copied or built from the caller's), its encoding (the filter pipeline,
 * on the filter worker pool or zlib's threads) starts at once, and the call returns. Encoded chunks
 * are stored later, in the order they were queued, by the engine's next call on the dataset (which
 * holds the dataset's lock, so every file and index change still happens inside a call, in call
 * order) — at the latest by `flush()` / `close()`. The bytes queued are bounded: a call that would
 * exceed the bound first waits for the oldest chunks and stores them (back-pressure).
 *
 * A chunk whose encoding failed is not stored (the file keeps what it had for that chunk; nothing
 * flushed is touched); the failure, naming the chunk, is thrown by the next call that stores
 * queued chunks — the next call on the dataset, or the flush.
 * @module
 */
import type { ChunkImage } from './chunk-format.js';

/** One queued chunk. */
interface Entry {
  coords: readonly number[];
  key: string;
  /** Bytes held for it (counted against the bound). */
  bytes: number;
  /** The encoding: the stored image, or the failure. */
  image: Promise<ChunkImage>;
  /** Set once {@link image} settled. */
  done: boolean;
}

/** Default bound on the bytes of chunks queued per dataset. */
export const DEFAULT_BACKGROUND_BYTES = 32 << 20;

/** What the queue needs of the engine: store an encoded chunk (inside the current call). */
export type StoreEncoded = (coords: readonly number[], image: Promise<ChunkImage>) => Promise<void>;

/** The background-encoding queue of one dataset's chunk engine. */
export class WriteQueue {
  private entries: Entry[] = [];
  private head = 0;
  private queuedBytes = 0;
  /** Queued chunks by key (coordinates joined by commas): how many entries each has. */
  private readonly keys = new Map<string, number>();
  /** The store step running (stores never overlap: they keep queue order). */
  private storing: Promise<void> = Promise.resolve();
  /** First failure not reported yet. */
  private failure: unknown = undefined;

  /** @param maxBytes Bound on the bytes queued (a chunk larger than it is still queued alone). */
  constructor(
    readonly maxBytes: number,
    private readonly store: StoreEncoded,
  ) {}

  /** True while chunks are queued (encoding or waiting to be stored) or a failure is unreported. */
  get busy(): boolean {
    return this.head < this.entries.length || this.failure !== undefined;
  }

  /** True when a chunk with key `key` (coordinates joined by commas) is queued. */
  has(key: string): boolean {
    return this.keys.has(key);
  }

  /**
   * Queues a chunk holding `bytes`: first stores the chunks already encoded at the head and, while
   * the queue would exceed its bound, waits for the oldest ones and stores them (back-pressure);
   * then starts `encode` and returns without waiting for it.
   * @throws the failure of an earlier queued chunk (this chunk is then neither encoded nor queued).
   */
  async add(coords: readonly number[], bytes: number, encode: () => Promise<ChunkImage>): Promise<void> {
    await this.storeWhile(() => {
      const h = this.entries[this.head];
      return h !== undefined && (h.done || this.queuedBytes + bytes > this.maxBytes);
    });
    let image: Promise<ChunkImage>;
    try {
      image = encode();
    } catch (err) {
      image = Promise.reject(err);
    }
    const key = coords.join(',');
    const e: Entry = { coords, key, bytes, image, done: false };
    this.keys.set(key, (this.keys.get(key) ?? 0) + 1);
    image.then(
      () => void (e.done = true),
      () => void (e.done = true),
    );
    this.entries.push(e);
    this.queuedBytes += bytes;
  }

  /** Stores every queued chunk (waiting for their encoding); throws the first failure seen. */
  async settle(): Promise<void> {
    if (!this.busy) return;
    await this.storeWhile(() => this.head < this.entries.length);
  }

  /** Stores chunks from the head while `more()`, one store step at a time; then reports a failure. */
  private async storeWhile(more: () => boolean): Promise<void> {
    const run = this.storing.then(async () => {
      while (more()) {
        const e = this.entries[this.head]!;
        this.entries[this.head++] = undefined as never;
        try {
          await this.store(e.coords, e.image);
        } catch (err) {
          this.failure ??= err;
        } finally {
          this.queuedBytes -= e.bytes;
          const n = this.keys.get(e.key)!;
          if (n > 1) this.keys.set(e.key, n - 1);
          else this.keys.delete(e.key);
        }
      }
      if (this.head === this.entries.length) {
        this.entries = [];
        this.head = 0;
      }
    });
    this.storing = run.catch(() => undefined);
    await run;
    if (this.failure !== undefined) {
      const f = this.failure;
      this.failure = undefined;
      throw f;
    }
  }
}
