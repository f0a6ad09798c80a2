/**
 * Geometry of an extensible array (HDF5 spec Appendix C.4 "Extensible Array Index"; H5EAhdr.c
 * `H5EA__hdr_init`, H5EApkg.h size macros, H5EA.c `H5EA__lookup_elmt`): which block holds element
 * `idx`, how big every block is, and the creation parameters' validity.
 *
 * Elements `0 .. indexElements-1` live in the index block. The rest are grouped into "super
 * blocks" `s = 0, 1, 2, ...`: super block `s` has `2^floor(s/2)` data blocks of
 * `2^floor((s+1)/2) × dataBlockMinElements` elements. The data blocks of the first
 * `2·log2(superBlockMinDataPointers)` super blocks are referenced straight from the index block;
 * later super blocks are real "EASB" structures listing their data blocks. Data blocks with more
 * than `2^pageBits` elements are split into checksummed pages.
 * @module
 */
import { floorLog2, type SizeContext } from '@chunkform/core/plugin';
import { formatError, type Where } from '../array-element/block-io.js';

/** Creation parameters of an extensible array, as its header stores them. */
export interface ExtensibleArrayParams {
  /** Bytes per element. */
  elementSize: number;
  /** Bits needed for the maximum number of elements. */
  maxBits: number;
  /** Elements stored in the index block. */
  indexElements: number;
  /** Elements of the smallest data block. */
  dataBlockMinElements: number;
  /** Data block pointers of the smallest super block. */
  superBlockMinDataPointers: number;
  /** log2 of the elements per data block page. */
  pageBits: number;
}

/** One super block's shape (`H5EA_sblk_info_t`). */
export interface SuperBlockInfo {
  /** Data blocks in the super block. */
  dataBlocks: number;
  /** Elements per data block. */
  dataBlockEntries: number;
  /** Index (after the index block's elements) of the super block's first element. */
  startIndex: number;
  /** Number of data blocks in all earlier super blocks. */
  startDataBlock: number;
}

/** Where element `idx` lives. */
export type ElementLocation =
  | { kind: 'index-block'; element: number }
  | {
      kind: 'data-block';
      /** Super block index. */
      superBlock: number;
      /** Data block number: position in the index block's list (super blocks held by the index block) or in the super block. */
      dataBlock: number;
      /** True when the data block address lives in the index block. */
      inIndexBlock: boolean;
      /** Element within the data block. */
      element: number;
    };

/** Everything derived from the parameters. */
export class ExtensibleArrayGeometry {
  /** Number of super blocks the array can have. */
  readonly superBlockCount: number;
  readonly superBlocks: SuperBlockInfo[];
  /** Elements per data block page. */
  readonly pageEntries: number;
  /** Bytes of the "block offset" fields (`ceil(maxBits / 8)`). */
  readonly arrayOffsetSize: number;
  /** Super blocks whose data blocks the index block points to directly. */
  readonly indexBlockSuperBlocks: number;
  /** Data block addresses in the index block. */
  readonly indexBlockDataBlocks: number;
  /** Super block addresses in the index block. */
  readonly indexBlockSuperBlockAddrs: number;
  /** Maximum number of elements (2^maxBits). */
  readonly capacity: number;

  constructor(
    readonly params: ExtensibleArrayParams,
    readonly sizes: SizeContext,
  ) {
    const p = params;
    this.superBlockCount = 1 + p.maxBits - floorLog2(p.dataBlockMinElements);
    this.pageEntries = 2 ** p.pageBits;
    this.arrayOffsetSize = Math.ceil(p.maxBits / 8);
    this.indexBlockSuperBlocks = 2 * floorLog2(p.superBlockMinDataPointers);
    this.indexBlockDataBlocks = 2 * (p.superBlockMinDataPointers - 1);
    this.indexBlockSuperBlockAddrs = Math.max(0, this.superBlockCount - this.indexBlockSuperBlocks);
    this.capacity = 2 ** p.maxBits;
    this.superBlocks = [];
    let startIndex = 0;
    let startDataBlock = 0;
    for (let s = 0; s < this.superBlockCount; s++) {
      const dataBlocks = 2 ** Math.floor(s / 2);
      const dataBlockEntries = 2 ** Math.floor((s + 1) / 2) * p.dataBlockMinElements;
      this.superBlocks.push({ dataBlocks, dataBlockEntries, startIndex, startDataBlock });
      startIndex += dataBlocks * dataBlockEntries;
      startDataBlock += dataBlocks;
    }
  }

