/**
 * Reading chunked datasets ({@link ReadChunkedStorage}): resolves the chunk index, chunk format and
 * filters of a chunked (class 2) or structured-chunk (class 4) layout through the registries and
 * reads through the {@link ChunkReader}. `ChunkedStorage` (./chunked-storage.ts) adds writing,
 * flushing and resizing.
 * @module
 */
import { H5Error, MissingPluginError, ValueError } from '../errors.js';
import type { Datatype } from '../format/messages/datatype.js';
import type { FilterPipeline } from '../format/messages/filter-pipeline.js';
import { LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS, type ChunkedLayout } from '../format/messages/layout.js';
import type { StructuredChunkLayout } from '../format/messages/layout-structured.js';
import { resolveChunkFormat, resolveChunkIndex, resolveFilter } from '../di/container.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import type { ChunkIndex, ChunkIndexContext, ChunkRecord, StructuredChunkSections } from '../chunk/chunk-index.js';
import { formatKey, KNOWN_FORMAT_PACKAGES, type ChunkImage } from '../chunk/chunk-format.js';
import { ChunkCache, type ChunkCacheOptions } from '../chunk/cache.js';
import type { ObjectValues } from '../chunk/object-lane.js';
import { ChunkReader, type ChunkEngineOptions } from '../chunk/chunk-reader.js';
import type { ChunkStore } from '../chunk/chunk-format.js';
import type { Selection } from '../selection/selection.js';
import { checkInto } from './flat-runs.js';
import type { DatasetStorage, DefinedRead, StorageRead } from './dataset-storage.js';

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

/** The opened parts of a chunked dataset's storage. @internal */
export interface ChunkedParts<E> {
  index: ChunkIndex;
  engine: E;
  cache: ChunkCache<unknown>;
  objectValues: ObjectValues | undefined;
  /** The chunk format's `readOnlyReason`: set when it only reads. */
  formatReadOnly: string | undefined;
}

/**
 * Resolves index, format and filters for a dataset and opens its index (`create`: a new, empty one);
 * `makeEngine` makes the chunk reader or engine over them. @internal
 */
export async function openChunkedParts<E>(
  ctx: FileContext,
  info: ChunkedDatasetInfo,
  create: boolean,
  makeEngine: (o: ChunkEngineOptions<unknown>) => E,
): Promise<ChunkedParts<E>> {
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
    ...(ctx.localFile ? { stored: (address: number, size: number) => ctx.rawStored(address, size, 'chunk') } : {}),
    ...(ctx.canScatter ? { readScatter: (address: number, targets: readonly Uint8Array[]) => ctx.readRawScatter(address, targets, 'chunk') } : {}),
    write: (address, bytes) => ctx.requireWriter(`write dataset "${path}"`).writeRaw(address, bytes),
    writev: (address, parts) => ctx.requireWriter(`write dataset "${path}"`).writeRawv(address, parts),
    alloc: (size) => ctx.requireWriter(`write dataset "${path}"`).allocator.alloc(size),
    release: (address, size) => ctx.writer?.allocator.release(address, size),
    isFresh: (address, size) => ctx.writer?.isFresh(address, size) ?? false,
  };
  const cache = new ChunkCache<unknown>(info.cache);
  const engine = makeEngine({
    path,
    index,
    format,
    cache,
    store,
    chunkDims: layout.chunkDims,
    elementSize: info.elementSize,
    dims: () => dims,
    ...(ctx.writer ? { backgroundBytes: ctx.backgroundBytes ?? 'auto' } : { readAhead: true }),
  });
  // a closed file's cached chunks: nothing reads them any more (close waits for every call before it)
  ctx.onClose.push(() => {
    for (const e of cache.all()) if (!e.dirty) format.release?.(e.mem);
    cache.clear();
  });
  return { index, engine, cache, objectValues: format.objectValues, formatReadOnly: format.readOnlyReason };
}

/** A chunked dataset's storage, read-only. */
export class ReadChunkedStorage implements DatasetStorage {


  /** @internal */
  constructor(
    protected readonly ctx: FileContext,
    protected readonly model: HeaderModel,
    protected readonly info: ChunkedDatasetInfo,
    protected readonly index: ChunkIndex,
    protected readonly engine: ChunkReader<unknown>,
    protected readonly cache: ChunkCache<unknown>,
    /** The chunk format's object lane, when its values are not element bytes (chunk/object-lane.ts). */
    readonly objectValues: ObjectValues | undefined,
  ) {}

  /** Resolves index, format and filters for a dataset and opens its index. */
  static async open(ctx: FileContext, model: HeaderModel, info: ChunkedDatasetInfo): Promise<ReadChunkedStorage> {
    const p = await openChunkedParts(ctx, info, false, (o) => new ChunkReader<unknown>(o));
    return new ReadChunkedStorage(ctx, model, info, p.index, p.engine, p.cache, p.objectValues);
  }

  /** Writes the chunks cached with changes (`ChunkedStorage`; a reader has none). @internal */
  protected async flushCached(): Promise<void> {}

  async read(sel: Selection, count: number, into?: Uint8Array, ordinary?: boolean): Promise<StorageRead> {
    if (into) checkInto(into, count, this.info.elementSize, this.info.path);
    return { bytes: await this.engine.read(sel, count, into, ordinary), owned: !into };
  }

  /** True when the chunk format tracks defined elements (sparse). */
  async tracksDefined(): Promise<boolean> {
    return this.engine.tracksDefined;
  }

  /** The defined elements within `sel`. */
  defined(sel: Selection): Promise<Selection> {
    return this.engine.defined(sel);
  }

  /** The defined elements within `sel` and their values in one pass, when the engine can (see `ChunkReader.readDefined`). */
  readDefined(sel: Selection): DefinedRead | undefined | Promise<DefinedRead | undefined> {
    return this.engine.readDefined(sel);
  }

  // ---- direct chunk I/O -------------------------------------------------------------------

  /** Stored chunks, in index order (cached changes are written first, as HDF5 counts them). */
  /** Bytes the chunk index's own structures occupy in the file (h5stat's "Chunked datasets: Index"). */
  async indexSizeOnDisk(): Promise<number> {
    return this.index.sizeOnDisk();
  }

  async chunks(): Promise<ChunkInfo[]> {
    if (this.ctx.writer) await this.flushCached();
    const out: ChunkInfo[] = [];
    for await (const rec of this.index.iterate()) out.push(this.infoOf(rec));
    return out;
  }

  /** The stored chunk whose first element is at `offset` (null when never written). */
  async chunkInfoByCoord(offset: readonly number[]): Promise<ChunkInfo | null> {
    if (this.ctx.writer) await this.flushCached();
    const rec = await this.index.lookup(this.scaled(offset));
    return rec ? this.infoOf(rec) : null;
  }

  /** The raw stored bytes of a chunk and its filter mask (no filters applied); section fields for structured chunks. */
  async readChunk(offset: readonly number[]): Promise<ChunkImage> {
    await this.flushCached();
    const rec = await this.index.lookup(this.scaled(offset));
    if (!rec) throw new ValueError(`chunk at [${offset.join(', ')}] has not been written`, { path: this.info.path });
    const bytes = (await this.ctx.readRaw(rec.address, rec.size, 'chunk')).slice();
    return { bytes, filterMask: rec.filterMask, ...(rec.sections ? { sections: rec.sections } : {}) };
  }

  /** @internal */
  protected scaled(offset: readonly number[]): number[] {
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
}
