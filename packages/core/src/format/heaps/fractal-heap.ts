/**
 * Fractal heap (HDF5 File Format Specification, section III.G): header `FRHP` and object access
 * by heap ID — managed objects (in direct blocks reached through the doubling table), tiny objects
 * (inside the ID) and huge objects (stored on their own, tracked by a v2 B-tree). Dense link and
 * attribute storage keep their messages here.
 * @module
 */
import { FormatError, UnsupportedError } from '../../errors.js';
import { ByteReader, ByteWriter, type SizeContext, UNDEFINED_ADDRESS, verifyTrailingChecksum } from '../bytes.js';
import type { MetadataReader } from '../../file/metadata-reader.js';
import { findV2BTreeRecord, openV2BTree, type V2BTreeHeader } from '../btree/v2.js';
import { decodeHugeIndirectRecord, V2RecordType } from '../btree/v2-records.js';
import {
  type DoublingTable,
  type IndirectBlock,
  decodeIndirectBlock,
  directBlockPrefixSize,
  indirectBlockRows,
  indirectBlockSize,
  lookupRowColumn,
  makeDoublingTable,
  rowBlockOffset,
  rowBlockSize,
  verifyDirectBlock,
} from './fractal-heap-blocks.js';

const HEADER = 'fractal heap header';
const HEAP_ID = 'fractal heap ID';

/** A decoded fractal heap header. */
export interface FractalHeapHeader {
  /** File address of the header. */
  address: number;
  /** Length of heap IDs in bytes. */
  heapIdLength: number;
  /** Length of the encoded I/O filter pipeline (0 = no filters). */
  ioFiltersLength: number;
  /** Bit 0: huge object IDs have wrapped; bit 1: direct blocks are checksummed. */
  flags: number;
  /** Largest object stored in managed blocks; bigger ones are "huge". */
  maxManagedObjectSize: number;
  nextHugeObjectId: number;
  /** Address of the v2 B-tree tracking huge objects. */
  hugeObjectBTreeAddress: number;
  freeSpaceInManagedBlocks: number;
  freeSpaceManagerAddress: number;
  managedSpace: number;
  allocatedManagedSpace: number;
  directBlockIteratorOffset: number;
  managedObjectCount: number;
  hugeObjectsSize: number;
  hugeObjectCount: number;
  tinyObjectsSize: number;
  tinyObjectCount: number;
  tableWidth: number;
  startingBlockSize: number;
  maxDirectBlockSize: number;
  /** log2 of the heap's address space. */
  maxHeapSizeBits: number;
  startingRootRows: number;
  /** Address of the root block (direct when `currentRootRows` is 0, else indirect). */
  rootBlockAddress: number;
  currentRootRows: number;
  /** Size of the filtered root direct block (only with I/O filters). */
  filteredRootDirectBlockSize?: number;
  /** Filter mask of the root direct block (only with I/O filters). */
  rootDirectBlockFilterMask?: number;
  /** Encoded filter pipeline message (only with I/O filters). */
  filterInfo?: Uint8Array;
}

/** Size of the header without filter information. */
export function fractalHeapHeaderBaseSize(sizes: SizeContext): number {
  const O = sizes.sizeOfOffsets;
  const L = sizes.sizeOfLengths;
  return 4 + 1 + 2 + 2 + 1 + 4 + L + O + L + O + 8 * L + 2 + L + L + 2 + 2 + O + 2 + 4;
}

/**
 * Decodes a fractal heap header (`bytes` start at the signature and include any filter
 * information). Spec III.G "Fractal Heap Header".
 */
