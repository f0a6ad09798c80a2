/**
 * The chunk format layer (docs/architecture.md §3): everything that knows what is *inside* a chunk. The chunk
 * engine above it maps selections onto chunks, looks chunks up in the index, caches them and does
 * the I/O, but never interprets chunk bytes itself: it calls these functions. Dense formats live in
 * `@chunkform/format-dense`, the sparse (structured chunk) format in `@chunkform/format-sparse`.
 * @module
 */
import type { Datatype } from '../format/messages/datatype.js';
import type { DataLayout } from '../format/messages/layout.js';
import { STRUCTURED_CHUNK_SPARSE, STRUCTURED_CHUNK_VL } from '../format/messages/layout-structured.js';
import type { FilterPipeline } from '../format/messages/filter-pipeline.js';
import type { Filter } from '../filter/filter.js';
import type { StoredBytes } from '../filter/decode-into.js';
import type { ChunkRecord, StructuredChunkSections } from './chunk-index.js';
import type { Selection } from '../selection/selection.js';
import type { DatasetCreator } from './dataset-creator.js';
import type { ObjectValues } from './object-lane.js';
import type { RowRuns } from './chunk-grid.js';

/**
 * The part of one request (read or write) that falls into one chunk: runs of elements contiguous in
 * both the chunk and the user's buffer.
 */
export interface ChunkRequest {
  /** Scaled chunk coordinates. */
  coords: number[];
  /**
   * Flat triples `[chunkElementOffset, bufferElementOffset, length]`: the element offset in the whole
   * chunk (C order over the chunk dims), the element offset in the request buffer, and the run length.
   */
  runs: Float64Array;
  /** Number of elements requested in this chunk. */
  count: number;
  /** True when the request covers every element of the chunk that lies inside the dataset. */
  full: boolean;
  /**
   * The same runs as `n` rows of `len` elements, row k at chunk offset `c + k·cs` and buffer offset
   * `b + k·bs` (elements), when the engine mapped them that way (whole tiles of a larger write):
   * a format may copy rows from this without reading `runs`, which is then never built.
   */
  readonly rows?: RowRuns;
}

/** Reads and writes raw file bytes for formats that do partial I/O straight to the file. */
export interface RawIO {
  read(address: number, length: number): Promise<Uint8Array>;
  /** Reads `target.length` bytes at `address` straight into `target`. */
  readInto(address: number, target: Uint8Array): Promise<void>;
  /**
   * Scatter read, present when the file's source does it in few system calls (`preadv`): fills
   * `targets` one after the other from the bytes at `address`. Formats use it to read rows of a
   * chunk straight into their places in the result.
   */
  readScatter?(address: number, targets: readonly Uint8Array[]): Promise<void>;
  /** True when scatter reads issued together proceed in parallel (the file's source reads on threads). */
  readonly parallel?: boolean;
  write(address: number, bytes: Uint8Array): Promise<void>;
  /**
   * Gather write, present when the file does it in one system call (`pwritev`): writes `parts` one
   * after the other from `address`, as {@link write} of their bytes joined would. None of them may
   * change until this settles.
   */
  writev?(address: number, parts: readonly Uint8Array[]): Promise<void>;
}

/** File services the chunk engine needs: raw I/O and file space. */
export interface ChunkStore extends RawIO {
  /** Allocates file space for a chunk (throws when the file is read-only). */
  alloc(size: number): number;
  /** Releases the space of a chunk that was replaced or removed (flushed space is reused only after the next flush). */
  release(address: number, size: number): void;
  /**
   * True when `[address, address + size)` was allocated since the last flush: only such space may be
   * written, also again (copy-on-write; false for read-only files).
   */
  isFresh(address: number, size: number): boolean;
  /**
   * Present when the file is a local one another thread can read: where the `size` stored bytes at
   * `address` are for it to read itself, or null while it must not (writes not yet handed to the
   * operating system). Throws as {@link RawIO.read} for a range past the end of the file.
   */
  stored?(address: number, size: number): StoredBytes | null;
}

