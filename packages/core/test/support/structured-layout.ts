/** The structured chunk layout of the worked example the core tests share (docs/structured-chunk-format.md §3.7). */
import {
  STRUCTURED_CHUNK_SPARSE,
  type StructuredChunkIndexInfo,
  type StructuredChunkLayout,
} from '../../src/format/messages/layout-structured.js';

/** The sparse dataset of the h5stat test file (docs/structured-chunk-format.md §3.7): 1-D, chunk 5, int32, index `index` at `address`. */
export function sparseLayout(index: StructuredChunkIndexInfo, address = 0x1000, extra: Partial<StructuredChunkLayout> = {}): StructuredChunkLayout {
  return {
    class: 'structured',
    version: 5,
    propertyVersion: 0,
    chunkType: STRUCTURED_CHUNK_SPARSE,
    flags: 0,
    chunkDims: [5],
    elementSize: 4,
    offsetSize: 8,
    sectionCount: 2,
    metadataSections: [0],
    index,
    address,
    ...extra,
  };
}
