/**
 * The extensible array chunk index (layout v4 index type 4; HDF5 spec IV.A.2.i and Appendix C.4;
 * H5Dearray.c): used when exactly one dimension is unlimited. Chunks are numbered with the
 * unlimited dimension moved to the front ("swizzled") and row-major over the chunk counts of the
 * other, fixed, maximum dimensions; the array grows by index block, data blocks and super blocks
 * as higher numbers are set. The header exists from dataset creation; everything else appears
 * with the first chunk that needs it.
 * @module
 */
import {
  type ChunkIndex,
  type ChunkIndexContext,
  type ChunkIndexProvider,
  type ChunkRecord,
  InvalidStateError,
  ValueError,
  UNDEFINED_ADDRESS,
  isDefinedAddress,
  type ChunkIndexInfo,
  type ExtensibleArrayIndexInfo,
  DEFAULT_EXTENSIBLE_ARRAY_INFO,
} from '@chunkform/core/plugin';
import { OpQueue } from '../index-helpers.js';
import { checkExtent, formatError, type Where } from '../array-element/block-io.js';
import { extensibleArrayGrid, type ChunkGrid } from '../array-element/chunk-grid.js';
import {
  createParams,
  definedRecords,
  defaultElementCodecFactory,
  type ArrayIndexOptions,
} from '../array-element/element-codec.js';
import { ExtensibleArrayBlocks } from './block-store.js';
import { ExtensibleArrayGeometry, checkExtensibleArrayParams, type ExtensibleArrayParams } from './geometry.js';
import {
  decodeExtensibleArrayHeader,
  extensibleArrayHeaderSize,
  type ExtensibleArrayHeader,
} from './header.js';
import { extensibleArrayIndexBlockSize } from './index-block.js';

/** The creation parameters HDF5 uses for chunk indexes (H5Dpkg.h `H5D_EARRAY_*`): 32, 4, 4, 16, 10; core's, re-exported. */
export { DEFAULT_EXTENSIBLE_ARRAY_INFO };

const HEADER = 'extensible array header';

/** An extensible array chunk index, opened from a file or created in memory. */
export class ExtensibleArrayIndex implements ChunkIndex {
  readonly type = 'extensible-array' as const;
  /** Mutations and flushes run one at a time (a flush awaits I/O between reading and writing state). */
  private readonly queue = new OpQueue();
  private dims: number[];

  private constructor(
    private readonly ctx: ChunkIndexContext,
    private readonly blocks: ExtensibleArrayBlocks,
    private readonly grid: ChunkGrid,
  ) {
    this.dims = ctx.dims.slice();
  }

  /** Opens the extensible array whose header is at `address` (spec Appendix C.4). */
  static async open(ctx: ChunkIndexContext, address: number, opts: ArrayIndexOptions = {}): Promise<ExtensibleArrayIndex> {
    const grid = extensibleArrayGrid(ctx.maxDims, ctx.chunkDims, ctx.datasetPath);
    if (!isDefinedAddress(address)) return ExtensibleArrayIndex.create(ctx, opts);
    const where: Where = { structure: HEADER, address, path: ctx.datasetPath };
    const bytes = await ctx.reader.read(address, extensibleArrayHeaderSize(ctx.sizes), HEADER);
    const header = decodeExtensibleArrayHeader(bytes, ctx.sizes, where);
    checkExtensibleArrayParams(header, where);
    const codec = (opts.codecFactory ?? defaultElementCodecFactory)(ctx, header.clientId);
    if (header.elementSize !== codec.elementSize) {
      throw formatError(where, `element size ${header.elementSize} does not match ${codec.elementSize} expected for client ${header.clientId}`);
    }
    const geometry = new ExtensibleArrayGeometry(header, ctx.sizes);
    if (header.stats.maxIndexSet > geometry.capacity) {
      throw formatError(where, `highest index set ${header.stats.maxIndexSet} exceeds the array's capacity 2^${header.maxBits}`);
    }
    // The dataspace must fit: its last chunk needs an element below the capacity (a corrupt dimension
    // otherwise makes reads walk chunks the array cannot even hold).
    if (ctx.dims.every((d) => d > 0)) {
      const last = grid.index(ctx.dims.map((d, i) => Math.ceil(d / ctx.chunkDims[i]!) - 1));
      if (last < 0 || last >= geometry.capacity) {
        throw formatError(where, `dims [${ctx.dims.join(', ')}] in chunks of [${ctx.chunkDims.join(', ')}] need more elements than the array's capacity 2^${header.maxBits}`);
      }
    }
    if (isDefinedAddress(header.indexBlockAddress)) {
      checkExtent(header.indexBlockAddress, extensibleArrayIndexBlockSize(geometry), ctx.reader.eof, {
        structure: 'extensible array index block',
        address: header.indexBlockAddress,
        path: ctx.datasetPath,
      });
    }
    const blocks = new ExtensibleArrayBlocks(ctx, header, address, geometry, codec);
    return new ExtensibleArrayIndex(ctx, blocks, grid);
  }

