/**
 * Reading ahead (issue #11, point groups): while a reader reads a dataset one slab of dimension 0
 * after another (`readDefined` frame by frame, several frames per chunk), the next chunk is looked up,
 * read and decoded — its filters off the calling thread (`FilterContext.background`) — so that it is
 * ready when the reader reaches it. Only for files that do not change (read-only): a chunk decoded
 * ahead is taken only while the chunk index is at the change count it was looked up at and the cache
 * has no other copy of it.
 * @module
 */
import type { ChunkRecord } from './chunk-index.js';
import type { ChunkEngineOptions } from './chunk-reader.js';
import type { ChunkPart } from './defined.js';

/** Options of a chunk decoded ahead of its use (its filters may run off the calling thread). */
const BACKGROUND = { background: true };

/** A chunk decoded ahead: its index record and memory form. */
interface Decoded<Mem> {
  rec: ChunkRecord;
  mem: Mem;
}

/** The read ahead of one dataset's engine. */
export class ReadAhead<Mem> {
  /** The chunk under way: its cache key, the index change count it was looked up at, and the result. */
  private next: { key: string; at: number; done: Promise<Decoded<Mem> | undefined> } | null = null;
  /** Where the last one-chunk read ended in dimension 0 (a read starting there reads on). */
  private lastEnd = -1;

  constructor(
    private readonly o: ChunkEngineOptions<Mem>,
    /** The chunk index's change count now. */
    private readonly changes: () => number,
  ) {}

  /**
   * A read of `part` (one box in one chunk, `box` its chunk-relative corners) was served, from the
   * cache when `cached`. When it starts where the last one ended and its chunk was cached (the reader
   * reads on within a chunk), the chunk after it in dimension 0 starts decoding, unless stored nowhere,
   * cached or under way already. A failure there is dropped: the read that needs the chunk reads it
   * again and reports it.
   */
  readOn(part: ChunkPart & { box: Float64Array }, cached: boolean, dims: readonly number[]): void {
    const from = part.start[0]! + part.box[0]!;
    const on = cached && from === this.lastEnd;
    this.lastEnd = part.start[0]! + part.box[1]!;
    if (!on) return;
    const coords = part.coords.slice();
    coords[0] = coords[0]! + 1;
    if (coords[0] * this.o.chunkDims[0]! >= dims[0]!) return;
    const key = coords.join(',');
    if (this.next?.key === key || this.o.cache.get(key)) return;
    const { index, store, format } = this.o;
    const load = async (): Promise<Decoded<Mem> | undefined> => {
      const rec = await index.lookup(coords);
      return rec ? { rec, mem: await format.fileToMem(await store.read(rec.address, rec.size), rec, BACKGROUND) } : undefined;
    };
    this.next = { key, at: this.changes(), done: load().catch(() => undefined) };
  }

  /**
   * The chunk `key` decoded ahead, when it is under way for the index change count `at` and still
   * current; undefined otherwise (the caller then reads it as usual, which names any error).
   */
  async take(key: string, at: number): Promise<Decoded<Mem> | undefined> {
    const a = this.next;
    if (a?.key !== key) return undefined;
    this.next = null;
    if (a.at !== at) return undefined;
    const got = await a.done;
    return got && this.changes() === at && !this.o.cache.get(key) ? got : undefined;
  }
}
