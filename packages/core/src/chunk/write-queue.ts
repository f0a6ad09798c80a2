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
 * queued chunks — the next call on the dataset, or the flush. A chunk whose *storing* failed (an I/O
 * error) stays queued: the failure is thrown the same way, and the next call or flush stores it again.
 * @module
 */
import type { ChunkImage } from './chunk-format.js';
import { pipelineOffload } from '../filter/offload.js';

/** Something queued chunks hold on to (the copy of a write's data they were built from). */
export interface Holder {
  /** A queued chunk starts using it. */
  hold(): void;
  /** That chunk is stored (or failed). */
  drop(): void;
}

/** One queued chunk. */
interface Entry {
  holder: Holder | undefined;
  coords: readonly number[];
  key: string;
  /** Bytes held for it (counted against the bound). */
  bytes: number;
  /** The encoding: the stored image, or the failure. */
  image: Promise<ChunkImage>;
  /** Set once {@link image} settled. */
  done: boolean;
}

/**
 * The default bound on the bytes of chunks queued per dataset: room for two chunks per filter thread
 * plus two (so every thread has the next chunk while one is stored), within [8 MiB, 256 MiB].
 */
export function defaultBackgroundBytes(chunkBytes: number, threads: number): number {
  return Math.min(256 << 20, Math.max(8 << 20, (2 * Math.max(1, threads) + 2) * chunkBytes));
}

/**
 * The default bound on the chunks queued per dataset, whatever their size (chunks written in part,
 * e.g. a region of each frame, are smaller than the byte bound's whole chunks): two per filter
 * thread plus two, at least 8. Each holds a buffer until it is stored; {@link ownedCopy} keeps as
 * many for reuse, so a stream allocates none once it runs.
 */
export function queuedChunks(threads: number): number {
  return Math.max(8, 2 * threads + 2);
}

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

  /**
   * @param maxBytes Bound on the bytes queued (a chunk larger than it is still queued alone).
   * @param maxChunks Bound on the chunks queued.
   */
  constructor(
    readonly maxBytes: number,
    private readonly store: StoreEncoded,
    private readonly maxChunks = Infinity,
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
   * the queue would exceed its bounds, waits for the oldest ones and stores them (back-pressure);
   * then starts `encode` and returns without waiting for it.
   * @throws the failure of an earlier queued chunk (this chunk is then neither encoded nor queued).
   */
  async add(coords: readonly number[], bytes: number, encode: () => Promise<ChunkImage>, holder?: Holder): Promise<void> {
    await this.storeWhile(() => {
      const h = this.entries[this.head];
      return h !== undefined && (h.done || this.queuedBytes + bytes > this.maxBytes || this.entries.length - this.head >= this.maxChunks);
    });
    holder?.hold();
    let image: Promise<ChunkImage>;
    try {
      image = encode();
    } catch (err) {
      image = Promise.reject(err);
    }
    const key = coords.join(',');
    const e: Entry = { holder, coords, key, bytes, image, done: false };
    this.keys.set(key, (this.keys.get(key) ?? 0) + 1);
    image.then(
      () => void (e.done = true),
      () => void (e.done = true),
    );
    this.entries.push(e);
    this.queuedBytes += bytes;
  }

  /**
   * Stores the chunks at the head whose encoding has finished, without waiting for the others;
   * throws the first failure seen (a call that queues nothing still reports an earlier failure).
   */
  async storeEncoded(): Promise<void> {
    if (!this.busy) return;
    await this.storeWhile(() => this.entries[this.head]?.done === true);
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
        let encoded = true;
        try {
          await e.image;
        } catch (err) {
          // an encoding failure is final: the chunk is dropped, the failure reported
          encoded = false;
          this.failure ??= err;
        }
        if (encoded) {
          try {
            await this.store(e.coords, e.image);
          } catch (err) {
            // Storing failed (I/O): the chunk stays at the head of the queue, to be stored by the
            // next call or flush — as a dirty cached chunk would be after a failed write.
            this.failure ??= err;
            break;
          }
        }
        this.entries[this.head++] = undefined as never;
        e.holder?.drop();
        this.queuedBytes -= e.bytes;
        const n = this.keys.get(e.key)!;
        if (n > 1) this.keys.set(e.key, n - 1);
        else this.keys.delete(e.key);
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

/** Buffers for the copies of written data that queued chunks hold, reused once those are stored. */
const copies: ArrayBufferLike[] = [];
/**
 * Most buffers kept: a frame-by-frame stream holds one per queued chunk ({@link queuedChunks}) and,
 * writing part of each frame, one per chunk the cache holds (an 8 MiB cache holds 16 quarter
 * frames), so that fresh buffers (page faults, garbage collections on the calling thread) are not
 * needed once the stream runs; most bytes in one kept buffer, and in all.
 */
const copiesKept = (): number => 4 * queuedChunks(pipelineOffload()?.threads ?? 0);
const COPY_MAX_BYTES = 64 << 20;
const COPIES_MAX_BYTES = 64 << 20;
let copiesBytes = 0;

/**
 * A private copy of `src` for chunks encoded in the background, in a reused buffer when one fits,
 * with the {@link Holder} that gives the buffer back once the caller and every chunk holding it
 * are done (the caller drops its own hold when its call ends).
 */
export function ownedCopy(src: Uint8Array): { bytes: Uint8Array; holder: Holder } {
  const n = src.length;
  let buf: ArrayBufferLike | undefined;
  for (let i = copies.length - 1; i >= 0; i--) {
    const b = copies[i]!;
    if (b.byteLength >= n && b.byteLength <= 2 * n) {
      buf = b;
      copies.splice(i, 1);
      copiesBytes -= b.byteLength;
      break;
    }
  }
  const bytes = new Uint8Array(buf ?? newCopyBuffer(n), 0, n);
  bytes.set(src);
  let refs = 1;
  const holder: Holder = {
    hold: () => void refs++,
    drop: () => {
      if (--refs > 0) return;
      const b = bytes.buffer;
      if (b.byteLength <= COPY_MAX_BYTES && b.byteLength >= 64 << 10) {
        copies.push(b);
        copiesBytes += b.byteLength;
        while (copies.length > copiesKept() || copiesBytes > COPIES_MAX_BYTES) copiesBytes -= copies.shift()!.byteLength;
      }
    },
  };
  return { bytes, holder };
}

/**
 * A buffer for {@link ownedCopy}: shared memory when filter threads encode the chunks, so the pool
 * hands the copy to a worker as it is instead of copying it again (nothing writes it until its
 * chunks are stored); else (no threads, no `SharedArrayBuffer` in this runtime) an ordinary one.
 */
function newCopyBuffer(n: number): ArrayBufferLike {
  return typeof SharedArrayBuffer === 'function' && (pipelineOffload()?.threads ?? 0) > 0 ? new SharedArrayBuffer(n) : new ArrayBuffer(n);
}
