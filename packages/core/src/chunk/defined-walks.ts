/**
 * The chunk reader's walks over defined elements (./defined.ts, docs/architecture.md §6.1
 * `H5Dget_defined`) as a process-wide hook: only chunk formats that track defined elements
 * (sparse, VL) use them, so the reader reaches them through this hook and a read-only bundle of
 * dense formats leaves them out. {@link installDefinedReads} (./defined.ts) installs them: the
 * chunk engine of a writable file does, and so do `registerSparseFormat()` and `registerVlFormat()`;
 * a third-party format with `defined` calls it (`@chunkform/core/plugin`) when it registers.
 * @module
 */
import { UnsupportedError } from '../errors.js';
import type { chunkParts, chunksAreSlabs, concatDefinedValues, oneChunkPart, unionAll } from './defined.js';
import type { concatSlabs } from '../selection/concat.js';

/** The functions of the walks. */
export interface DefinedWalks {
  chunkParts: typeof chunkParts;
  chunksAreSlabs: typeof chunksAreSlabs;
  concatDefinedValues: typeof concatDefinedValues;
  oneChunkPart: typeof oneChunkPart;
  unionAll: typeof unionAll;
  concatSlabs: typeof concatSlabs;
}

let installed: DefinedWalks | null = null;

/** Installs the walks (what `installDefinedReads` does). */
export function setDefinedWalks(walks: DefinedWalks): void {
  installed = walks;
}

/**
 * The installed walks, for a dataset at `path` whose chunk format `format` tracks defined elements.
 * @throws UnsupportedError none are installed (a format that has `defined` registered without
 *   calling `installDefinedReads()`, in a read-only file).
 */
export function definedWalks(format: string, path: string): DefinedWalks {
  if (installed) return installed;
  throw new UnsupportedError(`chunk format "${format}" tracks defined elements: its registration must call installDefinedReads() (@chunkform/core/plugin)`, { path });
}
