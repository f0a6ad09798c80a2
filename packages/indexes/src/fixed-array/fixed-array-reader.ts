/**
 * The reading half of the fixed array chunk index (layout v4 index type 3; HDF5 spec IV.A.2.i and
 * Appendix C.3; H5Dfarray.c): opening the header, loading the data block and its pages on demand,
 * looking chunks up and listing them. {@link FixedArrayIndex} (fixed-array-index.ts) adds creation,
 * inserts and flushes; {@link fixedArrayReadOnlyProvider} opens this class alone, so that a bundle
 * which only reads leaves the writing code (and the encoders) out.
 * @module
 */
import {
  type ChunkIndex,
  type ChunkIndexContext,
  type ChunkIndexInfo,
  type ChunkIndexProvider,
  type ChunkRecord,
  UnsupportedError,
  ValueError,
  UNDEFINED_ADDRESS,
  isDefinedAddress,
} from '@chunkform/core/plugin';
import { bitGet, checkExtent, formatError, type Where } from '../array-element/block-io.js';
import { fixedArrayGrid, type ChunkGrid } from '../array-element/chunk-grid.js';
import { decodeDataBlockPage } from '../array-element/data-block-page.js';
import { chunkElementDecoderFactory, createParams, definedRecords, type ArrayIndexOptions, type ElementColumns, type ElementDecoder } from '../array-element/element-codec.js';
import { decodeFixedArrayDataBlock, fixedArrayDataBlockLayout, fixedArrayPageEntries, fixedArrayPageOffset, type FixedArrayDataBlockLayout } from './data-block.js';
import { decodeFixedArrayHeader, fixedArrayHeaderSize, type FixedArrayHeader } from './header.js';

/** Page bits HDF5 uses for fixed array chunk indexes (`H5D_FARRAY_MAX_DBLK_PAGE_NELMTS_BITS`). */
export const DEFAULT_FIXED_ARRAY_PAGE_BITS = 10;

export const HEADER = 'fixed array header';
export const BLOCK = 'fixed array data block';
const PAGE = 'fixed array data block page';
const READ_ONLY = 'the fixed array index is registered read-only (registerFixedArrayReadOnly); registerFixedArrayIndex() writes';

/** What opening a fixed array found: its header (or the header a new array would get), element codec and chunk grid. */
export interface FixedArrayParts<C extends ElementDecoder = ElementDecoder> {
  header: FixedArrayHeader;
  headerAddress: number;
  codec: C;
  grid: ChunkGrid;
}

/** A fixed array chunk index opened for reading; {@link FixedArrayIndex} is the one that writes. */
export class FixedArrayReader implements ChunkIndex {
  readonly type = 'fixed-array' as const;
  /** True: this class cannot change the index (the subclass {@link FixedArrayIndex} can). */
  readonly readOnly: boolean = true;
  /** Why writes are refused (the chunked storage's error message says it). */
  readonly readOnlyReason?: string = READ_ONLY;
  protected readonly ctx: ChunkIndexContext;
  protected readonly codec: ElementDecoder;
  protected readonly header: FixedArrayHeader;
  protected headerAddress: number;
  protected readonly layout: FixedArrayDataBlockLayout;
  protected readonly grid: ChunkGrid;
  /** Page-initialised bitmap (paged blocks), once the data block prefix is known. */
  protected pageInit: Uint8Array | null = null;
  /** Element tables per page (one table for an unpaged block); null = page not initialised. */
  protected readonly units: (ElementColumns | null | undefined)[];
  private readonly loading = new Map<number, Promise<ElementColumns | null>>();
  private blockLoaded = false;
  private blockLoading: Promise<void> | null = null;

  protected constructor(ctx: ChunkIndexContext, parts: FixedArrayParts) {
    this.ctx = ctx;
    this.codec = parts.codec;
    this.header = parts.header;
    this.headerAddress = parts.headerAddress;
    this.grid = parts.grid;
    this.layout = fixedArrayDataBlockLayout(parts.header.entries, parts.header.elementSize, parts.header.pageBits, ctx.sizes);
    this.units = new Array(Math.max(1, this.layout.npages)).fill(undefined);
  }

  /**
   * Opens the fixed array whose header is at `address` (spec Appendix C.3); an undefined address
   * gives an empty index (HDF5 creates the array with the first chunk).
   */
  static async open(ctx: ChunkIndexContext, address: number, opts: ArrayIndexOptions = {}): Promise<FixedArrayReader> {
    return new FixedArrayReader(ctx, await FixedArrayReader.readParts(ctx, address, opts, opts.codecFactory ?? chunkElementDecoderFactory));
  }