export function decodeFractalHeapHeader(bytes: Uint8Array, sizes: SizeContext, address: number): FractalHeapHeader {
  const r = new ByteReader(bytes, { sizes, structure: HEADER, base: address });
  r.signature('FRHP');
  const version = r.u8();
  if (version !== 0) throw r.error(`unsupported version ${version}`);
  const heapIdLength = r.u16();
  const ioFiltersLength = r.u16();
  const size = fractalHeapHeaderBaseSize(sizes) + (ioFiltersLength > 0 ? sizes.sizeOfLengths + 4 + ioFiltersLength : 0);
  r.need(size - r.pos, 'header');
  verifyTrailingChecksum(bytes.subarray(0, size), HEADER, address);
  const flags = r.u8();
  const h: FractalHeapHeader = {
    address,
    heapIdLength,
    ioFiltersLength,
    flags,
    maxManagedObjectSize: r.u32(),
    nextHugeObjectId: r.length(),
    hugeObjectBTreeAddress: r.offset(),
    freeSpaceInManagedBlocks: r.length(),
    freeSpaceManagerAddress: r.offset(),
    managedSpace: r.length(),
    allocatedManagedSpace: r.length(),
    directBlockIteratorOffset: r.length(),
    managedObjectCount: r.length(),
    hugeObjectsSize: r.length(),
    hugeObjectCount: r.length(),
    tinyObjectsSize: r.length(),
    tinyObjectCount: r.length(),
    tableWidth: r.u16(),
    startingBlockSize: r.length(),
    maxDirectBlockSize: r.length(),
    maxHeapSizeBits: r.u16(),
    startingRootRows: r.u16(),
    rootBlockAddress: r.offset(),
    currentRootRows: r.u16(),
  };
  if (ioFiltersLength > 0) {
    h.filteredRootDirectBlockSize = r.length();
    h.rootDirectBlockFilterMask = r.u32();
    h.filterInfo = r.bytesView(ioFiltersLength, 'I/O filter information');
  }
  r.skip(4); // checksum, verified above
  if (heapIdLength < 2) throw r.error(`heap ID length ${heapIdLength} is too small`);
  return h;
}

/**
 * Encodes a fractal heap header (with its filter information when `ioFiltersLength` > 0) and its
 * checksum. Spec III.G "Fractal Heap Header".
 */
export function encodeFractalHeapHeader(h: Omit<FractalHeapHeader, 'address'>, sizes: SizeContext): Uint8Array {
  const w = new ByteWriter(sizes, fractalHeapHeaderBaseSize(sizes) + (h.filterInfo?.length ?? 0) + 12);
  w.signature('FRHP').u8(0).u16(h.heapIdLength).u16(h.ioFiltersLength).u8(h.flags);
  w.u32(h.maxManagedObjectSize).length(h.nextHugeObjectId).offset(h.hugeObjectBTreeAddress);
  w.length(h.freeSpaceInManagedBlocks).offset(h.freeSpaceManagerAddress);
  w.length(h.managedSpace).length(h.allocatedManagedSpace).length(h.directBlockIteratorOffset);
  w.length(h.managedObjectCount).length(h.hugeObjectsSize).length(h.hugeObjectCount);
  w.length(h.tinyObjectsSize).length(h.tinyObjectCount);
  w.u16(h.tableWidth).length(h.startingBlockSize).length(h.maxDirectBlockSize);
  w.u16(h.maxHeapSizeBits).u16(h.startingRootRows).offset(h.rootBlockAddress).u16(h.currentRootRows);
  if (h.ioFiltersLength > 0) {
    if (!h.filterInfo || h.filterInfo.length !== h.ioFiltersLength) {
      throw new FormatError('filter information does not match its declared length', { structure: HEADER });
    }
    w.length(h.filteredRootDirectBlockSize ?? 0).u32(h.rootDirectBlockFilterMask ?? 0).bytes(h.filterInfo);
  }
  w.checksum(0);
  return w.finish();
}

/** The doubling table of a header, validated. */
export function fractalHeapDoublingTable(h: FractalHeapHeader): DoublingTable {
  const dt = makeDoublingTable(h.tableWidth, h.startingBlockSize, h.maxDirectBlockSize, h.maxHeapSizeBits, HEADER, h.address);
  if (h.currentRootRows > dt.maxRootRows) {
    throw new FormatError(`root indirect block has ${h.currentRootRows} rows, more than the ${dt.maxRootRows} allowed`, {
      structure: HEADER,
      address: h.address,
    });
  }
  return dt;
}

