/**
 * The fixed array chunk index that writes (layout v4 index type 3; HDF5 spec IV.A.2.i and Appendix
 * C.3; H5Dfarray.c): one element per chunk of the chunk grid over the *maximum* dimensions, in a
 * single data block that is split into checksummed pages when it holds more than 2^pageBits
 * elements. The header exists from dataset creation; the data block is created with the first
 * chunk; a page is initialised (and its "page init" bit set) with the first chunk in it. Reading is
 * {@link FixedArrayReader}'s (fixed-array-reader.ts).
 * @module
 */
import {
  type ChunkIndex,
  type ChunkIndexContext,
  type ChunkIndexInfo,
  type ChunkIndexProvider,
  type ChunkRecord,
  InvalidStateError,
  ValueError,
  UNDEFINED_ADDRESS,
  isDefinedAddress,
} from '@chunkform/core/plugin';
import { OpQueue } from '../index-helpers.js';
import { bitGet, bitSet, writeChecksumAt } from '../array-element/block-io.js';
import { defaultElementCodecFactory, type ArrayIndexOptions, type ElementCodec, type ElementTable } from '../array-element/element-codec.js';
import { encodeFixedArrayDataBlock, fixedArrayPageEntries, fixedArrayPageOffset } from './data-block.js';
import { encodeFixedArrayHeader, fixedArrayHeaderSize } from './header.js';
import { BLOCK, FixedArrayReader, HEADER } from './fixed-array-reader.js';

export { DEFAULT_FIXED_ARRAY_PAGE_BITS } from './fixed-array-reader.js';

/** A fixed array chunk index, opened from a file or created in memory. */
export class FixedArrayIndex extends FixedArrayReader {
  override readonly readOnly: boolean = false;
  override readonly readOnlyReason?: string = undefined;
  /** Mutations and flushes run one at a time (a flush awaits I/O between reading and writing state). */
  private readonly queue = new OpQueue();
  private newBlock = false;
  private dirtyHeader = false;
  private dirtyBlock = false;
  private readonly dirtyPages = new Set<number>();
  /** A full codec: the tables it decodes and creates change. */
  declare protected readonly codec: ElementCodec;
  declare protected readonly units: (ElementTable | null | undefined)[];
  /** Current dataset dimensions as last given to {@link resize}. */
  private dims: number[] = this.ctx.dims.slice();

  /** Opens the fixed array whose header is at `address` (spec Appendix C.3); an undefined address: {@link create}. */
  static override async open(ctx: ChunkIndexContext, address: number, opts: ArrayIndexOptions = {}): Promise<FixedArrayIndex> {
    return new FixedArrayIndex(ctx, await FixedArrayReader.readParts(ctx, address, opts, opts.codecFactory ?? defaultElementCodecFactory));
  }

  /**
   * Creates an empty fixed array for the dataset. Nothing is written before {@link flush}, and a
   * flush before the first insert writes nothing and reports UNDEFINED_ADDRESS (HDF5 creates the
   * index with the first chunk).
   */
  static create(ctx: ChunkIndexContext, opts: ArrayIndexOptions = {}): FixedArrayIndex {
    // Like HDF5 (allocation time "incremental"), nothing exists in the file until the first chunk.
    return new FixedArrayIndex(ctx, FixedArrayReader.newParts(ctx, opts, opts.codecFactory ?? defaultElementCodecFactory));
  }

  /** The element table of unit `k` (a page, or the whole unpaged block); creates it when `create`. */
  protected override async unit(k: number, create = false): Promise<ElementTable | null> {
    if (create && !this.units[k]) {
      if (!isDefinedAddress(this.header.dataBlockAddress) && !this.newBlock) this.createBlock();
      if (!this.newBlock) await this.loadBlock();
      if (!this.units[k] && this.layout.npages > 0 && !bitGet(this.pageInit!, k)) {
        const t = this.codec.create(fixedArrayPageEntries(this.layout, k));
        this.units[k] = t;
        bitSet(this.pageInit!, k);
        this.dirtyBlock = true;
        this.dirtyPages.add(k);
        return t;
      }
    }
    return (await super.unit(k)) as ElementTable | null;
  }

  private createBlock(): void {
    this.newBlock = true;
    this.blockInMemory();
    this.dirtyBlock = true;
    this.dirtyHeader = true;
    if (this.layout.npages > 0) this.pageInit = new Uint8Array(this.layout.pageInitSize);
    else this.units[0] = this.codec.create(this.layout.entries);
  }

