/**
 * Implicit chunk index (layout message version 4, chunk indexing type 2; HDF5 spec IV.A.2.i):
 * used for unfiltered datasets with fixed maximum dimensions and early allocation. All chunks of
 * the *maximum* extent are allocated as one block at creation; the chunk with scaled coordinates
 * `c` lives at `address + linear(c over the max-dims chunk grid) × chunk bytes` (H5Dnone.c).
 * There is no on-disk index structure: the layout's address field is the block.
 * @module
 */
import { FormatError, ValueError } from '@chunkform/core';
import {
  type ChunkIndex,
  type ChunkIndexContext,
  type ChunkIndexProvider,
  type ChunkRecord,
  type IndexStorage,
  type ChunkIndexInfo,
  UNDEFINED_ADDRESS,
} from '@chunkform/core/plugin';
import { checkCoords, chunkByteSize, chunkGrid, gridCount, inGrid, linearChunkIndex, requireStorage } from '../index-helpers.js';

const STRUCTURE = 'implicit chunk index';
/** Bytes copied per read/write when the chunk block moves. */
const RELOCATE_PIECE = 1 << 20;

/** The implicit index of one dataset. */
export class ImplicitIndex implements ChunkIndex {
  readonly type = 'implicit' as const;
  private readonly chunkBytes: number;
  /** Chunk grid of the maximum dimensions: what the block holds and what addresses are computed over. */
  private readonly maxGrid: number[];
  private readonly maxDims: number[];
  /** Chunk grid of the current dimensions: the chunks that exist. */
  private grid: number[];

  /** Opens the index; `address` is the chunk block (layout address field). */
  constructor(private readonly ctx: ChunkIndexContext, private address: number) {
    const path = ctx.datasetPath;
    if (ctx.filtered) throw new ValueError('an implicit chunk index cannot hold filtered chunks', { path, structure: STRUCTURE });
    this.chunkBytes = chunkByteSize(ctx, STRUCTURE);
    const maxDims = (this.maxDims = (ctx.maxDims.length ? ctx.maxDims : ctx.dims).slice());
    if (maxDims.some((d) => d < 0)) throw new ValueError('an implicit chunk index needs fixed maximum dimensions', { path, structure: STRUCTURE });
    this.maxGrid = chunkGrid(maxDims, ctx.chunkDims);
    const total = gridCount(this.maxGrid, STRUCTURE, path) * this.chunkBytes;
    if (!Number.isSafeInteger(total)) throw new ValueError('the chunk block exceeds 2^53 bytes', { path, structure: STRUCTURE });
    this.grid = chunkGrid(ctx.dims, ctx.chunkDims);
  }

  /** Bytes of the chunk block (all chunks of the maximum extent). */
  get blockSize(): number {
    return gridCount(this.maxGrid, STRUCTURE, this.ctx.datasetPath) * this.chunkBytes;
  }

  /** Allocates the chunk block (index creation, H5D__none_idx_create). */
  allocate(): void {
    const storage = requireStorage(this.ctx, 'allocating the chunk block', STRUCTURE);
    this.address = storage.alloc(this.blockSize);
  }

  /**
   * Copy-on-write for the chunk block: the chunk engine calls this before it rewrites the stored
   * chunk at `coords` in flushed space. The whole block (every chunk of the maximum extent) is
   * copied to new space, so the flushed block stays intact until the next flush, and later lookups
   * return addresses in the new, fresh block. A block that is already fresh stays where it is.
   */
  async relocate(coords: readonly number[]): Promise<void> {
    checkCoords(coords, this.grid.length, STRUCTURE, this.ctx.datasetPath);
    const storage = requireStorage(this.ctx, 'relocating the chunk block', STRUCTURE);
    // Concurrent calls share one move (a second would copy the block again and release it twice).
    while (this.moving) await this.moving.catch(() => undefined);
    this.moving = this.move(storage).finally(() => (this.moving = null));
    await this.moving;
  }

  /** The move in flight, if any. */
  private moving: Promise<void> | null = null;

  private async move(storage: IndexStorage): Promise<void> {
    const old = this.address;
    const size = this.blockSize;
    if (old === UNDEFINED_ADDRESS || storage.isFresh(old, size)) return;
    const next = storage.alloc(size);
    try {
      for (let off = 0; off < size; off += RELOCATE_PIECE) {
        const n = Math.min(RELOCATE_PIECE, size - off);
        await storage.write(next + off, await this.ctx.reader.read(old + off, n, STRUCTURE));
      }
    } catch (e) {
      storage.release(next, size);
      throw e;
    }
    this.address = next;
    storage.release(old, size);
  }

