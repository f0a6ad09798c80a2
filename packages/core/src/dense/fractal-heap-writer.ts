/**
 * A fractal heap being written (HDF5 File Format Specification III.G), as dense link and attribute
 * storage use it: objects are appended in heap address order to direct blocks that follow the
 * doubling table (a root direct block first, then a root indirect block whose rows double as the
 * heap grows, as HDF5 allocates them); objects larger than the heap's managed-object limit are
 * "huge", stored on their own and tracked by a v2 B-tree of type 1.
 *
 * The whole heap is held in memory while it is written (dense storage heaps are small: link and
 * attribute messages). Flushing is copy-on-write: every heap block names its header's address (and
 * HDF5 checks it), so when the header has to move — it holds the last flushed state — the header,
 * the indirect block and every direct block are written to fresh space and the old space released;
 * heap IDs (offsets in the heap's address space) stay valid. Past the root indirect block's rows of
 * direct blocks, its rows hold child indirect blocks (each a doubling table of its own).
 *
 * Free space inside blocks is not reused, and no free-space manager is kept: a heap opened for
 * writing drops the one HDF5 wrote (its sections would describe space this writer fills), so HDF5
 * continues such a heap by appending new blocks.
 * @module
 */
import { FormatError, UnsupportedError } from '../errors.js';
import { UNDEFINED_ADDRESS, type SizeContext } from '../format/bytes.js';
import type { IndexStorage } from '../chunk/chunk-index.js';
import type { MetadataReader } from '../file/metadata-reader.js';
import {
  encodeFractalHeapHeader,
  fractalHeapDoublingTable,
  fractalHeapHeaderBaseSize,
  heapLengthSize,
  openFractalHeap,
  type FractalHeapHeader,
} from '../format/heaps/fractal-heap.js';
import {
  decodeIndirectBlock,
  directBlockPrefixSize,
  encodeDirectBlock,
  encodeIndirectBlock,
  indirectBlockRows,
  indirectBlockSize,
  lookupRowColumn,
  rowBlockOffset,
  rowBlockSize,
  verifyDirectBlock,
  type DoublingTable,
} from '../format/heaps/fractal-heap-blocks.js';
import { HugeObjects } from './huge-objects.js';

const HEAP = 'fractal heap';

/** Creation parameters of a heap (`H5HF_cparam_t`). */
export interface HeapParams {
  tableWidth: number;
  startingBlockSize: number;
  maxDirectBlockSize: number;
  maxHeapSizeBits: number;
  startingRootRows: number;
  maxManagedObjectSize: number;
  heapIdLength: number;
}

/** What HDF5 creates for a group's dense links (H5Gdense.c: width 4, 512-byte start, 64 KiB max direct, 32 bits, 7-byte IDs). */
export const LINK_HEAP_PARAMS: HeapParams = {
  tableWidth: 4,
  startingBlockSize: 512,
  maxDirectBlockSize: 65536,
  maxHeapSizeBits: 32,
  startingRootRows: 1,
  maxManagedObjectSize: 4096,
  heapIdLength: 7,
};

/** What HDF5 creates for an object's dense attributes (H5Adense.c: 1 KiB start, 40 bits, 8-byte IDs). */
export const ATTRIBUTE_HEAP_PARAMS: HeapParams = {
  tableWidth: 4,
  startingBlockSize: 1024,
  maxDirectBlockSize: 65536,
  maxHeapSizeBits: 40,
  startingRootRows: 1,
  maxManagedObjectSize: 4096,
  heapIdLength: 8,
};

interface Block {
  /** Offset in the heap's address space. */
  offset: number;
  size: number;
  /** File address ({@link UNDEFINED_ADDRESS} until first flushed). */
  address: number;
  /** The whole block (header bytes are filled in when encoded). */
  bytes: Uint8Array;
  /** First unused byte (only meaningful for blocks this writer appends to). */
  fill: number;
  dirty: boolean;
}

interface IBlock {
  /** Offset in the heap's address space. */
  offset: number;
  rows: number;
  address: number;
  /** Bytes at `address` (the size when last written). */
  size: number;
}

/** One step from an indirect block towards a heap offset. */
interface Step {
  /** Heap offset of the indirect block. */
  iblock: number;
  /** Entry (row × width + column) of the child. */
  index: number;
  childOffset: number;
  childSize: number;
  /** True when the child is a direct block. */
  direct: boolean;
}