/** What a chunk format knows about its dataset. */
export interface ChunkFormatContext {
  /** Dataset path, for error messages. */
  datasetPath: string;
  datatype: Datatype;
  /** Bytes per element. */
  elementSize: number;
  /** Chunk dimensions in elements. */
  chunkDims: readonly number[];
  /** Current dataset dimensions (edge chunks stick out of them). */
  dims: () => readonly number[];
  /** One element of fill value, or null for zeros. */
  fillValue: Uint8Array | null;
  /** The dataset's filter pipeline (empty when unfiltered). */
  pipeline: FilterPipeline;
  /** Looks a filter up in the registrations of the file's container. */
  resolveFilter: (id: number) => Filter | undefined;
  /** Layout flag: partial edge chunks are stored unfiltered. */
  dontFilterPartialChunks: boolean;
  /** Structured chunks: the filter pipeline of each section (index = section number; absent or empty = unfiltered). */
  sectionPipelines?: FilterPipeline[];
  /**
   * The dataset's access options besides core's own (`chunkCache`), as the user gave them to
   * `setAccess` or a format's creator asked for (e.g. sparse's `selectionEncoding`): the format
   * checks and uses its own.
   */
  access?: Readonly<Record<string, unknown>>;
  /** Maximum dataset dimensions (-1 = unlimited); sparse chunks store them in their selection's extent (docs/structured-chunk-format.md §7.6). */
  maxDims?: readonly number[];
}

/** A chunk's stored form, ready to be written. */
export interface ChunkImage {
  bytes: Uint8Array;
  /** Filter mask to record in the index (bit i: filter i skipped). */
  filterMask: number;
  /** Structured chunks: the per-section record fields to store in the index. */
  sections?: StructuredChunkSections;
  /**
   * Called once `bytes` are written and recorded, by a single-chunk store and by a batched store
   * (after the batch's writes, as each chunk is recorded; not after a failed write): the store holds no
   * reference to them any more. Writes of at most 64 KiB are held back by a file flush (to be written
   * together) after the write call resolved, but the file writer copies them when it holds them back
   * (core's io/write-runs.ts `WriteBatch.add`), so this holds at every size. Lets the format reuse the
   * memory of an image from `memToFile(…, last)`: a kept buffer, or a shared slab whose images are all
   * written.
   */
  written?: () => void;
}