  private markDirty(k: number): void {
    if (this.layout.npages > 0) this.dirtyPages.add(k);
    else this.dirtyBlock = true;
  }

  private requireWritable(): void {
    if (!this.ctx.storage) throw new InvalidStateError('the chunk index is read-only', { path: this.ctx.datasetPath, structure: HEADER });
  }

  /**
   * {@link lookup} of many chunks: the units (pages, or the block) not in memory are loaded first, then
   * every element is read without a promise per chunk (write path: a gathered group looks up its chunks
   * at once). The loops are small synchronous methods, optimised on their own.
   */
  async lookupMany(list: readonly (readonly number[])[]): Promise<(ChunkRecord | null)[]> {
    for (const k of this.unitsMissing(list.map((coords) => this.locate(coords)))) await this.unit(k);
    return this.lookupLoaded(list);
  }

  /** The distinct units of `locs` that are not in memory. */
  private unitsMissing(locs: readonly ({ k: number } | null)[]): number[] {
    const out: number[] = [];
    for (const loc of locs) if (loc && !this.units[loc.k] && !out.includes(loc.k)) out.push(loc.k);
    return out;
  }

  /** {@link lookup} of chunks whose units are in memory (a unit still missing has no chunk: null). */
  private lookupLoaded(list: readonly (readonly number[])[]): (ChunkRecord | null)[] {
    const out: (ChunkRecord | null)[] = [];
    for (const coords of list) {
      const loc = this.locate(coords);
      const v = loc ? this.units[loc.k]?.get(loc.i) : null;
      out.push(v ? { coords: coords.slice(), ...v } : null);
    }
    return out;
  }

  override insert(rec: ChunkRecord): Promise<void> {
    return this.queue.run(() => this.insertNow(rec));
  }

  insertMany(recs: readonly ChunkRecord[]): Promise<void> {
    return this.queue.run(() => this.insertManyNow(recs));
  }

  /** Every record or none: elements already set are restored when a later one cannot be stored. */
  private async insertManyNow(recs: readonly ChunkRecord[]): Promise<void> {
    this.requireWritable();
    const locs = this.locateAll(recs);
    const made = new Map<number, ElementTable>();
    for (const k of this.unitsMissing(locs)) made.set(k, (await this.unit(k, true))!);
    this.setAll(recs, locs, made);
  }

  /** The element positions of `recs` (a record outside the grid: ValueError). */
  private locateAll(recs: readonly ChunkRecord[]): { k: number; i: number }[] {
    const locs: { k: number; i: number }[] = [];
    for (const rec of recs) {
      const loc = this.locate(rec.coords);
      if (!loc) throw new ValueError(`chunk [${rec.coords.join(', ')}] lies outside the fixed array's chunk grid`, { path: this.ctx.datasetPath, structure: HEADER });
      locs.push(loc);
    }
    return locs;
  }

  /**
   * Sets the elements of `recs` at `locs` (tables in memory, or in `made`) and marks their units
   * dirty; when one cannot be stored, those already set are restored and the error is thrown.
   */
  private setAll(recs: readonly ChunkRecord[], locs: readonly { k: number; i: number }[], made: ReadonlyMap<number, ElementTable>): void {
    const tables: ElementTable[] = [];
    for (const loc of locs) tables.push((this.units[loc.k] ?? made.get(loc.k))!);
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

  override remove(coords: readonly number[]): Promise<ChunkRecord | null> {
    return this.queue.run(() => this.removeNow(coords));
  }

  private async removeNow(coords: readonly number[]): Promise<ChunkRecord | null> {
    const loc = this.locate(coords);
    if (!loc) return null;
    const t = await this.unit(loc.k);
    const v = t?.get(loc.i);
    if (!t || !v) return null;
    this.requireWritable();
    t.clear(loc.i);
    this.markDirty(loc.k);
    return { coords: coords.slice(), ...v };
  }

  override async resize(dims: readonly number[]): Promise<void> {
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
  override flush(): Promise<{ address: number; info: ChunkIndexInfo }> {
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
    for (let k = 0; k < this.layout.npages; k++) if (bitGet(this.pageInit!, k)) await this.unit(k);
  }

  /** Every initialised page must be written again (the data block moved). */
  private markInitialisedPagesDirty(): void {
    if (this.layout.npages === 0) return;
    for (let k = 0; k < this.layout.npages; k++) if (bitGet(this.pageInit!, k)) this.dirtyPages.add(k);
  }

  protected override hasBlock(): boolean {
    return super.hasBlock() || this.newBlock;
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
