/**
 * Reading ahead (issue #11, point groups): while a reader reads a dataset one slab of dimension 0
 * after another (`readDefined` frame by frame, several frames per chunk), the next chunk is looked
 * up, read and handed to the format's `decodeAhead`, whose filters run on other threads (Node: zlib
 * on libuv's thread pool) while the calling thread serves the frames of the current chunk.
 *
 * Frames served from the cache resolve in microtasks only, so the event loop — which delivers the
 * file read and then starts the filters — turns only when the reader next waits: the next chunk is
 * therefore started when the reader loads a chunk (while that load waits for its own I/O), and taking
 * a chunk decoded ahead waits until the reads of the others under way have completed and their
 * filters have started. Only for files that do not change (read-only): a chunk decoded ahead is taken
 * only while the chunk index is at the change count it was started at and the cache holds no copy of it.
 * @module
 */
import type { ChunkRecord } from './chunk-index.js';
import type { ChunkEngineOptions } from './chunk-reader.js';
import type { ChunkPart } from './defined.js';

/** A chunk decoded ahead: its index record and memory form. */
export interface DecodedAhead<Mem> {
  rec: ChunkRecord;
  mem: Mem;
}

/** One chunk under way. */
interface Ahead<Mem> {
  /** The index change count it was started at. */
  at: number;
  /** Settles once its stored bytes are read and its decode started (or it ended). */
  started: Promise<void>;
  /** The decoded chunk; undefined when not stored or when anything failed (the reader's own load names it). */
  done: Promise<DecodedAhead<Mem> | undefined>;
}

/** Chunks under way at most (the one being reached and the one after it). */
const MAX_AHEAD = 2;

/** The read ahead of one dataset's reader. */
export class ReadAhead<Mem> {
  /** Chunks under way by cache key, oldest first. */
  private readonly under = new Map<string, Ahead<Mem>>();
  /** Where the last one-chunk read ended in dimension 0 (a read starting there reads on). */
  private lastEnd = -1;
  /** Dimension-0 chunk coordinate whose next chunk was last looked at while reading on from the cache (looked at once per chunk). */
  private looked = -1;

  constructor(
    private readonly o: ChunkEngineOptions<Mem>,
    /** The chunk index's change count now. */
    private readonly changes: () => number,
  ) {}

  /**
   * A read of `part` (one box in one chunk) is about to be served, from the cache when `cached`.
   * When it starts where the last one ended (the reader reads on) or it loads its chunk from the
   * chunk's first slab, the chunk after it in dimension 0 starts decoding, unless it is beyond the
   * dataset, cached or under way already.
   */
  readOn(part: ChunkPart, cached: boolean, dims: readonly number[]): void {
    const sel = part.chunkSel;
    if (sel.kind !== 'blocks' || !this.o.format.decodeAhead) return;
    const from = part.start[0]! + sel.boxes[0]!;
    const on = from === this.lastEnd || (!cached && sel.boxes[0] === 0);
    this.lastEnd = part.start[0]! + sel.boxes[1]!;
    // (a chunk's next is looked at on its load and once more while reading on from the cache)
    if (!on || (cached && part.coords[0] === this.looked)) return;
    this.looked = cached ? part.coords[0]! : -1;
    const coords = part.coords.slice();
    coords[0] = coords[0]! + 1;
    if (coords[0] * this.o.chunkDims[0]! >= dims[0]!) return;
    const key = coords.join(',');
    if (this.under.has(key) || this.o.cache.get(key)) return;
    if (this.under.size >= MAX_AHEAD) this.under.delete(this.under.keys().next().value!);
    this.under.set(key, this.start(coords));
  }

  /** Looks the chunk up, reads it and starts its decode. */
  private start(coords: number[]): Ahead<Mem> {
    const { index, store, format } = this.o;
    let started!: () => void;
    const a: Ahead<Mem> = {
      at: this.changes(),
      started: new Promise<void>((r) => (started = r)),
      done: (async () => {
        try {
          const rec = await index.lookup(coords);
          if (!rec) return undefined;
          const job = format.decodeAhead!(await store.read(rec.address, rec.size), rec);
          started();
          return { rec, mem: await job };
        } finally {
          started();
        }
      })().catch(() => undefined),
    };
    return a;
  }

  /**
   * Waits until the chunks under way have been read and their decodes started: the caller is about
   * to read on from the cache without turning the event loop, which would leave them unstarted.
   */
  async started(): Promise<void> {
    for (const a of this.under.values()) await a.started;
  }

  /**
   * The chunk `key` decoded ahead, when it is under way for the index change count `at` and still
   * current; undefined otherwise (the caller then reads it as usual, which names any error).
   */
  async take(key: string, at: number): Promise<DecodedAhead<Mem> | undefined> {
    const a = this.under.get(key);
    if (!a) return undefined;
    this.under.delete(key);
    if (a.at !== at) return undefined;
    const got = await a.done;
    return got && this.changes() === at && !this.o.cache.get(key) ? got : undefined;
  }
}
