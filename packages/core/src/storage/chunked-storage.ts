/**
 * Chunked storage (spec IV.A.2.i, layout class 2): the bridge between a dataset and the chunk
 * engine. When the dataset is opened it resolves, from the layout and filter pipeline messages,
 * the chunk index provider, the chunk format provider and the filters registered in the file's
 * container (dependency injection), and keeps the layout message in step with the index.
 * @module
 */
import { H5Error, MissingPluginError, UnsupportedError, ValueError } from '../errors.js';
import type { Datatype } from '../format/messages/datatype.js';
import type { FilterPipeline } from '../format/messages/filter-pipeline.js';
import { encodeLayout, LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS, type ChunkedLayout } from '../format/messages/layout.js';
import type { StructuredChunkLayout } from '../format/messages/layout-structured.js';
import { LAYOUT } from '../format/messages/message-types.js';
import { resolveChunkFormat, resolveChunkIndex, resolveFilter } from '../di/container.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import type { ChunkIndex, ChunkIndexContext, ChunkRecord, StructuredChunkSections } from '../chunk/chunk-index.js';
import { formatKey, KNOWN_FORMAT_PACKAGES, type ChunkImage } from '../chunk/chunk-format.js';
import { ChunkCache, type ChunkCacheOptions } from '../chunk/cache.js';
import type { ObjectValues } from '../chunk/object-lane.js';
import { ChunkEngine } from '../chunk/engine.js';
import type { ChunkStore } from '../chunk/chunk-format.js';
import type { Selection } from '../selection/selection.js';
import { selectAll, selectBlocks } from '../selection/selection.js';
import { intersect, selectionCount, subtract } from '../selection/algebra.js';
import { checkInto, filledBytes } from './flat-runs.js';
import type { DatasetStorage, StorageRead } from './dataset-storage.js';

/** One stored chunk, as direct chunk I/O reports it (h5py's `get_chunk_info`). */
export interface ChunkInfo {
  /** Element offset of the chunk's first element. */
  offset: number[];
  /** Filter mask (bit i: filter i was skipped). */
  filterMask: number;
  /** File address of the stored bytes. */
  address: number;
  /** Stored size in bytes. */
  size: number;
  /** Sparse (structured) chunks: section offsets, and unfiltered sizes + filter masks per section when filtered. */
  sections?: StructuredChunkSections;
}

/** What the chunked storage needs to know about its dataset. */
export interface ChunkedDatasetInfo {
  path: string;
  /** Chunked (class 2) or structured-chunk (class 4: sparse, VL …) layout. */
  layout: ChunkedLayout | StructuredChunkLayout;
  /** The pipeline of ordinary chunks (empty for structured chunks). */
  pipeline: FilterPipeline;
  /** Structured chunks: one pipeline per section. */
  sectionPipelines?: FilterPipeline[];
  /** The dataset's format access options (see `ChunkFormatContext.access`). */
  access?: Readonly<Record<string, unknown>>;
  datatype: Datatype;
  elementSize: number;
  dims: number[];
  maxDims: number[];
  fillValue: Uint8Array | null;
  cache?: ChunkCacheOptions;
}

/** The error for a layout whose chunk format key has no registered provider: names the dataset, the key and the package. */
function missingFormat(layout: ChunkedLayout | StructuredChunkLayout, path: string): MissingPluginError {
  const key = layout.class === 'structured' ? formatKey('structured', layout.chunkType) : formatKey('chunked');
  const pkg = KNOWN_FORMAT_PACKAGES[key];
  const what = layout.class === 'structured' ? `structured chunk type ${layout.chunkType}` : 'chunked';
  return new MissingPluginError(
    `no chunk format for ${what} layouts (key "${key}") is registered; ` +
      (pkg ? `install ${pkg.package} and register its format${pkg.register ? ` (${pkg.register}())` : ''}` : 'register the package that provides it'),
    key,
    pkg?.package,
    { path },
  );
}

/** A chunked dataset's storage. */
export class ChunkedStorage implements DatasetStorage {
  /** False once the cache was seen without dirty chunks and nothing changed since. */
  private maybeDirty = false;

  private constructor(
    private readonly ctx: FileContext,
    private readonly model: HeaderModel,
    private readonly info: ChunkedDatasetInfo,
    private readonly index: ChunkIndex,
    private readonly engine: ChunkEngine<unknown>,
    private readonly cache: ChunkCache<unknown>,
    /** The chunk format's object lane, when its values are not element bytes (chunk/object-lane.ts). */
    readonly objectValues: ObjectValues | undefined,
  ) {}