/** One chunk format: the in-memory form `Mem` of a chunk and the conversions to and from the file. */
export interface ChunkFormat<Mem = unknown> {
  /** Name for messages and tools (e.g. "dense", "dense-filtered"). */
  readonly name: string;
  /**
   * Present on formats that only read (e.g. those of `registerDenseReadOnly`): why, for the error
   * message. Writes to their datasets are refused before anything changes.
   */
  readonly readOnlyReason?: string | undefined;
  /** True when stored chunks vary in size (filtered or sparse), so rewrites may need new space. */
  readonly variableSize: boolean;
  /** The in-memory form of a chunk that was never written (all fill value), or undefined if the format allocates nothing. */
  fill(coords: readonly number[]): Mem;
  /** Stored bytes → memory form (docs/architecture.md §3 `file_to_mem`). */
  fileToMem(image: Uint8Array, rec: ChunkRecord): Promise<Mem>;
  /**
   * Optional: {@link fileToMem} of a chunk decoded ahead of its use (a reader reading frame by frame
   * gets there soon): its filters may run on other threads even where the format would run them on
   * the calling thread (`FilterContext.background`), which then stays free to serve the reader.
   * Synchronously starts whatever it hands to other threads before it returns.
   */
  decodeAhead?(image: Uint8Array, rec: ChunkRecord): Promise<Mem>;
  /**
   * Memory form → stored bytes (docs/architecture.md §3 `mem_to_file`). `last`: the engine drops
   * `mem` once this resolves (a chunk evicted or never cached): the format may reuse its buffers.
   */
  memToFile(mem: Mem, coords: readonly number[], last?: boolean): Promise<ChunkImage>;
  /** Copies the requested elements into `out` (bytes of the request buffer) (docs/architecture.md §3 `mem_read`). */
  memRead(mem: Mem, req: ChunkRequest, out: Uint8Array): void;
  /** Copies the requested elements from `src` into the chunk (docs/architecture.md §3 `mem_write`). */
  memWrite(mem: Mem, req: ChunkRequest, src: Uint8Array): void;
  /** A chunk built entirely from `src` (a full-chunk write; faster than fill + memWrite). */
  fromRequest?(req: ChunkRequest, src: Uint8Array): Mem;
  /** Bytes the memory form occupies (what the chunk cache counts). */
  memSize(mem: Mem): number;
  /**
   * Optional: a cached chunk, unchanged, dropped when its file closes: nothing references `mem` any more,
   * so the format may reuse its buffers for the chunks it decodes next.
   */
  release?(mem: Mem): void;
  /**
   * The defined elements of the chunk within `chunkSel` (chunk-relative coordinates), docs/architecture.md §3
   * `defined`. Formats without it have every element defined. A format package that has it calls
   * `installDefinedReads()` (`@chunkform/core/plugin`) when it registers, so that read-only files
   * (`@chunkform/core/read`) carry the reads of defined elements (./defined-walks.ts).
   */
  defined?(mem: Mem, chunkSel: Selection): Selection;
  /**
   * {@link defined} and the values of those elements in one pass (docs/architecture.md §3 `defined` + `mem_read`):
   * the values in C order of the returned selection, as bytes. `values` may be a view of the chunk's
   * own storage: the caller copies it before anything else can change the chunk.
   */
  definedValues?(mem: Mem, chunkSel: Selection): { selection: Selection; values: Uint8Array };
  /** Makes the elements of `chunkSel` (chunk-relative) undefined, docs/architecture.md §3 `erase`. */
  erase?(mem: Mem, chunkSel: Selection): void;
  /** True when no element of the chunk is defined (the engine then removes the chunk). */
  isEmpty?(mem: Mem): boolean;
  /**
   * A stored chunk read in full into a result in shared memory (`out` a view of a
   * `SharedArrayBuffer`): decoded on another thread that copies the requested runs into `out`
   * itself, so the calling thread handles none of the chunk's bytes (docs/architecture.md §3
   * `file_to_mem` + `mem_read` in one step, off the calling thread). Resolves false when it cannot
   * (no worker takes the chunk, or it failed there): the engine then decodes the chunk the ordinary
   * way ({@link fileToMem}, whose errors name the chunk), reading it again if `image` went to the
   * worker (a buffer from `sharedInput`, of length 0 afterwards). `image` may be the chunk's place
   * in the file instead (`ChunkStore.stored`): the other thread then reads the bytes itself.
   */
  decodeInto?(image: Uint8Array | StoredBytes, rec: ChunkRecord, req: ChunkRequest, out: Uint8Array): Promise<boolean>;
  /** Partial read straight from the stored chunk, bypassing the cache (docs/architecture.md §3 `file_read`). */
  fileRead?(rec: ChunkRecord, req: ChunkRequest, out: Uint8Array, io: RawIO): Promise<void>;
  /** Partial write straight into the stored chunk, bypassing the cache (docs/architecture.md §3 `file_write`). */
  fileWrite?(rec: ChunkRecord, req: ChunkRequest, src: Uint8Array, io: RawIO): Promise<void>;
  /**
   * Batched {@link fileRead} (docs/architecture.md §3 `file_read` over many chunks): reads the requested parts of
   * many stored chunks into `out` at once, so the format may coalesce chunks adjacent in the file
   * into one I/O and read straight into `out` where the layouts agree. The chunks fill disjoint
   * parts of `out`. When it throws, the engine retries the chunks one by one (to name the bad one).
   * A format without {@link fileRead} gets only chunks read in full (the others are decoded and cached).
   * `hints.freshOutput`: `out` was just allocated for this read (only parts outside `items` may have
   * been written), so the first write to each of its pages costs a page fault; reading straight into it on several threads
   * (`readScatter`) then beats reading into a scratch buffer and copying.
   */
  fileReadMany?(items: readonly { rec: ChunkRecord; req: ChunkRequest }[], out: Uint8Array, io: RawIO, hints?: { freshOutput?: boolean }): Promise<void>;
  /**
   * Fixed-size formats: the stored images of chunks each built entirely from a full request — for
   * request i a view of `src` when it already is the chunk in stored order, otherwise bytes
   * `[i × imageSize, (i + 1) × imageSize)` of the buffer that `scratch(extra)` returns (called at
   * most once; contents undefined; at least `reqs.length × imageSize + extra` bytes, and those past
   * the images are the format's to use while it builds them, e.g. to stage a stretch of `src`). Lets
   * the engine gather many chunks into one buffer and write chunks adjacent in the file with one I/O.
   * Requires {@link imageSize}.
   */
  fullImages?(reqs: readonly ChunkRequest[], src: Uint8Array, scratch: (extra: number) => Uint8Array): Uint8Array[];
  /** Stored bytes of every chunk, for formats with {@link fullImages} (fixed-size chunks). */
  readonly imageSize?: number;
  /**
   * Formats that keep the values themselves (variable-length data inside the chunks): values move
   * through the object lane of the request buffer, not its bytes (see chunk/object-lane.ts).
   */
  readonly objectValues?: ObjectValues;
}