/** A fractal heap opened or created for writing. */
export class FractalHeapWriter {
  /** Header address ({@link UNDEFINED_ADDRESS} until first flushed). */
  address = UNDEFINED_ADDRESS;
  private readonly table: DoublingTable;
  private readonly prefix: number;
  private readonly lengthSize: number;
  private readonly blocks: Block[] = [];
  /** Rows of the root indirect block (0: the root is a direct block or there is none). */
  private rootRows = 0;
  /** The root indirect block (heap offset 0) and child indirect blocks, by heap offset. */
  private readonly iblocks = new Map<number, IBlock>();
  /** Offset of the next direct block to allocate. */
  private next = 0;
  /** The block new objects are appended to. */
  private cur: Block | undefined;
  private readonly huge: HugeObjects;
  private dirty = false;

  private constructor(
    private readonly reader: MetadataReader,
    private readonly sizes: SizeContext,
    private h: Omit<FractalHeapHeader, 'address'>,
  ) {
    this.table = fractalHeapDoublingTable({ ...h, address: UNDEFINED_ADDRESS });
    this.prefix = directBlockPrefixSize(sizes, this.table, true);
    this.lengthSize = heapLengthSize(h);
    this.huge = new HugeObjects(reader, sizes, () => this.address);
  }

  /** A new, empty heap (nothing is in the file until it is flushed). */
  static create(reader: MetadataReader, sizes: SizeContext, p: HeapParams): FractalHeapWriter {
    const w = new FractalHeapWriter(reader, sizes, {
      heapIdLength: p.heapIdLength,
      ioFiltersLength: 0,
      flags: 2,
      maxManagedObjectSize: p.maxManagedObjectSize,
      nextHugeObjectId: 0,
      hugeObjectBTreeAddress: UNDEFINED_ADDRESS,
      freeSpaceInManagedBlocks: 0,
      freeSpaceManagerAddress: UNDEFINED_ADDRESS,
      managedSpace: 0,
      allocatedManagedSpace: 0,
      directBlockIteratorOffset: 0,
      managedObjectCount: 0,
      hugeObjectsSize: 0,
      hugeObjectCount: 0,
      tinyObjectsSize: 0,
      tinyObjectCount: 0,
      tableWidth: p.tableWidth,
      startingBlockSize: p.startingBlockSize,
      maxDirectBlockSize: p.maxDirectBlockSize,
      maxHeapSizeBits: p.maxHeapSizeBits,
      startingRootRows: p.startingRootRows,
      rootBlockAddress: UNDEFINED_ADDRESS,
      currentRootRows: 0,
    });
    w.dirty = true;
    return w;
  }

  /**
   * Opens the heap at `address` for writing: reads its header, indirect block and every direct block
   * (verifying checksums) and its huge-object index. Filtered heaps and heaps with child indirect
   * blocks are an {@link UnsupportedError}.
   */
  static async open(reader: MetadataReader, address: number): Promise<FractalHeapWriter> {
    const heap = await openFractalHeap(reader, address);
    const { address: _a, ...hdr } = heap.header;
    if (hdr.ioFiltersLength > 0) throw new UnsupportedError('changing a fractal heap with I/O filters is not supported', { structure: HEAP, address });
    const w = new FractalHeapWriter(reader, reader.sizes, hdr);
    w.address = address;
    const dt = w.table;
    const checksummed = (hdr.flags & 2) !== 0;
    const readBlock = async (addr: number, offset: number, size: number): Promise<void> => {
      const bytes = (await reader.read(addr, size, 'fractal heap direct block')).slice();
      verifyDirectBlock(bytes, reader.sizes, dt, addr, address, offset, checksummed);
      w.blocks.push({ offset, size, address: addr, bytes, fill: size, dirty: false });
    };
    if (hdr.rootBlockAddress !== UNDEFINED_ADDRESS) {
      if (hdr.currentRootRows === 0) {
        await readBlock(hdr.rootBlockAddress, 0, dt.startBlockSize);
        w.next = dt.startBlockSize;
      } else {
        w.rootRows = hdr.currentRootRows;
        let end = 0;
        const readIblock = async (addr: number, offset: number, rows: number, depth: number): Promise<void> => {
          const size = indirectBlockSize(reader.sizes, dt, rows, false);
          const ib = decodeIndirectBlock(await reader.read(addr, size, 'fractal heap indirect block'), reader.sizes, dt, addr, address, rows, false);
          if (ib.blockOffset !== offset || depth > dt.maxRootRows || w.iblocks.has(offset)) {
            throw new FormatError(`indirect block has block offset ${ib.blockOffset}, expected ${offset}`, { structure: 'fractal heap indirect block', address: addr });
          }
          w.iblocks.set(offset, { offset, rows, address: addr, size });
          for (let i = 0; i < ib.childAddresses.length; i++) {
            const child = ib.childAddresses[i]!;
            if (child === UNDEFINED_ADDRESS) continue;
            const row = Math.floor(i / dt.width);
            const childOffset = offset + rowBlockOffset(dt, row) + (i % dt.width) * rowBlockSize(dt, row);
            if (row < dt.maxDirectRows) {
              await readBlock(child, childOffset, rowBlockSize(dt, row));
              end = Math.max(end, childOffset + rowBlockSize(dt, row));
            } else {
              const childRows = indirectBlockRows(dt, rowBlockSize(dt, row));
              if (!(childRows >= 1 && childRows < rows)) throw new FormatError(`child indirect block in row ${row} would have ${childRows} rows`, { structure: 'fractal heap indirect block', address: addr });
              await readIblock(child, childOffset, childRows, depth + 1);
            }
          }
        };
        await readIblock(hdr.rootBlockAddress, 0, hdr.currentRootRows, 0);
        w.blocks.sort((a, b) => a.offset - b.offset);
        w.next = Math.max(end, hdr.directBlockIteratorOffset);
      }
    }
    if (hdr.hugeObjectBTreeAddress !== UNDEFINED_ADDRESS) {
      await w.huge.load(hdr.hugeObjectBTreeAddress);
    }
    return w;
  }