  /** Resolves index, format and filters for a dataset and opens its index (`create`: a new, empty one). */
  static async open(ctx: FileContext, model: HeaderModel, info: ChunkedDatasetInfo, create = false): Promise<ChunkedStorage> {
    const { layout, pipeline, path } = info;
    const indexType = layout.index.type === 'external' ? layout.index.name : layout.index.type;
    const indexProvider = resolveChunkIndex(indexType, ctx.container);
    if (!indexProvider) {
      const builtIn = layout.index.type !== 'external';
      throw new MissingPluginError(
        `no chunk index provider for index type "${indexType}" is registered; ` +
          (builtIn ? 'install @chunkform/indexes and call registerIndexes()' : 'register the package that provides it'),
        indexType,
        builtIn ? '@chunkform/indexes' : undefined,
        { path },
      );
    }
    const formatProvider = resolveChunkFormat(layout, ctx.container);
    if (!formatProvider) throw missingFormat(layout, path);
    const writer = ctx.writer;
    const indexCtx: ChunkIndexContext = {
      reader: ctx.reader,
      sizes: ctx.sizes,
      dims: info.dims.slice(),
      maxDims: info.maxDims.slice(),
      chunkDims: layout.chunkDims.slice(),
      elementSize: info.elementSize,
      filtered: pipeline.filters.length > 0,
      info: layout.index,
      datasetPath: path,
      ...(layout.class === 'structured'
        ? {
            structured: {
              sections: layout.sectionCount,
              filtered: (info.sectionPipelines ?? []).some((p) => p.filters.length > 0),
              offsetSize: layout.offsetSize,
              chunkType: layout.chunkType,
            },
          }
        : {}),
      ...(writer
        ? {
            storage: {
              alloc: (size: number) => writer.allocator.alloc(size),
              release: (address: number, size: number) => writer.allocator.release(address, size),
              write: (address: number, bytes: Uint8Array) => writer.writeRaw(address, bytes),
              isFresh: (address: number, size: number) => writer.isFresh(address, size),
            },
          }
        : {}),
    };
    let index: ChunkIndex;
    try {
      index = create ? await indexProvider.create(indexCtx) : await indexProvider.open(indexCtx, layout.address);
    } catch (e) {
      if (!(e instanceof H5Error)) throw e;
      // A single-chunk index keeps its one record in the layout message: a bad record is a bad chunk.
      if (layout.index.type === 'single') throw e.withPath(`${path} (chunk [${layout.chunkDims.map(() => 0).join(', ')}])`, true);
      throw e.withPath(path);
    }
    const dims = info.dims;
    const format = formatProvider.create(
      {
      datasetPath: path,
      datatype: info.datatype,
      elementSize: info.elementSize,
      chunkDims: layout.chunkDims,
      dims: () => dims,
      maxDims: info.maxDims,
      fillValue: info.fillValue,
      pipeline,
      resolveFilter: (id) => resolveFilter(id, ctx.container),
      dontFilterPartialChunks: (layout.flags & LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS) !== 0,
      ...(info.sectionPipelines ? { sectionPipelines: info.sectionPipelines } : {}),
      ...(info.access ? { access: info.access } : {}),
      },
      layout,
    );
    const store: ChunkStore = {
      // A chunk's memory form may be the bytes read (unfiltered chunks) and is then changed by
      // writes: it must never be a view of the source's own memory (a MemoryStore's buffer).
      read: async (address, length) => {
        const bytes = await ctx.readRaw(address, length, 'chunk');
        return ctx.freshReads ? bytes : bytes.slice();
      },
      readInto: (address, target) => ctx.readRawInto(address, target, 'chunk'),
      ...(ctx.threadedReads ? { parallel: true } : {}),
      ...(ctx.canScatter ? { readScatter: (address: number, targets: readonly Uint8Array[]) => ctx.readRawScatter(address, targets, 'chunk') } : {}),
      write: (address, bytes) => ctx.requireWriter(`write dataset "${path}"`).writeRaw(address, bytes),
      alloc: (size) => ctx.requireWriter(`write dataset "${path}"`).allocator.alloc(size),
      release: (address, size) => ctx.writer?.allocator.release(address, size),
      isFresh: (address, size) => ctx.writer?.isFresh(address, size) ?? false,
    };
    const cache = new ChunkCache<unknown>(info.cache);
    const engine = new ChunkEngine<unknown>({
      path,
      index,
      format,
      cache,
      store,
      chunkDims: layout.chunkDims,
      elementSize: info.elementSize,
      dims: () => dims,
      ...(ctx.writer ? { backgroundBytes: ctx.backgroundBytes ?? 'auto' } : {}),
    });
    const storage = new ChunkedStorage(ctx, model, info, index, engine, cache, format.objectValues);
    writer?.flushHooks.add(storage.flushHook);
    return storage;
  }

