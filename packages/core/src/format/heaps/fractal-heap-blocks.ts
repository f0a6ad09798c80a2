/**
 * Fractal heap managed blocks (HDF5 File Format Specification, section III.G): the doubling-table
 * geometry, direct blocks `FHDB` and indirect blocks `FHIB`.
 * @module
 */
import { ByteReader, ByteWriter, type SizeContext, UNDEFINED_ADDRESS, verifyTrailingChecksum } from '../bytes.js';
import { lookup3 } from '../checksum/lookup3.js';
import { ChecksumError, FormatError } from '../../errors.js';

const DIRECT = 'fractal heap direct block';
const INDIRECT = 'fractal heap indirect block';

/** The doubling table's creation parameters and the values HDF5 derives from them (`H5HF_dtable_t`). */
export interface DoublingTable {
  /** Blocks per row. */
  width: number;
  /** Size of the blocks in rows 0 and 1. */
  startBlockSize: number;
  /** Largest direct block; rows with bigger blocks hold indirect blocks. */
  maxDirectBlockSize: number;
  /** log2 of the heap's address space ("maximum heap size", in bits). */
  maxHeapSizeBits: number;
  /** log2(start block size) + log2(width). */
  firstRowBits: number;
  /** Rows a root indirect block can have. */
  maxRootRows: number;
  /** Rows of direct blocks in an indirect block (log2(max direct) − log2(start) + 2). */
  maxDirectRows: number;
  /** Bytes of a heap offset (block offsets and managed heap IDs): ceil(max heap bits / 8). */
  heapOffsetSize: number;
  /** log2(width). */
  widthBits: number;
}

/** Integer log2 of a power of two, or -1 when `n` is not one. */
export function log2Exact(n: number): number {
  if (!(n >= 1) || !Number.isSafeInteger(n)) return -1;
  const l = Math.round(Math.log2(n));
  return 2 ** l === n ? l : -1;
}

/** Derives the doubling table from the header fields, validating them (`H5HF__dtable_init`). */
export function makeDoublingTable(
  width: number,
  startBlockSize: number,
  maxDirectBlockSize: number,
  maxHeapSizeBits: number,
  structure: string,
  address: number,
): DoublingTable {
  const fail = (m: string) => new FormatError(m, { structure, address });
  const widthBits = log2Exact(width);
  const startBits = log2Exact(startBlockSize);
  const maxDirectBits = log2Exact(maxDirectBlockSize);
  if (widthBits < 0) throw fail(`table width ${width} is not a power of two`);
  if (startBits < 0) throw fail(`starting block size ${startBlockSize} is not a power of two`);
  if (maxDirectBits < 0) throw fail(`maximum direct block size ${maxDirectBlockSize} is not a power of two`);
  if (maxDirectBits < startBits) throw fail('maximum direct block size is below the starting block size');
  if (maxDirectBits > 32) throw fail(`maximum direct block size ${maxDirectBlockSize} is too large`);
  const firstRowBits = startBits + widthBits;
  if (maxHeapSizeBits > 64 || maxHeapSizeBits < firstRowBits || maxHeapSizeBits < maxDirectBits) {
    throw fail(`maximum heap size of ${maxHeapSizeBits} bits does not fit the table`);
  }
  return {
    width,
    startBlockSize,
    maxDirectBlockSize,
    maxHeapSizeBits,
    firstRowBits,
    maxRootRows: maxHeapSizeBits - firstRowBits + 1,
    maxDirectRows: maxDirectBits - startBits + 2,
    heapOffsetSize: Math.ceil(maxHeapSizeBits / 8),
    widthBits,
  };
}

/** Size of the blocks in `row`. */
export function rowBlockSize(dt: DoublingTable, row: number): number {
  return row === 0 ? dt.startBlockSize : dt.startBlockSize * 2 ** (row - 1);
}

/** Heap offset of the first block of `row`, relative to the start of its indirect block. */
export function rowBlockOffset(dt: DoublingTable, row: number): number {
  return row === 0 ? 0 : dt.startBlockSize * dt.width * 2 ** (row - 1);
}