  /** Objects stored (managed and huge). */
  get objectCount(): number {
    return this.h.managedObjectCount + this.h.hugeObjectCount + this.h.tinyObjectCount;
  }

  private fail(message: string): FormatError {
    return new FormatError(message, { structure: 'fractal heap ID', address: this.address });
  }

  /** Stores `obj` and returns its heap ID. Synchronous: nothing reaches the file before {@link flush}. */
  insert(obj: Uint8Array): Uint8Array {
    if (obj.length === 0) throw this.fail('cannot store an empty object');
    this.dirty = true;
    const idLen = this.h.heapIdLength;
    if (obj.length > this.h.maxManagedObjectSize) {
      if (this.sizes.sizeOfOffsets + this.sizes.sizeOfLengths <= idLen - 1) {
        throw new UnsupportedError('directly accessed huge heap objects are not supported', { structure: HEAP, address: this.address });
      }
      const id = ++this.h.nextHugeObjectId;
      this.huge.add(id, obj);
      this.h.hugeObjectCount++;
      this.h.hugeObjectsSize += obj.length;
      const out = new Uint8Array(idLen);
      out[0] = 0x10;
      let x = id;
      for (let i = 1; i < Math.min(idLen, 9); i++, x = Math.floor(x / 256)) out[i] = x % 256;
      return out;
    }
    let b = this.cur;
    if (!b || b.fill + obj.length > b.size) b = this.cur = this.newBlock(obj.length);
    const offset = b.offset + b.fill;
    b.bytes.set(obj, b.fill);
    b.fill += obj.length;
    b.dirty = true;
    this.h.managedObjectCount++;
    this.h.freeSpaceInManagedBlocks -= obj.length;
    const out = new Uint8Array(idLen);
    let x = offset;
    for (let i = 0; i < this.table.heapOffsetSize; i++, x = Math.floor(x / 256)) out[1 + i] = x % 256;
    x = obj.length;
    for (let i = 0; i < this.lengthSize; i++, x = Math.floor(x / 256)) out[1 + this.table.heapOffsetSize + i] = x % 256;
    return out;
  }

  private setManagedSpace(space: number): void {
    this.h.freeSpaceInManagedBlocks += space - this.h.managedSpace;
    this.h.managedSpace = space;
  }

