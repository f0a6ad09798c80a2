/**
 * Single chunk index (layout message version 4, chunk indexing type 1; HDF5 spec IV.A.2.i): a
 * dataset whose dims = max dims = chunk dims has exactly one chunk, and its record lives in the
 * layout message itself — the address in the layout's address field and, when the dataset is
 * filtered (layout flag bit 1), the filtered size and filter mask in the indexing information
 * (H5Dsingle.c). Nothing is stored elsewhere: `flush()` hands the record back in `info`.
 *
 * Structured-chunk datasets (`ctx.structured`, layout v5 class 4) keep a richer record there: the
 * chunk size and the offsets of sections 1…n−1, plus the unfiltered size and filter mask of every
 * section when a section is filtered (docs/structured-chunk-format.md §3.4, §5.2); `ctx.info` and the
 * `info` of `flush()` are then a `StructuredSingleChunkInfo`.
 * @module
 */
import { FormatError, H5Error, ValueError } from '@chunkform/core';
import {
  type ChunkIndex,
  type ChunkIndexContext,
  type ChunkIndexProvider,
  type ChunkRecord,
  type StructuredChunkSections,
  type ChunkIndexInfo,
  structuredChunkSizeLength,
  type StructuredSingleChunkInfo,
  UNDEFINED_ADDRESS,
} from '@chunkform/core/plugin';
import { checkChunkAddress, checkChunkSize, checkCoords, checkFilterMask, checkStructuredSections, chunkByteSize } from '../index-helpers.js';

const STRUCTURE = 'single chunk index';

/** The single-chunk index of one dataset. */
export class SingleChunkIndex implements ChunkIndex {
  readonly type = 'single' as const;
  private address: number;
  private size: number;
  private filterMask: number;
  /** Structured chunks: the stored chunk's section fields (null while there is no chunk). */
  private sections: StructuredChunkSections | null = null;
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
    if (ctx.structured) {
      this.size = 0;
      this.filterMask = 0;
      if (address !== UNDEFINED_ADDRESS) this.openStructured(info as Partial<StructuredSingleChunkInfo>);
    } else if (ctx.filtered && info.filteredSize !== undefined) {
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

  /** Takes the stored structured chunk's record from the layout's index information (docs/structured-chunk-format.md §3.4). */
  private openStructured(info: Partial<StructuredSingleChunkInfo>): void {
    const st = this.ctx.structured!;
    const where = { path: this.ctx.datasetPath, structure: STRUCTURE };
    if (info.chunkSize === undefined || !info.sectionOffsets) throw new FormatError('the layout message has no structured single-chunk record', where);
    if (st.filtered && (!info.unfilteredSizes || !info.filterMasks)) {
      throw new FormatError('the single-chunk record of a dataset with filtered sections lacks unfiltered sizes and filter masks (layout flag bit 1)', where);
    }
    if (info.chunkSize <= 0) throw new FormatError(`the stored chunk has size ${info.chunkSize}`, where);
    const rec: Pick<ChunkRecord, 'size' | 'sections'> = {
      size: info.chunkSize,
      sections: {
        offsets: info.sectionOffsets,
        ...(st.filtered ? { unfilteredSizes: info.unfilteredSizes!, filterMasks: info.filterMasks! } : {}),
      },
    };
    try {
      this.sections = checkStructuredSections(rec, st.sections, st.filtered, st.offsetSize ?? 8, this.ctx.datasetPath, STRUCTURE);
    } catch (e) {
      throw e instanceof H5Error ? new FormatError(e.detail, where) : e;
    }
    this.size = info.chunkSize;
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
    const rec: ChunkRecord = { coords: coords.slice(), address: this.address, size: this.size, filterMask: this.filterMask };
    if (this.sections) rec.sections = copySections(this.sections);
    return rec;
  }

  async insert(rec: ChunkRecord): Promise<void> {
    const where = { path: this.ctx.datasetPath, structure: STRUCTURE };
    if (!this.isOrigin(rec.coords)) {
      throw new ValueError(`a single-chunk dataset has only chunk [0…], not [${rec.coords.join(', ')}]`, where);
    }
    checkChunkAddress(rec.address, where);
    const st = this.ctx.structured;
    if (st) {
      const L = structuredChunkSizeLength(this.ctx.chunkDims, this.ctx.elementSize, st.offsetSize ?? 8, st.sections, st.chunkType);
      const max = L >= 7 ? Number.MAX_SAFE_INTEGER : 256 ** L - 1;
      checkChunkSize(rec.size, max, where);
      this.sections = checkStructuredSections(rec, st.sections, st.filtered, st.offsetSize ?? 8, this.ctx.datasetPath, STRUCTURE);
      this.size = rec.size;
      this.filterMask = 0;
    } else if (this.ctx.filtered) {
      if (!Number.isSafeInteger(rec.size) || rec.size <= 0) throw new ValueError(`invalid chunk size ${rec.size}`, where);
      checkFilterMask(rec.filterMask, where);
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
    if (old) {
      this.address = UNDEFINED_ADDRESS;
      if (this.ctx.structured) {
        this.size = 0;
        this.sections = null;
      }
    }
    return old;
  }

  async *iterate(): AsyncIterable<ChunkRecord> {
    const rec = await this.lookup(this.ctx.chunkDims.map(() => 0));
    if (rec) yield rec;
  }

  /** Nothing to do: a single-chunk dataset has fixed dimensions. */
  async resize(_dims: readonly number[]): Promise<void> {}

  /**
   * Returns the chunk address and, for filtered datasets, the filtered size and mask (layout flag
   * bit 1). Structured datasets get a `StructuredSingleChunkInfo`: chunk size and section offsets,
   * plus unfiltered sizes and masks when a section is filtered — all zero without a chunk (docs/structured-chunk-format.md §3.4).
   */
  async flush(): Promise<{ address: number; info: ChunkIndexInfo }> {
    const st = this.ctx.structured;
    if (st) {
      const s = this.address === UNDEFINED_ADDRESS ? null : this.sections;
      const n = st.sections;
      const info: StructuredSingleChunkInfo = {
        type: 'single',
        chunkSize: s ? this.size : 0,
        sectionOffsets: s ? s.offsets.slice() : new Array<number>(n - 1).fill(0),
      };
      if (st.filtered) {
        info.unfilteredSizes = s?.unfilteredSizes ? s.unfilteredSizes.slice() : new Array<number>(n).fill(0);
        info.filterMasks = s?.filterMasks ? s.filterMasks.slice() : new Array<number>(n).fill(0);
      }
      return { address: this.address, info };
    }
    const info: ChunkIndexInfo = this.ctx.filtered ? { type: 'single', filteredSize: this.size, filterMask: this.filterMask } : { type: 'single' };
    return { address: this.address, info };
  }

  /** The index has no structures of its own (HDF5 reports 0). */
  async sizeOnDisk(): Promise<number> {
    return 0;
  }
}

function copySections(s: StructuredChunkSections): StructuredChunkSections {
  const out: StructuredChunkSections = { offsets: s.offsets.slice() };
  if (s.unfilteredSizes) out.unfilteredSizes = s.unfilteredSizes.slice();
  if (s.filterMasks) out.filterMasks = s.filterMasks.slice();
  return out;
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
