/**
 * The chunk engine: the {@link ChunkReader} plus the write flows of docs/architecture.md §4 for every
 * chunk format alike — writing selections into chunks (whole chunks encoded in the background),
 * flushing cached chunks, erasing, direct chunk writes and resize pruning. Nothing here asks what
 * kind of chunk it handles.
 * @module
 */
import { ValueError } from '../errors.js';
import { ChunkPlacement } from './placement.js';
import { chunksForThreads, inParallel } from './in-parallel.js';
import { mapToChunks } from './mapping.js';
import { rowPieces } from './row-pieces.js';
import type { Selection } from '../selection/selection.js';
import type { ChunkImage, ChunkRequest } from './chunk-format.js';
import { GATHER_BYTES, GATHER_IMAGE_MAX, writeFullChunks, writePlaced, type Placed } from './gather.js';
import { chunkParts, installDefinedReads } from './defined.js';
import { filledBytes } from '../storage/flat-runs.js';
import { offsetSelection } from '../selection/algebra.js';
import { defaultBackgroundBytes, ownedCopy, queuedChunks, WriteQueue, type Holder } from './write-queue.js';
import { pipelineOffload } from '../filter/offload.js';
import { laneOf } from './object-lane.js';
import { chunkBytes, ChunkReader, type ChunkEngineOptions } from './chunk-reader.js';

export type { ChunkStore } from './chunk-format.js';
export type { ChunkEngineOptions } from './chunk-reader.js';

/** The holder of queued chunks that hold nothing of a caller's (their own memory, or a call's own request buffer). */
const KEPT: Holder = { hold() {}, drop() {} };

/** Dirty chunks a flush encodes ahead of the one it places. */
const FLUSH_AHEAD = 8;

/** Moves data between user buffers and the chunks of one dataset. */
export class ChunkEngine<Mem> extends ChunkReader<Mem> {
  /** Space, index records and error context of this dataset's chunks. */
  protected declare readonly p: ChunkPlacement;
  /** Dirty chunks a flush encodes ahead (more for many filter threads: `chunksForThreads`). */
  private readonly flushAhead: number;
  /** Highest chunk coordinate in dimension 0 that the last write touched ({@link passOn}). */
  private front = Infinity;

  constructor(o: ChunkEngineOptions<Mem>) {
    super(o, new ChunkPlacement(o));
    // a writable file's datasets read defined elements whatever registered their format
    installDefinedReads();
    const bytes = chunkBytes(o);
    const threads = pipelineOffload()?.threads ?? 1;
    this.flushAhead = chunksForThreads(FLUSH_AHEAD, bytes, threads);
    const bg = o.backgroundBytes === 'auto' ? defaultBackgroundBytes(bytes, threads) : (o.backgroundBytes ?? 0);
    this.queue = bg > 0 ? new WriteQueue(bg, (items) => this.p.startMany(items), queuedChunks(threads)) : null;
  }

