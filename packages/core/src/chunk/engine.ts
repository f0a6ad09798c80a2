/**
 * The chunk engine: the code flows of docs/architecture.md §4 for every chunk format alike. It maps a
 * selection onto the chunks it touches, finds them in the {@link ChunkIndex}, keeps decoded chunks
 * in the {@link ChunkCache}, reads and writes stored chunks, and calls the {@link ChunkFormat} for
 * everything that concerns a chunk's contents. Nothing here asks what kind of chunk it handles.
 * @module
 */
import { H5Error, ValueError } from '../errors.js';
import { ChunkPlacement } from './placement.js';
import { chunksForThreads, inParallel } from './in-parallel.js';
import { mapChunksAt, mapToChunks } from './mapping.js';
import type { Selection } from '../selection/selection.js';
import type { ChunkIndex, ChunkRecord } from './chunk-index.js';
import type { ChunkFormat, ChunkImage, ChunkRequest, ChunkStore } from './chunk-format.js';
import { GATHER_BYTES, GATHER_IMAGE_MAX, writeFullChunks, writePlaced, type Placed } from './gather.js';
import { ChunkCache, type CacheEntry } from './cache.js';
import { chunkParts, chunksAreSlabs, compareCoords, concatDefinedValues, unionAll, type ChunkPart } from './defined.js';
import { filledBytes, repeatFirst } from '../storage/flat-runs.js';
import { allocBytes } from '../storage/read-limit.js';
import { boundingBox, offsetSelection, selectionCount } from '../selection/algebra.js';
import { findCandidates, MAX_LOOKUPS, type Candidate } from './candidates.js';
import { defaultBackgroundBytes, ownedCopy, WriteQueue, type Holder } from './write-queue.js';
import { pipelineOffload } from '../filter/offload.js';
import { laneOf } from './object-lane.js';

export type { ChunkStore } from './chunk-format.js';

/** Everything one dataset's engine works with. */
export interface ChunkEngineOptions<Mem> {
  path: string;
  index: ChunkIndex;
  format: ChunkFormat<Mem>;
  cache: ChunkCache<Mem>;
  store: ChunkStore;
  chunkDims: readonly number[];
  elementSize: number;
  /** Current dataset dimensions. */
  dims: () => readonly number[];
  /**
   * Background encoding of whole chunks written by calls of at most this many bytes, with this
   * bound on the bytes queued (./write-queue.ts); 0 or absent: every chunk is stored within its
   * call; 'auto': {@link defaultBackgroundBytes} for the chunk size and the filter threads.
   */
  backgroundBytes?: number | 'auto';
}

/** Chunks processed at once by a read or write (I/O and filters overlap; each chunk is touched once)... */
const CONCURRENCY = 8;
/** ...or more small chunks, up to about this many bytes in flight (keeps the filter threads fed). */
const IN_FLIGHT_BYTES = 16 << 20;
/** Upper bound on chunks in flight. */
const MAX_CONCURRENCY = 64;
/** Dirty chunks a flush encodes ahead of the one it places. */
const FLUSH_AHEAD = 8;

/** Moves data between user buffers and the chunks of one dataset. */
export class ChunkEngine<Mem> {
  private fillMem: Mem | undefined;
  /** Space, index records and error context of this dataset's chunks. */
  private readonly p: ChunkPlacement;
  /** Chunks processed at once (more for small chunks and for many filter threads: `chunksForThreads`), and encoded ahead by a flush. */
  private readonly concurrency: number;
  private readonly flushAhead: number;
  /** Chunks encoding behind the caller (null: background writes off). */
  private readonly queue: WriteQueue | null;

  constructor(private readonly o: ChunkEngineOptions<Mem>) {
    this.p = new ChunkPlacement(o);
    const chunkBytes = o.chunkDims.reduce((a, b) => a * b, 1) * o.elementSize;
    const threads = pipelineOffload()?.threads ?? 1;
    this.concurrency = Math.min(MAX_CONCURRENCY, chunksForThreads(Math.max(CONCURRENCY, Math.floor(IN_FLIGHT_BYTES / Math.max(1, chunkBytes))), chunkBytes, threads));
    this.flushAhead = chunksForThreads(FLUSH_AHEAD, chunkBytes, threads);
    const bg = o.backgroundBytes === 'auto' ? defaultBackgroundBytes(chunkBytes, threads) : (o.backgroundBytes ?? 0);
    this.queue = bg > 0 ? new WriteQueue(bg, (coords, image) => this.p.guard(coords, async () => this.p.put(coords, await image))) : null;
  }