/** Bytes of the object-length field of managed heap IDs (`heap_len_size`). */
export function heapLengthSize(h: Pick<FractalHeapHeader, 'maxDirectBlockSize' | 'maxManagedObjectSize'>): number {
  const maxDirOffSize = Math.ceil(Math.log2(h.maxDirectBlockSize) / 8);
  const limitEnc = h.maxManagedObjectSize > 0 ? Math.floor(Math.floor(Math.log2(h.maxManagedObjectSize)) / 8) + 1 : 1;
  return Math.min(maxDirOffSize, limitEnc);
}

const BLOCK_CACHE_BUDGET = 8 << 20;

/** An open fractal heap: reads objects by heap ID. */
export class FractalHeap {
  /** Derived doubling table. */
  readonly table: DoublingTable;
  private readonly lengthSize: number;
  private readonly directPrefix: number;
  private readonly iblocks = new Map<string, IndirectBlock>();
  private readonly dblocks = new Map<string, Uint8Array>();
  private cachedBytes = 0;
  private hugeTree: V2BTreeHeader | undefined;

  constructor(
    private readonly reader: MetadataReader,
    readonly header: FractalHeapHeader,
  ) {
    this.table = fractalHeapDoublingTable(header);
    this.lengthSize = heapLengthSize(header);
    this.directPrefix = directBlockPrefixSize(reader.sizes, this.table, this.checksummedDirectBlocks);
  }

  /** True when the heap has an I/O filter pipeline. */
  get filtered(): boolean {
    return this.header.ioFiltersLength > 0;
  }

  /** True when direct blocks carry checksums (header flag bit 1). */
  get checksummedDirectBlocks(): boolean {
    return (this.header.flags & 2) !== 0;
  }

  private idError(message: string): FormatError {
    return new FormatError(message, { structure: HEAP_ID, address: this.header.address });
  }

  /**
   * The object that `heapId` names (a copy). Throws {@link FormatError} for malformed IDs or
   * structures and {@link UnsupportedError} for objects stored through I/O filters.
   */
  async getObject(heapId: Uint8Array): Promise<Uint8Array> {
    if (heapId.length < 1) throw this.idError('empty heap ID');
    const flags = heapId[0]!;
    if ((flags & 0xc0) !== 0) throw this.idError(`unsupported heap ID version ${flags >> 6}`);
    switch ((flags >> 4) & 3) {
      case 0:
        return this.getManaged(heapId);
      case 1:
        return this.getHuge(heapId);
      case 2:
        return this.getTiny(heapId);
      default:
        throw this.idError(`unknown heap ID type 3`);
    }
  }

  private getTiny(id: Uint8Array): Uint8Array {
    const extended = this.header.heapIdLength > 18;
    let length: number;
    let start: number;
    if (extended) {
      // Length − 1 in 12 bits: low nibble of byte 0 (high part) and byte 1, as the library encodes
      // it (its decoder drops the high nibble, which only matters for IDs longer than 258 bytes).
      if (id.length < 2) throw this.idError('tiny heap ID is truncated');
      length = (((id[0]! & 0x0f) << 8) | id[1]!) + 1;
      start = 2;
    } else {
      length = (id[0]! & 0x0f) + 1;
      start = 1;
    }
    if (start + length > id.length) {
      throw this.idError(`tiny object of ${length} bytes does not fit in a ${id.length}-byte heap ID`);
    }
    return id.slice(start, start + length);
  }

  private async getHuge(id: Uint8Array): Promise<Uint8Array> {
    const sizes = this.reader.sizes;
    const idLen = this.header.heapIdLength;
    const r = new ByteReader(id, { sizes, structure: HEAP_ID, base: this.header.address, pos: 1 });
    if (this.filtered) {
      throw new UnsupportedError('huge objects stored through I/O filters are not supported', {
        structure: HEADER,
        address: this.header.address,
      });
    }
    if (sizes.sizeOfOffsets + sizes.sizeOfLengths <= idLen - 1) {
      // Directly accessed: the ID holds the address and length.
      const address = r.offset();
      const length = r.length();
      return this.readHuge(address, length);
    }
    const idSize = Math.min(idLen - 1, 8);
    const wanted = r.uN(idSize);
    const tree = await this.hugeBTree();
    const rec = await findV2BTreeRecord(this.reader, tree, (raw) => {
      const got = decodeHugeIndirectRecord(raw, sizes).id;
      return wanted < got ? -1 : wanted > got ? 1 : 0;
    });
    if (!rec) throw this.idError(`huge object ${wanted} is not in the huge-object B-tree`);
    const { address, length } = decodeHugeIndirectRecord(rec, sizes);
    return this.readHuge(address, length);
  }

