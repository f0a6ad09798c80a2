/**
 * Data Layout message (HDF5 spec IV.A.2.i, type 0x0008): where and how a dataset's raw data is
 * stored. Decodes versions 1–5 (compact, contiguous, chunked, virtual and, in version 5, structured
 * chunks); encodes version 3 (compact, contiguous, v1-B-tree chunked), version 4 (chunked with the
 * newer indexes, virtual) and version 5 (structured chunks).
 * @module
 */
import { UnknownIndexTypeError, UnsupportedError, ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, DEFAULT_SIZES, UNDEFINED_ADDRESS, type SizeContext } from '../bytes.js';
import {
  CHUNK_INDEX_TYPES,
  decodeDims,
  decodeIndexParams,
  dimensionEncodingLength,
  encodeIndexParams,
  type ChunkIndexInfo,
  type IndexTypeLookup,
} from './layout-index.js';
import { decodeStructuredLayout, encodeStructuredLayout, type StructuredChunkLayout } from './layout-structured.js';

export * from './layout-index.js';
export * from './layout-structured.js';

/** Compact storage: the raw data lives in the message. */
export interface CompactLayout {
  class: 'compact';
  /** Message version the layout was decoded from. */
  version?: number;
  data: Uint8Array;
}

/** Contiguous storage: one block of `size` bytes at `address` (undefined until allocated). */
export interface ContiguousLayout {
  class: 'contiguous';
  version?: number;
  address: number;
  /**
   * Size of the block. Versions 1–2 store no size: it is the product of the stored dimensions
   * (dataset dims × element size, each truncated to 32 bits), so prefer dataspace × element size there.
   */
  size: number;
  /** Versions 1–2 only: the stored dimensions (dataset dims, then the element size). */
  dims?: number[];
}

/** Chunked storage. */
export interface ChunkedLayout {
  class: 'chunked';
  version: number;
  /** Bit 0: don't filter partial edge chunks; bit 1: single-chunk index with filter (versions ≥ 4). */
  flags: number;
  /** Chunk dimensions (without the element size). */
  chunkDims: number[];
  /** Datatype size in bytes (stored as the last "dimension"). */
  elementSize: number;
  index: ChunkIndexInfo;
  /** v1 B-tree / index header address; single chunk: the chunk; implicit: the chunk block. */
  address: number;
}

/** Virtual storage: the mapping list lives in a global heap object. */
export interface VirtualLayout {
  class: 'virtual';
  version: number;
  /** Global heap collection address of the serialized mapping list. */
  heapAddress: number;
  /** Object index within that collection. */
  heapIndex: number;
}

/** Any data layout. */
export type DataLayout = CompactLayout | ContiguousLayout | ChunkedLayout | VirtualLayout | StructuredChunkLayout;

/** Layout flag bit 0 (versions ≥ 4): partial edge chunks are not filtered. */
export const LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS = 0x01;
/** Layout flag bit 1 (versions ≥ 4): a single-chunk index records filtered size and mask. */
export const LAYOUT_FLAG_SINGLE_INDEX_WITH_FILTER = 0x02;

/** Largest dimensionality (rank 32 + element size). */
const MAX_NDIMS = 33;
const STRUCTURE = 'data layout message';

function product(dims: readonly number[], r: ByteReader): number {
  let p = 1;
  for (const d of dims) p *= d;
  if (!Number.isSafeInteger(p)) throw r.error('storage size exceeds 2^53');
  return p;
}

function decodeOld(r: ByteReader, version: number): DataLayout {
  const ndims = r.u8();
  if (ndims < 1 || ndims > MAX_NDIMS) throw r.error(`dimensionality ${ndims} out of range 1..${MAX_NDIMS}`);
  const cls = r.u8();
  if (cls > 2) throw r.error(`invalid layout class ${cls} for version ${version}`);
  r.skip(5);
  const address = cls === 0 ? UNDEFINED_ADDRESS : r.offset();
  if (cls === 2) {
    if (ndims < 2) throw r.error('chunked layout needs at least 2 dimensions');
    const dims = decodeDims(r, ndims, 4);
    return { class: 'chunked', version, flags: 0, chunkDims: dims.slice(0, -1), elementSize: dims[ndims - 1]!, index: { type: 'btree1' }, address };
  }
  r.need(4 * ndims, 'dimensions');
  const dims: number[] = [];
  for (let i = 0; i < ndims; i++) dims.push(r.u32());
  if (cls === 1) return { class: 'contiguous', version, address, size: product(dims, r), dims };
  const size = r.u32();
  return { class: 'compact', version, data: r.bytesView(size, 'compact data').slice() };
}