  /** The writer's flush hook of this dataset. */
  private readonly flushHook = (): Promise<void> => this.flush();

  /**
   * Forgets a dataset whose creation failed before anything links to it: flushes stop writing it,
   * and the space of chunks already stored for it is released (best effort: its index is new).
   */
  async discard(): Promise<void> {
    const writer = this.ctx.writer;
    if (!writer) return;
    writer.flushHooks.delete(this.flushHook);
    try {
      for await (const rec of this.index.iterate()) writer.allocator.release(rec.address, rec.size);
    } catch {
      // nothing more to release
    }
  }

  async read(sel: Selection, count: number, into?: Uint8Array): Promise<StorageRead> {
    if (into) checkInto(into, count, this.info.elementSize, this.info.path);
    return { bytes: await this.engine.read(sel, count, into), owned: !into };
  }

  async write(sel: Selection, bytes: Uint8Array): Promise<void> {
    // A read-only index still allows overwriting stored fixed-size chunks in their fresh space
    // (never the case for chunks of the last flushed state: those need a new record).
    if (!this.index.readOnly || !(await this.engine.rewritesInPlace(sel))) this.writable('write');
    else this.ctx.requireWriter(`write dataset "${this.info.path}"`);
    this.maybeDirty = true;
    await this.engine.write(sel, bytes);
  }

  /** Throws, before anything is changed, when the file is read-only or the index cannot be written. */
  private writable(what: string): void {
    this.ctx.requireWriter(`${what} dataset "${this.info.path}"`);
    if (this.index.readOnly) {
      throw new UnsupportedError(
        `cannot ${what}: datasets indexed by a "${this.index.type}" chunk index are read-only here ` +
          '(files written with libver="earliest"; h5repack --latest converts them)',
        { path: this.info.path },
      );
    }
  }

  /** True when the chunk cache holds chunks changed since they were last written to the file. */
  hasCachedChanges(): boolean {
    if (this.engine.hasPending) return true; // chunks encoding in the background are stored by the next call
    if (!this.maybeDirty) return false;
    for (const e of this.cache.all()) if (e.dirty) return true;
    this.maybeDirty = false;
    return false;
  }

  /** True when the chunk format tracks defined elements (sparse). */
  async tracksDefined(): Promise<boolean> {
    return this.engine.tracksDefined;
  }

  /** The defined elements within `sel`. */
  defined(sel: Selection): Promise<Selection> {
    return this.engine.defined(sel);
  }

  /** The defined elements within `sel` and their values in one pass, when the engine can (see `ChunkEngine.readDefined`). */
  readDefined(sel: Selection): Promise<{ selection: Selection; bytes: Uint8Array } | undefined> {
    return this.engine.readDefined(sel);
  }

  /** Makes the elements of `sel` undefined (sparse formats). */
  async erase(sel: Selection): Promise<void> {
    this.writable('erase elements of');
    this.maybeDirty = true;
    await this.engine.erase(sel);
  }

  /** Writes cached chunks and the index, and records the index address in the layout message. */
  async flush(): Promise<void> {
    if (!this.ctx.writer || this.ctx.closed) return;
    await this.engine.flush();
    const { address, info } = await this.index.flush();
    const layout = this.info.layout;
    if (address !== layout.address || JSON.stringify(info) !== JSON.stringify(layout.index)) {
      const next = { ...layout, address, index: info } as ChunkedLayout | StructuredChunkLayout;
      this.info.layout = next;
      this.ctx.writer.adopt(this.model, this.info.path);
      this.model.find(LAYOUT)!.body = encodeLayout(next, this.ctx.sizes);
      this.model.touch();
    }
  }

  /** Allocates and fills every chunk (early allocation). */
  async allocateAll(): Promise<void> {
    const { dims } = this.info;
    if (dims.some((d) => d === 0)) return;
    this.maybeDirty = true;
    await this.engine.write(selectAll(), this.fillBytes(dims.reduce((a, b) => a * b, 1)));
  }

