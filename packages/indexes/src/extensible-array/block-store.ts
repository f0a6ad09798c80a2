/**
 * The in-memory model of one extensible array (HDF5 spec Appendix C.4; H5EA.c, H5EAiblock.c,
 * H5EAsblock.c, H5EAdblock.c): loads the index block, super blocks, data blocks and pages on demand
 * (verifying every checksum), creates them the way HDF5 does when an element is first set
 * (keeping the header statistics exactly as HDF5 writes them), and writes dirty structures back.
 * @module
 */
import { type ChunkIndexContext, type IndexStorage, UNDEFINED_ADDRESS, isDefinedAddress } from '@chunkform/core/plugin';
import { bitGet, bitSet, checkExtent, formatError, writeChecksumAt, type Where } from '../array-element/block-io.js';
import { decodeDataBlockPage } from '../array-element/data-block-page.js';
import type { ElementCodec, ElementTable } from '../array-element/element-codec.js';
import {
  decodeExtensibleArrayDataBlock,
  encodeExtensibleArrayDataBlock,
  extensibleArrayDataBlockLayout,
  type ExtensibleArrayDataBlockLayout,
} from './data-block.js';
import type { ElementLocation, ExtensibleArrayGeometry } from './geometry.js';
import { encodeExtensibleArrayHeader, extensibleArrayHeaderSize, type ExtensibleArrayHeader } from './header.js';
import { decodeExtensibleArrayIndexBlock, encodeExtensibleArrayIndexBlock, extensibleArrayIndexBlockSize } from './index-block.js';
import {
  decodeExtensibleArraySuperBlock,
  encodeExtensibleArraySuperBlock,
  extensibleArraySuperBlockSize,
  superBlockPageInitSize,
} from './super-block.js';

const IBLOCK = 'extensible array index block';
const SBLOCK = 'extensible array super block';
const DBLOCK = 'extensible array data block';
const PAGE = 'extensible array data block page';

interface IndexBlockState {
  address: number;
  isNew: boolean;
  dirty: boolean;
  table: ElementTable;
  dataBlockAddresses: number[];
  superBlockAddresses: number[];
}

interface SuperBlockState {
  s: number;
  address: number;
  isNew: boolean;
  dirty: boolean;
  pageInit: Uint8Array;
  dataBlockAddresses: number[];
}

/** A loaded or created data block. */
export interface DataBlockState {
  s: number;
  /** Position in the parent's address list. */
  d: number;
  inIndexBlock: boolean;
  address: number;
  isNew: boolean;
  layout: ExtensibleArrayDataBlockLayout;
  blockOffset: number;
  /** Per page (one entry when unpaged): table, null = page not initialised, undefined = not loaded. */
  units: (ElementTable | null | undefined)[];
  dirtyBlock: boolean;
  dirtyPages: Set<number>;
  parent: SuperBlockState | null;
}

/** An element slot: its table, its position, and what to mark dirty after changing it. */
export interface ElementSlot {
  table: ElementTable;
  i: number;
  owner: IndexBlockState | { block: DataBlockState; page: number };
}

/** Header, blocks and pages of one extensible array. */
export class ExtensibleArrayBlocks {
  headerAddress: number;
  dirtyHeader = false;
  private iblock: IndexBlockState | null = null;
  private readonly sblocks = new Map<number, SuperBlockState>();
  private readonly dblocks = new Map<string, DataBlockState>();
  private readonly pending = new Map<string, Promise<unknown>>();

  constructor(
    private readonly ctx: ChunkIndexContext,
    readonly header: ExtensibleArrayHeader,
    headerAddress: number,
    readonly geometry: ExtensibleArrayGeometry,
    private readonly codec: ElementCodec,
  ) {
    this.headerAddress = headerAddress;
  }

  private where(structure: string, address: number): Where {
    return { structure, address, path: this.ctx.datasetPath };
  }

  private async once<T>(key: string, load: () => Promise<T>): Promise<T> {
    let p = this.pending.get(key) as Promise<T> | undefined;
    if (!p) {
      p = load();
      this.pending.set(key, p);
      p.then(
        () => this.pending.delete(key),
        () => this.pending.delete(key),
      );
    }
    return p;
  }

