/**
 * The sections of a stored structured chunk (layout class 4, any structured chunk type: sparse, VL,
 * third-party) and their index-record fields — one stored size, unfiltered size and filter mask
 * per section — for direct structured-chunk I/O (docs/architecture.md §6.2 `H5Dwrite_struct_chunk` /
 * `H5Dread_struct_chunk` / `H5Dget_struct_chunk_info`) and for formats that split and join sections.
 * @module
 */
import { ValueError } from '../errors.js';
import type { ChunkImage } from '../chunk/chunk-format.js';
import type { StructuredChunkSections } from '../chunk/chunk-index.js';

/** The info record of a structured chunk (docs/architecture.md §6.2). */
export interface StructChunkInfo {
  /** Element offset of the chunk's first element. */
  offset: number[];
  /** File address and total stored size. */
  address: number;
  size: number;
  /** Stored (filtered) size of each section. */
  sectionSizes: number[];
  /** Unfiltered size of each section (equal to the stored size for unfiltered sections). */
  unfilteredSizes: number[];
  /** Filter mask of each section (bit i: filter i of that section's pipeline skipped). */
  filterMasks: number[];
}

/** What a writer gives for each section besides its bytes (defaults: unfiltered, all filters applied). */
export interface StructChunkWriteInfo {
  unfilteredSizes?: number[];
  filterMasks?: number[];
}

/** Splits a stored structured chunk into its sections. */
export function splitSections(image: ChunkImage, sectionCount: number, path: string): Uint8Array[] {
  const offsets = [0, ...(image.sections?.offsets ?? []), image.bytes.length];
  if (offsets.length !== sectionCount + 1) throw new ValueError(`chunk record has ${offsets.length - 2} section offsets, ${sectionCount - 1} expected`, { path });
  const out: Uint8Array[] = [];
  for (let i = 0; i < sectionCount; i++) {
    if (!(offsets[i]! <= offsets[i + 1]!)) throw new ValueError(`section ${i} offsets are out of order`, { path });
    out.push(image.bytes.subarray(offsets[i]!, offsets[i + 1]!));
  }
  return out;
}

/** Joins sections into one stored chunk with its record fields. */
export function joinSections(sections: readonly Uint8Array[], info: StructChunkWriteInfo, filtered: boolean, path: string): ChunkImage {
  const n = sections.length;
  for (const [k, v] of Object.entries(info)) {
    if (v !== undefined && (v as number[]).length !== n) throw new ValueError(`${k} has ${(v as number[]).length} entries for ${n} sections`, { path });
  }
  const total = sections.reduce((a, s) => a + s.length, 0);
  const bytes = new Uint8Array(total);
  const offsets: number[] = [];
  let at = 0;
  sections.forEach((s, i) => {
    if (i > 0) offsets.push(at);
    bytes.set(s, at);
    at += s.length;
  });
  const rec: StructuredChunkSections = { offsets };
  if (filtered) {
    rec.unfilteredSizes = info.unfilteredSizes?.slice() ?? sections.map((s) => s.length);
    rec.filterMasks = info.filterMasks?.slice() ?? sections.map(() => 0);
  }
  return { bytes, filterMask: 0, sections: rec };
}

/** The info record of a structured chunk from its index record. */
export function structInfo(offset: number[], address: number, size: number, sec: StructuredChunkSections | undefined, sectionCount: number): StructChunkInfo {
  const starts = [0, ...(sec?.offsets ?? [])];
  const sectionSizes = starts.map((s, i) => (i + 1 < starts.length ? starts[i + 1]! : size) - s);
  while (sectionSizes.length < sectionCount) sectionSizes.push(0);
  return {
    offset,
    address,
    size,
    sectionSizes,
    unfilteredSizes: sec?.unfilteredSizes?.slice() ?? sectionSizes.slice(),
    filterMasks: sec?.filterMasks?.slice() ?? sectionSizes.map(() => 0),
  };
}
