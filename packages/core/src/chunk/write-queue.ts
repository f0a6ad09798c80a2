/**
 * Background chunk encoding for streaming writes: a whole chunk written by a call is owned by the
 * engine at once (its bytes copied or built from the caller's), its encoding (the filter pipeline,
 * on the filter worker pool or zlib's threads) starts at once, and the call returns. Encoded chunks
 * are stored later, in the order they were queued, by the engine's next call on the dataset (which
 * holds the dataset's lock, so every file and index change still happens inside a call, in call
 * order) — at the latest by `flush()` / `close()`. The bytes queued are bounded: a call that would
 * exceed the bound first waits for the oldest chunks and stores them (back-pressure).
 *
 * Storing a chunk has two steps: its image is placed and its file write started (a positional write
 * to space no index record names yet, or to the chunk's own fresh space), and — once that write
 * has finished — the chunk is recorded in the index, its old space released and its image's
 * buffers given back (`ChunkImage.written`). The chunks encoded when writes start are started
 * together, placed in turn and written with one I/O per run of adjacent places (one gather write for
 * the new chunks of a stream or a whole-column write). Up to {@link WRITES_IN_FLIGHT} such batches
 * run at once, behind the caller, while the next chunks are built and encoded; they finish in any
 * order, but chunks are recorded in queue order, each only after its bytes are in the file, and
 * always inside a call. A chunk whose write is in flight stays queued (and counts against the
 * bounds) until then.
 *
 * A chunk whose encoding failed is not stored (the file keeps what it had for that chunk; nothing
 * flushed is touched); the failure, naming the chunk, is thrown by the next call that stores
 * queued chunks — the next call on the dataset, or the flush. A chunk whose *storing* failed (an I/O
 * error, or its place refused) stays queued, and so do the chunks queued after it whose writes were
 * in flight (written, but not recorded: their new space is given back and they are stored again):
 * the file holds the chunks queued before it, as if stored one by one in order up to the failure.
 * The failure is thrown the same way, and the next call or flush stores those chunks again.
 * @module
 */
import type { ChunkImage } from './chunk-format.js';
import type { ImageToWrite, StartedWrite, StartedWrites } from './placement.js';
import { pipelineOffload } from '../filter/offload.js';

/** Something queued chunks hold on to (the copy of a write's data they were built from). */
export interface Holder {
  /** A queued chunk starts using it. */
  hold(): void;
  /** That chunk is stored (or failed). */
  drop(): void;
}

/**
 * File writes (batches of queued chunks started together) in flight at once, per dataset. One is
 * enough for the main thread not to wait on the file while it builds the next chunk (writes of
 * 256 KiB or more run on libuv's threads: io/node-file.ts); more let the threads' writes overlap
 * each other too. The chunks encoded meanwhile go out together as the next batch.
 */
export const WRITES_IN_FLIGHT = 2;

/** Chunks whose writes were started together: how many of them are not recorded (or given up) yet. */
interface Batch {
  open: number;
}

/** Most chunks started together (the queue's chunk bound is usually far lower). */
const BATCH_CHUNKS = 64;

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
  /** {@link image}'s value once it resolved. */
  encoded: ChunkImage | undefined;
  /** {@link image}'s failure once it rejected (then {@link encoded} stays undefined). */
  failed: { error: unknown } | undefined;
  /** Its encoding failed: removed (unstored) when it reaches the head. */
  dropped: boolean;
  /** Its file write, once started. */
  write: StartedWrite | undefined;
  /** The chunks started with it, while its write is not recorded. */
  batch: Batch | undefined;
  /** Set once {@link write}'s bytes are in the file (true) or the write failed (false). */
  written: boolean | undefined;
  /** Why the write failed. */
  error: unknown;
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

/**
 * What the queue needs of the engine (inside the current call): place encoded chunks in order and
 * start their file writes (./placement.ts `ChunkPlacement.startMany`); errors name the chunk.
 */
export type StartStore = (items: readonly ImageToWrite[]) => Promise<StartedWrites>;

/** The background-encoding queue of one dataset's chunk engine. */
export class WriteQueue {
  private entries: Entry[] = [];
  /** First entry not stored yet (its write, if started, not recorded). */
  private head = 0;
  /** First entry whose write has not started (`head <= next`). */
  private next = 0;
  private queuedBytes = 0;
  /** Queued chunks by key (coordinates joined by commas): how many entries each has. */
  private readonly keys = new Map<string, number>();
  /** Keys of the chunks whose writes have started and are not recorded yet. */
  private readonly writing = new Set<string>();
  /** Batches of writes started and not all recorded yet (bounded by `writesInFlight`). */
  private batches = 0;
  /** The store step running (store steps never overlap: they keep queue order). */
  private storing: Promise<void> = Promise.resolve();
  /** First failure not reported yet. */
  private failure: unknown = undefined;