  /** Rejects child addresses that repeat or point back at the array's own structures (aliasing). */
  private checkChildren(structure: string, address: number, children: readonly number[]): void {
    const seen = new Set<number>([this.headerAddress, address]);
    if (this.iblock) seen.add(this.iblock.address);
    for (const a of children) {
      if (!isDefinedAddress(a)) continue;
      if (seen.has(a)) throw formatError(this.where(structure, address), `block address ${a} is used twice`);
      seen.add(a);
    }
  }

  private checkOwner(structure: string, address: number, clientId: number, headerAddress: number): void {
    const w = this.where(structure, address);
    if (clientId !== this.header.clientId) throw formatError(w, `client id ${clientId} differs from the header's ${this.header.clientId}`);
    if (headerAddress !== this.headerAddress) throw formatError(w, `header address ${headerAddress} is not ${this.headerAddress}`);
  }

  /** The index block; created (HDF5: on the first element set) when `create`. */
  async indexBlock(create: boolean): Promise<IndexBlockState | null> {
    if (this.iblock) return this.iblock;
    const g = this.geometry;
    const addr = this.header.indexBlockAddress;
    if (!isDefinedAddress(addr)) {
      if (!create) return null;
      this.iblock = {
        address: UNDEFINED_ADDRESS,
        isNew: true,
        dirty: true,
        table: this.codec.create(g.params.indexElements),
        dataBlockAddresses: new Array<number>(g.indexBlockDataBlocks).fill(UNDEFINED_ADDRESS),
        superBlockAddresses: new Array<number>(g.indexBlockSuperBlockAddrs).fill(UNDEFINED_ADDRESS),
      };
      this.header.stats.realizedElements += g.params.indexElements;
      this.dirtyHeader = true;
      return this.iblock;
    }
    return this.once('ib', async () => {
      if (this.iblock) return this.iblock;
      const size = extensibleArrayIndexBlockSize(g);
      const bytes = await this.ctx.reader.read(addr, size, IBLOCK);
      const b = decodeExtensibleArrayIndexBlock(bytes, g, this.where(IBLOCK, addr));
      this.checkOwner(IBLOCK, addr, b.clientId, b.headerAddress);
      this.checkChildren(IBLOCK, addr, [...b.dataBlockAddresses, ...b.superBlockAddresses]);
      const table = this.codec.decode(b.elements, 0, g.params.indexElements, IBLOCK, addr);
      this.iblock = { address: addr, isNew: false, dirty: false, table, dataBlockAddresses: b.dataBlockAddresses, superBlockAddresses: b.superBlockAddresses };
      return this.iblock;
    });
  }

  private async superBlock(ib: IndexBlockState, s: number, create: boolean): Promise<SuperBlockState | null> {
    const have = this.sblocks.get(s);
    if (have) return have;
    const g = this.geometry;
    const off = s - g.indexBlockSuperBlocks;
    const addr = ib.superBlockAddresses[off]!;
    if (!isDefinedAddress(addr)) {
      if (!create) return null;
      const size = extensibleArraySuperBlockSize(g, s);
      const sb: SuperBlockState = {
        s,
        address: UNDEFINED_ADDRESS,
        isNew: true,
        dirty: true,
        pageInit: new Uint8Array(superBlockPageInitSize(g, s)),
        dataBlockAddresses: new Array<number>(g.superBlocks[s]!.dataBlocks).fill(UNDEFINED_ADDRESS),
      };
      this.sblocks.set(s, sb);
      ib.dirty = true;
      this.header.stats.superBlocks += 1;
      this.header.stats.superBlockSize += size;
      this.dirtyHeader = true;
      return sb;
    }
    return this.once(`sb:${s}`, async () => {
      const again = this.sblocks.get(s);
      if (again) return again;
      const size = extensibleArraySuperBlockSize(g, s);
      const bytes = await this.ctx.reader.read(addr, size, SBLOCK);
      const b = decodeExtensibleArraySuperBlock(bytes, g, s, this.where(SBLOCK, addr));
      this.checkOwner(SBLOCK, addr, b.clientId, b.headerAddress);
      this.checkChildren(SBLOCK, addr, b.dataBlockAddresses);
      const sb: SuperBlockState = { s, address: addr, isNew: false, dirty: false, pageInit: b.pageInit, dataBlockAddresses: b.dataBlockAddresses };
      this.sblocks.set(s, sb);
      return sb;
    });
  }