function decodeChunkedV4(r: ByteReader, version: number, indexTypes?: IndexTypeLookup): ChunkedLayout {
  const flags = r.u8();
  if (flags & ~0x03) throw r.error(`unknown chunked layout flags 0x${flags.toString(16)}`);
  const ndims = r.u8();
  if (ndims < 2 || ndims > MAX_NDIMS) throw r.error(`chunk dimensionality ${ndims} out of range 2..${MAX_NDIMS}`);
  const enc = r.u8();
  if (enc < 1 || enc > 8) throw r.error(`invalid dimension size encoding length ${enc}`);
  const dims = decodeDims(r, ndims, enc);
  const indexType = r.u8();
  let index: ChunkIndexInfo;
  switch (indexType) {
    case 0:
      throw r.error(`v1 B-tree index type in a version ${version} layout message`);
    case 1:
      index = { type: 'single' };
      if (flags & LAYOUT_FLAG_SINGLE_INDEX_WITH_FILTER) {
        index.filteredSize = r.length();
        index.filterMask = r.u32();
      }
      break;
    case 2:
      index = { type: 'implicit' };
      break;
    case 3:
    case 4:
    case 5:
      index = decodeIndexParams(r, indexType);
      break;
    default: {
      const external = indexTypes?.(indexType);
      if (!external) throw new UnknownIndexTypeError(indexType, { structure: STRUCTURE, address: r.base });
      index = { type: 'external', name: external.name, code: indexType, params: r.bytesView(external.paramBytes, 'index parameters').slice() };
    }
  }
  const address = r.offset();
  return { class: 'chunked', version, flags, chunkDims: dims.slice(0, -1), elementSize: dims[ndims - 1]!, index, address };
}

/**
 * Decodes a data layout message body (spec IV.A.2.i, versions 1–5). `indexTypes` tells the decoder
 * about third-party chunk index type codes (an unknown code is an {@link UnknownIndexTypeError}).
 */
export function decodeLayout(body: Uint8Array, sizes: SizeContext = DEFAULT_SIZES, address = UNDEFINED_ADDRESS, indexTypes?: IndexTypeLookup): DataLayout {
  const r = new ByteReader(body, { sizes, structure: STRUCTURE, base: address });
  const version = r.u8();
  if (version === 0) throw r.error('invalid version 0');
  if (version > 5) throw new UnsupportedError(`data layout message version ${version} is not supported`, { structure: STRUCTURE, address });
  if (version < 3) return decodeOld(r, version);
  const cls = r.u8();
  switch (cls) {
    case 0: {
      const size = r.u16();
      return { class: 'compact', version, data: r.bytesView(size, 'compact data').slice() };
    }
    case 1: {
      const a = r.offset();
      const size = r.length();
      return { class: 'contiguous', version, address: a, size };
    }
    case 2: {
      if (version >= 4) return decodeChunkedV4(r, version, indexTypes);
      const ndims = r.u8();
      if (ndims < 2 || ndims > MAX_NDIMS) throw r.error(`chunk dimensionality ${ndims} out of range 2..${MAX_NDIMS}`);
      const a = r.offset();
      const dims = decodeDims(r, ndims, 4);
      return { class: 'chunked', version, flags: 0, chunkDims: dims.slice(0, -1), elementSize: dims[ndims - 1]!, index: { type: 'btree1' }, address: a };
    }
    case 3: {
      if (version < 4) throw r.error(`virtual layout in a version ${version} message`);
      const heapAddress = r.offset();
      const heapIndex = r.u32();
      return { class: 'virtual', version, heapAddress, heapIndex };
    }
    case 4:
      if (version < 5) throw r.error(`structured chunk layout in a version ${version} message`);
      return decodeStructuredLayout(r);
    default:
      throw r.error(`invalid layout class ${cls}`);
  }
}

function fail(message: string): never {
  throw new ValueError(message, { structure: STRUCTURE });
}

/** The model's version when it lies in [min, 5], else `dflt`. */
function pick(version: number | undefined, min: number, dflt: number): number {
  return version !== undefined && version >= min && version <= 5 ? version : dflt;
}

