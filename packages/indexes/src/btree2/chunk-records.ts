/**
 * Chunk records of version 2 B-trees (HDF5 File Format Specification III.A.2, record types 10
 * and 11): type 10 (unfiltered) = chunk address + scaled offsets (8 bytes each); type 11
 * (filtered) = address + chunk size (`1 + (log2(chunk bytes) + 8) / 8` bytes, at most 8) +
 * filter mask (4) + scaled offsets. Records are ordered by their scaled offsets compared
 * dimension by dimension (`H5D__bt2_compare` → `H5VM_vector_cmp_u`).
 * @module
 */
import { FormatError } from '@chunkform/core';
import type { ChunkRecord } from '@chunkform/core/internal/chunk/chunk-index';
import { UNDEFINED_ADDRESS, type SizeContext } from '@chunkform/core/internal/format/bytes';
import {
  decodeChunkRecord,
  decodeFilteredChunkRecord,
  encodeChunkRecord,
  encodeFilteredChunkRecord,
  V2RecordType,
} from '@chunkform/core/internal/format/btree/v2-records';
import { filteredChunkSizeWidth } from '../index-helpers.js';
import type { V2RecordClass } from './node-store.js';

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
