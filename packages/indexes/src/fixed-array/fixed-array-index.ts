/**
 * The fixed array chunk index (layout v4 index type 3; HDF5 spec IV.A.2.i and Appendix C.3;
 * H5Dfarray.c): one element per chunk of the chunk grid over the *maximum* dimensions, in a
 * single data block that is split into checksummed pages when it holds more than 2^pageBits
 * elements. The header exists from dataset creation; the data block is created with the first
 * chunk; a page is initialised (and its "page init" bit set) with the first chunk in it.
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
} from '@chunkform/core/plugin';
import { OpQueue } from '../index-helpers.js';
import { bitGet, bitSet, checkExtent, formatError, writeChecksumAt, type Where } from '../array-element/block-io.js';
import { fixedArrayGrid, type ChunkGrid } from '../array-element/chunk-grid.js';
import { decodeDataBlockPage } from '../array-element/data-block-page.js';
import {
  createParams,
  defaultElementCodecFactory,
  type ArrayIndexOptions,
  type ElementCodec,
  type ElementTable,
} from '../array-element/element-codec.js';
import {
  decodeFixedArrayDataBlock,
  encodeFixedArrayDataBlock,
  fixedArrayDataBlockLayout,
  fixedArrayPageEntries,
  fixedArrayPageOffset,
  type FixedArrayDataBlockLayout,
} from './data-block.js';
import {
  decodeFixedArrayHeader,
  encodeFixedArrayHeader,
  fixedArrayHeaderSize,
  type FixedArrayHeader,
} from './header.js';

/** Page bits HDF5 uses for fixed array chunk indexes (`H5D_FARRAY_MAX_DBLK_PAGE_NELMTS_BITS`). */
export const DEFAULT_FIXED_ARRAY_PAGE_BITS = 10;

const HEADER = 'fixed array header';
const BLOCK = 'fixed array data block';
const PAGE = 'fixed array data block page';

/** A fixed array chunk index, opened from a file or created in memory. */
export class FixedArrayIndex implements ChunkIndex {
  readonly type = 'fixed-array' as const;
  /** Mutations and flushes run one at a time (a flush awaits I/O between reading and writing state). */
  private readonly queue = new OpQueue();
  private readonly header: FixedArrayHeader;
  private headerAddress: number;
  private readonly layout: FixedArrayDataBlockLayout;
  private readonly grid: ChunkGrid;
  private dims: number[];
  /** Page-initialised bitmap (paged blocks), once the data block prefix is known. */
  private pageInit: Uint8Array | null = null;
  /** Element tables per page (one table for an unpaged block); null = page not initialised. */
  private readonly units: (ElementTable | null | undefined)[];
  private readonly loading = new Map<number, Promise<ElementTable | null>>();
  private blockLoaded = false;
  private blockLoading: Promise<void> | null = null;
  private newBlock = false;
  private dirtyHeader = false;
  private dirtyBlock = false;
  private readonly dirtyPages = new Set<number>();

  private constructor(
    private readonly ctx: ChunkIndexContext,
    private readonly codec: ElementCodec,
    header: FixedArrayHeader,
    headerAddress: number,
    grid: ChunkGrid,
  ) {
    this.header = header;
    this.headerAddress = headerAddress;
    this.grid = grid;
    this.dims = ctx.dims.slice();
    this.layout = fixedArrayDataBlockLayout(header.entries, header.elementSize, header.pageBits, ctx.sizes);
    this.units = new Array(Math.max(1, this.layout.npages)).fill(undefined);
  }

  private where(structure: string, address: number): Where {
    return { structure, address, path: this.ctx.datasetPath };
  }

  /** Opens the fixed array whose header is at `address` (spec Appendix C.3). */
  static async open(ctx: ChunkIndexContext, address: number, opts: ArrayIndexOptions = {}): Promise<FixedArrayIndex> {
    const grid = fixedArrayGrid(ctx.maxDims, ctx.chunkDims, ctx.datasetPath);
    if (!isDefinedAddress(address)) return FixedArrayIndex.create(ctx, opts);
    const where: Where = { structure: HEADER, address, path: ctx.datasetPath };
    const bytes = await ctx.reader.read(address, fixedArrayHeaderSize(ctx.sizes), HEADER);
    const header = decodeFixedArrayHeader(bytes, ctx.sizes, where);
    const codec = (opts.codecFactory ?? defaultElementCodecFactory)(ctx, header.clientId);
    if (header.elementSize !== codec.elementSize) {
      throw formatError(where, `element size ${header.elementSize} does not match ${codec.elementSize} expected for client ${header.clientId}`);
    }
    if (header.entries !== grid.count) {
      throw formatError(where, `${header.entries} entries do not match the ${grid.count} chunks of the maximum dimensions`);
    }
    if (isDefinedAddress(header.dataBlockAddress)) {
      const layout = fixedArrayDataBlockLayout(header.entries, header.elementSize, header.pageBits, ctx.sizes);
      checkExtent(header.dataBlockAddress, layout.totalSize, ctx.reader.eof, {
        structure: BLOCK,
        address: header.dataBlockAddress,
        path: ctx.datasetPath,
      });
    }
    return new FixedArrayIndex(ctx, codec, header, address, grid);
  }