  private record(coords: readonly number[]): ChunkRecord {
    return {
      coords: coords.slice(),
      address: this.address + linearChunkIndex(coords, this.maxGrid) * this.chunkBytes,
      size: this.chunkBytes,
      filterMask: 0,
    };
  }

  async lookup(coords: readonly number[]): Promise<ChunkRecord | null> {
    checkCoords(coords, this.grid.length, STRUCTURE, this.ctx.datasetPath);
    if (this.address === UNDEFINED_ADDRESS || !inGrid(coords, this.grid)) return null;
    return this.record(coords);
  }

  /** Accepts only the record the index computes itself (chunks cannot move). */
  async insert(rec: ChunkRecord): Promise<void> {
    const want = await this.lookup(rec.coords);
    if (!want || want.address !== rec.address || rec.size !== this.chunkBytes || rec.filterMask !== 0) {
      throw new ValueError(
        `chunk [${rec.coords.join(', ')}] must live at ${want ? want.address : 'no address'} with ${this.chunkBytes} bytes and mask 0 ` +
          `(got address ${rec.address}, ${rec.size} bytes, mask ${rec.filterMask})`,
        { path: this.ctx.datasetPath, structure: STRUCTURE },
      );
    }
  }

  /** Chunks of an implicit index are never removed (HDF5's remove is a no-op): returns null. */
  async remove(coords: readonly number[]): Promise<ChunkRecord | null> {
    checkCoords(coords, this.grid.length, STRUCTURE, this.ctx.datasetPath);
    return null;
  }

  /** Every chunk of the current extent, row-major (H5D__none_idx_iterate). */
  async *iterate(): AsyncIterable<ChunkRecord> {
    if (this.address === UNDEFINED_ADDRESS) return;
    const grid = this.grid;
    const n = gridCount(grid, STRUCTURE, this.ctx.datasetPath);
    const coords = new Array<number>(grid.length).fill(0);
    for (let k = 0; k < n; k++) {
      yield this.record(coords);
      for (let d = grid.length - 1; d >= 0; d--) {
        if (++coords[d]! < grid[d]!) break;
        coords[d] = 0;
      }
    }
  }

  async resize(dims: readonly number[]): Promise<void> {
    const grid = chunkGrid(dims, this.ctx.chunkDims);
    if (dims.length !== this.maxDims.length || dims.some((d, i) => !Number.isSafeInteger(d) || d < 0 || d > this.maxDims[i]!)) {
      throw new ValueError(`dimensions [${dims.join(', ')}] exceed the maximum dimensions`, { path: this.ctx.datasetPath, structure: STRUCTURE });
    }
    this.grid = grid;
  }

  async flush(): Promise<{ address: number; info: ChunkIndexInfo }> {
    return { address: this.address, info: { type: 'implicit' } };
  }

  /** The index has no structures of its own (HDF5 reports 0). */
  async sizeOnDisk(): Promise<number> {
    return 0;
  }
}

/** Provider of {@link ImplicitIndex} (index type `implicit`); `create` allocates the chunk block. */
export class ImplicitIndexProvider implements ChunkIndexProvider {
  readonly type = 'implicit' as const;
  async open(ctx: ChunkIndexContext, address: number): Promise<ChunkIndex> {
    const idx = new ImplicitIndex(ctx, address);
    if (address !== UNDEFINED_ADDRESS && !(address >= 0 && address + idx.blockSize <= ctx.reader.eof)) {
      throw new FormatError(`chunk block of ${idx.blockSize} bytes extends past the end of the file (${ctx.reader.eof} bytes)`, {
        path: ctx.datasetPath,
        structure: STRUCTURE,
        address,
      });
    }
    return idx;
  }
  async create(ctx: ChunkIndexContext): Promise<ChunkIndex> {
    const idx = new ImplicitIndex(ctx, UNDEFINED_ADDRESS);
    idx.allocate();
    return idx;
  }
}

/** The shared {@link ImplicitIndexProvider} instance. */
export const implicitIndexProvider: ChunkIndexProvider = new ImplicitIndexProvider();