  private async hugeBTree(): Promise<V2BTreeHeader> {
    if (this.hugeTree) return this.hugeTree;
    const addr = this.header.hugeObjectBTreeAddress;
    if (addr === UNDEFINED_ADDRESS) throw this.idError('huge object ID in a heap without a huge-object B-tree');
    const tree = await openV2BTree(this.reader, addr);
    if (tree.type !== V2RecordType.HugeIndirect) {
      if (tree.type === V2RecordType.HugeIndirectFiltered || tree.type === V2RecordType.HugeDirectFiltered) {
        throw new UnsupportedError('filtered huge objects are not supported', { structure: 'v2 B-tree header', address: addr });
      }
      throw new FormatError(`huge-object B-tree has record type ${tree.type}, expected 1`, {
        structure: 'v2 B-tree header',
        address: addr,
      });
    }
    this.hugeTree = tree;
    return tree;
  }

  private async readHuge(address: number, length: number): Promise<Uint8Array> {
    if (address === UNDEFINED_ADDRESS || length === UNDEFINED_ADDRESS) throw this.idError('huge object has an undefined address or length');
    const bytes = await this.reader.read(address, length, 'fractal heap huge object');
    return bytes.slice();
  }

  private async getManaged(id: Uint8Array): Promise<Uint8Array> {
    const dt = this.table;
    const needed = 1 + dt.heapOffsetSize + this.lengthSize;
    if (id.length < needed) throw this.idError(`managed heap ID needs ${needed} bytes, got ${id.length}`);
    const r = new ByteReader(id, { sizes: this.reader.sizes, structure: HEAP_ID, base: this.header.address, pos: 1 });
    const offset = r.uN(dt.heapOffsetSize);
    const length = r.uN(this.lengthSize);
    if (length === 0) throw this.idError('managed object has length 0');
    if (length > dt.maxDirectBlockSize) throw this.idError(`managed object length ${length} exceeds the maximum direct block size`);
    if (offset >= this.header.managedSpace && this.header.managedSpace !== UNDEFINED_ADDRESS) {
      throw this.idError(`managed object offset ${offset} lies outside the ${this.header.managedSpace}-byte heap space`);
    }
    const block = await this.locateDirectBlock(offset);
    if (this.filtered) {
      throw new UnsupportedError('reading objects from filtered fractal heap blocks is not supported', {
        structure: 'fractal heap direct block',
        address: block.address,
      });
    }
    const bytes = await this.readDirectBlock(block.address, block.size, block.blockOffset);
    const within = offset - block.blockOffset;
    if (within < this.directPrefix || within + length > block.size) {
      throw new FormatError(`object at heap offset ${offset} (${length} bytes) does not fit in the block`, {
        structure: 'fractal heap direct block',
        address: block.address,
      });
    }
    return bytes.slice(within, within + length);
  }