/** Row and column of heap offset `off` (relative to an indirect block), as `H5HF__dtable_lookup`. */
export function lookupRowColumn(dt: DoublingTable, off: number): { row: number; col: number } {
  const firstRowSpan = dt.startBlockSize * dt.width;
  if (off < firstRowSpan) return { row: 0, col: Math.floor(off / dt.startBlockSize) };
  const highBit = Math.floor(Math.log2(off));
  // Guard against floating-point rounding near powers of two.
  const hb = 2 ** (highBit + 1) <= off ? highBit + 1 : 2 ** highBit > off ? highBit - 1 : highBit;
  const row = hb - dt.firstRowBits + 1;
  return { row, col: Math.floor((off - 2 ** hb) / rowBlockSize(dt, row)) };
}

/** Rows of an indirect block that spans `size` bytes of heap space (`H5HF__dtable_size_to_rows`). */
export function indirectBlockRows(dt: DoublingTable, size: number): number {
  return log2Exact(size) - dt.firstRowBits + 1;
}

/** Size of a direct block's header: signature, version, heap address, block offset [, checksum]. */
export function directBlockPrefixSize(sizes: SizeContext, dt: DoublingTable, checksummed: boolean): number {
  return 5 + sizes.sizeOfOffsets + dt.heapOffsetSize + (checksummed ? 4 : 0);
}

/**
 * Verifies a direct block (`bytes` = the whole unfiltered block): signature, version, owning heap,
 * block offset and — when `checksummed` — the checksum, which covers the whole block with the
 * checksum field taken as zero. Spec III.G "Fractal Heap Direct Block".
 */