  /** Locates element `idx`, or returns null when it is beyond the array's capacity (2^maxBits). */
  locate(idx: number): ElementLocation | null {
    const p = this.params;
    if (!Number.isSafeInteger(idx) || idx < 0 || idx >= this.capacity) return null;
    if (idx < p.indexElements) return { kind: 'index-block', element: idx };
    const j = idx - p.indexElements;
    const s = floorLog2(Math.floor(j / p.dataBlockMinElements) + 1);
    if (s >= this.superBlockCount) return null;
    const info = this.superBlocks[s]!;
    const e = j - info.startIndex;
    const d = Math.floor(e / info.dataBlockEntries);
    const element = e - d * info.dataBlockEntries;
    if (s < this.indexBlockSuperBlocks) {
      return { kind: 'data-block', superBlock: s, dataBlock: info.startDataBlock + d, inIndexBlock: true, element };
    }
    return { kind: 'data-block', superBlock: s, dataBlock: d, inIndexBlock: false, element };
  }

  /** Index of the first element of data block `dataBlock` of super block `s` (see {@link locate}). */
  firstElement(s: number, dataBlock: number, inIndexBlock: boolean): number {
    const info = this.superBlocks[s]!;
    const d = inIndexBlock ? dataBlock - info.startDataBlock : dataBlock;
    return this.params.indexElements + info.startIndex + d * info.dataBlockEntries;
  }

  /**
   * The "block offset" HDF5 stores in a data block (H5EA.c `H5EA__lookup_elmt`): for data blocks
   * listed in the index block it is `startIndex + (position in the index block's list) × size`
   * (not the element offset), for those in a super block the real element offset.
   */
  dataBlockOffset(s: number, dataBlock: number): number {
    const info = this.superBlocks[s]!;
    return info.startIndex + dataBlock * info.dataBlockEntries;
  }

  /** Number of pages of a data block of super block `s` (0 = not paged). */
  pagesPerDataBlock(s: number): number {
    const n = this.superBlocks[s]!.dataBlockEntries;
    return n > this.pageEntries ? n / this.pageEntries : 0;
  }

  /** Super block of data block `dataBlock` (a position in the index block's list). */
  superBlockOfIndexBlockDataBlock(dataBlock: number): number {
    let s = 0;
    while (s + 1 < this.indexBlockSuperBlocks && this.superBlocks[s + 1]!.startDataBlock <= dataBlock) s++;
    return s;
  }
}

/**
 * Checks parameters read from a file (H5EAhdr.c `H5EA__hdr_create` rules); throws
 * a `FormatError` located at `where` when they are not usable.
 */
export function checkExtensibleArrayParams(p: ExtensibleArrayParams, where: Where): void {
  const pow2 = (v: number): boolean => v > 0 && (v & (v - 1)) === 0;
  if (p.elementSize === 0) throw formatError(where, 'element size 0');
  if (p.maxBits === 0 || p.maxBits > 64) throw formatError(where, `invalid max elements bits ${p.maxBits}`);
  if (!pow2(p.dataBlockMinElements)) throw formatError(where, `data block minimum elements ${p.dataBlockMinElements} is not a power of two`);
  if (p.superBlockMinDataPointers < 2 || !pow2(p.superBlockMinDataPointers)) {
    throw formatError(where, `super block minimum data block pointers ${p.superBlockMinDataPointers} is not a power of two ≥ 2`);
  }
  if (floorLog2(p.dataBlockMinElements) > p.maxBits) throw formatError(where, 'data blocks larger than the whole array');
  if (p.pageBits === 0 || p.pageBits > p.maxBits || p.pageBits > 31) throw formatError(where, `invalid data block page bits ${p.pageBits}`);
  const pageEntries = 2 ** p.pageBits;
  if (pageEntries < p.indexElements) throw formatError(where, 'data block pages smaller than the index block');
  const first = 2 * floorLog2(p.superBlockMinDataPointers);
  const firstEntries = 2 ** Math.floor((first + 1) / 2) * p.dataBlockMinElements;
  if (pageEntries < firstEntries) throw formatError(where, 'data blocks of the index block would need paging');
}