  /** The data block at `loc`; created when `create`. */
  private async dataBlock(ib: IndexBlockState, s: number, d: number, inIndexBlock: boolean, create: boolean): Promise<DataBlockState | null> {
    const key = `${s}:${d}`;
    const have = this.dblocks.get(key);
    if (have) return have;
    const g = this.geometry;
    const parent = inIndexBlock ? null : await this.superBlock(ib, s, create);
    if (!inIndexBlock && !parent) return null;
    const raced = this.dblocks.get(key);
    if (raced) return raced;
    const addrs = parent ? parent.dataBlockAddresses : ib.dataBlockAddresses;
    const addr = addrs[d]!;
    const layout = extensibleArrayDataBlockLayout(g, s);
    if (!isDefinedAddress(addr)) {
      if (!create) return null;
      const db: DataBlockState = {
        s,
        d,
        inIndexBlock,
        address: UNDEFINED_ADDRESS,
        isNew: true,
        layout,
        blockOffset: g.dataBlockOffset(s, d),
        units: layout.npages > 0 ? new Array(layout.npages).fill(null) : [this.codec.create(layout.entries)],
        dirtyBlock: true,
        dirtyPages: new Set(),
        parent,
      };
      this.dblocks.set(key, db);
      if (parent) parent.dirty = true;
      else ib.dirty = true;
      const st = this.header.stats;
      st.dataBlocks += 1;
      st.dataBlockSize += layout.totalSize;
      st.realizedElements += layout.entries;
      this.dirtyHeader = true;
      return db;
    }
    return this.once(`db:${key}`, async () => {
      const again = this.dblocks.get(key);
      if (again) return again;
      const w = this.where(DBLOCK, addr);
      checkExtent(addr, layout.totalSize, this.ctx.reader.eof, w);
      const bytes = await this.ctx.reader.read(addr, layout.blockSize, DBLOCK);
      const b = decodeExtensibleArrayDataBlock(bytes, g, layout, w);
      this.checkOwner(DBLOCK, addr, b.clientId, b.headerAddress);
      let units: (ElementTable | null | undefined)[];
      if (layout.npages === 0) units = [this.codec.decode(b.elements!, 0, layout.entries, DBLOCK, addr)];
      else {
        units = new Array(layout.npages);
        for (let p = 0; p < layout.npages; p++) units[p] = bitGet(parent!.pageInit, d * layout.npages + p) ? undefined : null;
      }
      const db: DataBlockState = {
        s,
        d,
        inIndexBlock,
        address: addr,
        isNew: false,
        layout,
        blockOffset: b.blockOffset,
        units,
        dirtyBlock: false,
        dirtyPages: new Set(),
        parent,
      };
      this.dblocks.set(key, db);
      return db;
    });
  }

  /** The table of page `p` of `db` (its only table when unpaged); initialises the page when `create`. */
  private async unit(db: DataBlockState, p: number, create: boolean): Promise<ElementTable | null> {
    const u = db.units[p];
    if (u) return u;
    if (u === null) {
      if (!create) return null;
      const t = this.codec.create(db.layout.pageEntries);
      db.units[p] = t;
      bitSet(db.parent!.pageInit, db.d * db.layout.npages + p);
      db.parent!.dirty = true;
      db.dirtyPages.add(p);
      return t;
    }
    return this.once(`pg:${db.s}:${db.d}:${p}`, async () => {
      const again = db.units[p];
      if (again) return again;
      const es = this.geometry.params.elementSize;
      const addr = db.address + db.layout.blockSize + p * db.layout.pageSize;
      const bytes = await this.ctx.reader.read(addr, db.layout.pageSize, PAGE);
      const elements = decodeDataBlockPage(bytes, db.layout.pageEntries, es, this.where(PAGE, addr));
      const t = this.codec.decode(elements, 0, db.layout.pageEntries, PAGE, addr);
      db.units[p] = t;
      return t;
    });
  }

  /** The slot of element `idx` (located by `loc`), or null when nothing stores it; creates the structures when `create`. */
  async slot(loc: ElementLocation, create: boolean): Promise<ElementSlot | null> {
    const ib = await this.indexBlock(create);
    if (!ib) return null;
    if (loc.kind === 'index-block') return { table: ib.table, i: loc.element, owner: ib };
    const db = await this.dataBlock(ib, loc.superBlock, loc.dataBlock, loc.inIndexBlock, create);
    if (!db) return null;
    const p = db.layout.npages > 0 ? Math.floor(loc.element / db.layout.pageEntries) : 0;
    const t = await this.unit(db, p, create);
    if (!t) return null;
    return { table: t, i: loc.element - p * db.layout.pageEntries, owner: { block: db, page: p } };
  }