  /** True while chunks written earlier are still being encoded or wait to be stored (or a failure is unreported). */
  get hasPending(): boolean {
    return this.queue?.busy === true;
  }

  /**
   * Stores every chunk queued for background encoding (every call but a write starts with it, so
   * it sees the file as if the writes had finished in their calls).
   * @throws the failure of a queued chunk, naming the dataset and chunk (reported once).
   */
  async settle(): Promise<void> {
    if (this.queue?.busy) await this.queue.settle();
  }

  /** The chunk index (for direct chunk I/O and tools). */
  get index(): ChunkIndex {
    return this.o.index;
  }

  /**
   * Reads the elements of `sel` (in selection order) into a new byte buffer, or into `into`
   * (`count × elementSize` bytes; every byte is overwritten) when given.
   */
  async read(sel: Selection, count: number, into?: Uint8Array): Promise<Uint8Array> {
    await this.settle();
    const out = into ?? allocBytes(count * this.o.elementSize, this.o.path);
    const pieces = (await this.storedPieces(sel, out)) ?? mapToChunks(sel, [...this.o.dims()], [...this.o.chunkDims]);
    if (this.o.format.fileReadMany) await this.readBatched(pieces, out, !into);
    // Chunks fill disjoint parts of `out`: overlap their I/O and decoding.
    else await inParallel(pieces, this.concurrency, (req) => this.p.guard(req.coords, () => this.readPiece(req, out)));
    return out;
  }

  /**
   * A read of a mostly absent extent (far more chunks in the selection's reach than exist): `out`
   * filled with the fill value, and the pieces of only the chunks that exist, so the work follows
   * the stored chunks, not the extent (a corrupt or huge dimension over a few chunks). Null when
   * the ordinary per-chunk mapping is as cheap (or the selection is not a product of intervals).
   */
  private async storedPieces(sel: Selection, out: Uint8Array): Promise<ChunkRequest[] | null> {
    // points and unions of boxes are mapped by what they list (bounded by the selection itself)
    if (sel.kind === 'points' || (sel.kind === 'blocks' && sel.boxCount !== 1)) return null;
    const dims = [...this.o.dims()];
    const chunk = this.o.chunkDims;
    const bb = boundingBox(sel, dims);
    if (!bb || dims.length === 0) return null;
    let inRange = 1;
    for (let i = 0; i < dims.length; i++) inRange *= Math.ceil(bb.end[i]! / chunk[i]!) - Math.floor(bb.start[i]! / chunk[i]!);
    if (inRange <= MAX_LOOKUPS) return null;
    const have = (await this.candidates(sel)).list;
    if (have.length * 2 >= inRange) return null;
    const pieces = mapChunksAt(sel, dims, chunk, have.map((c) => c.coords).sort(compareCoords));
    if (!pieces) return null;
    // The fill value: element 0 of a never-written chunk, as the format reads it, repeated over `out`.
    const es = this.o.elementSize;
    this.fillMem ??= this.o.format.fill(chunk.map(() => 0));
    if (out.length >= es) {
      this.o.format.memRead(this.fillMem, { coords: chunk.map(() => 0), runs: Float64Array.of(0, 0, 1), count: 1, full: false }, out);
      repeatFirst(out, es);
    }
    return pieces;
  }

