/**
 * Data Layout message version 5, class 4 "structured chunk" (HDF5 2.0 sparse prototype; see
 * docs/structured-chunk-format.md §3): chunk dimensions, the section composition, the chunk index
 * and, for a single-chunk index, the chunk's size and section offsets.
 * @module
 */
import { ValueError } from '../../errors.js';
import { ByteWriter, UNDEFINED_ADDRESS, type ByteReader, type SizeContext } from '../bytes.js';
import {
  decodeDims,
  decodeIndexParams,
  dimensionEncodingLength,
  encodeIndexParams,
  type BTree2IndexInfo,
  type ExtensibleArrayIndexInfo,
  type FixedArrayIndexInfo,
} from './layout-index.js';

/** Structured chunk type 0: sparse data (selection section + fixed-size data section). */
export const STRUCTURED_CHUNK_SPARSE = 0;
/** Structured chunk type 1: variable-length data. */
export const STRUCTURED_CHUNK_VL = 1;

/** Single-chunk index of a structured layout: the record lives in the layout message. */
export interface StructuredSingleChunkInfo {
  type: 'single';
  /** Size of the chunk in the file (all sections), 0 when no chunk is stored. */
  chunkSize: number;
  /** Offsets of sections 1 … n−1 within the chunk (section 0 starts at 0). */
  sectionOffsets: number[];
  /** Unfiltered size of each section (present when layout flag bit 1 is set). */
  unfilteredSizes?: number[];
  /** Filter mask of each section (present when layout flag bit 1 is set). */
  filterMasks?: number[];
}

/** The chunk index of a structured chunk layout (types 1, 3, 4, 5; 0 and 2 are not allowed). */
export type StructuredChunkIndexInfo = StructuredSingleChunkInfo | FixedArrayIndexInfo | ExtensibleArrayIndexInfo | BTree2IndexInfo;

/** A structured chunk layout (layout message version 5, class 4). */
export interface StructuredChunkLayout {
  class: 'structured';
  version: 5;
  /** Structured-chunk property version (0). */
  propertyVersion: number;
  /** `STRUCTURED_CHUNK_SPARSE` (0) or `STRUCTURED_CHUNK_VL` (1). */
  chunkType: number;
  /** Bit 0: don't filter partial edge chunks; bit 1: single-chunk index with filter. */
  flags: number;
  /** Chunk dimensions (without the element size). */
  chunkDims: number[];
  /** Datatype size in bytes (stored as the last "dimension"). */
  elementSize: number;
  /** Composition "offset size": bytes of section offsets and sizes (8). */
  offsetSize: number;
  /** Number of sections per chunk (2 for fixed-size sparse data). */
  sectionCount: number;
  /** Numbers of the sections holding metadata (`[0]` for sparse data). */
  metadataSections: number[];
  index: StructuredChunkIndexInfo;
  /** Single chunk: the chunk's address; other indexes: the index header address. */
  address: number;
}

const STRUCTURE = 'data layout message';

/**
 * Width of the chunk-size field of structured chunk records (docs/structured-chunk-format.md §3.5):
 * `min(O, 1 + (floor(log2(S)) + O) / O)` with S the nominal chunk bytes and O the offset size;
 * 8 for three-section chunks and for every variable-length chunk (type 1), whose heap section is not
 * bounded by S (docs/format-vl.md).
 */
export function structuredChunkSizeLength(
  chunkDims: readonly number[],
  elementSize: number,
  offsetSize: number,
  sectionCount: number,
  chunkType: number = STRUCTURED_CHUNK_SPARSE,
): number {
  if (sectionCount === 3 || chunkType === STRUCTURED_CHUNK_VL) return 8;
  let p = BigInt(elementSize);
  for (const d of chunkDims) p *= BigInt(d);
  const log2 = p > 0n ? p.toString(2).length - 1 : 0;
  return Math.min(offsetSize, 1 + Math.floor((log2 + offsetSize) / offsetSize));
}