/**
 * Creates the chunk format of a dataset; registered by format packages. Registries key providers by
 * {@link formatKey}`(layoutClass, chunkType)`: one provider per key, so a provider handles every
 * dataset of its layout class (and structured chunk type), choosing e.g. filtered or unfiltered
 * chunks itself in {@link ChunkFormatProvider.create}.
 */
export interface ChunkFormatProvider {
  /** `'dense'`, `'sparse'`, `'vl'` or a third-party name; unique within a container. */
  readonly name: string;
  /** The layout class the provider reads: chunked (class 2) or structured chunk (class 4). */
  readonly layoutClass: 'chunked' | 'structured';
  /** Structured chunk type code (required for `'structured'`; e.g. 0 = sparse). */
  readonly chunkType?: number;
  /** npm package of the provider (e.g. `'@chunkform/format-sparse'`), named in "install …" errors. */
  readonly packageName?: string;
  /** The chunk format of one dataset with this layout. */
  create(ctx: ChunkFormatContext, layout: DataLayout): ChunkFormat;
  /** Plans new datasets of this format (`createDataset(path, { format: name })`); absent = read-only format. */
  readonly creator?: DatasetCreator;
}

/**
 * The registry key of a chunk format: `"chunked"` for class 2 layouts, `"structured:<type>"` for
 * structured chunk layouts of chunk type `chunkType` (e.g. `"structured:0"`, sparse).
 */
export function formatKey(layoutClass: 'chunked' | 'structured', chunkType?: number): string {
  return layoutClass === 'structured' ? `structured:${chunkType ?? 0}` : 'chunked';
}

/**
 * The packages that provide the chunk formats chunkform knows of, by {@link formatKey}, named in the
 * error for a dataset whose format is not registered.
 */
export const KNOWN_FORMAT_PACKAGES: Readonly<Record<string, { package: string; register?: string }>> = {
  [formatKey('chunked')]: { package: '@chunkform/format-dense', register: 'registerDenseFormats' },
  [formatKey('structured', STRUCTURED_CHUNK_SPARSE)]: { package: '@chunkform/format-sparse', register: 'registerSparseFormat' },
  [formatKey('structured', STRUCTURED_CHUNK_VL)]: { package: '@chunkform/format-vl' },
};

/** The same packages by format name (the `format:` create option), for "no chunk format …" errors. */
export const KNOWN_FORMAT_NAMES: Readonly<Record<string, { package: string; register?: string }>> = {
  dense: KNOWN_FORMAT_PACKAGES[formatKey('chunked')]!,
  sparse: KNOWN_FORMAT_PACKAGES[formatKey('structured', STRUCTURED_CHUNK_SPARSE)]!,
  vl: KNOWN_FORMAT_PACKAGES[formatKey('structured', STRUCTURED_CHUNK_VL)]!,
};