function checkChunkShape(chunkDims: readonly number[], elementSize: number): void {
  if (chunkDims.length < 1 || chunkDims.length > 32) fail(`chunk rank ${chunkDims.length} out of range 1..32`);
  for (const d of chunkDims) if (!Number.isInteger(d) || d <= 0 || d > 0xffffffff) fail(`invalid chunk dimension ${d}`);
  if (!Number.isInteger(elementSize) || elementSize <= 0 || elementSize > 0xffffffff) fail(`invalid element size ${elementSize}`);
}

/**
 * Encodes a data layout message body (spec IV.A.2.i) the way HDF5 1.10 does: version 3 for compact,
 * contiguous and v1-B-tree chunked layouts, version 4 for chunked layouts with the newer indexes
 * (dimension encoding length = smallest width holding the largest dimension incl. the element size)
 * and for virtual layouts, version 5 for structured chunks. A `version` in the model is kept when
 * the class allows it (compact/contiguous 3–5, e.g. 4 as HDF5 writes with libver "latest";
 * chunked with a new index or virtual 4–5), so decode → encode reproduces the original bytes.
 */
export function encodeLayout(layout: DataLayout, sizes: SizeContext = DEFAULT_SIZES): Uint8Array {
  const w = new ByteWriter(sizes, 64);
  switch (layout.class) {
    case 'compact':
      if (layout.data.length > 0xffff) fail(`compact data of ${layout.data.length} bytes exceeds 65535`);
      w.u8(pick(layout.version, 3, 3)).u8(0).u16(layout.data.length).bytes(layout.data);
      break;
    case 'contiguous':
      if (!Number.isSafeInteger(layout.size) || layout.size < 0) fail(`invalid contiguous size ${layout.size}`);
      w.u8(pick(layout.version, 3, 3)).u8(1).offset(layout.address).length(layout.size);
      break;
    case 'chunked': {
      const { chunkDims, elementSize, index } = layout;
      checkChunkShape(chunkDims, elementSize);
      const dims = [...chunkDims, elementSize];
      if (index.type === 'btree1') {
        w.u8(3).u8(2).u8(dims.length).offset(layout.address);
        for (const d of dims) w.u32(d);
        break;
      }
      if (layout.flags & ~0x03) fail(`unknown chunked layout flags 0x${layout.flags.toString(16)}`);
      const filteredSingle = index.type === 'single' && index.filteredSize !== undefined;
      if (layout.flags & LAYOUT_FLAG_SINGLE_INDEX_WITH_FILTER && !filteredSingle) {
        fail('layout flag bit 1 needs a single-chunk index with a filtered size');
      }
      const flags = (layout.flags & LAYOUT_FLAG_DONT_FILTER_PARTIAL_CHUNKS) | (filteredSingle ? LAYOUT_FLAG_SINGLE_INDEX_WITH_FILTER : 0);
      const enc = dimensionEncodingLength(dims);
      w.u8(pick(layout.version, 4, 4)).u8(2).u8(flags).u8(dims.length).u8(enc);
      for (const d of dims) w.uN(d, enc);
      if (index.type === 'external') {
        if (!Number.isInteger(index.code) || index.code < 6 || index.code > 255) fail(`invalid chunk index type code ${index.code}`);
        w.u8(index.code).bytes(index.params);
      } else w.u8(CHUNK_INDEX_TYPES[index.type]);
      if (index.type === 'single') {
        if (filteredSingle) {
          const mask = index.filterMask ?? 0;
          if (!Number.isSafeInteger(index.filteredSize) || index.filteredSize! < 0) fail(`invalid filtered size ${String(index.filteredSize)}`);
          if (!Number.isInteger(mask) || mask < 0 || mask > 0xffffffff) fail(`invalid filter mask ${mask}`);
          w.length(index.filteredSize!).u32(mask);
        }
      } else if (index.type !== 'implicit' && index.type !== 'external') {
        encodeIndexParams(w, index, STRUCTURE);
      }
      w.offset(layout.address);
      break;
    }
    case 'virtual':
      if (!Number.isInteger(layout.heapIndex) || layout.heapIndex < 0 || layout.heapIndex > 0xffffffff) fail(`invalid heap index ${layout.heapIndex}`);
      w.u8(pick(layout.version, 4, 4)).u8(3).offset(layout.heapAddress).u32(layout.heapIndex);
      break;
    case 'structured':
      return encodeStructuredLayout(layout, sizes);
    default:
      fail(`unknown layout class ${String((layout as { class: unknown }).class)}`);
  }
  return w.finishExact();
}
