/**
 * Chunk records of version 2 B-trees (HDF5 File Format Specification III.A.2, record types 10
 * and 11, and the structured-chunk types 12 and 13 of the sparse prototype): type 10 (unfiltered) = chunk address + scaled offsets (8 bytes each); type 11
 * (filtered) = address + chunk size (`1 + (log2(chunk bytes) + 8) / 8` bytes, at most 8) +
 * filter mask (4) + scaled offsets. Records are ordered by their scaled offsets compared
 * dimension by dimension (`H5D__bt2_compare` → `H5VM_vector_cmp_u`).
 * @module
 */
import { FormatError } from '@chunkform/core';
import {
  type ChunkRecord,
  ByteReader,
  ByteWriter,
  UNDEFINED_ADDRESS,
  type SizeContext,
  decodeChunkRecord,
  decodeFilteredChunkRecord,
  encodeChunkRecord,
  encodeFilteredChunkRecord,
  V2RecordType,
} from '@chunkform/core/plugin';
import { filteredChunkSizeWidth } from '../index-helpers.js';
import type { V2RecordClass } from '@chunkform/core/plugin';

/** Compares scaled chunk coordinates dimension by dimension (slowest-varying first). */
export function compareScaledCoords(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** Size of a chunk record of type 10 or 11. */
export function chunkRecordSize(sizes: SizeContext, rank: number, filtered: boolean, chunkBytes: number): number {
  return sizes.sizeOfOffsets + (filtered ? filteredChunkSizeWidth(chunkBytes) + 4 : 0) + 8 * rank;
}

/**
 * The record class of a chunk v2 B-tree (H5D_BT2 / H5D_BT2_FILT). Unfiltered records report the
 * nominal chunk size `chunkBytes` and mask 0. Spec III.A.2, record types 10 and 11.
 */
export function chunkRecordClass(sizes: SizeContext, rank: number, filtered: boolean, chunkBytes: number): V2RecordClass<ChunkRecord> {
  const width = filteredChunkSizeWidth(chunkBytes);
  const recordSize = chunkRecordSize(sizes, rank, filtered, chunkBytes);
  const check = (rec: ChunkRecord, address: number): ChunkRecord => {
    if (rec.address === UNDEFINED_ADDRESS) throw new FormatError('chunk record has an undefined address', { structure: 'v2 B-tree chunk record', address });
    return rec;
  };
  return {
    type: filtered ? V2RecordType.FilteredChunk : V2RecordType.Chunk,
    recordSize,
    compare: (a, b) => compareScaledCoords(a.coords, b.coords),
    encode: filtered
      ? (r) => encodeFilteredChunkRecord({ address: r.address, chunkSize: r.size, filterMask: r.filterMask, scaledOffsets: r.coords }, sizes, width)
      : (r) => encodeChunkRecord({ address: r.address, chunkSize: 0, filterMask: 0, scaledOffsets: r.coords }, sizes),
    decode: filtered
      ? (bytes, address) => {
          const r = decodeFilteredChunkRecord(bytes, sizes, rank, width);
          return check({ coords: r.scaledOffsets, address: r.address, size: r.chunkSize, filterMask: r.filterMask }, address);
        }
      : (bytes, address) => {
          const r = decodeChunkRecord(bytes, sizes, rank);
          return check({ coords: r.scaledOffsets, address: r.address, size: chunkBytes, filterMask: 0 }, address);
        },
  };
}

/** v2 B-tree record type of structured chunks without filters (docs/structured-chunk-format.md (RFC table 26)). */
export const STRUCTURED_CHUNK_RECORD_TYPE = 12;
/** v2 B-tree record type of structured chunks with at least one filtered section (docs/structured-chunk-format.md (RFC table 27)). */
export const FILTERED_STRUCTURED_CHUNK_RECORD_TYPE = 13;
/** Header version of v2 B-trees with record types 12/13 (docs/structured-chunk-format.md §5.5). */
export const STRUCTURED_BTREE2_HEADER_VERSION = 1;

/** Shape of the records of a structured-chunk v2 B-tree. */
export interface StructuredRecordShape {
  /** Dataset rank (number of scaled offsets). */
  rank: number;
  /** Sections per chunk. */
  sections: number;
  /** True for type 13 (unfiltered sizes and masks per section). */
  filtered: boolean;
  /** Width L of the chunk size field (docs/structured-chunk-format.md §3.5). */
  sizeLength: number;
  /** Width O of section offsets and unfiltered sizes (composition offset size, 8). */
  offsetSize: number;
}

/** Size of a record of type 12 or 13. */
export function structuredChunkRecordSize(sizes: SizeContext, s: StructuredRecordShape): number {
  return sizes.sizeOfOffsets + s.sizeLength + 8 * s.rank + (s.sections - 1) * s.offsetSize + (s.filtered ? s.sections * (s.offsetSize + 4) : 0);
}

/**
 * The record class of a structured-chunk v2 B-tree, record types 12 and 13 (docs/structured-chunk-format.md (RFC tables 26/27),
 * docs/structured-chunk-format.md §5.5): chunk address, chunk size (L bytes), scaled offsets (8 bytes each), offsets of
 * sections 1…n−1 (O each), and for type 13 the unfiltered sizes (O each) and filter masks (4 each)
 * of sections 0…n−1. Records are ordered by scaled offsets like types 10/11; the header is written
 * with version 1. A decoded section offset past the chunk's end is a {@link FormatError}.
 */
export function structuredChunkRecordClass(sizes: SizeContext, s: StructuredRecordShape): V2RecordClass<ChunkRecord> {
  const recordSize = structuredChunkRecordSize(sizes, s);
  const { rank, sections: n, filtered, sizeLength: L, offsetSize: O } = s;
  const structure = 'v2 B-tree structured chunk record';
  return {
    type: filtered ? FILTERED_STRUCTURED_CHUNK_RECORD_TYPE : STRUCTURED_CHUNK_RECORD_TYPE,
    headerVersion: STRUCTURED_BTREE2_HEADER_VERSION,
    recordSize,
    compare: (a, b) => compareScaledCoords(a.coords, b.coords),
    encode: (r) => {
      const w = new ByteWriter(sizes, recordSize);
      w.offset(r.address).uN(r.size, L);
      for (const c of r.coords) w.uN(c, 8);
      const sec = r.sections!;
      for (const o of sec.offsets) w.uN(o, O);
      if (filtered) {
        for (const u of sec.unfilteredSizes!) w.uN(u, O);
        for (const m of sec.filterMasks!) w.u32(m);
      }
      return w.finish();
    },
    decode: (bytes, address) => {
      const r = new ByteReader(bytes, { sizes, structure, base: address });
      const chunkAddress = r.offset();
      if (chunkAddress === UNDEFINED_ADDRESS) throw new FormatError('chunk record has an undefined address', { structure, address });
      const size = r.uN(L);
      const coords = new Array<number>(rank);
      for (let i = 0; i < rank; i++) coords[i] = r.uN(8);
      const offsets = new Array<number>(n - 1);
      for (let k = 0; k < n - 1; k++) {
        const o = r.uN(O);
        if (o > size) throw new FormatError(`chunk [${coords.join(', ')}]: section ${k + 1} starts at offset ${o}, past the end of the ${size}-byte chunk`, { structure, address });
        offsets[k] = o;
      }
      const sections: ChunkRecord['sections'] = { offsets };
      if (filtered) {
        const us = new Array<number>(n);
        const fm = new Array<number>(n);
        for (let k = 0; k < n; k++) us[k] = r.uN(O);
        for (let k = 0; k < n; k++) fm[k] = r.u32();
        sections.unfilteredSizes = us;
        sections.filterMasks = fm;
      }
      return { coords, address: chunkAddress, size, filterMask: 0, sections };
    },
  };
}
