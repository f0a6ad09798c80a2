/**
 * The chunk reader: the read flows of docs/architecture.md §4 for every chunk format alike. It maps a
 * selection onto the chunks it touches, finds them in the {@link ChunkIndex}, keeps decoded chunks
 * in the {@link ChunkCache}, reads stored chunks, and calls the {@link ChunkFormat} for everything
 * that concerns a chunk's contents. `ChunkEngine` (./engine.ts) adds the writes; a read-only file
 * (`@chunkform/core/read`) uses the reader alone, so the write path stays out of its bundle.
 * @module
 */
import { H5Error, InvalidStateError } from '../errors.js';
import { ChunkGuard } from './guard.js';
import { chunksForThreads, inParallel } from './in-parallel.js';
import { mapChunksAt, mapToChunks } from './mapping.js';
import { rowPieces } from './row-pieces.js';
import type { Selection } from '../selection/selection.js';
import type { ChunkIndex, ChunkRecord } from './chunk-index.js';
import type { ChunkFormat, ChunkRequest, ChunkStore } from './chunk-format.js';
import type { ChunkCache, CacheEntry } from './cache.js';
import type { ChunkPart } from './defined.js';
import { definedWalks } from './defined-walks.js';
import { compareCoords } from './chunk-grid.js';
import { repeatFirst } from '../storage/flat-runs.js';
import { allocBytes } from '../storage/read-limit.js';
import { boundingBox, offsetSelection, selectionCount, toBlocks } from '../selection/algebra.js';
import { findCandidates, MAX_LOOKUPS, type Candidate } from './candidates.js';
import type { Holder, WriteQueue } from './write-queue.js';
import { pipelineOffload } from '../filter/offload.js';
import { isShared, sharedInput } from '../filter/decode-into.js';
import { copyStaged, releaseStage, takeStage, useShared } from './shared-stage.js';
import { ReadAhead } from './read-ahead.js';
import type { DefinedRead } from '../storage/dataset-storage.js';

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
  /**
   * The index and the chunks never change (a read-only file): `readDefined` reading one slab of
   * dimension 0 after another (frame by frame) has the next chunk decoded ahead (./read-ahead.ts).
   */
  readAhead?: boolean;
}

/** Chunks processed at once by a read or write (I/O and filters overlap; each chunk is touched once)... */
const CONCURRENCY = 8;
/** ...or more small chunks, up to about this many bytes in flight (keeps the filter threads fed). */
const IN_FLIGHT_BYTES = 16 << 20;
/** Upper bound on chunks in flight. */
const MAX_CONCURRENCY = 64;
/** Stored bytes beyond twice the chunk's raw size that a chunk read into shared memory may have (filter headers). */
const SHARED_INPUT_SLACK = 64 << 10;
/** Bytes of one chunk's elements. @internal */
export function chunkBytes(o: ChunkEngineOptions<unknown>): number {
  return o.chunkDims.reduce((a, b) => a * b, 1) * o.elementSize;
}

/** Moves data from the chunks of one dataset into user buffers. */
export class ChunkReader<Mem> {
  /** @internal */
  protected fillMem: Mem | undefined;
  /** Error context and the count of chunk index changes (`ChunkEngine`: also placement). */
  protected readonly p: ChunkGuard;
  /** Chunks processed at once (more for small chunks and for many filter threads: `chunksForThreads`). */
  protected readonly concurrency: number;
  /** Chunks encoding behind the caller (`ChunkEngine`; null: background writes off). */
  protected queue: WriteQueue | null = null;
  /** Decodes the next chunk while a reader reads on frame by frame (read-only files: ./read-ahead.ts). */
  private readonly ahead: ReadAhead<Mem> | null;

