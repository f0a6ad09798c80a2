/**
 * The storage behind a dataset's values, one implementation per layout class: compact (in the
 * layout message), contiguous (one block of the file) and chunked (the chunk engine). The dataset
 * asks its storage for the bytes of a selection; only the storage knows where they live.
 * @module
 */
import type { Selection } from '../selection/selection.js';
import type { ObjectValues } from '../chunk/object-lane.js';

/** The defined elements of a selection and their values' bytes (in the selection's C order). */
export interface DefinedRead {
  selection: Selection;
  bytes: Uint8Array;
}

/** Bytes read for a selection. */
export interface StorageRead {
  /** `count × elementSize` bytes, elements in selection order. */
  bytes: Uint8Array;
  /** True when nobody else references `bytes` (the caller may reuse its memory). */
  owned: boolean;
}

/** Where a dataset's element bytes live. */
export interface DatasetStorage {
  /**
   * Reads the `count` elements of `sel`. With `into` (`count × elementSize` bytes, e.g. a buffer the
   * caller reuses across reads) the bytes are stored there and `into` is returned as `bytes`.
   * Without `into`, a large filtered chunked read may return bytes over a `SharedArrayBuffer`
   * (../chunk/shared-stage.ts) unless `ordinary` asks for an ordinary `ArrayBuffer`.
   */
  read(sel: Selection, count: number, into?: Uint8Array, ordinary?: boolean): Promise<StorageRead>;
  /** Writes the elements of `sel` from `bytes` (selection order; absent in read-only storage). */
  write?(sel: Selection, bytes: Uint8Array): Promise<void>;
  /** Writes pending state (cached chunks, index structures, layout message updates). */
  flush?(): Promise<void>;
  /** The defined elements within `sel` (storage without undefined elements: `sel`). */
  defined?(sel: Selection): Promise<Selection>;
  /**
   * The defined elements within `sel` and their bytes in one pass, when the storage can (undefined:
   * the caller asks {@link defined} and reads those elements).
   */
  readDefined?(sel: Selection): DefinedRead | undefined | Promise<DefinedRead | undefined>;
  /** Makes the elements of `sel` undefined (sparse storage only). */
  erase?(sel: Selection): Promise<void>;
  /** The dataset's dimensions changed (chunked storage only). */
  resize?(oldDims: readonly number[], newDims: readonly number[]): Promise<void>;
  /**
   * True when changes live only in a cache, so that a read may write some of them out (chunked
   * storage); such reads must not run alongside other calls on the dataset.
   */
  hasCachedChanges?(): boolean;
  /** Present when values move through an object lane (see chunk/object-lane.ts), not as element bytes. */
  readonly objectValues?: ObjectValues | undefined;
}
