/**
 * @packageDocumentation
 * `@chunkform/format-sparse`: the sparse structured-chunk format (HDF5 sparse prototype, layout
 * class 4 / structured chunk type 0) for `@chunkform/core`: reading, writing and creating sparse
 * datasets (`createDataset(path, { format: 'sparse', … })`), and the COO/CSR/CSC converters.
 * Register it once with {@link registerSparseFormat} (the CLI and `examples/` do).
 */
import { registerChunkFormat, type ChunkFormatProvider, type Container, type RegisterOptions } from '@chunkform/core';
import { installDefinedReads, STRUCTURED_CHUNK_SPARSE } from '@chunkform/core/plugin';
import { SparseFormat } from './sparse-format.js';
import { sparseCreator } from './create.js';

export { SparseFormat } from './sparse-format.js';
export type { SparseChunk } from './sparse-chunk.js';
export { runsToBoxes } from './canonical.js';
export { SECTION_SELECTION, SECTION_VALUES, SPARSE_SECTION_COUNT, encodeSelectionSection } from './sections.js';
export {
  sparseCreator,
  sparseSectionPipelines,
  selectionRecordSize,
  SPARSE_SECTION_NAMES,
  type SparseCreateOptions,
  type SparseSectionPipelines,
  type SectionFilterSpecs,
  type SelectionFilterPreset,
} from './create.js';
export {
  writeCoo,
  readCoo,
  writeCompressed,
  readCompressed,
  selectionCoordinates,
  type CooMatrix,
  type CsrMatrix,
  type CscMatrix,
} from './matrix.js';

/** Structured-chunk layouts (class 4) of the sparse type: two sections, selection + fixed-size values. */
export const sparseFormatProvider: ChunkFormatProvider = {
  name: 'sparse',
  layoutClass: 'structured',
  chunkType: STRUCTURED_CHUNK_SPARSE,
  packageName: '@chunkform/format-sparse',
  create: (ctx) => new SparseFormat(ctx),
  creator: sparseCreator,
};

/** Registers the sparse format (default container: chunkform's own). Calling it again does nothing. */
export function registerSparseFormat(opts?: Container | RegisterOptions): void {
  registerChunkFormat(sparseFormatProvider, opts);
  installDefinedReads();
}