  /**
   * Applies a change of dimensions: chunks now wholly outside the dataset are removed (their space
   * released) and the part of straddling chunks outside the new extent is reset to the fill value,
   * so a later enlargement shows fill values there, as HDF5 does.
   */
  async resize(oldDims: readonly number[], newDims: readonly number[]): Promise<void> {
    this.writable('resize');
    this.maybeDirty = true;
    const chunk = this.info.layout.chunkDims;
    const dims = this.info.dims;
    const shrunk = newDims.some((d, i) => d < oldDims[i]!);
    if (shrunk) {
      // Chunks wholly outside the new extent go, cached ones included.
      await this.engine.flush();
      const doomed: number[][] = [];
      for await (const rec of this.index.iterate()) {
        if (rec.coords.some((c, i) => c * chunk[i]! >= newDims[i]!)) doomed.push(rec.coords);
      }
      for (const c of doomed) await this.engine.removeChunk(c);
      // Elements between the new and the old extent inside kept chunks: undefined again (sparse
      // formats) or back to the fill value (dense), only in chunks that exist.
      const gone = subtract(selectBlocks([{ start: oldDims.map(() => 0), end: [...oldDims] }]), selectBlocks([{ start: newDims.map(() => 0), end: [...newDims] }]));
      const kept = selectBlocks([
        { start: oldDims.map(() => 0), end: oldDims.map((d, i) => Math.min(d, Math.ceil(newDims[i]! / chunk[i]!) * chunk[i]!)) },
      ]);
      const reset = intersect(gone, kept);
      if (selectionCount(reset, [...oldDims]) > 0) {
        if (this.engine.tracksDefined) await this.engine.erase(reset);
        else await this.engine.fillExisting(reset, this.info.fillValue);
      }
    }
    dims.splice(0, dims.length, ...newDims);
    await this.index.resize(newDims);
  }

  // ---- direct chunk I/O -------------------------------------------------------------------

  /** Stored chunks, in index order (cached changes are written first, as HDF5 counts them). */
  /** Bytes the chunk index's own structures occupy in the file (h5stat's "Chunked datasets: Index"). */
  async indexSizeOnDisk(): Promise<number> {
    return this.index.sizeOnDisk();
  }

  async chunks(): Promise<ChunkInfo[]> {
    if (this.ctx.writer) await this.engine.flush();
    const out: ChunkInfo[] = [];
    for await (const rec of this.index.iterate()) out.push(this.infoOf(rec));
    return out;
  }

  /** The stored chunk whose first element is at `offset` (null when never written). */
  async chunkInfoByCoord(offset: readonly number[]): Promise<ChunkInfo | null> {
    if (this.ctx.writer) await this.engine.flush();
    const rec = await this.index.lookup(this.scaled(offset));
    return rec ? this.infoOf(rec) : null;
  }

  /** The raw stored bytes of a chunk and its filter mask (no filters applied); section fields for structured chunks. */
  async readChunk(offset: readonly number[]): Promise<ChunkImage> {
    await this.engine.flush();
    const rec = await this.index.lookup(this.scaled(offset));
    if (!rec) throw new ValueError(`chunk at [${offset.join(', ')}] has not been written`, { path: this.info.path });
    const bytes = (await this.ctx.readRaw(rec.address, rec.size, 'chunk')).slice();
    return { bytes, filterMask: rec.filterMask, ...(rec.sections ? { sections: rec.sections } : {}) };
  }

  /** Stores already-filtered chunk bytes as they are (like `H5Dwrite_chunk`). */
  async writeChunk(offset: readonly number[], image: ChunkImage): Promise<void> {
    this.writable('write a chunk of');
    await this.engine.storeImage(this.scaled(offset), image);
  }

  private scaled(offset: readonly number[]): number[] {
    const chunk = this.info.layout.chunkDims;
    if (offset.length !== chunk.length) {
      throw new ValueError(`chunk offset has rank ${offset.length}, the dataset rank ${chunk.length}`, { path: this.info.path });
    }
    return offset.map((o, i) => {
      if (!Number.isSafeInteger(o) || o < 0 || o % chunk[i]! !== 0 || (o >= Math.max(1, this.info.dims[i]!) && this.info.maxDims[i] !== -1)) {
        throw new ValueError(`[${offset.join(', ')}] is not the offset of a chunk (chunk dims [${chunk.join(', ')}])`, {
          path: this.info.path,
        });
      }
      return o / chunk[i]!;
    });
  }

  private infoOf(rec: ChunkRecord): ChunkInfo {
    const chunk = this.info.layout.chunkDims;
    return {
      offset: rec.coords.map((c, i) => c * chunk[i]!),
      filterMask: rec.filterMask,
      address: rec.address,
      size: rec.size,
      ...(rec.sections ? { sections: rec.sections } : {}),
    };
  }

  private fillBytes(count: number): Uint8Array {
    return filledBytes(count, this.info.elementSize, this.info.fillValue);
  }
}
