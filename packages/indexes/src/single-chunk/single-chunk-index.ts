/**
 * Single chunk index (layout message version 4, chunk indexing type 1; HDF5 spec IV.A.2.i): a
 * dataset whose dims = max dims = chunk dims has exactly one chunk, and its record lives in the
 * layout message itself — the address in the layout's address field and, when the dataset is
 * filtered (layout flag bit 1), the filtered size and filter mask in the indexing information
 * (H5Dsingle.c). Nothing is stored elsewhere: `flush()` hands the record back in `info`.
 * @module
 */
import { FormatError, ValueError } from '@chunkform/core';
import type { ChunkIndex, ChunkIndexContext, ChunkIndexProvider, ChunkRecord } from '@chunkform/core/internal/chunk/chunk-index';
import type { ChunkIndexInfo } from '@chunkform/core/internal/format/messages/layout-index';
import { UNDEFINED_ADDRESS } from '@chunkform/core/internal/format/bytes';
import { checkCoords, chunkByteSize } from '../index-helpers.js';

const STRUCTURE = 'single chunk index';

/** The single-chunk index of one dataset. */
export class SingleChunkIndex implements ChunkIndex {
  readonly type = 'single' as const;
  private address: number;
  private size: number;
  private filterMask: number;
  private readonly chunkBytes: number;

  /** Opens the index; `address` is the layout message's address field (the chunk, or undefined). */
  constructor(private readonly ctx: ChunkIndexContext, address: number) {
    this.chunkBytes = chunkByteSize(ctx, STRUCTURE);
    const info = ctx.info;
    if (info.type !== 'single') throw new ValueError(`index info of type ${info.type} given to the single chunk index`, { path: ctx.datasetPath, structure: STRUCTURE });
    for (let i = 0; i < ctx.dims.length; i++) {
      if (ctx.dims[i]! > ctx.chunkDims[i]!) {
        throw new FormatError(`dimension ${i} (${ctx.dims[i]}) exceeds the chunk (${ctx.chunkDims[i]}) of a single-chunk dataset`, {
          path: ctx.datasetPath,
          structure: STRUCTURE,
        });
      }
    }
    this.address = address;
    if (ctx.filtered && info.filteredSize !== undefined) {
      this.size = info.filteredSize;
      this.filterMask = info.filterMask ?? 0;
    } else if (ctx.filtered && address === UNDEFINED_ADDRESS) {
      this.size = SingleChunkIndex.NO_CHUNK;
      this.filterMask = SingleChunkIndex.NO_CHUNK;
    } else {
      // Without layout flag bit 1, HDF5 uses the nominal chunk size and an empty mask.
      this.size = this.chunkBytes;
      this.filterMask = 0;
    }
  }

  /**
   * For a filtered dataset without a chunk, HDF5 1.10 stores 0xffffffff as size and mask: keep
   * what was opened, use that for new indexes (both read back as "no chunk").
   */
  private static readonly NO_CHUNK = 0xffffffff;

  private isOrigin(coords: readonly number[]): boolean {
    checkCoords(coords, this.ctx.chunkDims.length, STRUCTURE, this.ctx.datasetPath);
    return coords.every((c) => c === 0);
  }

  async lookup(coords: readonly number[]): Promise<ChunkRecord | null> {
    if (!this.isOrigin(coords) || this.address === UNDEFINED_ADDRESS) return null;
    return { coords: coords.slice(), address: this.address, size: this.size, filterMask: this.filterMask };
  }

  async insert(rec: ChunkRecord): Promise<void> {
    if (!this.isOrigin(rec.coords)) {
      throw new ValueError(`a single-chunk dataset has only chunk [0…], not [${rec.coords.join(', ')}]`, { path: this.ctx.datasetPath, structure: STRUCTURE });
    }
    if (!Number.isSafeInteger(rec.address) || rec.address < 0) {
      throw new ValueError(`invalid chunk address ${rec.address}`, { path: this.ctx.datasetPath, structure: STRUCTURE });
    }
    if (this.ctx.filtered) {
      if (!Number.isSafeInteger(rec.size) || rec.size <= 0) throw new ValueError(`invalid chunk size ${rec.size}`, { path: this.ctx.datasetPath, structure: STRUCTURE });
      if (!Number.isInteger(rec.filterMask) || rec.filterMask < 0 || rec.filterMask > 0xffffffff) {
        throw new ValueError(`invalid filter mask ${rec.filterMask}`, { path: this.ctx.datasetPath, structure: STRUCTURE });
      }
      this.size = rec.size;
      this.filterMask = rec.filterMask;
    } else {
      this.size = this.chunkBytes;
      this.filterMask = 0;
    }
    this.address = rec.address;
  }

  async remove(coords: readonly number[]): Promise<ChunkRecord | null> {
    const old = await this.lookup(coords);
    if (old) this.address = UNDEFINED_ADDRESS;
    return old;
  }

  async *iterate(): AsyncIterable<ChunkRecord> {
    const rec = await this.lookup(this.ctx.chunkDims.map(() => 0));
    if (rec) yield rec;
  }

  /** Nothing to do: a single-chunk dataset has fixed dimensions. */
  async resize(_dims: readonly number[]): Promise<void> {}

  /** Returns the chunk address and, for filtered datasets, the filtered size and mask (layout flag bit 1). */
  async flush(): Promise<{ address: number; info: ChunkIndexInfo }> {
    const info: ChunkIndexInfo = this.ctx.filtered ? { type: 'single', filteredSize: this.size, filterMask: this.filterMask } : { type: 'single' };
    return { address: this.address, info };
  }

  /** The index has no structures of its own (HDF5 reports 0). */
  async sizeOnDisk(): Promise<number> {
    return 0;
  }
}

/** Provider of {@link SingleChunkIndex} (index type `single`). */
export class SingleChunkIndexProvider implements ChunkIndexProvider {
  readonly type = 'single' as const;
  async open(ctx: ChunkIndexContext, address: number): Promise<ChunkIndex> {
    return new SingleChunkIndex(ctx, address);
  }
  async create(ctx: ChunkIndexContext): Promise<ChunkIndex> {
    return new SingleChunkIndex(ctx, UNDEFINED_ADDRESS);
  }
}

/** The shared {@link SingleChunkIndexProvider} instance. */
export const singleChunkIndexProvider: ChunkIndexProvider = new SingleChunkIndexProvider();