  /**
   * Creates an empty fixed array for the dataset. Nothing is written before {@link flush}, and a
   * flush before the first insert writes nothing and reports UNDEFINED_ADDRESS (HDF5 creates the
   * index with the first chunk).
   */
  static create(ctx: ChunkIndexContext, opts: ArrayIndexOptions = {}): FixedArrayIndex {
    const grid = fixedArrayGrid(ctx.maxDims, ctx.chunkDims, ctx.datasetPath);
    const { clientId, version } = createParams(ctx, opts);
    const codec = (opts.codecFactory ?? defaultElementCodecFactory)(ctx, clientId);
    const pageBits = ctx.info.type === 'fixed-array' ? ctx.info.pageBits : DEFAULT_FIXED_ARRAY_PAGE_BITS;
    if (!Number.isInteger(pageBits) || pageBits < 1 || pageBits > 31) {
      throw new ValueError(`invalid fixed array page bits ${pageBits}`, { path: ctx.datasetPath, structure: HEADER });
    }
    const header: FixedArrayHeader = {
      version,
      clientId,
      elementSize: codec.elementSize,
      pageBits,
      entries: grid.count,
      dataBlockAddress: UNDEFINED_ADDRESS,
    };
    // Like HDF5 (allocation time "incremental"), nothing exists in the file until the first chunk.
    return new FixedArrayIndex(ctx, codec, header, UNDEFINED_ADDRESS, grid);
  }

  /** A copy of the header as it is (or will be) stored. */
  headerInfo(): FixedArrayHeader {
    return { ...this.header };
  }

