/**
 * The chunk index interface (docs/architecture.md §3, HDF5 spec IV.A.2.i "Chunk Indexing"): how a chunked
 * dataset finds the file address of each chunk. One implementation per index type lives in
 * `@chunkform/indexes` and is selected from the layout message when a dataset is opened.
 * @module
 */
import type { SizeContext } from '../format/bytes.js';
import type { ChunkIndexInfo } from '../format/messages/layout-index.js';
import type { MetadataReader } from '../file/metadata-reader.js';

/** Where one chunk lives, as an index stores it. */
export interface ChunkRecord {
  /** Scaled chunk coordinates: element offset of the chunk / chunk dims, one per dataset dimension. */
  coords: number[];
  /** File address of the stored chunk. */
  address: number;
  /** Stored (filtered) size in bytes; for unfiltered fixed-size chunks the chunk's byte size. */
  size: number;
  /** Filter mask: bit i set = filter i of the pipeline was skipped for this chunk. */
  filterMask: number;
  /**
   * Structured chunks (sparse, layout class 4; docs/structured-chunk-format.md §5): where each section
   * starts, and for filtered structured chunks each section's unfiltered size and filter mask.
   * Absent for ordinary chunks.
   */
  sections?: StructuredChunkSections;
}

/** Per-section fields of a structured chunk's index record (docs/structured-chunk-format.md §5.1). */
export interface StructuredChunkSections {
  /** Byte offset of sections 1…n−1 within the stored chunk (section 0 starts at 0). */
  offsets: number[];
  /** Unfiltered size of sections 0…n−1 (filtered structured chunks only). */
  unfilteredSizes?: number[];
  /** Filter mask of sections 0…n−1 (filtered structured chunks only). */
  filterMasks?: number[];
}

/** File-space services an index needs to write its own structures. */
export interface IndexStorage {
  /** Allocates `size` bytes of file space and returns the address. */
  alloc(size: number): number;
  /** Returns space no longer used. */
  release(address: number, size: number): void;
  /** Writes metadata bytes at `address`. */
  write(address: number, bytes: Uint8Array): Promise<void>;
  /**
   * True when `[address, address + size)` was allocated since the last flush, so it may be rewritten in
   * place. Space that holds the last flushed state must never be written again: write the changed
   * structure to new space (copy-on-write) and `release` the old space (core defers reuse of flushed
   * space until the next flush has succeeded).
   */
  isFresh(address: number, size: number): boolean;
}

/**
 * What an index needs to know about a structured-chunk (layout class 4, sparse) dataset: its
 * records then carry per-section fields (docs/structured-chunk-format.md §5) — FA/EA client ids 2/3 with
 * header version 1, v2 B-tree record types 12/13, single-chunk info with section offsets.
 */
export interface StructuredIndexContext {
  /** Sections per chunk (the layout's composition; 2 for sparse data). */
  sections: number;
  /** True when at least one section has a filter pipeline (records carry unfiltered sizes and masks). */
  filtered: boolean;
  /** Composition "offset size": bytes of section offsets and unfiltered sizes (default 8). */
  offsetSize?: number;
  /** Structured chunk type of the layout (0 sparse, 1 variable-length; default 0): VL records have 8-byte chunk sizes. */
  chunkType?: number;
}

/** What an index knows about its dataset. */
export interface ChunkIndexContext {
  /** Reads the index's structures (bounded by EOF). */
  reader: MetadataReader;
  sizes: SizeContext;
  /** Current dataset dimensions. */
  dims: number[];
  /** Maximum dimensions (-1 = unlimited). */
  maxDims: number[];
  /** Chunk dimensions (without the element-size dimension). */
  chunkDims: number[];
  /** Bytes per element. */
  elementSize: number;
  /** True when the dataset has a filter pipeline (records then carry size and filter mask). */
  filtered: boolean;
  /**
   * Index parameters from the layout message. For structured chunks with a single-chunk index this
   * is the layout's `StructuredSingleChunkInfo` (chunk size, section offsets …), which is assignable
   * to the `single` member of {@link ChunkIndexInfo}; its `flush()` hands one back the same way.
   */
  info: ChunkIndexInfo;
  /** Present for structured-chunk (sparse) datasets; `filtered` above is then ignored. */
  structured?: StructuredIndexContext;
  /** For error messages. */
  datasetPath: string;
  /** Present when the file is writable. */
  storage?: IndexStorage;
}