  /** Marks the structure holding `slot` as modified. */
  markDirty(slot: ElementSlot): void {
    const o = slot.owner;
    if ('block' in o) {
      if (o.block.layout.npages > 0) o.block.dirtyPages.add(o.page);
      else o.block.dirtyBlock = true;
    } else o.dirty = true;
  }

  /**
   * Every element table that exists (with the array index of its first element), in index order,
   * up to element index `end`; loads what is needed.
   */
  async *tables(end: number): AsyncGenerator<{ first: number; table: ElementTable }> {
    const g = this.geometry;
    const ib = await this.indexBlock(false);
    if (!ib) return;
    if (g.params.indexElements > 0) yield { first: 0, table: ib.table };
    for (let s = 0; s < g.superBlockCount; s++) {
      const info = g.superBlocks[s]!;
      if (g.params.indexElements + info.startIndex >= end) break;
      const inIb = s < g.indexBlockSuperBlocks;
      if (!inIb && !(await this.superBlock(ib, s, false))) continue;
      for (let k = 0; k < info.dataBlocks; k++) {
        const d = inIb ? info.startDataBlock + k : k;
        const first = g.firstElement(s, d, inIb);
        if (first >= end) break;
        const db = await this.dataBlock(ib, s, d, inIb, false);
        if (!db) continue;
        for (let p = 0; p < db.units.length; p++) {
          const pf = first + p * db.layout.pageEntries;
          if (pf >= end) break;
          const t = await this.unit(db, p, false);
          if (t) yield { first: pf, table: t };
        }
      }
    }
  }

  /** True when anything must be written. */
  get dirty(): boolean {
    if (this.dirtyHeader || this.iblock?.dirty) return true;
    for (const sb of this.sblocks.values()) if (sb.dirty) return true;
    for (const db of this.dblocks.values()) if (db.dirtyBlock || db.dirtyPages.size > 0) return true;
    return false;
  }

  /** Bytes of all structures (HDF5's `H5D__earray_idx_size`: header + index block + super/data block statistics). */
  size(): number {
    if (!isDefinedAddress(this.headerAddress) && !this.iblock) return 0;
    const hasIb = this.iblock !== null || isDefinedAddress(this.header.indexBlockAddress);
    const st = this.header.stats;
    return extensibleArrayHeaderSize(this.ctx.sizes) + (hasIb ? extensibleArrayIndexBlockSize(this.geometry) : 0) + st.superBlockSize + st.dataBlockSize;
  }

  /**
   * Loads every structure of the array: the index block, all super blocks, data blocks and
   * initialised pages (before the array is copied to new space).
   */
  private async loadAll(): Promise<void> {
    for await (const _ of this.tables(Infinity));
  }