  /** Allocates the next direct block that can hold `need` bytes (HDF5's allocation order). */
  private newBlock(need: number): Block {
    const dt = this.table;
    if (this.rootRows === 0 && this.blocks.length === 0 && need <= dt.startBlockSize - this.prefix) {
      this.setManagedSpace(dt.startBlockSize);
      return this.addBlock(0, dt.startBlockSize);
    }
    if (this.rootRows === 0) {
      this.rootRows = Math.max(1, this.h.startingRootRows);
      this.next = this.blocks.length > 0 ? dt.startBlockSize : 0;
      this.setManagedSpace(rowBlockOffset(dt, this.rootRows));
    }
    for (;;) {
      const { row } = lookupRowColumn(dt, this.next);
      if (row >= dt.maxRootRows) {
        throw new UnsupportedError(`the fractal heap is full (${this.next} bytes of heap space)`, { structure: HEAP, address: this.address });
      }
      while (row >= this.rootRows) {
        this.rootRows = Math.min(this.rootRows * 2, dt.maxRootRows);
        this.setManagedSpace(rowBlockOffset(dt, this.rootRows));
      }
      const path = this.path(this.next);
      for (const step of path) {
        if (step.direct || this.iblocks.has(step.childOffset)) continue;
        // a child indirect block, created when its first direct block is
        this.iblocks.set(step.childOffset, { offset: step.childOffset, rows: indirectBlockRows(dt, step.childSize), address: UNDEFINED_ADDRESS, size: 0 });
      }
      const size = path[path.length - 1]!.childSize;
      if (size - this.prefix >= need) return this.addBlock(this.next, size);
      this.next += size; // too small for this object: left unallocated, as HDF5 does
    }
  }

  /** The indirect blocks from the root down to the direct block holding heap offset `offset`. */
  private path(offset: number): Step[] {
    const dt = this.table;
    const out: Step[] = [];
    let base = 0;
    for (;;) {
      const { row, col } = lookupRowColumn(dt, offset - base);
      const childSize = rowBlockSize(dt, row);
      const childOffset = base + rowBlockOffset(dt, row) + col * childSize;
      const direct = row < dt.maxDirectRows;
      out.push({ iblock: base, index: row * dt.width + col, childOffset, childSize, direct });
      if (direct || out.length > dt.maxRootRows) return out;
      base = childOffset;
    }
  }

  private addBlock(offset: number, size: number): Block {
    const b: Block = { offset, size, address: UNDEFINED_ADDRESS, bytes: new Uint8Array(size), fill: this.prefix, dirty: true };
    this.blocks.push(b);
    this.next = offset + size;
    this.h.allocatedManagedSpace += size;
    this.h.freeSpaceInManagedBlocks -= this.prefix;
    return b;
  }

