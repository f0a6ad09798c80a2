/**
 * Version 2 B-tree chunk index (layout message version 4, chunk indexing type 5; HDF5 spec
 * IV.A.2.i and III.A.2): used by HDF5 1.10+ for datasets with more than one unlimited dimension.
 * Records (types 10/11, and 12/13 for structured chunks, `chunk-records.ts`) are keyed by scaled chunk coordinates; insert,
 * update and delete follow the HDF5 library's split/redistribute/merge rules (`tree.ts`), so the
 * trees written here are the trees HDF5 would build from the same operations.
 * @module
 */
import { ValueError } from '@chunkform/core';
import {
  type ChunkIndex,
  type ChunkIndexContext,
  type ChunkIndexProvider,
  type ChunkRecord,
  type ChunkIndexInfo,
  UNDEFINED_ADDRESS,
  structuredChunkSizeLength,
} from '@chunkform/core/plugin';
import { checkChunkAddress, checkChunkSize, checkCoords, checkFilterMask, checkStructuredSections, chunkByteSize, filteredChunkSizeWidth, located, OpQueue, requireStorage } from '../index-helpers.js';
import { DEFAULT_BTREE2_INDEX_INFO } from '@chunkform/core';
import { chunkRecordClass, structuredChunkRecordClass, type StructuredRecordShape } from './chunk-records.js';
import type { V2RecordClass } from '@chunkform/core/plugin';
import { V2Tree } from '@chunkform/core/plugin';

const STRUCTURE = 'v2 B-tree chunk index';

/** The v2 B-tree chunk index of one dataset. */
export class BTree2ChunkIndex implements ChunkIndex {
  readonly type = 'btree2' as const;
  private readonly queue = new OpQueue();
  private readonly rank: number;
  private readonly maxSize: number;

  /** Record shape of a structured-chunk tree (types 12/13), null for ordinary chunks. */
  private readonly shape: StructuredRecordShape | null;

  private constructor(private readonly ctx: ChunkIndexContext, private readonly tree: V2Tree<ChunkRecord>, chunkBytes: number) {
    this.rank = ctx.chunkDims.length;
    this.shape = structuredShape(ctx);
    if (this.shape) this.maxSize = this.shape.sizeLength >= 7 ? Number.MAX_SAFE_INTEGER : 256 ** this.shape.sizeLength - 1;
    else this.maxSize = ctx.filtered ? Math.min(0xffffffff, 2 ** (8 * filteredChunkSizeWidth(chunkBytes)) - 1) : chunkBytes;
  }

  /** Opens the tree at `address` (UNDEFINED_ADDRESS: no chunk was ever written). */
  static async open(ctx: ChunkIndexContext, address: number): Promise<BTree2ChunkIndex> {
    return located(ctx.datasetPath, async () => {
      const chunkBytes = chunkByteSize(ctx, STRUCTURE);
      const cls = recordClassOf(ctx, chunkBytes);
      const tree = address === UNDEFINED_ADDRESS ? V2Tree.create(cls, ctx.reader, ctx.sizes, paramsOf(ctx)) : await V2Tree.open(cls, ctx.reader, address);
      return new BTree2ChunkIndex(ctx, tree, chunkBytes);
    });
  }

  /**
   * A new, empty index with the layout message's parameters (HDF5's defaults when absent); record
   * types 12/13 with header version 1 for structured chunks (`ctx.structured`).
   */
  static create(ctx: ChunkIndexContext): BTree2ChunkIndex {
    const chunkBytes = chunkByteSize(ctx, STRUCTURE);
    return new BTree2ChunkIndex(ctx, V2Tree.create(recordClassOf(ctx, chunkBytes), ctx.reader, ctx.sizes, paramsOf(ctx)), chunkBytes);
  }