  private async loadBlock(): Promise<void> {
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

  /** The element table of unit `k` (a page, or the whole unpaged block); creates it when `create`. */
  private async unit(k: number, create: boolean): Promise<ElementTable | null> {
    const have = this.units[k];
    if (have) return have;
    if (!isDefinedAddress(this.header.dataBlockAddress) && !this.newBlock) {
      if (!create) return null;
      this.createBlock();
    }
    if (!this.newBlock) await this.loadBlock();
    const again = this.units[k];
    if (again) return again;
    const paged = this.layout.npages > 0;
    if (!paged) return null; // unreachable: an unpaged block always has its table once loaded
    if (!bitGet(this.pageInit!, k)) {
      if (!create) return null;
      const t = this.codec.create(fixedArrayPageEntries(this.layout, k));
      this.units[k] = t;
      bitSet(this.pageInit!, k);
      this.dirtyBlock = true;
      this.dirtyPages.add(k);
      return t;
    }
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

  private async loadPage(k: number): Promise<ElementTable> {
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

  private createBlock(): void {
    this.newBlock = true;
    this.blockLoaded = true;
    this.dirtyBlock = true;
    this.dirtyHeader = true;
    if (this.layout.npages > 0) this.pageInit = new Uint8Array(this.layout.pageInitSize);
    else this.units[0] = this.codec.create(this.layout.entries);
  }

  private locate(coords: readonly number[]): { k: number; i: number; idx: number } | null {
    const idx = this.grid.index(coords);
    if (idx < 0 || idx >= this.header.entries) return null;
    if (this.layout.npages === 0) return { k: 0, i: idx, idx };
    const k = Math.floor(idx / this.layout.pageEntries);
    return { k, i: idx - k * this.layout.pageEntries, idx };
  }

  private markDirty(k: number): void {
    if (this.layout.npages > 0) this.dirtyPages.add(k);
    else this.dirtyBlock = true;
  }

  private requireWritable(): void {
    if (!this.ctx.storage) throw new InvalidStateError('the chunk index is read-only', { path: this.ctx.datasetPath, structure: HEADER });
  }

  async lookup(coords: readonly number[]): Promise<ChunkRecord | null> {
    const loc = this.locate(coords);
    if (!loc) return null;
    const t = await this.unit(loc.k, false);
    const v = t?.get(loc.i);
    return v ? { coords: coords.slice(), ...v } : null;
  }

  insert(rec: ChunkRecord): Promise<void> {
    return this.queue.run(() => this.insertNow(rec));
  }

  insertMany(recs: readonly ChunkRecord[]): Promise<void> {
    return this.queue.run(() => this.insertManyNow(recs));
  }

  /** Every record or none: elements already set are restored when a later one cannot be stored. */
  private async insertManyNow(recs: readonly ChunkRecord[]): Promise<void> {
    this.requireWritable();
    const locs = recs.map((rec) => {
      const loc = this.locate(rec.coords);
      if (!loc) throw new ValueError(`chunk [${rec.coords.join(', ')}] lies outside the fixed array's chunk grid`, { path: this.ctx.datasetPath, structure: HEADER });
      return loc;
    });
    const tables: ElementTable[] = [];
    for (const loc of locs) tables.push(this.units[loc.k] ?? (await this.unit(loc.k, true))!);
    const before: (Omit<ChunkRecord, 'coords'> | null)[] = [];
    try {
      for (let j = 0; j < recs.length; j++) {
        const { coords: _c, ...value } = recs[j]!;
        before.push(tables[j]!.get(locs[j]!.i));
        tables[j]!.set(locs[j]!.i, value);
      }
    } catch (e) {
      for (let j = before.length - 1; j >= 0; j--) {
        const old = before[j];
        if (old) tables[j]!.set(locs[j]!.i, old);
        else tables[j]!.clear(locs[j]!.i);
      }
      throw e;
    }
    for (const loc of locs) this.markDirty(loc.k);
  }

  private async insertNow(rec: ChunkRecord): Promise<void> {
    this.requireWritable();
    const loc = this.locate(rec.coords);
    if (!loc) {
      throw new ValueError(`chunk [${rec.coords.join(', ')}] lies outside the fixed array's chunk grid`, { path: this.ctx.datasetPath, structure: HEADER });
    }
    const t = (await this.unit(loc.k, true))!;
    const { coords: _c, ...value } = rec;
    t.set(loc.i, value);
    this.markDirty(loc.k);
  }

  remove(coords: readonly number[]): Promise<ChunkRecord | null> {
    return this.queue.run(() => this.removeNow(coords));
  }

  private async removeNow(coords: readonly number[]): Promise<ChunkRecord | null> {
    const loc = this.locate(coords);
    if (!loc) return null;
    const t = await this.unit(loc.k, false);
    const v = t?.get(loc.i);
    if (!t || !v) return null;
    this.requireWritable();
    t.clear(loc.i);
    this.markDirty(loc.k);
    return { coords: coords.slice(), ...v };
  }

  async *iterate(): AsyncIterable<ChunkRecord> {
    const units = this.units.length;
    for (let k = 0; k < units; k++) {
      const t = await this.unit(k, false);
      if (!t) continue;
      const base = this.layout.npages > 0 ? k * this.layout.pageEntries : 0;
      for (let i = 0; i < t.length; i++) {
        if (!t.isDefined(i)) continue;
        yield { coords: this.grid.coords(base + i), ...t.get(i)! };
      }
    }
  }

  async resize(dims: readonly number[]): Promise<void> {
    if (dims.length !== this.grid.rank) throw new ValueError(`resize to rank ${dims.length}, the dataset has rank ${this.grid.rank}`, { path: this.ctx.datasetPath });
    dims.forEach((d, i) => {
      if (!Number.isSafeInteger(d) || d < 0 || d > this.ctx.maxDims[i]!) {
        throw new ValueError(`dimension ${i} cannot be resized to ${d} (maximum ${this.ctx.maxDims[i]})`, { path: this.ctx.datasetPath });
      }
    });
    // The fixed array numbers chunks over the maximum dimensions: nothing moves.
    this.dims = dims.slice();
  }

  /** Current dataset dimensions as last given to {@link resize}. */
  get currentDims(): readonly number[] {
    return this.dims;
  }

  /**
   * Writes the dirty header, data block and pages, copy-on-write: the header and the data block
   * (its prefix and pages are one allocation) are rewritten in place only while their space is
   * fresh (allocated since the last flush). Otherwise the changed structure goes to new space and
   * the old space is released; since the data block records its header's address, a moved header
   * takes the data block (and its initialised pages) with it.
   */
  flush(): Promise<{ address: number; info: ChunkIndexInfo }> {
    return this.queue.run(() => this.flushNow());
  }

  private async flushNow(): Promise<{ address: number; info: ChunkIndexInfo }> {
    const info: ChunkIndexInfo = { type: 'fixed-array', pageBits: this.header.pageBits };
    if (!this.dirtyHeader && !this.dirtyBlock && this.dirtyPages.size === 0) return { address: this.headerAddress, info };
    this.requireWritable();
    const storage = this.ctx.storage!;
    const sizes = this.ctx.sizes;
    const headerSize = fixedArrayHeaderSize(sizes);
    const oldBlock = this.newBlock ? UNDEFINED_ADDRESS : this.header.dataBlockAddress;
    const blockStays = !isDefinedAddress(oldBlock) || storage.isFresh(oldBlock, this.layout.totalSize);
    const headerStays = !isDefinedAddress(this.headerAddress) || storage.isFresh(this.headerAddress, headerSize);
    // Anything dirty changes the block or, through its address, the header: both must be fresh to stay.
    const moveBlock = isDefinedAddress(oldBlock) && (!blockStays || !headerStays);
    const moveHeader = isDefinedAddress(this.headerAddress) && !headerStays;
    if (moveBlock) await this.loadAllPages();
    if (!isDefinedAddress(this.headerAddress) || moveHeader) {
      const old = this.headerAddress;
      this.headerAddress = storage.alloc(headerSize);
      if (isDefinedAddress(old)) storage.release(old, headerSize);
      this.dirtyHeader = true;
      this.dirtyBlock = true;
    }
    if (this.newBlock || moveBlock) {
      this.header.dataBlockAddress = storage.alloc(this.layout.totalSize);
      if (moveBlock) storage.release(oldBlock, this.layout.totalSize);
      this.newBlock = false;
      this.dirtyHeader = true;
      this.dirtyBlock = true;
      if (moveBlock) this.markInitialisedPagesDirty();
    }
    if (this.dirtyHeader) await storage.write(this.headerAddress, encodeFixedArrayHeader(this.header, sizes));
    const dblk = this.header.dataBlockAddress;
    if (this.dirtyBlock && isDefinedAddress(dblk)) {
      let elements: Uint8Array | null = null;
      if (this.layout.npages === 0) {
        elements = new Uint8Array(this.layout.entries * this.header.elementSize);
        this.codec.encode(this.units[0]!, elements, 0);
      }
      const block = { version: this.header.version, clientId: this.header.clientId, headerAddress: this.headerAddress, pageInit: this.pageInit, elements };
      await storage.write(dblk, encodeFixedArrayDataBlock(block, this.layout, sizes));
    }
    for (const k of [...this.dirtyPages].sort((a, b) => a - b)) {
      const t = this.units[k]!;
      const n = t.length * this.header.elementSize;
      const out = new Uint8Array(n + 4);
      this.codec.encode(t, out, 0);
      writeChecksumAt(out, n);
      await storage.write(dblk + fixedArrayPageOffset(this.layout, k), out);
    }
    this.dirtyHeader = false;
    this.dirtyBlock = false;
    this.dirtyPages.clear();
    return { address: this.headerAddress, info };
  }

  /** Loads the data block and every initialised page (before the block moves to new space). */
  private async loadAllPages(): Promise<void> {
    await this.loadBlock();
    if (this.layout.npages === 0) return;
    for (let k = 0; k < this.layout.npages; k++) if (bitGet(this.pageInit!, k)) await this.unit(k, false);
  }

  /** Every initialised page must be written again (the data block moved). */
  private markInitialisedPagesDirty(): void {
    if (this.layout.npages === 0) return;
    for (let k = 0; k < this.layout.npages; k++) if (bitGet(this.pageInit!, k)) this.dirtyPages.add(k);
  }

  async sizeOnDisk(): Promise<number> {
    const hasBlock = isDefinedAddress(this.header.dataBlockAddress) || this.newBlock;
    if (!hasBlock && !isDefinedAddress(this.headerAddress)) return 0;
    return fixedArrayHeaderSize(this.ctx.sizes) + (hasBlock ? this.layout.totalSize : 0);
  }
}

/** Opens and creates {@link FixedArrayIndex}es (chunk index type "fixed-array"). */
export class FixedArrayProvider implements ChunkIndexProvider {
  readonly type = 'fixed-array' as const;
  constructor(private readonly opts: ArrayIndexOptions = {}) {}
  open(ctx: ChunkIndexContext, address: number): Promise<ChunkIndex> {
    return FixedArrayIndex.open(ctx, address, this.opts);
  }
  async create(ctx: ChunkIndexContext): Promise<ChunkIndex> {
    return FixedArrayIndex.create(ctx, this.opts);
  }
}