  /**
   * @param maxBytes Bound on the bytes queued (a chunk larger than it is still queued alone).
   * @param maxChunks Bound on the chunks queued.
   * @param writesInFlight Batches of file writes in flight at once (at least 1).
   */
  constructor(
    readonly maxBytes: number,
    private readonly start: StartStore,
    private readonly maxChunks = Infinity,
    private readonly writesInFlight = WRITES_IN_FLIGHT,
  ) {}

  /** True while chunks are queued (encoding, being written, or waiting to be stored) or a failure is unreported. */
  get busy(): boolean {
    return this.head < this.entries.length || this.failure !== undefined;
  }

  /** True when a chunk with key `key` (coordinates joined by commas) is queued. */
  has(key: string): boolean {
    return this.keys.has(key);
  }

  /**
   * Queues a chunk holding `bytes`: first stores the chunks already encoded at the head (starting
   * their writes) and, while the queue would exceed its bounds, waits for the oldest ones and
   * stores them (back-pressure); then starts `encode` and returns without waiting for it.
   * @throws the failure of an earlier queued chunk (this chunk is then neither encoded nor queued).
   */
  async add(coords: readonly number[], bytes: number, encode: () => Promise<ChunkImage>, holder?: Holder): Promise<void> {
    await this.storeWhile(() => this.head < this.entries.length && (this.queuedBytes + bytes > this.maxBytes || this.entries.length - this.head >= this.maxChunks));
    holder?.hold();
    let image: Promise<ChunkImage>;
    try {
      image = encode();
    } catch (err) {
      image = Promise.reject(err);
    }
    const key = coords.join(',');
    const e: Entry = { holder, coords, key, bytes, image, done: false, encoded: undefined, failed: undefined, dropped: false, write: undefined, batch: undefined, written: undefined, error: undefined };
    this.keys.set(key, (this.keys.get(key) ?? 0) + 1);
    image.then(
      (img) => {
        e.encoded = img;
        e.done = true;
      },
      (error: unknown) => {
        e.failed = { error };
        e.done = true;
      },
    );
    this.entries.push(e);
    this.queuedBytes += bytes;
  }

  /**
   * Stores the chunks at the head whose encoding has finished (starting their writes, recording
   * those written), without waiting for the others; throws the first failure seen (a call that
   * queues nothing still reports an earlier failure).
   */
  async storeEncoded(): Promise<void> {
    if (!this.busy) return;
    await this.storeWhile(() => false);
  }

  /** Stores every queued chunk (waiting for their encoding and writes); throws the first failure seen. */
  async settle(): Promise<void> {
    if (!this.busy) return;
    await this.storeWhile(() => this.head < this.entries.length);
  }