  /** The header at `address` (checked against the dataset) or, for UNDEFINED_ADDRESS, a new array's header. */
  protected static async readParts<C extends ElementDecoder>(
    ctx: ChunkIndexContext,
    address: number,
    opts: ArrayIndexOptions,
    factory: (ctx: ChunkIndexContext, clientId: number) => C,
  ): Promise<FixedArrayParts<C>> {
    if (!isDefinedAddress(address)) return FixedArrayReader.newParts(ctx, opts, factory);
    const grid = fixedArrayGrid(ctx.maxDims, ctx.chunkDims, ctx.datasetPath);
    const where: Where = { structure: HEADER, address, path: ctx.datasetPath };
    const bytes = await ctx.reader.read(address, fixedArrayHeaderSize(ctx.sizes), HEADER);
    const header = decodeFixedArrayHeader(bytes, ctx.sizes, where);
    const codec = factory(ctx, header.clientId);
    if (header.elementSize !== codec.elementSize) {
      throw formatError(where, `element size ${header.elementSize} does not match ${codec.elementSize} expected for client ${header.clientId}`);
    }
    if (header.entries !== grid.count) {
      throw formatError(where, `${header.entries} entries do not match the ${grid.count} chunks of the maximum dimensions`);
    }
    if (isDefinedAddress(header.dataBlockAddress)) {
      const layout = fixedArrayDataBlockLayout(header.entries, header.elementSize, header.pageBits, ctx.sizes);
      checkExtent(header.dataBlockAddress, layout.totalSize, ctx.reader.eof, { structure: BLOCK, address: header.dataBlockAddress, path: ctx.datasetPath });
    }
    return { header, headerAddress: address, codec, grid };
  }

  /** The header of an array not yet in the file: nothing is stored before the first chunk. */
  protected static newParts<C extends ElementDecoder>(ctx: ChunkIndexContext, opts: ArrayIndexOptions, factory: (ctx: ChunkIndexContext, clientId: number) => C): FixedArrayParts<C> {
    const grid = fixedArrayGrid(ctx.maxDims, ctx.chunkDims, ctx.datasetPath);
    const { clientId, version } = createParams(ctx, opts);
    const codec = factory(ctx, clientId);
    const pageBits = ctx.info.type === 'fixed-array' ? ctx.info.pageBits : DEFAULT_FIXED_ARRAY_PAGE_BITS;
    if (!Number.isInteger(pageBits) || pageBits < 1 || pageBits > 31) {
      throw new ValueError(`invalid fixed array page bits ${pageBits}`, { path: ctx.datasetPath, structure: HEADER });
    }
    const header: FixedArrayHeader = { version, clientId, elementSize: codec.elementSize, pageBits, entries: grid.count, dataBlockAddress: UNDEFINED_ADDRESS };
    return { header, headerAddress: UNDEFINED_ADDRESS, codec, grid };
  }

  protected where(structure: string, address: number): Where {
    return { structure, address, path: this.ctx.datasetPath };
  }

  /** A copy of the header as it is (or will be) stored. */
  headerInfo(): FixedArrayHeader {
    return { ...this.header };
  }

  protected async loadBlock(): Promise<void> {
    if (this.blockLoaded) return;
    if (!this.blockLoading) {
      this.blockLoading = (async () => {
        const addr = this.header.dataBlockAddress;
        if (!isDefinedAddress(addr)) return;
        const where = this.where(BLOCK, addr);
        const bytes = await this.ctx.reader.read(addr, this.layout.blockSize, BLOCK);
        const block = decodeFixedArrayDataBlock(bytes, this.layout, this.ctx.sizes, where);
        if (block.clientId !== this.header.clientId) throw formatError(where, `client id ${block.clientId} differs from the header's ${this.header.clientId}`);
        if (block.headerAddress !== this.headerAddress) throw formatError(where, `header address ${block.headerAddress} is not ${this.headerAddress}`);
        if (block.pageInit) this.pageInit = block.pageInit;
        else this.units[0] = this.codec.decode(block.elements!, 0, this.layout.entries, BLOCK, addr);
        this.blockLoaded = true;
      })();
      this.blockLoading.catch(() => (this.blockLoading = null));
    }
    await this.blockLoading;
  }

  /** Marks the data block as held in memory (a new block the writer made). */
  protected blockInMemory(): void {
    this.blockLoaded = true;
  }