  private parseManaged(id: Uint8Array): { offset: number; length: number; block: Block } {
    const dt = this.table;
    if (id.length < 1 + dt.heapOffsetSize + this.lengthSize) throw this.fail(`heap ID of ${id.length} bytes is too short`);
    let offset = 0;
    for (let i = dt.heapOffsetSize - 1; i >= 0; i--) offset = offset * 256 + id[1 + i]!;
    let length = 0;
    for (let i = this.lengthSize - 1; i >= 0; i--) length = length * 256 + id[1 + dt.heapOffsetSize + i]!;
    let lo = 0;
    let hi = this.blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.blocks[mid]!.offset <= offset) lo = mid;
      else hi = mid - 1;
    }
    const block = this.blocks[lo];
    if (!block || offset < block.offset + this.prefix || offset + length > block.offset + block.size || length === 0) {
      throw this.fail(`managed object at heap offset ${offset} (${length} bytes) is not in an allocated block`);
    }
    return { offset, length, block };
  }

  private hugeId(id: Uint8Array): number {
    let x = 0;
    for (let i = Math.min(id.length, 9) - 1; i >= 1; i--) x = x * 256 + id[i]!;
    return x;
  }

  /** The object `id` names (a copy). */
  async get(id: Uint8Array): Promise<Uint8Array> {
    const type = (id[0]! >> 4) & 3;
    if ((id[0]! & 0xc0) !== 0) throw this.fail(`unsupported heap ID version ${id[0]! >> 6}`);
    if (type === 0) {
      const { offset, length, block } = this.parseManaged(id);
      const at = offset - block.offset;
      return block.bytes.slice(at, at + length);
    }
    if (type === 1) {
      return this.huge.get(this.hugeId(id));
    }
    if (type === 2) {
      const length = (id[0]! & 0x0f) + 1;
      if (1 + length > id.length) throw this.fail('tiny object does not fit its heap ID');
      return id.slice(1, 1 + length);
    }
    throw this.fail('unknown heap ID type 3');
  }

  /** Replaces the managed object `id` names by `obj` of the same length (its heap ID stays valid). */
  replace(id: Uint8Array, obj: Uint8Array): void {
    if (((id[0]! >> 4) & 3) !== 0) throw new UnsupportedError('only managed heap objects can be replaced', { structure: HEAP, address: this.address });
    const { offset, length, block } = this.parseManaged(id);
    if (obj.length !== length) throw this.fail(`replacement of ${obj.length} bytes for an object of ${length}`);
    block.bytes.set(obj, offset - block.offset);
    block.dirty = true;
    this.dirty = true;
  }

  /** Forgets the object `id` names (its managed space is not reused). */
  remove(id: Uint8Array): void {
    const type = (id[0]! >> 4) & 3;
    this.dirty = true;
    if (type === 0) {
      const { length } = this.parseManaged(id);
      this.h.managedObjectCount--;
      this.h.freeSpaceInManagedBlocks += length;
    } else if (type === 1) {
      this.h.hugeObjectCount--;
      this.h.hugeObjectsSize -= this.huge.remove(this.hugeId(id));
    }
  }

  /** Every file extent the heap occupies (to give back when the heap is dropped). */
  extents(): { address: number; size: number }[] {
    const out: { address: number; size: number }[] = [];
    if (this.address !== UNDEFINED_ADDRESS) out.push({ address: this.address, size: fractalHeapHeaderBaseSize(this.sizes) });
    for (const ib of this.iblocks.values()) if (ib.address !== UNDEFINED_ADDRESS) out.push({ address: ib.address, size: ib.size });
    for (const b of this.blocks) if (b.address !== UNDEFINED_ADDRESS) out.push({ address: b.address, size: b.size });
    out.push(...this.huge.extents());
    return out;
  }

  /**
   * Writes what changed, copy-on-write (see the module comment), and returns the header address.
   */
  async flush(storage: IndexStorage): Promise<number> {
    if (!this.dirty) return this.address;
    const sizes = this.sizes;
    const dt = this.table;
    const headerSize = fractalHeapHeaderBaseSize(sizes);
    const moveAll = this.address === UNDEFINED_ADDRESS || !storage.isFresh(this.address, headerSize);
    const move = (e: { address: number; size: number }, size: number): void => {
      if (e.address !== UNDEFINED_ADDRESS) storage.release(e.address, e.size);
      e.address = storage.alloc(size);
      e.size = size;
    };
    if (moveAll) {
      const h = { address: this.address, size: headerSize };
      move(h, headerSize);
      this.address = h.address;
    }
    for (const b of this.blocks) {
      if (!moveAll && !b.dirty) continue;
      if (b.address === UNDEFINED_ADDRESS || !storage.isFresh(b.address, b.size)) {
        const e = { address: b.address, size: b.size };
        move(e, b.size);
        b.address = e.address;
      }
      await storage.write(b.address, encodeDirectBlock(b.bytes, sizes, dt, this.address, b.offset, true));
      b.dirty = false;
    }
    if (this.rootRows > 0) {
      const root = this.iblocks.get(0) ?? { offset: 0, rows: this.rootRows, address: UNDEFINED_ADDRESS, size: 0 };
      root.rows = this.rootRows;
      this.iblocks.set(0, root);
      const children = new Map<number, number[]>();
      for (const ib of this.iblocks.values()) children.set(ib.offset, new Array<number>(ib.rows * dt.width).fill(UNDEFINED_ADDRESS));
      for (const b of this.blocks) {
        const step = this.path(b.offset).pop()!;
        children.get(step.iblock)![step.index] = b.address;
      }
      // children before parents: a child indirect block has fewer rows than its parent
      for (const ib of [...this.iblocks.values()].sort((a, b) => a.rows - b.rows)) {
        const size = indirectBlockSize(sizes, dt, ib.rows, false);
        if (ib.address === UNDEFINED_ADDRESS || ib.size !== size || !storage.isFresh(ib.address, size)) move(ib, size);
        await storage.write(ib.address, encodeIndirectBlock({ blockOffset: ib.offset, rows: ib.rows, childAddresses: children.get(ib.offset)! }, sizes, dt, this.address));
        if (ib.offset !== 0) {
          const step = this.path(ib.offset).find((s) => !s.direct && s.childOffset === ib.offset)!;
          children.get(step.iblock)![step.index] = ib.address;
        }
      }
    }
    this.h.hugeObjectBTreeAddress = await this.huge.flush(storage, this.h.hugeObjectBTreeAddress);
    const root = this.rootRows > 0 ? this.iblocks.get(0)!.address : (this.blocks[0]?.address ?? UNDEFINED_ADDRESS);
    this.h = {
      ...this.h,
      freeSpaceManagerAddress: UNDEFINED_ADDRESS,
      rootBlockAddress: root,
      currentRootRows: this.rootRows,
      directBlockIteratorOffset: this.rootRows > 0 ? this.next : 0,
    };
    await storage.write(this.address, encodeFractalHeapHeader(this.h, sizes));
    this.dirty = false;
    return this.address;
  }
}