  /** Finds the direct block containing heap offset `offset`. */
  private async locateDirectBlock(offset: number): Promise<{ address: number; size: number; blockOffset: number }> {
    const dt = this.table;
    const h = this.header;
    if (h.rootBlockAddress === UNDEFINED_ADDRESS) throw this.idError('managed object ID in a heap without managed blocks');
    if (h.currentRootRows === 0) {
      if (offset >= dt.startBlockSize) throw this.idError(`heap offset ${offset} lies outside the root direct block`);
      return { address: h.rootBlockAddress, size: dt.startBlockSize, blockOffset: 0 };
    }
    let iblockAddress = h.rootBlockAddress;
    let rows = h.currentRootRows;
    let iblockOffset = 0;
    const path = new Set<number>([h.address]);
    for (let depth = 0; ; depth++) {
      if (path.has(iblockAddress) || depth > dt.maxRootRows) {
        throw new FormatError('indirect block is referenced twice (cycle in the heap)', {
          structure: 'fractal heap indirect block',
          address: iblockAddress,
        });
      }
      path.add(iblockAddress);
      const iblock = await this.readIndirectBlock(iblockAddress, rows, iblockOffset);
      const { row, col } = lookupRowColumn(dt, offset - iblockOffset);
      if (row >= rows || col >= dt.width) {
        throw new FormatError(`heap offset ${offset} lies outside the indirect block's ${rows} rows`, {
          structure: 'fractal heap indirect block',
          address: iblockAddress,
        });
      }
      const child = iblock.childAddresses[row * dt.width + col]!;
      if (child === UNDEFINED_ADDRESS) {
        throw new FormatError(`heap offset ${offset} falls in an unallocated block`, {
          structure: 'fractal heap indirect block',
          address: iblockAddress,
        });
      }
      const childOffset = iblockOffset + rowBlockOffset(dt, row) + col * rowBlockSize(dt, row);
      if (row < dt.maxDirectRows) return { address: child, size: rowBlockSize(dt, row), blockOffset: childOffset };
      const childRows = indirectBlockRows(dt, rowBlockSize(dt, row));
      if (!(childRows >= 1 && childRows < rows)) {
        throw new FormatError(`child indirect block in row ${row} would have ${childRows} rows`, {
          structure: 'fractal heap indirect block',
          address: iblockAddress,
        });
      }
      rows = childRows;
      iblockAddress = child;
      iblockOffset = childOffset;
    }
  }

  private remember(bytes: number): void {
    this.cachedBytes += bytes;
    if (this.cachedBytes > BLOCK_CACHE_BUDGET) {
      this.dblocks.clear();
      this.iblocks.clear();
      this.cachedBytes = bytes;
    }
  }

  private async readIndirectBlock(address: number, rows: number, expectedOffset: number): Promise<IndirectBlock> {
    const key = `${address}:${rows}`;
    const hit = this.iblocks.get(key);
    if (hit) return hit;
    const size = indirectBlockSize(this.reader.sizes, this.table, rows, this.filtered);
    const bytes = await this.reader.read(address, size, 'fractal heap indirect block');
    const iblock = decodeIndirectBlock(bytes, this.reader.sizes, this.table, address, this.header.address, rows, this.filtered);
    if (iblock.blockOffset !== expectedOffset) {
      throw new FormatError(`block offset ${iblock.blockOffset} does not match its position ${expectedOffset} in the heap`, {
        structure: 'fractal heap indirect block',
        address,
      });
    }
    this.remember(size);
    this.iblocks.set(key, iblock);
    return iblock;
  }

  private async readDirectBlock(address: number, size: number, blockOffset: number): Promise<Uint8Array> {
    const key = `${address}:${size}:${blockOffset}`;
    const hit = this.dblocks.get(key);
    if (hit) return hit;
    const bytes = await this.reader.read(address, size, 'fractal heap direct block');
    verifyDirectBlock(bytes, this.reader.sizes, this.table, address, this.header.address, blockOffset, this.checksummedDirectBlocks);
    this.remember(size);
    this.dblocks.set(key, bytes);
    return bytes;
  }
}

/**
 * Opens the fractal heap whose header is at `address`: reads the fixed part, then any I/O filter
 * information, verifies the checksum and validates the doubling table.
 */
export async function openFractalHeap(reader: MetadataReader, address: number): Promise<FractalHeap> {
  const base = fractalHeapHeaderBaseSize(reader.sizes);
  let bytes = await reader.read(address, base, HEADER);
  const filterLength = bytes[7]! | (bytes[8]! << 8);
  if (bytes[0] === 0x46 && filterLength > 0) {
    bytes = await reader.read(address, base + reader.sizes.sizeOfLengths + 4 + filterLength, HEADER);
  }
  return new FractalHeap(reader, decodeFractalHeapHeader(bytes, reader.sizes, address));
}