  private run<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.run(() => located(this.ctx.datasetPath, fn));
  }

  private key(coords: readonly number[]): ChunkRecord {
    checkCoords(coords, this.rank, STRUCTURE, this.ctx.datasetPath);
    return { coords: coords.slice(), address: UNDEFINED_ADDRESS, size: 0, filterMask: 0 };
  }

  lookup(coords: readonly number[]): Promise<ChunkRecord | null> {
    return this.run(async () => copy(await this.tree.find(this.key(coords))));
  }

  /** Inserts the record, or updates the stored one with the same coordinates in place. */
  insert(rec: ChunkRecord): Promise<void> {
    return this.run(async () => {
      const path = this.ctx.datasetPath;
      requireStorage(this.ctx, 'inserting a chunk record', STRUCTURE);
      const key = this.key(rec.coords);
      const where = { path, structure: STRUCTURE };
      checkChunkAddress(rec.address, where);
      if (this.shape) {
        checkChunkSize(rec.size, this.maxSize, where);
        key.size = rec.size;
        key.sections = checkStructuredSections(rec, this.shape.sections, this.shape.filtered, this.shape.offsetSize, path, STRUCTURE);
      } else if (this.ctx.filtered) {
        checkChunkSize(rec.size, this.maxSize, where);
        checkFilterMask(rec.filterMask, where);
        key.size = rec.size;
        key.filterMask = rec.filterMask;
      } else {
        key.size = this.maxSize;
      }
      key.address = rec.address;
      await this.tree.update(key);
    });
  }

  remove(coords: readonly number[]): Promise<ChunkRecord | null> {
    return this.run(async () => {
      const key = this.key(coords);
      requireStorage(this.ctx, 'removing a chunk record', STRUCTURE);
      return copy(await this.tree.remove(key));
    });
  }

  /** All records in key order (collected first, so callers may use the index while iterating). */
  async *iterate(): AsyncIterable<ChunkRecord> {
    const all = await this.run(() => this.tree.all());
    for (const r of all) yield copy(r)!;
  }

  /** The v2 B-tree index has no resize operation (HDF5's is NULL): chunks outside the extent are removed by the caller. */
  async resize(_dims: readonly number[]): Promise<void> {}

  /** Writes dirty nodes and the header; returns the header address (undefined while no chunk was ever inserted). */
  flush(): Promise<{ address: number; info: ChunkIndexInfo }> {
    return this.run(async () => {
      const p = this.tree.params;
      const info: ChunkIndexInfo = { type: 'btree2', nodeSize: p.nodeSize, splitPercent: p.splitPercent, mergePercent: p.mergePercent };
      // Without storage (read-only file) a clean tree flushes without writing; a dirty one throws.
      const storage = this.ctx.storage ?? {
        alloc: () => requireStorage(this.ctx, 'flushing the v2 B-tree chunk index', STRUCTURE).alloc(0),
        release: () => undefined,
        write: async () => void requireStorage(this.ctx, 'flushing the v2 B-tree chunk index', STRUCTURE),
        isFresh: () => false,
      };
      return { address: await this.tree.flush(storage), info };
    });
  }

  sizeOnDisk(): Promise<number> {
    return this.run(() => this.tree.sizeOnDisk());
  }

  /** Records in the index (the header's total record count). */
  get count(): number {
    return this.tree.count;
  }

  /** Current tree depth (0: the root is a leaf). */
  get depth(): number {
    return this.tree.depth;
  }
}

function paramsOf(ctx: ChunkIndexContext): { nodeSize: number; splitPercent: number; mergePercent: number } {
  const i = ctx.info.type === 'btree2' ? ctx.info : DEFAULT_BTREE2_INDEX_INFO;
  return { nodeSize: i.nodeSize, splitPercent: i.splitPercent, mergePercent: i.mergePercent };
}

function copy(r: ChunkRecord | undefined): ChunkRecord | null {
  if (!r) return null;
  const out: ChunkRecord = { coords: r.coords.slice(), address: r.address, size: r.size, filterMask: r.filterMask };
  if (r.sections) {
    const s = r.sections;
    out.sections = { offsets: s.offsets.slice() };
    if (s.unfilteredSizes) out.sections.unfilteredSizes = s.unfilteredSizes.slice();
    if (s.filterMasks) out.sections.filterMasks = s.filterMasks.slice();
  }
  return out;
}

/** The record shape of a structured-chunk dataset (docs/structured-chunk-format.md §3.5 for the size width), or null. */
function structuredShape(ctx: ChunkIndexContext): StructuredRecordShape | null {
  const st = ctx.structured;
  if (!st) return null;
  const offsetSize = st.offsetSize ?? 8;
  if (!Number.isInteger(st.sections) || st.sections < 1 || st.sections > 255) {
    throw new ValueError(`invalid number of sections ${st.sections}`, { path: ctx.datasetPath, structure: STRUCTURE });
  }
  const sizeLength = structuredChunkSizeLength(ctx.chunkDims, ctx.elementSize, offsetSize, st.sections, st.chunkType);
  return { rank: ctx.chunkDims.length, sections: st.sections, filtered: st.filtered, sizeLength, offsetSize };
}

function recordClassOf(ctx: ChunkIndexContext, chunkBytes: number): V2RecordClass<ChunkRecord> {
  const shape = structuredShape(ctx);
  return shape ? structuredChunkRecordClass(ctx.sizes, shape) : chunkRecordClass(ctx.sizes, ctx.chunkDims.length, ctx.filtered, chunkBytes);
}

/** Provider of {@link BTree2ChunkIndex} (index type `btree2`). */
export class BTree2IndexProvider implements ChunkIndexProvider {
  readonly type = 'btree2' as const;
  open(ctx: ChunkIndexContext, address: number): Promise<ChunkIndex> {
    return BTree2ChunkIndex.open(ctx, address);
  }
  async create(ctx: ChunkIndexContext): Promise<ChunkIndex> {
    return BTree2ChunkIndex.create(ctx);
  }
}

/** The shared {@link BTree2IndexProvider} instance. */
export const btree2IndexProvider: ChunkIndexProvider = new BTree2IndexProvider();
