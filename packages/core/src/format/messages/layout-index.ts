/**
 * Chunk index descriptions inside the Data Layout message (HDF5 spec IV.A.2.i, layout version 4
 * "Chunk Indexing Type" and its creation parameters), shared by chunked (class 2) and structured
 * chunk (class 4) layouts.
 * @module
 */
import { ValueError } from '../../errors.js';
import type { ByteReader, ByteWriter } from '../bytes.js';

/** Fixed array index parameters (index type 3). */
export interface FixedArrayIndexInfo {
  type: 'fixed-array';
  /** log2 of the number of elements per data block page. */
  pageBits: number;
}
/** Extensible array index parameters (index type 4), in layout-message order. */
export interface ExtensibleArrayIndexInfo {
  type: 'extensible-array';
  /** Bits needed to store the maximum number of elements. */
  maxBits: number;
  /** Elements stored in the index block. */
  indexElements: number;
  /** Minimum number of data block pointers of a super block. */
  minPointers: number;
  /** Minimum number of elements per data block. */
  minElements: number;
  /** log2 of the number of elements per data block page. */
  pageBits: number;
}
/** Version 2 B-tree index parameters (index type 5). */
export interface BTree2IndexInfo {
  type: 'btree2';
  nodeSize: number;
  splitPercent: number;
  mergePercent: number;
}

/**
 * A third-party index type (a layout index type code HDF5 does not define, claimed by a registered
 * chunk index provider with that `code`): its provider's type name and its raw creation parameters.
 */
export interface ExternalIndexInfo {
  type: 'external';
  /** The provider's index type name. */
  name: string;
  /** The layout index type code (6..255). */
  code: number;
  /** The creation parameters as stored in the layout message. */
  params: Uint8Array;
}

/** How the chunks of a chunked dataset are indexed. */
export type ChunkIndexInfo =
  | { type: 'btree1' }
  | { type: 'single'; filteredSize?: number; filterMask?: number }
  | { type: 'implicit' }
  | FixedArrayIndexInfo
  | ExtensibleArrayIndexInfo
  | BTree2IndexInfo
  | ExternalIndexInfo;

/** HDF5's own index type names (everything but {@link ExternalIndexInfo}). */
export type BuiltInIndexType = Exclude<ChunkIndexInfo['type'], 'external'>;

/**
 * How a layout decoder learns about third-party index types: the provider's type name and the number
 * of creation parameter bytes for a code, or undefined when no registered provider claims the code.
 */
export type IndexTypeLookup = (code: number) => { name: string; paramBytes: number } | undefined;

/** Index type numbers stored in layout messages of version 4 and later. */
export const CHUNK_INDEX_TYPES = {
  btree1: 0,
  single: 1,
  implicit: 2,
  'fixed-array': 3,
  'extensible-array': 4,
  btree2: 5,
} as const satisfies Record<BuiltInIndexType, number>;

/** Decodes the creation parameters of index types 3, 4 and 5 (spec IV.A.2.i, layout v4 "Indexing Information"; the caller handles 0, 1 and 2). */
export function decodeIndexParams(r: ByteReader, indexType: number): FixedArrayIndexInfo | ExtensibleArrayIndexInfo | BTree2IndexInfo {
  const nonZero = (v: number, what: string): number => {
    if (v === 0) throw r.error(`invalid ${what} 0`);
    return v;
  };
  switch (indexType) {
    case 3:
      return { type: 'fixed-array', pageBits: nonZero(r.u8(), 'fixed array page bits') };
    case 4:
      return {
        type: 'extensible-array',
        maxBits: nonZero(r.u8(), 'extensible array max elements bits'),
        indexElements: nonZero(r.u8(), 'extensible array index block elements'),
        minPointers: nonZero(r.u8(), 'extensible array super block min data pointers'),
        minElements: nonZero(r.u8(), 'extensible array data block min elements'),
        pageBits: nonZero(r.u8(), 'extensible array page bits'),
      };
    case 5: {
      const nodeSize = nonZero(r.u32(), 'v2 B-tree node size');
      const splitPercent = r.u8();
      const mergePercent = r.u8();
      if (splitPercent === 0 || splitPercent > 100) throw r.error(`invalid v2 B-tree split percent ${splitPercent}`);
      if (mergePercent === 0 || mergePercent > 100) throw r.error(`invalid v2 B-tree merge percent ${mergePercent}`);
      return { type: 'btree2', nodeSize, splitPercent, mergePercent };
    }
    default:
      throw r.error(`invalid chunk index type ${indexType}`);
  }
}

function byte(v: number, what: string, structure: string, min = 1, max = 255): number {
  if (!Number.isInteger(v) || v < min || v > max) throw new ValueError(`invalid ${what} ${v}`, { structure });
  return v;
}

/** Encodes the creation parameters of a fixed array, extensible array or v2 B-tree index (spec IV.A.2.i, layout v4). */
export function encodeIndexParams(w: ByteWriter, info: FixedArrayIndexInfo | ExtensibleArrayIndexInfo | BTree2IndexInfo, structure: string): void {
  switch (info.type) {
    case 'fixed-array':
      w.u8(byte(info.pageBits, 'page bits', structure));
      return;
    case 'extensible-array':
      w.u8(byte(info.maxBits, 'max bits', structure));
      w.u8(byte(info.indexElements, 'index elements', structure));
      w.u8(byte(info.minPointers, 'min pointers', structure));
      w.u8(byte(info.minElements, 'min elements', structure));
      w.u8(byte(info.pageBits, 'page bits', structure));
      return;
    case 'btree2':
      if (!Number.isInteger(info.nodeSize) || info.nodeSize <= 0 || info.nodeSize > 0xffffffff) {
        throw new ValueError(`invalid node size ${info.nodeSize}`, { structure });
      }
      w.u32(info.nodeSize);
      w.u8(byte(info.splitPercent, 'split percent', structure, 1, 100));
      w.u8(byte(info.mergePercent, 'merge percent', structure, 1, 100));
      return;
  }
}

/** floor(log2(v)) for a positive safe integer. */
export function floorLog2(v: number): number {
  let n = 0;
  while (v >= 2 ** (n + 1)) n++;
  return n;
}

/**
 * Bytes HDF5 uses to encode chunk dimensions (layout v4/v5 "Dimension Size Encoding Length"):
 * `(floor(log2(max)) + 8) / 8` over all dimensions including the element size (H5Dchunk.c).
 */
export function dimensionEncodingLength(dims: readonly number[]): number {
  let max = 1;
  for (const d of dims) if (d > max) max = d;
  return Math.floor((floorLog2(max) + 8) / 8);
}

/** Reads `n` chunk dimensions of `width` bytes each, rejecting zeros. */
export function decodeDims(r: ByteReader, n: number, width: number): number[] {
  r.need(n * width, 'chunk dimensions');
  const dims = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const d = r.uN(width);
    if (d === 0) throw r.error(`chunk dimension ${i} is 0`);
    dims[i] = d;
  }
  return dims;
}