  /**
   * Creates an empty extensible array for the dataset. Nothing is written before {@link flush},
   * and a flush before the first insert writes nothing and reports UNDEFINED_ADDRESS (HDF5
   * creates the index with the first chunk).
   */
  static create(ctx: ChunkIndexContext, opts: ArrayIndexOptions = {}): ExtensibleArrayIndex {
    const grid = extensibleArrayGrid(ctx.maxDims, ctx.chunkDims, ctx.datasetPath);
    const { clientId, version } = createParams(ctx, opts);
    const codec = (opts.codecFactory ?? defaultElementCodecFactory)(ctx, clientId);
    const info = ctx.info.type === 'extensible-array' ? ctx.info : DEFAULT_EXTENSIBLE_ARRAY_INFO;
    const params: ExtensibleArrayParams = {
      elementSize: codec.elementSize,
      maxBits: info.maxBits,
      indexElements: info.indexElements,
      dataBlockMinElements: info.minElements,
      superBlockMinDataPointers: info.minPointers,
      pageBits: info.pageBits,
    };
    const where: Where = { structure: HEADER, address: UNDEFINED_ADDRESS, path: ctx.datasetPath };
    try {
      checkExtensibleArrayParams(params, where);
    } catch (e) {
      throw new ValueError(`invalid extensible array parameters: ${(e as Error & { detail?: string }).detail ?? String(e)}`, where);
    }
    const header: ExtensibleArrayHeader = {
      version,
      clientId,
      ...params,
      stats: { superBlocks: 0, superBlockSize: 0, dataBlocks: 0, dataBlockSize: 0, maxIndexSet: 0, realizedElements: 0 },
      indexBlockAddress: UNDEFINED_ADDRESS,
    };
    // Like HDF5 (allocation time "incremental"), nothing exists in the file until the first chunk.
    const blocks = new ExtensibleArrayBlocks(ctx, header, UNDEFINED_ADDRESS, new ExtensibleArrayGeometry(params, ctx.sizes), codec);
    return new ExtensibleArrayIndex(ctx, blocks, grid);
  }

  /** A copy of the header (parameters and statistics) as it is, or will be, stored. */
  headerInfo(): ExtensibleArrayHeader {
    const h = this.blocks.header;
    return { ...h, stats: { ...h.stats } };
  }

  /** The layout-message parameters of this array. */
  private info(): ExtensibleArrayIndexInfo {
    const h = this.blocks.header;
    return {
      type: 'extensible-array',
      maxBits: h.maxBits,
      indexElements: h.indexElements,
      minPointers: h.superBlockMinDataPointers,
      minElements: h.dataBlockMinElements,
      pageBits: h.pageBits,
    };
  }

  private requireWritable(): void {
    if (!this.ctx.storage) throw new InvalidStateError('the chunk index is read-only', { path: this.ctx.datasetPath, structure: HEADER });
  }

  async lookup(coords: readonly number[]): Promise<ChunkRecord | null> {
    const idx = this.grid.index(coords);
    if (idx < 0 || idx >= this.blocks.header.stats.maxIndexSet) return null;
    const loc = this.blocks.geometry.locate(idx);
    if (!loc) return null;
    const slot = await this.blocks.slot(loc, false);
    const v = slot?.table.get(slot.i);
    return v ? { coords: coords.slice(), ...v } : null;
  }