/** Decodes the class-4 part of a version 5 layout message (spec IV.A.2.i as extended by the prototype, docs/structured-chunk-format.md §3.1); `r` is positioned after the class byte. */
export function decodeStructuredLayout(r: ByteReader): StructuredChunkLayout {
  const propertyVersion = r.u8();
  if (propertyVersion !== 0) throw r.error(`unsupported structured chunk property version ${propertyVersion}`);
  const chunkType = r.u16();
  const flags = r.u8();
  if (flags & ~0x03) throw r.error(`unknown structured chunk layout flags 0x${flags.toString(16)}`);
  const ndims = r.u8();
  if (ndims < 2 || ndims > 33) throw r.error(`structured chunk dimensionality ${ndims} out of range 2..33`);
  const enc = r.u8();
  if (enc < 1 || enc > 8) throw r.error(`invalid dimension size encoding length ${enc}`);
  const dims = decodeDims(r, ndims, enc);
  const offsetSize = r.u8();
  if (offsetSize < 1 || offsetSize > 8) throw r.error(`invalid composition offset size ${offsetSize}`);
  const sectionCount = r.u8();
  if (sectionCount < 1) throw r.error('structured chunk has no sections');
  const nmeta = r.u8();
  if (nmeta > sectionCount) throw r.error(`${nmeta} metadata sections but only ${sectionCount} sections`);
  const metadataSections: number[] = [];
  for (let i = 0; i < nmeta; i++) {
    const s = r.u8();
    if (s >= sectionCount) throw r.error(`metadata section ${s} out of range`);
    // Seed 001 table 16: M_1 < M_2 < … < M_K.
    if (i > 0 && s <= metadataSections[i - 1]!) throw r.error(`metadata section numbers are not increasing (${metadataSections[i - 1]} then ${s})`);
    metadataSections.push(s);
  }
  const indexType = r.u8();
  const chunkDims = dims.slice(0, -1);
  const elementSize = dims[dims.length - 1]!;
  let index: StructuredChunkIndexInfo;
  if (indexType === 1) {
    const L = structuredChunkSizeLength(chunkDims, elementSize, offsetSize, sectionCount, chunkType);
    const chunkSize = r.uN(L);
    r.need((sectionCount - 1) * offsetSize, 'section offsets');
    const sectionOffsets: number[] = [];
    for (let i = 1; i < sectionCount; i++) sectionOffsets.push(r.uN(offsetSize));
    const single: StructuredSingleChunkInfo = { type: 'single', chunkSize, sectionOffsets };
    if (flags & 0x02) {
      r.need(sectionCount * (offsetSize + 4), 'section sizes and filter masks');
      single.unfilteredSizes = [];
      single.filterMasks = [];
      for (let i = 0; i < sectionCount; i++) single.unfilteredSizes.push(r.uN(offsetSize));
      for (let i = 0; i < sectionCount; i++) single.filterMasks.push(r.u32());
    }
    index = single;
  } else if (indexType === 3 || indexType === 4 || indexType === 5) {
    index = decodeIndexParams(r, indexType);
  } else {
    throw r.error(`chunk index type ${indexType} is not allowed for structured chunks`);
  }
  const address = indexType === 1 ? singleChunkAddress(r) : r.offset();
  return {
    class: 'structured',
    version: 5,
    propertyVersion,
    chunkType,
    flags,
    chunkDims,
    elementSize,
    offsetSize,
    sectionCount,
    metadataSections,
    index,
    address,
  };
}

/**
 * The address field of a single-chunk index. Besides the undefined address (all ones), the
 * prototype's index "create" stores HADDR_MAX = all ones but the lowest bit ("index exists, no
 * chunk yet"; docs/structured-chunk-format.md §3.4), which also means no chunk.
 */
function singleChunkAddress(r: ByteReader): number {
  const n = r.sizes.sizeOfOffsets;
  r.need(n, 'address');
  const b = r.bytes;
  let max = b[r.pos] === 0xfe;
  for (let i = 1; max && i < n; i++) max = b[r.pos + i] === 0xff;
  if (!max) return r.offset();
  r.skip(n);
  return UNDEFINED_ADDRESS;
}

function checkUint(v: number, max: number, what: string): void {
  if (!Number.isSafeInteger(v) || v < 0 || v > max) throw new ValueError(`invalid ${what} ${v}`, { structure: STRUCTURE });
}

/**
 * Encodes a version 5 class 4 layout message (docs/structured-chunk-format.md §3.1). With `pad` (default true) the body ends
 * with the zero bytes the prototype reserves for worst-case sizes (docs/structured-chunk-format.md §3.6).
 */