  /** Writes `src` (the elements of `sel` in selection order) into the chunks. */
  async write(sel: Selection, src: Uint8Array): Promise<void> {
    const pieces = mapToChunks(sel, [...this.o.dims()], [...this.o.chunkDims]);
    const { format } = this.o;
    const q = this.queue;
    // A chunk still queued is stored before this call changes it (or rewrites its space).
    if (q?.busy && pieces.some((p) => q.has(p.coords.join(',')))) await q.settle();
    if (format.fullImages && format.imageSize && !format.variableSize) {
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
    const holder: Holder | undefined = later ? (copy?.holder ?? { hold() {}, drop() {} }) : undefined;
    try {
      await inParallel(pieces, this.concurrency, (req) => this.p.guard(req.coords, () => this.writePiece(req, own, holder)));
    } finally {
      copy?.holder.drop(); // this call's hold: the buffer is reused once the queued chunks are stored too
    }
  }

  /**
   * Reads for formats with `fileReadMany`: cached and never-written chunks are served here, all
   * stored ones go to the format in one batch (which coalesces I/O of chunks adjacent in the file).
   * `freshOutput`: `out` was allocated by this read.
   */
  private async readBatched(pieces: readonly ChunkRequest[], out: Uint8Array, freshOutput: boolean): Promise<void> {
    const { format, cache, index, store } = this.o;
    const stored: { rec: ChunkRecord; req: ChunkRequest }[] = [];
    for (const req of pieces) {
      const hit = cache.get(req.coords.join(','));
      if (hit) {
        format.memRead(hit.mem, req, out);
        hit.fullyAccessed = req.full;
        continue;
      }
      let rec: ChunkRecord | null;
      try {
        rec = await index.lookup(req.coords);
      } catch (e) {
        throw this.p.named(req.coords, e);
      }
      if (rec) stored.push({ rec, req });
      else {
        this.fillMem ??= format.fill(req.coords);
        format.memRead(this.fillMem, req, out);
      }
    }
    if (stored.length === 0) return;
    try {
      await format.fileReadMany!(stored, out, store, { freshOutput });
    } catch (e) {
      if (!(e instanceof H5Error)) throw e;
      // Chunk by chunk again, so that the error names the chunk at fault (if every chunk reads
      // fine one by one, `out` is complete and the read succeeds).
      for (const { rec, req } of stored) await this.p.guard(req.coords, () => this.readStored(rec, req, out));
    }
  }

  /**
   * Writes every dirty cached chunk (docs/architecture.md §4 "flush without evict"). Small images (e.g. the
   * sparse chunks of point hits, a few KB each) get their space first and are then written in
   * runs of adjacent addresses, one I/O per run, before they are recorded in the index.
   */
  async flush(): Promise<void> {
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
      const p = format.memToFile(e.mem, e.coords);
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
        const image = await (encodes[i] ?? format.memToFile(e.mem, e.coords));
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

  /** True when the chunk format distinguishes defined from undefined elements (sparse formats). */
  get tracksDefined(): boolean {
    return typeof this.o.format.defined === 'function';
  }

  /**
   * The defined elements within `sel` (docs/architecture.md §6.1 `H5Dget_defined`): the union, over the stored and
   * cached chunks that `sel` touches, of what the format reports. Dense formats: `sel` itself.
   */
  async defined(sel: Selection): Promise<Selection> {
    await this.settle();
    const { format } = this.o;
    if (!format.defined) return sel;
    const dims = [...this.o.dims()];
    const found: Selection[] = [];
    const { list, at } = await this.candidates(sel);
    for (const part of chunkParts(sel, dims, this.o.chunkDims, list)) {
      await this.p.guard(part.coords, async () => {
        const mem = await this.loadMem(part.coords, this.recordOf(part, at));
        found.push(offsetSelection(format.defined!(mem, part.chunkSel), part.start));
      });
    }
    return unionAll(found, dims);
  }

  /**
   * The defined elements within `sel` and their values (bytes in the selection's C order), reading
   * each chunk once, when the chunks span the dataset in every dimension but the first: each chunk
   * is then one slab of dimension 0, so the union of the chunks' parts is their concatenation and its
   * C order the chunks' order. Undefined when that does not hold or the format cannot do it in one
   * pass (the caller then reads {@link defined} and the values).
   */
  async readDefined(sel: Selection): Promise<{ selection: Selection; bytes: Uint8Array } | undefined> {
    await this.settle();
    const { format, chunkDims } = this.o;
    const dims = [...this.o.dims()];
    if (!format.definedValues || !chunksAreSlabs(dims, chunkDims)) return undefined;
    const { list, at } = await this.candidates(sel);
    const parts = chunkParts(sel, dims, chunkDims, list);
    return concatDefinedValues(parts, dims, chunkDims, (p) => this.p.guardValue(p.coords, async () => format.definedValues!(await this.loadPart(p, at), p.chunkSel)));
  }

  /**
   * A chunk for a part of `readDefined`: a stored chunk read only in part is kept in the cache, as
   * partial reads keep theirs (a chunk of several frames read frame by frame is decoded once).
   */
  private async loadPart(part: ChunkPart, at: number): Promise<Mem> {
    const { cache, format, chunkDims } = this.o;
    const key = part.coords.join(',');
    const hit = cache.get(key);
    if (hit) return hit.mem;
    const rec = this.recordOf(part, at);
    const mem = await this.loadMem(part.coords, rec);
    const whole = chunkDims.reduce((n, c, d) => n * Math.min(c, this.o.dims()[d]! - part.start[d]!), 1);
    if (rec !== null && selectionCount(part.chunkSel, chunkDims) < whole && !format.isEmpty?.(mem)) {
      await this.admit({ key, coords: part.coords, mem, bytes: format.memSize(mem), dirty: false, fullyAccessed: false });
    }
    return mem;
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

  /**
   * Stored or cached chunks that may hold data within `sel`, with their index records and the
   * placement's change count they were found at (see {@link recordOf}).
   */
  private async candidates(sel: Selection): Promise<{ list: Candidate[]; at: number }> {
    const at = this.p.changes;
    const list = await findCandidates({ index: this.o.index, cache: this.o.cache, chunkDims: this.o.chunkDims, guard: (c, fn) => this.p.guard(c, fn) }, sel, this.o.dims());
    return { list, at };
  }

  /**
   * A part's record from the candidate search when the index has not changed since (a concurrent
   * read may have written out an evicted chunk meanwhile); undefined makes `loadMem` look it up.
   */
  private recordOf(part: ChunkPart, at: number): ChunkRecord | null | undefined {
    return this.p.changes === at ? part.rec : undefined;
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

  /** The memory form of a chunk: cached, stored, or fill. */
  async loadMem(coords: readonly number[], rec?: ChunkRecord | null): Promise<Mem> {
    await this.settle();
    const hit = this.o.cache.get(coords.join(','));
    if (hit) return hit.mem;
    const r = rec === undefined ? await this.o.index.lookup(coords) : rec;
    if (!r) return this.o.format.fill(coords);
    return this.o.format.fileToMem(await this.o.store.read(r.address, r.size), r);
  }

  private async readPiece(req: ChunkRequest, out: Uint8Array): Promise<void> {
    const { format, cache, index } = this.o;
    const key = req.coords.join(',');
    const hit = cache.get(key);
    if (hit) {
      format.memRead(hit.mem, req, out);
      hit.fullyAccessed = req.full;
      return;
    }
    const rec = await index.lookup(req.coords);
    if (!rec) {
      this.fillMem ??= format.fill(req.coords);
      format.memRead(this.fillMem, req, out);
      return;
    }
    await this.readStored(rec, req, out);
  }

  /** Reads a stored chunk's part of a request (straight from the file when the format can). */
  private async readStored(rec: ChunkRecord, req: ChunkRequest, out: Uint8Array): Promise<void> {
    const { format, store } = this.o;
    if (format.fileRead) {
      // Straight from the file: no decode, no cache (docs/architecture.md §4, "read skipping the cache").
      await format.fileRead(rec, req, out, store);
      return;
    }
    const mem = await format.fileToMem(await store.read(rec.address, rec.size), rec);
    format.memRead(mem, req, out);
    // A chunk read in full is not expected again soon: only partially read chunks are cached.
    if (!req.full) await this.admit({ key: req.coords.join(','), coords: req.coords, mem, bytes: format.memSize(mem), dirty: false, fullyAccessed: false });
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
    const mem = await this.loadMem(req.coords, rec);
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

  /** Puts an entry in the cache and writes out the dirty chunks it displaced (`later`: in the background). */
  private async admit(e: CacheEntry<Mem>, later?: Holder): Promise<void> {
    for (const out of this.o.cache.put(e)) {
      if (out.dirty) await this.storeMem(out.coords, out.mem, later);
    }
  }

  /**
   * Encodes a chunk and stores it, reusing its old space when the size is unchanged. A chunk with
   * no defined element (sparse formats) is removed instead: it takes no space. `later`: encoded in
   * the background and stored by a later call (./write-queue.ts); `mem` is then the engine's own.
   */
  private async storeMem(coords: readonly number[], mem: Mem, later?: Holder): Promise<void> {
    if (later && this.queue && !this.o.format.isEmpty?.(mem)) {
      await this.queue.add(coords, this.o.format.memSize(mem), () => this.o.format.memToFile(mem, coords), later);
      return;
    }
    if (this.o.format.isEmpty?.(mem)) {
      await this.p.remove(coords);
      return;
    }
    await this.p.put(coords, await this.o.format.memToFile(mem, coords));
  }
}