export function verifyDirectBlock(
  bytes: Uint8Array,
  sizes: SizeContext,
  dt: DoublingTable,
  address: number,
  heapAddress: number,
  expectedBlockOffset: number,
  checksummed: boolean,
): void {
  const r = new ByteReader(bytes, { sizes, structure: DIRECT, base: address });
  r.signature('FHDB');
  if (checksummed) {
    const at = 5 + sizes.sizeOfOffsets + dt.heapOffsetSize;
    r.need(at + 4 - r.pos, 'header');
    const stored = (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
    const copy = bytes.slice();
    copy.fill(0, at, at + 4);
    const computed = lookup3(copy);
    if (stored !== computed) throw new ChecksumError(DIRECT, address, stored, computed);
  }
  const version = r.u8();
  if (version !== 0) throw r.error(`unsupported version ${version}`);
  const owner = r.offset();
  if (owner !== heapAddress) throw r.error(`belongs to the heap at ${owner}, not ${heapAddress}`);
  const blockOffset = r.uN(dt.heapOffsetSize);
  if (blockOffset !== expectedBlockOffset) {
    throw r.error(`block offset ${blockOffset} does not match its position ${expectedBlockOffset} in the heap`);
  }
}

/** A decoded indirect block. */
export interface IndirectBlock {
  address: number;
  /** Offset of the block in the heap's address space. */
  blockOffset: number;
  /** Rows in this block. */
  rows: number;
  /** Child addresses, `rows × width`, row-major (`UNDEFINED_ADDRESS` = no child). */
  childAddresses: number[];
  /** Filtered sizes of the direct children (only for heaps with I/O filters). */
  filteredSizes?: number[];
  /** Filter masks of the direct children (only for heaps with I/O filters). */
  filterMasks?: number[];
}

/** Size of an indirect block with `rows` rows (`H5HF_MAN_INDIRECT_SIZE`). */
export function indirectBlockSize(sizes: SizeContext, dt: DoublingTable, rows: number, filtered: boolean): number {
  const directRows = Math.min(rows, dt.maxDirectRows);
  const indirectRows = Math.max(0, rows - dt.maxDirectRows);
  const directEntry = sizes.sizeOfOffsets + (filtered ? sizes.sizeOfLengths + 4 : 0);
  return 5 + sizes.sizeOfOffsets + dt.heapOffsetSize + directRows * dt.width * directEntry + indirectRows * dt.width * sizes.sizeOfOffsets + 4;
}

/**
 * Decodes an indirect block of `rows` rows (`bytes` = the whole block). Verifies signature,
 * version, owning heap and checksum. Spec III.G "Fractal Heap Indirect Block".
 */
export function decodeIndirectBlock(
  bytes: Uint8Array,
  sizes: SizeContext,
  dt: DoublingTable,
  address: number,
  heapAddress: number,
  rows: number,
  filtered: boolean,
): IndirectBlock {
  const r = new ByteReader(bytes, { sizes, structure: INDIRECT, base: address });
  r.signature('FHIB');
  const size = indirectBlockSize(sizes, dt, rows, filtered);
  r.need(size - r.pos, 'child entries');
  verifyTrailingChecksum(bytes.subarray(0, size), INDIRECT, address);
  const version = r.u8();
  if (version !== 0) throw r.error(`unsupported version ${version}`);
  const owner = r.offset();
  if (owner !== heapAddress) throw r.error(`belongs to the heap at ${owner}, not ${heapAddress}`);
  const blockOffset = r.uN(dt.heapOffsetSize);
  const n = rows * dt.width;
  const directEntries = Math.min(rows, dt.maxDirectRows) * dt.width;
  const childAddresses = new Array<number>(n);
  const filteredSizes = filtered ? new Array<number>(directEntries) : undefined;
  const filterMasks = filtered ? new Array<number>(directEntries) : undefined;
  for (let i = 0; i < n; i++) {
    childAddresses[i] = r.offset();
    if (filtered && i < directEntries) {
      filteredSizes![i] = r.length();
      filterMasks![i] = r.u32();
    }
  }
  r.skip(4); // checksum, verified above
  const block: IndirectBlock = { address, blockOffset, rows, childAddresses };
  if (filteredSizes) block.filteredSizes = filteredSizes;
  if (filterMasks) block.filterMasks = filterMasks;
  return block;
}

/**
 * Encodes a direct block: `block` is the whole block (its first {@link directBlockPrefixSize} bytes
 * are replaced by the header: signature, version, owning heap, block offset and — when
 * `checksummed` — the checksum over the whole block). Returns a new array. Spec III.G "Fractal Heap
 * Direct Block".
 */
export function encodeDirectBlock(
  block: Uint8Array,
  sizes: SizeContext,
  dt: DoublingTable,
  heapAddress: number,
  blockOffset: number,
  checksummed: boolean,
): Uint8Array {
  const prefix = directBlockPrefixSize(sizes, dt, checksummed);
  if (block.length < prefix) throw new FormatError(`a ${block.length}-byte block cannot hold its ${prefix}-byte header`, { structure: DIRECT });
  const w = new ByteWriter(sizes, prefix);
  w.signature('FHDB').u8(0).offset(heapAddress).uN(blockOffset, dt.heapOffsetSize);
  if (checksummed) w.u32(0);
  const out = block.slice();
  out.set(w.finish().subarray(0, prefix - (checksummed ? 4 : 0)));
  if (checksummed) {
    const at = prefix - 4;
    out.fill(0, at, prefix);
    const sum = lookup3(out);
    out[at] = sum & 0xff;
    out[at + 1] = (sum >>> 8) & 0xff;
    out[at + 2] = (sum >>> 16) & 0xff;
    out[at + 3] = (sum >>> 24) & 0xff;
  }
  return out;
}

/**
 * Encodes an indirect block of `block.rows` rows (unfiltered heaps: one address per child,
 * {@link UNDEFINED_ADDRESS} for children not allocated) with its checksum. Spec III.G "Fractal Heap
 * Indirect Block".
 */
export function encodeIndirectBlock(block: Omit<IndirectBlock, 'address'>, sizes: SizeContext, dt: DoublingTable, heapAddress: number): Uint8Array {
  const n = block.rows * dt.width;
  if (block.childAddresses.length !== n) {
    throw new FormatError(`${block.rows} rows need ${n} child entries, got ${block.childAddresses.length}`, { structure: INDIRECT });
  }
  const size = indirectBlockSize(sizes, dt, block.rows, false);
  const w = new ByteWriter(sizes, size);
  w.signature('FHIB').u8(0).offset(heapAddress).uN(block.blockOffset, dt.heapOffsetSize);
  for (const a of block.childAddresses) w.offset(a ?? UNDEFINED_ADDRESS);
  w.checksum(0);
  return w.finish();
}