export function encodeStructuredLayout(layout: StructuredChunkLayout, sizes: SizeContext, pad = true): Uint8Array {
  const rank = layout.chunkDims.length;
  if (rank < 1 || rank > 32) throw new ValueError(`chunk rank ${rank} out of range 1..32`, { structure: STRUCTURE });
  for (const d of layout.chunkDims) {
    if (!Number.isInteger(d) || d <= 0 || d > 0xffffffff) throw new ValueError(`invalid chunk dimension ${d}`, { structure: STRUCTURE });
  }
  if (!Number.isInteger(layout.elementSize) || layout.elementSize <= 0 || layout.elementSize > 0xffffffff) {
    throw new ValueError(`invalid element size ${layout.elementSize}`, { structure: STRUCTURE });
  }
  const O = layout.offsetSize;
  checkUint(O, 8, 'offset size');
  if (O < 1) throw new ValueError('offset size must be at least 1', { structure: STRUCTURE });
  const n = layout.sectionCount;
  checkUint(n, 255, 'section count');
  if (
    n < 1 ||
    layout.metadataSections.length > n ||
    layout.metadataSections.some((s, i) => !(Number.isInteger(s) && s >= 0 && s < n) || (i > 0 && s <= layout.metadataSections[i - 1]!))
  ) {
    throw new ValueError('invalid section composition', { structure: STRUCTURE });
  }
  const single = layout.index.type === 'single' ? layout.index : null;
  let flags = layout.flags & 0x01;
  if (single?.unfilteredSizes || single?.filterMasks) flags |= 0x02;
  if (layout.flags & 0x02 && !(flags & 0x02)) {
    throw new ValueError('layout flag bit 1 needs a single-chunk index with unfiltered sizes and filter masks', { structure: STRUCTURE });
  }
  const dims = [...layout.chunkDims, layout.elementSize];
  const enc = dimensionEncodingLength(dims);
  const w = new ByteWriter(sizes, 64);
  w.u8(5).u8(4).u8(layout.propertyVersion ?? 0);
  checkUint(layout.chunkType, 0xffff, 'structured chunk type');
  w.u16(layout.chunkType).u8(flags).u8(dims.length).u8(enc);
  for (const d of dims) w.uN(d, enc);
  w.u8(O).u8(n).u8(layout.metadataSections.length);
  for (const s of layout.metadataSections) w.u8(s);
  let L = 0;
  if (single) {
    w.u8(1);
    L = structuredChunkSizeLength(layout.chunkDims, layout.elementSize, O, n, layout.chunkType);
    checkUint(single.chunkSize, 2 ** (8 * L) - 1, 'chunk size');
    w.uN(single.chunkSize, L);
    if (single.sectionOffsets.length !== n - 1) throw new ValueError(`expected ${n - 1} section offsets`, { structure: STRUCTURE });
    for (const o of single.sectionOffsets) {
      checkUint(o, 2 ** (8 * O) - 1, 'section offset');
      w.uN(o, O);
    }
    if (flags & 0x02) {
      const us = single.unfilteredSizes ?? [];
      const fm = single.filterMasks ?? [];
      if (us.length !== n || fm.length !== n) throw new ValueError(`expected ${n} unfiltered sizes and filter masks`, { structure: STRUCTURE });
      for (const u of us) {
        checkUint(u, 2 ** (8 * O) - 1, 'unfiltered size');
        w.uN(u, O);
      }
      for (const m of fm) {
        checkUint(m, 0xffffffff, 'filter mask');
        w.u32(m);
      }
    }
  } else {
    const t = layout.index.type as string;
    if (t !== 'fixed-array' && t !== 'extensible-array' && t !== 'btree2') {
      throw new ValueError(`chunk index type ${t} is not allowed for structured chunks`, { structure: STRUCTURE });
    }
    w.u8(t === 'fixed-array' ? 3 : t === 'extensible-array' ? 4 : 5);
    encodeIndexParams(w, layout.index as FixedArrayIndexInfo | ExtensibleArrayIndexInfo | BTree2IndexInfo, STRUCTURE);
  }
  w.offset(layout.address);
  if (pad) w.zeros(Math.max(0, 3 - layout.metadataSections.length) + (single ? Math.max(0, 8 - L) : 0));
  return w.finishExact();
}