  constructor(
    protected readonly o: ChunkEngineOptions<Mem>,
    p?: ChunkGuard,
  ) {
    this.p = p ?? new ChunkGuard(o.path);
    this.ahead = o.readAhead ? new ReadAhead(o, () => this.p.changes) : null;
    const bytes = chunkBytes(o);
    this.concurrency = Math.min(MAX_CONCURRENCY, chunksForThreads(Math.max(CONCURRENCY, Math.floor(IN_FLIGHT_BYTES / Math.max(1, bytes))), bytes, pipelineOffload()?.threads ?? 1));
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
   * (`count × elementSize` bytes; every byte is overwritten) when given. A new buffer may be over a
   * `SharedArrayBuffer` (a large filtered read with filter workers: they decode straight into it,
   * ./shared-stage.ts) unless `ordinary` asks for an ordinary `ArrayBuffer`.
   */
  async read(sel: Selection, count: number, into?: Uint8Array, ordinary?: boolean): Promise<Uint8Array> {
    await this.settle();
    const bytes = count * this.o.elementSize;
    const f = this.o.format;
    // a new result that the filter workers can decode chunks into (./shared-stage.ts)
    const fresh = !into && !f.fileReadMany && !!f.decodeInto;
    const shared = fresh && !ordinary && useShared(bytes);
    const out = into ?? allocBytes(bytes, this.o.path, shared);
    // Batched reads take whole tiles as row patterns (./row-pieces.ts: no run lists built for them).
    const pieces = (await this.storedPieces(sel, out)) ?? mapToChunks(sel, [...this.o.dims()], [...this.o.chunkDims], f.fileReadMany ? { piece: rowPieces } : {});
    if (this.o.format.fileReadMany) await this.readBatched(pieces, out, !into);
    else {
      // A new ordinary result: chunks read in full are decoded by the filter workers into a shared
      // staging area and copied from there (./shared-stage.ts).
      const stage = fresh && !shared ? takeStage(bytes, pieces.length) : null;
      // Chunks fill disjoint parts of `out`: overlap their I/O and decoding.
      await inParallel(pieces, this.concurrency, (req) =>
        this.p.guard(req.coords, async () => {
          if (!stage || !req.full) return this.readPiece(req, out);
          await this.readPiece(req, stage);
          copyStaged(stage, req.runs, out, this.o.elementSize);
        }),
      );
      // (kept for the next read only after a success: after a failure, chunks still in flight may write it)
      if (stage) releaseStage(stage);
    }
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
  /**
   * Reads for formats with `fileReadMany`: cached and never-written chunks are served here, and
   * chunks read in part by formats without `fileRead` (decoded and cached); the other stored ones go
   * to the format in one batch (which coalesces I/O of chunks adjacent in the file).
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
      if (rec && !req.full && !format.fileRead) {
        // a format that reads whole chunks only (no partial `fileRead`): decoded and cached as `readPiece` does
        await this.p.guard(req.coords, () => this.readStored(rec!, req, out));
      } else if (rec) stored.push({ rec, req });
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
    const { chunkParts, unionAll } = definedWalks(format.name, this.o.path);
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
   * pass (the caller then reads {@link defined} and the values). A frame of a cached chunk comes
   * back as it is, not in a promise (less to run per frame before V8 has optimised the path).
   */
  readDefined(sel: Selection): DefinedRead | undefined | Promise<DefinedRead | undefined> {
    if (this.queue?.busy) return this.settle().then(() => this.readDefined(sel));
    const { format, chunkDims } = this.o;
    const dims = this.o.dims();
    if (!format.definedValues) return undefined;
    const walks = definedWalks(format.name, this.o.path);
    if (!walks.chunksAreSlabs(dims, chunkDims)) return undefined;
    const one = walks.oneChunkPart(sel, dims, chunkDims);
    if (!one) return this.readDefinedParts(sel, [...dims]);
    // one box in one chunk (a frame): from the cache without a promise, no candidate search
    const hit = this.o.cache.get(one.coords.join(','));
    this.ahead?.readOn(one, hit !== undefined, dims);
    if (hit) return this.framePart(one, hit.mem, dims.length);
    return this.loadPart(one, this.p.changes).then(
      (mem) => this.framePart(one, mem, dims.length),
      (e: unknown) => {
        throw this.p.named(one.coords, e);
      },
    );
  }
  /** A frame's defined elements (in dataset coordinates) and a copy of their values from its chunk's memory form. */
  private framePart(one: ChunkPart, mem: Mem, rank: number): DefinedRead {
    try {
      const r = this.o.format.definedValues!(mem, one.chunkSel);
      const b = toBlocks(r.selection, this.o.chunkDims);
      return { selection: definedWalks(this.o.format.name, this.o.path).concatSlabs(b.kind === 'none' ? [] : [b.boxes], rank, [one.start]), bytes: r.values.slice() };
    } catch (e) {
      throw this.p.named(one.coords, e);
    }
  }
  /** {@link readDefined} of a selection in several chunks: the parts read (up to four at once) and concatenated. */
  private async readDefinedParts(sel: Selection, dims: number[]): Promise<DefinedRead> {
    const { list, at } = await this.candidates(sel);
    const { chunkParts, concatDefinedValues } = definedWalks(this.o.format.name, this.o.path);
    const parts = chunkParts(sel, dims, this.o.chunkDims, list);
    return concatDefinedValues(parts, dims, this.o.chunkDims, (p) => this.p.guardValue(p.coords, async () => this.o.format.definedValues!(await this.loadPart(p, at), p.chunkSel)));
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
    const got = this.ahead ? await this.ahead.take(key, at) : undefined;
    const rec = got ? got.rec : this.recordOf(part, at);
    const mem = got ? got.mem : await this.loadMem(part.coords, rec);
    await this.ahead?.started();
    const whole = chunkDims.reduce((n, c, d) => n * Math.min(c, this.o.dims()[d]! - part.start[d]!), 1);
    if (rec !== null && selectionCount(part.chunkSel, chunkDims) < whole && !format.isEmpty?.(mem)) {
      await this.admit({ key, coords: part.coords, mem, bytes: format.memSize(mem), dirty: false, fullyAccessed: false });
    }
    return mem;
  }
  /**
   * Stored or cached chunks that may hold data within `sel`, with their index records and the
   * placement's change count they were found at (see {@link recordOf}).
   */
  protected async candidates(sel: Selection): Promise<{ list: Candidate[]; at: number }> {
    const at = this.p.changes;
    const list = await findCandidates({ index: this.o.index, cache: this.o.cache, chunkDims: this.o.chunkDims, guard: (c, fn) => this.p.guard(c, fn) }, sel, this.o.dims());
    return { list, at };
  }
  /**
   * A part's record from the candidate search when the index has not changed since (a concurrent
   * read may have written out an evicted chunk meanwhile); undefined makes `loadMem` look it up.
   */
  protected recordOf(part: ChunkPart, at: number): ChunkRecord | null | undefined {
    return this.p.changes === at ? part.rec : undefined;
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
    let image: Uint8Array;
    // (a stored size far beyond the chunk's is read the ordinary way, which checks it against the file first)
    if (req.full && format.decodeInto && isShared(out) && rec.size <= 2 * chunkBytes(this.o) + SHARED_INPUT_SLACK) {
      // A chunk read in full into a shared result: a filter worker decodes it into its place. From a
      // local file the worker reads the stored bytes itself (this thread only sends the chunk's
      // place); else they are read here straight into a buffer that goes to the worker as it is.
      const stored = store.stored?.(rec.address, rec.size);
      if (stored && (await format.decodeInto(stored, rec, req, out))) return;
      image = sharedInput(rec.size);
      await store.readInto(rec.address, image);
      if (await format.decodeInto(image, rec, req, out)) return;
      // a worker that failed took the buffer along: read again for the decode here (which names the error)
      if (image.length !== rec.size) image = await store.read(rec.address, rec.size);
    } else image = await store.read(rec.address, rec.size);
    const mem = await format.fileToMem(image, rec);
    format.memRead(mem, req, out);
    // A chunk read in full is not expected again soon: only partially read chunks are cached.
    if (!req.full) await this.admit({ key: req.coords.join(','), coords: req.coords, mem, bytes: format.memSize(mem), dirty: false, fullyAccessed: false });
  }
  /** Puts an entry in the cache and writes out the dirty chunks it displaced (`later`: in the background). */
  protected async admit(e: CacheEntry<Mem>, later?: Holder): Promise<void> {
    for (const out of this.o.cache.put(e)) {
      if (out.dirty) await this.storeMem(out.coords, out.mem, later);
    }
  }
  /**
   * Stores a changed chunk: `ChunkEngine` encodes and writes it. A reader never changes a chunk, so
   * its cache never holds one to store.
   */
  protected async storeMem(coords: readonly number[], _mem: Mem, _later?: Holder): Promise<void> {
    throw new InvalidStateError(`chunk [${coords.join(', ')}] of "${this.o.path}" was changed through a read-only chunk reader`);
  }
}