  /** The element table of unit `k` (a page, or the whole unpaged block); null when nothing is stored there. */
  protected async unit(k: number): Promise<ElementColumns | null> {
    const have = this.units[k];
    if (have) return have;
    if (!isDefinedAddress(this.header.dataBlockAddress)) return null;
    await this.loadBlock();
    const again = this.units[k];
    if (again) return again;
    // An unpaged block always has its table once loaded; a page may not be initialised.
    if (this.layout.npages === 0 || !bitGet(this.pageInit!, k)) return null;
    let p = this.loading.get(k);
    if (!p) {
      p = this.loadPage(k);
      this.loading.set(k, p);
    }
    try {
      return await p;
    } finally {
      this.loading.delete(k);
    }
  }

  private async loadPage(k: number): Promise<ElementColumns> {
    const n = fixedArrayPageEntries(this.layout, k);
    const addr = this.header.dataBlockAddress + fixedArrayPageOffset(this.layout, k);
    const es = this.header.elementSize;
    const bytes = await this.ctx.reader.read(addr, n * es + 4, PAGE);
    const elements = decodeDataBlockPage(bytes, n, es, this.where(PAGE, addr));
    const existing = this.units[k];
    if (existing) return existing;
    const t = this.codec.decode(elements, 0, n, PAGE, addr);
    this.units[k] = t;
    return t;
  }

  /** The unit and position of the chunk at `coords`; null outside the grid. */
  protected locate(coords: readonly number[]): { k: number; i: number; idx: number } | null {
    const idx = this.grid.index(coords);
    if (idx < 0 || idx >= this.header.entries) return null;
    if (this.layout.npages === 0) return { k: 0, i: idx, idx };
    const k = Math.floor(idx / this.layout.pageEntries);
    return { k, i: idx - k * this.layout.pageEntries, idx };
  }

  async lookup(coords: readonly number[]): Promise<ChunkRecord | null> {
    const loc = this.locate(coords);
    if (!loc) return null;
    const t = await this.unit(loc.k);
    const v = t?.get(loc.i);
    return v ? { coords: coords.slice(), ...v } : null;
  }

  async *iterate(): AsyncIterable<ChunkRecord> {
    const units = this.units.length;
    for (let k = 0; k < units; k++) {
      const t = await this.unit(k);
      if (!t) continue;
      const base = this.layout.npages > 0 ? k * this.layout.pageEntries : 0;
      yield* definedRecords(t, this.grid, base, t.length);
    }
  }

  private refuse(what: string): never {
    throw new UnsupportedError(`${what}: ${this.readOnlyReason}`, { path: this.ctx.datasetPath, structure: HEADER });
  }

  /** Refused: this index only reads (the chunked storage refuses writes before they get here). */
  async insert(_rec: ChunkRecord): Promise<void> {
    this.refuse('inserting a chunk');
  }

  /** Refused: this index only reads. */
  async remove(_coords: readonly number[]): Promise<ChunkRecord | null> {
    this.refuse('removing a chunk');
  }

  /** Refused: this index only reads (the chunked storage refuses a resize before it gets here). */
  async resize(_dims: readonly number[]): Promise<void> {
    this.refuse('resizing');
  }

  /** Nothing changes here: the header's address and the index info. */
  async flush(): Promise<{ address: number; info: ChunkIndexInfo }> {
    return { address: this.headerAddress, info: { type: 'fixed-array', pageBits: this.header.pageBits } };
  }

  /** True when the data block exists (in the file, or in memory for the writer). */
  protected hasBlock(): boolean {
    return isDefinedAddress(this.header.dataBlockAddress);
  }

  async sizeOnDisk(): Promise<number> {
    const hasBlock = this.hasBlock();
    if (!hasBlock && !isDefinedAddress(this.headerAddress)) return 0;
    return fixedArrayHeaderSize(this.ctx.sizes) + (hasBlock ? this.layout.totalSize : 0);
  }
}

/**
 * Opens {@link FixedArrayReader}s (chunk index type "fixed-array") and creates none: the fixed array
 * index of apps that only read. Its default element decoders are those of chunked (dense) datasets
 * ({@link chunkElementDecoderFactory}); structured-chunk (sparse) datasets need the full
 * `FixedArrayProvider` (`registerFixedArrayIndex`).
 */
export class FixedArrayReadOnlyProvider implements ChunkIndexProvider {
  readonly type = 'fixed-array' as const;
  constructor(private readonly opts: ArrayIndexOptions = {}) {}
  open(ctx: ChunkIndexContext, address: number): Promise<ChunkIndex> {
    return FixedArrayReader.open(ctx, address, this.opts);
  }
  /** Refused: a read-only registration creates no index ({@link UnsupportedError}). */
  async create(ctx: ChunkIndexContext): Promise<ChunkIndex> {
    throw new UnsupportedError(`cannot create a fixed array chunk index: ${READ_ONLY}`, { path: ctx.datasetPath, structure: HEADER });
  }
}