  /** Writes `src` (the elements of `sel` in selection order) into the chunks. */
  async write(sel: Selection, src: Uint8Array): Promise<void> {
    const { format } = this.o;
    const gathered = format.fullImages !== undefined && format.imageSize !== undefined && !format.variableSize;
    // Gathered full chunks are built from row patterns where the mapping finds them (no run lists).
    const pieces = mapToChunks(sel, [...this.o.dims()], [...this.o.chunkDims], gathered ? { piece: rowPieces } : {});
    const q = this.queue;
    if (q && !gathered) await this.passOn(pieces);
    // A chunk still queued is stored before this call changes it (or rewrites its space); else only
    // the encoded chunks at the queue's head are stored, and an earlier failure is thrown here.
    if (q?.busy) await (pieces.some((p) => q.has(p.coords.join(','))) ? q.settle() : q.storeEncoded());
    if (gathered && format.imageSize) {
      await this.settle();
      // Full chunks not in the cache are gathered in groups and chunks adjacent in the file (new
      // chunks are allocated together) written with one I/O; partial and cached chunks take the ordinary path.
      await writeFullChunks(this.o, this.p, pieces, src, format.imageSize, {
        wanted: (req) => this.o.cache.get(req.coords.join(',')) !== undefined,
        write: (req) => this.p.guard(req.coords, () => this.writePiece(req, src)),
      });
      return;
    }
    // Background encoding for calls up to the queue's bound: the chunks built from `src` must not
    // borrow the caller's buffer, which is the caller's again when this call returns. A request
    // buffer carrying an object lane is the call's own, and its values are moved into chunks
    // within the call (memWrite / fromRequest): no copy, and no bound on its placeholder bytes.
    const lane = laneOf(src) !== undefined;
    const later = q !== null && (lane || src.length <= q.maxBytes);
    const copy = later && !lane && pieces.some((p) => p.full) ? ownedCopy(src) : null;
    const own = copy ? copy.bytes : src;
    const holder: Holder | undefined = later ? (copy?.holder ?? KEPT) : undefined;
    try {
      await inParallel(pieces, this.concurrency, (req) => this.p.guard(req.coords, () => this.writePiece(req, own, holder)));
    } finally {
      copy?.holder.drop(); // this call's hold: the buffer is reused once the queued chunks are stored too
    }
  }
  /**
   * Hands the dirty cached chunks that a write moving on along dimension 0 has left behind (chunk
   * coordinate 0 below every chunk of `pieces`, as each frame of a stream leaves the previous
   * frame's chunks) to the write queue: they are encoded behind the caller at once (bounded by the
   * queue's bytes), not when the cache overflows or at flush. Small chunks (up to
   * {@link GATHER_IMAGE_MAX}, e.g. point hits) stay cached: a flush writes them together, one I/O
   * per run of neighbours, and their encoding gains little from threads. Looked at only when the
   * write starts past the chunks the previous write touched. Runs before the write checks for queued chunks it
   * touches, so a chunk written again after it was handed on is stored first and read back: this
   * changes when chunks are encoded, never what a call sees. A chunk leaves the cache only once
   * queued: when queueing throws (an earlier failure), it stays cached and dirty.
   */
  private async passOn(pieces: readonly ChunkRequest[]): Promise<void> {
    // (blocks map to pieces in chunk order: the first has the lowest coordinate 0, the last the highest;
    // for points, grouped in buffer order, this is a guess, and a chunk handed on that they touch is stored first)
    const low = pieces[0]?.coords[0] ?? -1;
    const front = this.front;
    this.front = pieces[pieces.length - 1]?.coords[0] ?? front;
    if (low <= front) return;
    for (const e of [...this.o.cache.all()]) {
      if (e.dirty && e.bytes > GATHER_IMAGE_MAX && e.coords[0]! < low) {
        await this.p.guard(e.coords, () => this.storeMem(e.coords, e.mem, KEPT));
        this.o.cache.delete(e.key);
      }
    }
  }
  /**
   * Writes every dirty cached chunk (docs/architecture.md §4 "flush without evict"). Small images (e.g. the
   * sparse chunks of point hits, a few KB each) get their space first and are then written in
   * runs of adjacent addresses, one I/O per run, before they are recorded in the index.
   * `last` (the file is closing): no chunk is used afterwards, so the format may reuse the buffers
   * of each one it encoded, and the cache is emptied.
   */
  async flush(last = false): Promise<void> {
    const { format } = this.o;
    await this.settle();
    let batch: Placed[] = [];
    let batchBytes = 0;
    // Chunks are encoded a few ahead of the one being placed (on the filter threads at once), and
    // placed and written in cache order as before.
    const dirty = [...this.o.cache.dirty()];
    const encodes: (Promise<ChunkImage> | undefined)[] = [];
    const ahead = (i: number): void => {
      const e = dirty[i];
      if (!e || encodes[i] || format.isEmpty?.(e.mem)) return;
      const p = format.memToFile(e.mem, e.coords, last);
      p.catch(() => undefined); // awaited (and its error thrown) in its turn
      encodes[i] = p;
    };
    for (let i = 0; i < this.flushAhead; i++) ahead(i);
    for (let i = 0; i < dirty.length; i++) {
      const e = dirty[i]!;
      ahead(i + this.flushAhead);
      await this.p.guard(e.coords, async () => {
        if (format.isEmpty?.(e.mem)) {
          await this.storeMem(e.coords, e.mem);
          e.dirty = false;
          return;
        }
        const image = await (encodes[i] ?? format.memToFile(e.mem, e.coords, last));
        encodes[i] = undefined;
        if (image.bytes.length > GATHER_IMAGE_MAX) {
          await this.p.put(e.coords, image);
          e.dirty = false;
          return;
        }
        const { address, old } = await this.p.place(e.coords, image.bytes.length);
        batch.push({ coords: e.coords, image, address, old, written: () => void (e.dirty = false) });
        batchBytes += image.bytes.length;
      });
      if (batchBytes >= GATHER_BYTES) {
        await writePlaced(this.o.store, this.p, batch);
        batch = [];
        batchBytes = 0;
      }
    }
    await writePlaced(this.o.store, this.p, batch);
    if (last) this.o.cache.clear();
  }
  /**
   * True when writing `sel` only rewrites stored fixed-size chunks in place, so the index does not
   * change (what a read-only index still allows). Only fresh chunks (written since the last flush)
   * are rewritten in place: chunks of the last flushed state go to new space (copy-on-write).
   */
  async rewritesInPlace(sel: Selection): Promise<boolean> {
    await this.settle();
    if (this.o.format.variableSize) return false;
    for (const req of mapToChunks(sel, [...this.o.dims()], [...this.o.chunkDims])) {
      const rec = await this.o.index.lookup(req.coords);
      if (!rec || !this.o.store.isFresh(rec.address, rec.size)) return false;
    }
    return true;
  }
  /**
   * Makes the elements of `sel` undefined (docs/architecture.md §6.1 `H5Derase`). A chunk left without defined
   * elements is removed from the index and its space released.
   */
  async erase(sel: Selection): Promise<void> {
    await this.settle();
    const { format, cache } = this.o;
    if (!format.erase) throw new ValueError(`chunks of format "${format.name}" have no undefined elements: only formats that track defined elements (e.g. sparse) can erase`);
    const dims = [...this.o.dims()];
    const { list, at } = await this.candidates(sel);
    for (const part of chunkParts(sel, dims, this.o.chunkDims, list)) {
      await this.p.guard(part.coords, async () => {
        const key = part.coords.join(',');
        const hit = cache.get(key);
        const mem = hit ? hit.mem : await this.loadMem(part.coords, this.recordOf(part, at));
        format.erase!(mem, part.chunkSel);
        if (hit) hit.dirty = true;
        else await this.storeMem(part.coords, mem);
      });
    }
  }
  /**
   * Writes the fill value over `sel` in chunks that exist (stored or cached); absent chunks read as
   * fill already. Work is proportional to the chunks that exist, not to the chunks `sel` spans.
   */
  async fillExisting(sel: Selection, fill: Uint8Array | null): Promise<void> {
    await this.settle();
    const dims = [...this.o.dims()];
    for (const part of chunkParts(sel, dims, this.o.chunkDims, (await this.candidates(sel)).list)) {
      for (const p of mapToChunks(offsetSelection(part.chunkSel, part.start), dims, [...this.o.chunkDims])) {
        const src = filledBytes(p.count, this.o.elementSize, fill);
        await this.p.guard(p.coords, () => this.writePiece(p, src));
      }
    }
  }
  /** Drops a chunk from the cache (after direct chunk I/O replaced it). Dirty data is discarded. */
  forget(coords: readonly number[]): void {
    this.o.cache.delete(coords.join(','));
  }
  /** Stores a chunk image as given (direct chunk write) and records it in the index. */
  async storeImage(coords: readonly number[], image: ChunkImage): Promise<void> {
    await this.settle();
    this.forget(coords);
    await this.p.put(coords, image);
  }
  /** Removes a chunk entirely (resize pruning), releasing its space. */
  async removeChunk(coords: readonly number[]): Promise<void> {
    await this.settle();
    this.forget(coords);
    await this.p.remove(coords);
  }
  /**
   * `later`: whole chunks (and chunks the cache gives up) may be encoded in the background, holding
   * `later` (what `src` is a copy in) until they are stored.
   */
  private async writePiece(req: ChunkRequest, src: Uint8Array, later?: Holder): Promise<void> {
    const { format, cache, index, store } = this.o;
    const key = req.coords.join(',');
    const hit = cache.get(key);
    if (hit) {
      format.memWrite(hit.mem, req, src);
      hit.dirty = true;
      hit.fullyAccessed = req.full;
      return;
    }
    if (req.full) {
      // Whole chunk: build it from the request and store it now, skipping the cache.
      const mem = format.fromRequest ? format.fromRequest(req, src) : this.filledWith(req, src);
      await this.storeMem(req.coords, mem, later);
      return;
    }
    // Straight into the stored chunk only when its space is fresh; a chunk of the last flushed
    // state is loaded, changed in memory and stored to new space instead.
    const rec = format.fileWrite ? await this.p.forRewrite(req.coords) : await index.lookup(req.coords);
    if (rec && format.fileWrite && store.isFresh(rec.address, rec.size)) {
      await format.fileWrite(rec, req, src, store);
      return;
    }
    // Not queued (write() stored it if it was): loaded without waiting for the queued chunks, so a
    // partial write (a sparse ROI) does not wait for the chunks encoding behind the caller.
    const mem = rec ? await format.fileToMem(await store.read(rec.address, rec.size), rec) : format.fill(req.coords);
    format.memWrite(mem, req, src);
    const bytes = format.memSize(mem);
    if (cache.fits(bytes)) await this.admit({ key, coords: req.coords, mem, bytes, dirty: true, fullyAccessed: false }, later);
    else await this.storeMem(req.coords, mem, later);
  }
  private filledWith(req: ChunkRequest, src: Uint8Array): Mem {
    const mem = this.o.format.fill(req.coords);
    this.o.format.memWrite(mem, req, src);
    return mem;
  }
  /**
   * Encodes a chunk and stores it, reusing its old space when the size is unchanged. A chunk with
   * no defined element (sparse formats) is removed instead: it takes no space. `later`: encoded in
   * the background and stored by a later call (./write-queue.ts); `mem` is then the engine's own.
   * Nothing uses `mem` afterwards (it is not cached): the format may reuse its buffers.
   */
  protected override async storeMem(coords: readonly number[], mem: Mem, later?: Holder): Promise<void> {
    if (later && this.queue && !this.o.format.isEmpty?.(mem)) {
      await this.queue.add(coords, this.o.format.memSize(mem), () => this.o.format.memToFile(mem, coords, true), later);
      return;
    }
    if (this.o.format.isEmpty?.(mem)) {
      await this.p.remove(coords);
      return;
    }
    await this.p.put(coords, await this.o.format.memToFile(mem, coords, true));
  }
}