  insert(rec: ChunkRecord): Promise<void> {
    return this.queue.run(() => this.insertNow(rec));
  }

  private async insertNow(rec: ChunkRecord): Promise<void> {
    this.requireWritable();
    const idx = this.grid.index(rec.coords);
    const loc = idx < 0 ? null : this.blocks.geometry.locate(idx);
    if (!loc) {
      throw new ValueError(`chunk [${rec.coords.join(', ')}] lies outside the extensible array's range`, { path: this.ctx.datasetPath, structure: HEADER });
    }
    const slot = (await this.blocks.slot(loc, true))!;
    const { coords: _c, ...value } = rec;
    slot.table.set(slot.i, value);
    this.blocks.markDirty(slot);
    const st = this.blocks.header.stats;
    if (idx >= st.maxIndexSet) {
      st.maxIndexSet = idx + 1;
      this.blocks.dirtyHeader = true;
    }
  }

  remove(coords: readonly number[]): Promise<ChunkRecord | null> {
    return this.queue.run(() => this.removeNow(coords));
  }

  private async removeNow(coords: readonly number[]): Promise<ChunkRecord | null> {
    const idx = this.grid.index(coords);
    if (idx < 0 || idx >= this.blocks.header.stats.maxIndexSet) return null;
    const loc = this.blocks.geometry.locate(idx);
    if (!loc) return null;
    const slot = await this.blocks.slot(loc, false);
    const v = slot?.table.get(slot.i);
    if (!slot || !v) return null;
    this.requireWritable();
    slot.table.clear(slot.i);
    this.blocks.markDirty(slot);
    return { coords: coords.slice(), ...v };
  }

  async *iterate(): AsyncIterable<ChunkRecord> {
    const end = this.blocks.header.stats.maxIndexSet;
    for await (const { first, table } of this.blocks.tables(end)) {
      yield* definedRecords(table, this.grid, first, Math.min(table.length, end - first));
    }
  }

  async resize(dims: readonly number[]): Promise<void> {
    if (dims.length !== this.grid.rank) throw new ValueError(`resize to rank ${dims.length}, the dataset has rank ${this.grid.rank}`, { path: this.ctx.datasetPath });
    dims.forEach((d, i) => {
      const max = this.ctx.maxDims[i]!;
      if (!Number.isSafeInteger(d) || d < 0 || (max !== -1 && d > max)) {
        throw new ValueError(`dimension ${i} cannot be resized to ${d} (maximum ${max === -1 ? 'unlimited' : max})`, { path: this.ctx.datasetPath });
      }
    });
    // Chunk numbers depend only on the fixed maximum dimensions: nothing moves.
    this.dims = dims.slice();
  }

  /** Current dataset dimensions as last given to {@link resize}. */
  get currentDims(): readonly number[] {
    return this.dims;
  }

  flush(): Promise<{ address: number; info: ChunkIndexInfo }> {
    return this.queue.run(() => this.flushNow());
  }

  private async flushNow(): Promise<{ address: number; info: ChunkIndexInfo }> {
    if (this.blocks.dirty) {
      this.requireWritable();
      await this.blocks.flush(this.ctx.storage!);
    }
    return { address: this.blocks.headerAddress, info: this.info() };
  }

  async sizeOnDisk(): Promise<number> {
    return this.blocks.size();
  }
}

/** Opens and creates {@link ExtensibleArrayIndex}es (chunk index type "extensible-array"). */
export class ExtensibleArrayProvider implements ChunkIndexProvider {
  readonly type = 'extensible-array' as const;
  constructor(private readonly opts: ArrayIndexOptions = {}) {}
  open(ctx: ChunkIndexContext, address: number): Promise<ChunkIndex> {
    return ExtensibleArrayIndex.open(ctx, address, this.opts);
  }
  async create(ctx: ChunkIndexContext): Promise<ChunkIndex> {
    return ExtensibleArrayIndex.create(ctx, this.opts);
  }
}
