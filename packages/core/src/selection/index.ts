/**
 * Selections (all, none, points, hyperslabs, unions of blocks), their algebra, iteration as runs
 * and the numpy-like slice helper.
 * @module
 */
export {
  selectAll,
  selectNone,
  selectPoints,
  selectHyperslab,
  selectBlocks,
  validateSelection,
  selectionShape,
  type Selection,
  type AllSelection,
  type NoneSelection,
  type PointSelection,
  type HyperslabSelection,
  type BlockSelection,
  type HyperslabSpec,
  type Box,
} from './selection.js';
export {
  union,
  intersect,
  subtract,
  offsetSelection,
  selectionCount,
  boundingBox,
  selectionEquals,
  toBlocks,
} from './algebra.js';
export { selectionRuns } from './runs.js';
export { slice, type SliceSpec, type SliceResult } from './slice.js';
export {
  decodeSelection,
  encodeSelection,
  encodedSelectionSize,
  UNLIMITED_DIM,
  type SelectionExtent,
  type SelectionEncoding,
  type SelectionSource,
  type SelectionFormat,
  type DecodedSelection,
  type ExtentSpec,
  type EncodeSelectionOptions,
} from './serialize/index.js';