/** A chunk index, opened or created for one dataset. */
export interface ChunkIndex {
  /** The index type (as in {@link ChunkIndexInfo}, or a third-party provider's type name). */
  readonly type: string;
  /** True when this implementation cannot change the index: writes are refused before anything is written. */
  readonly readOnly?: boolean;
  /** Why a read-only index refuses writes, for the error message (default: the v1 B-tree's reason, files written with libver "earliest"). */
  readonly readOnlyReason?: string;
  /**
   * For indexes whose chunk addresses are computed by the index (implicit index): called by the chunk
   * engine before it rewrites the stored chunk at `coords` when that chunk's space is not fresh. Moves
   * the whole chunk block to new space (copying the stored chunks), so that later lookups return fresh
   * addresses and the flushed block stays intact until the next flush. Indexes that store addresses
   * leave this undefined: the engine writes the chunk to new space and `insert`s the new record.
   */
  relocate?(coords: readonly number[]): Promise<void>;
  /** The record of the chunk at scaled `coords`, or null when the chunk was never written. */
  lookup(coords: readonly number[]): Promise<ChunkRecord | null>;
  /** Optional: {@link lookup} of many chunks in one call (the gathered writes look up a group of chunks at once). */
  lookupMany?(coords: readonly (readonly number[])[]): Promise<(ChunkRecord | null)[]>;
  /** Inserts or replaces the record for `rec.coords`. */
  insert(rec: ChunkRecord): Promise<void>;
  /**
   * Optional: `insert` of every record, in order. Either all are recorded or, when it throws,
   * none (it checks them all before changing anything).
   */
  insertMany?(recs: readonly ChunkRecord[]): Promise<void>;
  /** Removes a chunk's record and returns it (null if absent). */
  remove(coords: readonly number[]): Promise<ChunkRecord | null>;
  /** Every stored chunk, in the index's order. */
  iterate(): AsyncIterable<ChunkRecord>;
  /** The dataset's dimensions changed (resize). */
  resize(dims: readonly number[]): Promise<void>;
  /**
   * Writes dirty index structures. Returns the address (and, for the single-chunk index, the
   * layout fields) to store in the layout message.
   */
  flush(): Promise<{ address: number; info: ChunkIndexInfo }>;
  /** Bytes the index's own structures occupy in the file. */
  sizeOnDisk(): Promise<number>;
}

/**
 * Opens and creates indexes of one type; registered by `@chunkform/indexes` (HDF5's index types) or a
 * third-party package. Registries key providers by {@link ChunkIndexProvider.type}.
 */
export interface ChunkIndexProvider {
  /** HDF5's index type name (`'fixed-array'` …, see {@link ChunkIndexInfo}) or a third-party type name. */
  readonly type: string;
  /**
   * Third-party index types only: the layout message index type code (6..255, a code HDF5 does not
   * use) under which the layout stores the type. The layout of such a dataset holds an
   * `ExternalIndexInfo` with the raw creation parameters.
   */
  readonly code?: number;
  /** Third-party index types only: bytes of creation parameters the layout message stores after the code (default 0). */
  readonly paramBytes?: number;
  /** Opens the index stored at `address` (UNDEFINED_ADDRESS when nothing was written yet). */
  open(ctx: ChunkIndexContext, address: number): Promise<ChunkIndex>;
  /** Creates an empty index (nothing is written until {@link ChunkIndex.flush}). */
  create(ctx: ChunkIndexContext): Promise<ChunkIndex>;
}