  /**
   * One store step (after the previous one): records the chunks at the head whose writes have
   * finished, starts the writes of the encoded chunks after them (up to the writes in flight), and
   * while `wait()` waits for the oldest write or encoding and goes on; then reports a failure.
   */
  private async storeWhile(wait: () => boolean): Promise<void> {
    const run = this.storing.then(async () => {
      for (;;) {
        if (!(await this.recordWritten()) || !(await this.startEncoded())) {
          await this.unwind();
          break;
        }
        if (!wait()) break;
        const next = this.nextEvent();
        if (!next) break;
        await next;
      }
      if (this.head === this.entries.length) {
        this.entries = [];
        this.head = 0;
        this.next = 0;
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

  /**
   * Records (in order) the chunks at the head whose writes have finished and removes them, and the
   * chunks at the head whose encoding failed. False when a write or its record failed.
   */
  private async recordWritten(): Promise<boolean> {
    while (this.head < this.next) {
      const e = this.entries[this.head]!;
      if (!e.dropped) {
        if (e.written === undefined) return true; // still in flight
        if (!e.written) {
          this.failure ??= e.error;
          return false;
        }
        try {
          await e.write!.finish();
        } catch (err) {
          this.failure ??= err;
          e.written = false; // not recorded: its new space is given back by unwind, and it is stored again later
          return false;
        }
        this.writing.delete(e.key);
        this.closeWrite(e);
      }
      this.entries[this.head++] = undefined as never;
      this.release(e);
    }
    return true;
  }

  /**
   * Starts the writes of the encoded chunks after the started ones, in order: those encoded one
   * after the other go as one batch (`start` places them in turn and writes runs of adjacent places
   * with one I/O), up to the batches in flight (a chunk whose earlier write is not recorded yet
   * waits for it). A chunk whose encoding failed is dropped (the failure kept for the report). False
   * when placing a chunk failed (the chunks before it in its batch are written).
   */
  private async startEncoded(): Promise<boolean> {
    while (this.next < this.entries.length && this.batches < this.writesInFlight) {
      const first = this.entries[this.next]!;
      if (!first.done || this.writing.has(first.key)) return true;
      if (first.failed) {
        // an encoding failure is final: the chunk is dropped, the failure reported
        this.failure ??= first.failed.error;
        first.dropped = true;
        if (this.head === this.next) {
          // at the head: it goes at once (else when the writes before it are recorded)
          this.entries[this.head++] = undefined as never;
          this.release(first);
        }
        this.next++;
        continue;
      }
      const batch: Entry[] = [first];
      for (let i = this.next + 1; i < this.entries.length && batch.length < BATCH_CHUNKS; i++) {
        const e = this.entries[i]!;
        if (!e.done || e.failed || this.writing.has(e.key) || batch.some((b) => b.key === e.key)) break;
        batch.push(e);
      }
      let started: StartedWrites;
      try {
        started = await this.start(batch.map((e) => ({ coords: e.coords, image: e.encoded! })));
      } catch (err) {
        started = { writes: [], failure: { error: err } };
      }
      const b: Batch = { open: started.writes.length };
      if (b.open > 0) this.batches++;
      for (let k = 0; k < started.writes.length; k++) {
        const e = batch[k]!;
        const w = started.writes[k]!;
        e.write = w;
        e.batch = b;
        e.written = undefined;
        this.writing.add(e.key);
        w.done.then(
          () => void (e.written = true),
          (err: unknown) => {
            e.written = false;
            e.error = err;
          },
        );
        this.next++;
      }
      if (started.failure) {
        this.failure ??= started.failure.error; // its place was refused: it stays queued, to be stored by the next call
        return false;
      }
    }
    return true;
  }

  /** Entry `e`'s write is recorded or given up: its batch no longer counts when it was the last of it. */
  private closeWrite(e: Entry): void {
    e.write = undefined;
    if (e.batch && --e.batch.open === 0) this.batches--;
    e.batch = undefined;
  }

  /**
   * After a failure: waits for the writes in flight, records (in order) those that were written,
   * and keeps the others queued before the chunks not started yet, their new space given back:
   * they are placed and written again by the next call or flush. Chunks recorded past a failed one
   * are other chunks (a chunk is never written twice at once), so the file holds the result of
   * storing the queue in some order that leaves the failed chunks out.
   */
  private async unwind(): Promise<void> {
    for (let i = this.head; i < this.next; i++) await this.entries[i]!.write?.done.catch(() => undefined);
    const kept: Entry[] = [];
    for (let i = this.head; i < this.next; i++) {
      const e = this.entries[i]!;
      this.entries[i] = undefined as never;
      const w = e.write;
      if (w) {
        let ok = e.written === true;
        if (ok) {
          try {
            await w.finish();
          } catch (err) {
            this.failure ??= err;
            ok = false;
          }
        } else if (e.error !== undefined) this.failure ??= e.error;
        if (!ok) w.abandon();
        this.writing.delete(e.key);
        this.closeWrite(e);
        e.written = undefined;
        e.error = undefined;
        if (!ok) {
          kept.push(e);
          continue;
        }
      }
      this.release(e);
    }
    this.entries = [...kept, ...this.entries.slice(this.next)];
    this.head = 0;
    this.next = 0;
  }

  /** What to wait for next: the oldest write in flight, or the encoding of the next chunk to start. */
  private nextEvent(): Promise<unknown> | undefined {
    const waits: Promise<unknown>[] = [];
    const h = this.entries[this.head];
    if (this.head < this.next && h?.write) waits.push(h.write.done);
    const n = this.entries[this.next];
    // (encoded since it was looked at: no wait; one whose earlier write is not recorded waits for the head)
    if (n && this.batches < this.writesInFlight && !this.writing.has(n.key)) waits.push(n.image);
    if (waits.length === 0) return undefined;
    return Promise.race(waits).catch(() => undefined);
  }

  /** Lets go of entry `e`, stored or dropped (taken out of {@link entries} by the caller). */
  private release(e: Entry): void {
    e.holder?.drop();
    this.queuedBytes -= e.bytes;
    const n = this.keys.get(e.key)!;
    if (n > 1) this.keys.set(e.key, n - 1);
    else this.keys.delete(e.key);
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