  /**
   * Allocates new structures and writes every dirty one through `storage`, copy-on-write: a
   * structure is rewritten in place only while its space is fresh (allocated since the last
   * flush). A changed structure in flushed space moves to new space (old space released) and its
   * parent, which records the address, changes too. Every block records the header's address, so
   * when the header itself must move (it is in flushed space and something changed) the whole
   * array is written to new space.
   */
  async flush(storage: IndexStorage): Promise<void> {
    const g = this.geometry;
    const sizes = this.ctx.sizes;
    const h = this.header;
    const headerSize = extensibleArrayHeaderSize(sizes);
    const moveAll = isDefinedAddress(this.headerAddress) && !storage.isFresh(this.headerAddress, headerSize);
    if (moveAll) {
      await this.loadAll();
      const old = this.headerAddress;
      this.headerAddress = storage.alloc(headerSize);
      storage.release(old, headerSize);
    }
    if (!isDefinedAddress(this.headerAddress)) {
      this.headerAddress = storage.alloc(headerSize);
      this.dirtyHeader = true;
    }
    if (moveAll) this.dirtyHeader = true;
    const ib = this.iblock;
    const sbs = [...this.sblocks.values()].sort((a, b) => a.s - b.s);
    const dbs = [...this.dblocks.values()].sort((a, b) => a.s - b.s || a.d - b.d);
    // Which blocks move, children first (a moved block dirties its parent) …
    const movingDbs = new Set<DataBlockState>();
    for (const db of dbs) {
      const changed = db.dirtyBlock || db.dirtyPages.size > 0;
      if (db.isNew || !(moveAll || (changed && !storage.isFresh(db.address, db.layout.totalSize)))) continue;
      movingDbs.add(db);
      if (db.parent) db.parent.dirty = true;
      else ib!.dirty = true;
    }
    const movingSbs = new Set<SuperBlockState>();
    for (const sb of sbs) {
      if (sb.isNew || !(moveAll || (sb.dirty && !storage.isFresh(sb.address, extensibleArraySuperBlockSize(g, sb.s))))) continue;
      movingSbs.add(sb);
      ib!.dirty = true;
    }
    const ibSize = extensibleArrayIndexBlockSize(g);
    const ibMoves = !!ib && !ib.isNew && (moveAll || (ib.dirty && !storage.isFresh(ib.address, ibSize)));
    // … then new space, parents first (the order HDF5 allocates new blocks in).
    if (ib && (ib.isNew || ibMoves)) {
      const old = ib.address;
      ib.address = h.indexBlockAddress = storage.alloc(ibSize);
      if (ibMoves) storage.release(old, ibSize);
      ib.dirty = true;
      ib.isNew = false;
      this.dirtyHeader = true;
    }
    for (const sb of sbs) {
      if (!sb.isNew && !movingSbs.has(sb)) continue;
      const size = extensibleArraySuperBlockSize(g, sb.s);
      const old = sb.address;
      sb.address = storage.alloc(size);
      if (!sb.isNew) storage.release(old, size);
      sb.dirty = true;
      ib!.superBlockAddresses[sb.s - g.indexBlockSuperBlocks] = sb.address;
      ib!.dirty = true;
      sb.isNew = false;
    }
    for (const db of dbs) {
      if (!db.isNew && !movingDbs.has(db)) continue;
      const old = db.address;
      if (!db.isNew) {
        // The pages follow the block in one allocation: every initialised page moves with it.
        for (let p = 0; p < db.units.length; p++) await this.unit(db, p, false);
        if (db.layout.npages > 0) db.units.forEach((u, p) => u && db.dirtyPages.add(p));
      }
      db.address = storage.alloc(db.layout.totalSize);
      if (!db.isNew) storage.release(old, db.layout.totalSize);
      db.dirtyBlock = true;
      if (db.parent) db.parent.dataBlockAddresses[db.d] = db.address;
      else ib!.dataBlockAddresses[db.d] = db.address;
      db.isNew = false;
    }
    const version = h.version;
    const clientId = h.clientId;
    const es = g.params.elementSize;
    if (this.dirtyHeader) await storage.write(this.headerAddress, encodeExtensibleArrayHeader(h, sizes));
    if (ib?.dirty) {
      const elements = new Uint8Array(g.params.indexElements * es);
      this.codec.encode(ib.table, elements, 0);
      const b = { version, clientId, headerAddress: this.headerAddress, elements, dataBlockAddresses: ib.dataBlockAddresses, superBlockAddresses: ib.superBlockAddresses };
      await storage.write(ib.address, encodeExtensibleArrayIndexBlock(b, g, sizes));
      ib.dirty = false;
    }
    for (const sb of sbs) {
      if (!sb.dirty) continue;
      const b = { version, clientId, headerAddress: this.headerAddress, blockOffset: g.superBlocks[sb.s]!.startIndex, pageInit: sb.pageInit, dataBlockAddresses: sb.dataBlockAddresses };
      await storage.write(sb.address, encodeExtensibleArraySuperBlock(b, g, sb.s, sizes));
      sb.dirty = false;
    }
    for (const db of dbs) {
      if (db.dirtyBlock) {
        let elements: Uint8Array | null = null;
        if (db.layout.npages === 0) {
          elements = new Uint8Array(db.layout.entries * es);
          this.codec.encode(db.units[0]!, elements, 0);
        }
        const b = { version, clientId, headerAddress: this.headerAddress, blockOffset: db.blockOffset, elements };
        await storage.write(db.address, encodeExtensibleArrayDataBlock(b, g, db.layout, sizes));
        db.dirtyBlock = false;
      }
      for (const p of [...db.dirtyPages].sort((a, b) => a - b)) {
        const n = db.layout.pageEntries * es;
        const out = new Uint8Array(n + 4);
        this.codec.encode(db.units[p]!, out, 0);
        writeChecksumAt(out, n);
        await storage.write(db.address + db.layout.blockSize + p * db.layout.pageSize, out);
      }
      db.dirtyPages.clear();
    }
    this.dirtyHeader = false;
  }
}
