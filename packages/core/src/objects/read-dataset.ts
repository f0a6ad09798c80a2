/**
 * Reading an HDF5 dataset ({@link ReadDataset}): shape, datatype, layout, fill value, attributes,
 * reading values (whole or through a selection) and direct chunk reads. Nothing here reaches the
 * write path; `Dataset` (objects/dataset.ts) adds writing, resizing and direct chunk writes.
 *
 * Calls need not be awaited one by one: the calls on a dataset run as if one after the other, in the
 * order they were made.
 * @module
 */
import { FormatError, H5Error, ValueError } from '../errors.js';
import { datatypeSize, type Datatype } from '../format/messages/datatype.js';
import { decodeDataspace, type Dataspace } from '../format/messages/dataspace.js';
import { decodeFillValue, decodeFillValueOld, type FillValue } from '../format/messages/fill-value.js';
import { decodeFilterPipeline, type FilterPipeline } from '../format/messages/filter-pipeline.js';
import { decodeLayout, type DataLayout } from '../format/messages/layout.js';
import { indexTypeLookup } from '../di/container.js';
import {
  DATASPACE,
  EXTERNAL_FILES,
  DATATYPE,
  FILL_VALUE,
  FILL_VALUE_OLD,
  FILTER_PIPELINE,
  LAYOUT,
  STC_FILTER_PIPELINE,
} from '../format/messages/message-types.js';
import { decodeStcFilterPipeline } from '../format/messages/stc-filter-pipeline.js';
import type { NumericArray, Values } from '../values/types.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import type { ChunkImage } from '../chunk/chunk-format.js';
import { selectAll, type Selection } from '../selection/selection.js';
import { slice, type SliceSpec } from '../selection/slice.js';
import { selectionCount, validateSelection } from '../selection/algebra.js';
import type { DatasetStorage } from '../storage/dataset-storage.js';
import { ReadChunkedStorage, type ChunkInfo } from '../storage/read-chunked-storage.js';
import type { LockMode } from '../file/lock.js';
import { datasetState, storageOf, type DatasetAccessOptions, type DatasetState } from './dataset-state.js';
import type { ReadAttributes } from './read-attributes.js';
import { splitSections, structInfo, type StructChunkInfo } from '../structured/sections.js';
import type { StructuredChunkLayout } from '../format/messages/layout-structured.js';
import { resolveDatatypeMessage } from './shared-datatype.js';
import { elementCount } from './shape.js';
import { checkDatasetSizes } from './plausibility.js';
import { checkReadSize, validReadLimit } from '../storage/read-limit.js';
import { readColumnar, readObjects } from '../chunk/object-lane.js';
import { bytesToValues } from './values-io.js';
import { CASTINGS, castInto, nativeArrayType, type Casting } from '../values/cast.js';

/** The unlimited maximum dimension size, as `maxShape` reports it (h5py uses `None`). */
export const UNLIMITED = null;

export type { DatasetAccessOptions } from './dataset-state.js';

/** Options of `readInto`. */
export interface ReadIntoOptions {
  /**
   * How values are converted when `out` has another element type than the dataset (numpy's
   * `casting`): `'same_kind'` (default) refuses values the array cannot hold (overflow, negatives into
   * unsigned, fractions/NaN/±infinity into integers, finite values beyond float32's range) and lets
   * floats round; `'same_value'` also refuses rounding; `'unsafe'` converts anyway (integers wrap,
   * fractions truncate, NaN becomes 0).
   */
  casting?: Casting;
}

/** Options of one read (`read`, `readDefined`). */
export interface ReadOptions {
  /**
   * Largest result this read may allocate, in bytes (default: the file's `maxReadBytes`, 1 GiB unless
   * `openFile` set another). A larger read throws `ResourceLimitError` before allocating anything.
   */
  maxReadBytes?: number;
  /**
   * Whether numbers may come in an array over a `SharedArrayBuffer` (default true). A large filtered
   * read of integers or floats (more than 1 MiB of a chunked dataset with filters, with the filter worker threads of
   * `@chunkform/filters` running — Node; browsers have none) allocates its result in shared memory
   * so that the workers decode the chunks straight into it: the calling thread then handles no chunk
   * bytes, and reads scale with the threads. The result is an ordinary TypedArray of its type, and
   * this thread is the only one holding it, but its `buffer` is a `SharedArrayBuffer`: it cannot be
   * transferred (`postMessage(v, [v.buffer])`), and posting it shares the memory instead of copying
   * it. `false`: always an ordinary `ArrayBuffer` (the chunks then go through a reused shared staging
   * buffer and this thread copies them into the result, which scales less).
   */
  allowShared?: boolean;
}

/** What `ReadDataset.open` decodes from the object header besides the layout. @internal */
export interface DatasetParts {
  dataspace: Dataspace;
  dtype: Datatype;
  filters: FilterPipeline['filters'];
  fill: FillValue;
  sectionFilters: FilterPipeline[] | null;
}

/**
 * An HDF5 dataset, read-only: what `@chunkform/core/read` gives; `Dataset` of `@chunkform/core` adds the
 * writing calls. Obtain one from `get` of a group.
 *
 * **Ordering guarantee.** Calls may be left un-awaited (e.g. `await Promise.all(frames.map((f, i) =>
 * d.write(f, rowSel(i))))`): every call on a file takes effect as if the calls had run one after
 * the other in the order they were made. On one dataset, mutations (`write`, `set`, `erase`,
 * `resize`, `writeChunk`, `writeStructChunk`, `attrs.set`/`attrs.delete`) run alone and in call
 * order; reads (`read`, `readInto`, `get`, `getDefined`, `readDefined`, chunk listings, `attrs`
 * reads) run together but never overlap a mutation, so `write(a); read()` reads `a` and
 * `write(a); write(b)` leaves `b` where they overlap. File-wide operations (`flush`, `close`,
 * creating groups, datasets and links, changing group attributes) wait for the calls made before
 * them and hold back those made after, so a flush never sees half a write. A call that fails
 * leaves the order intact: the calls after it run normally. Different datasets proceed in parallel.
 * All handles of one dataset (`f.get(path)` twice) share one order, one chunk cache and one shape.
 *
 * Arguments are taken when the call runs, not when it is made: keep a buffer passed to `write`
 * unchanged until the call settles; a selection is checked against the shape of that moment.
 * Synchronous getters (`shape`, `dataspace`) show the calls that have finished.
 */
export class ReadDataset {

  /** The dataset's attributes. */
  readonly attrs: ReadAttributes;
  /** Element datatype. */
  readonly dtype: Datatype;
  /** Filter pipeline (empty when unfiltered). */
  readonly filters: FilterPipeline['filters'];
  /** Fill value settings (from the fill value message, or the old one). */
  readonly fill: FillValue;
  /** Structured-chunk datasets: the filter pipeline of each section (sparse: 0 = selection, 1 = values). */
  readonly sectionFilters: FilterPipeline[] | null;
  /** The dataspace decoded when this handle was made (the shared state starts from it). */
  private readonly initialSpace: Dataspace;
  /** Shared by every handle of this dataset, made on first use (a dataset created and never used costs none). @internal */
  protected get state(): DatasetState {
    return datasetState(this.ctx, this.model, this.initialSpace);
  }
  /** The layout class (fixed for the dataset's lifetime), once looked up. @internal */
  protected layoutClass: DataLayout['class'] | undefined;

  /** @internal use `open` */
  constructor(
    protected readonly ctx: FileContext,
    protected readonly model: HeaderModel,
    /** Full path of the dataset in the file. */
    readonly path: string,
    parts: DatasetParts,
  ) {
    this.sectionFilters = parts.sectionFilters;
    this.initialSpace = parts.dataspace;
    this.dtype = parts.dtype;
    this.filters = parts.filters;
    this.fill = parts.fill;
    // Attribute changes are mutations of the dataset: they take their turn in its call order.
    this.attrs = new ctx.objects.Attributes(ctx, async () => this.model, path, (mode, fn) => ctx.lock.dataset(this.state.lock, mode, fn));
  }

  /** Builds a dataset from its object header. @internal */
  static async open<T extends ReadDataset>(this: new (ctx: FileContext, model: HeaderModel, path: string, parts: DatasetParts) => T, ctx: FileContext, model: HeaderModel, path: string): Promise<T> {
    try {
      const sizes = ctx.sizes;
      const ds = model.find(DATASPACE);
      const dt = model.find(DATATYPE);
      if (!ds || !dt || !model.find(LAYOUT)) {
        throw new FormatError('dataset object header lacks a dataspace, datatype or layout message', {
          structure: 'object header',
          address: model.address,
        });
      }
      const dataspace = decodeDataspace(ds.body, sizes, model.address);
      const dtype = await resolveDatatypeMessage(ctx, dt, path);
      const pl = model.find(FILTER_PIPELINE);
      const pipeline = pl ? decodeFilterPipeline(pl.body, model.address) : { filters: [] };
      const filters = pipeline.filters;
      const stc = model.find(STC_FILTER_PIPELINE);
      const sectionFilters = stc ? decodeStcFilterPipeline(stc.body, { address: model.address }).sections : (pipeline.sections ?? null);
      const fv = model.find(FILL_VALUE);
      let fill: FillValue;
      if (fv) fill = decodeFillValue(fv.body, model.address);
      else {
        const old = model.find(FILL_VALUE_OLD);
        const value = old ? decodeFillValueOld(old.body) : null;
        fill = { allocTime: 'late', fillTime: 'ifset', defined: value !== null && value.length > 0, value: value && value.length ? value : null };
      }
      const d = new this(ctx, model, path, { dataspace, dtype, filters, fill, sectionFilters });
      // Decode the layout now so a corrupt layout message fails at open, and check the sizes agree.
      checkDatasetSizes({
        path,
        dataspace,
        layout: d.layout,
        elementSize: d.elementSize,
        eof: ctx.reader.eof,
        external: model.find(EXTERNAL_FILES) !== undefined,
      });
      return d;
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(path) : e;
    }
  }

  /** Last path component. */
  get name(): string {
    return this.path === '/' ? '/' : this.path.slice(this.path.lastIndexOf('/') + 1);
  }

  /** The dataspace message. */
  get dataspace(): Dataspace {
    return this.state.space;
  }

  /** Shape (`[]` for a scalar or empty dataset). */
  get shape(): number[] {
    const space = this.state.space;
    return space.kind === 'simple' ? space.dims.slice() : [];
  }

  /** Maximum shape (`null` entries are unlimited), or `null` when the file stores none. */
  get maxShape(): (number | null)[] | null {
    const space = this.state.space;
    return space.kind === 'simple' && space.maxDims ? space.maxDims.map((d) => (d === -1 ? UNLIMITED : d)) : null;
  }

  /** Storage layout as stored in the file (current: chunked datasets update it on flush). */
  get layout(): DataLayout {
    const cached = this.model.derived.get('layout') as DataLayout | undefined;
    if (cached) return cached;
    const layout = decodeLayout(this.model.find(LAYOUT)!.body, this.ctx.sizes, this.model.address, indexTypeLookup(this.ctx.container));
    this.model.derived.set('layout', layout);
    return layout;
  }

  /** Chunk dimensions, or null when the dataset is not chunked. */
  get chunks(): number[] | null {
    const l = this.layout;
    return l.class === 'chunked' || l.class === 'structured' ? l.chunkDims.slice() : null;
  }

  /** Number of elements. */
  get size(): number {
    return this.state.space.kind === 'null' ? 0 : elementCount(this.shape);
  }

  /** Bytes per element in the file. */
  get elementSize(): number {
    return datatypeSize(this.dtype, this.ctx.sizes);
  }

  /** The fill value as a user value (`undefined` when the file defines none). */
  async fillValue(): Promise<unknown> {
    if (!this.fill.value) return undefined;
    const v = await bytesToValues(this.ctx, this.fill.value, this.dtype, 1);
    return (v as ArrayLike<unknown>)[0];
  }

  /** Sets access options (chunk cache) before the first read or write (through any handle of the dataset). */
  setAccess(opts: DatasetAccessOptions): this {
    if (this.state.storageP) throw new ValueError('access options must be set before the first read or write', { path: this.path });
    this.state.access = { ...opts };
    return this;
  }

  /**
   * Reads values (flat, in selection order — C order for hyperslabs): a TypedArray for numbers,
   * `string[]` for strings, records for compounds. Without a selection, the whole dataset.
   * @throws ResourceLimitError when the result would exceed `maxReadBytes` (nothing is allocated).
   */
  async read(selection?: Selection, opts: ReadOptions = {}): Promise<Values> {
    return this.locked('read', () => this.readValues(selection ?? selectAll(), opts));
  }

  /**
   * Reads values in the columnar form of the dataset's chunk format, without one JS value per
   * element: for variable-length strings of `@chunkform/format-vl` a `VLStrings` (one UTF-8 byte
   * buffer plus offsets, like Apache Arrow's string arrays). `T` names that form.
   * Without a selection, the whole dataset.
   * @throws UnsupportedError when the dataset's storage has no columnar form.
   * @throws ResourceLimitError when the result would exceed `maxReadBytes` (nothing is allocated).
   */
  async readColumnar<T = unknown>(selection?: Selection, opts: ReadOptions = {}): Promise<T> {
    return this.locked('read', async () => {
      const sel = selection ?? selectAll();
      const count = this.countOf(sel);
      const limit = opts.maxReadBytes === undefined ? this.ctx.maxReadBytes : validReadLimit(opts.maxReadBytes, 'read');
      checkReadSize(count, this.elementSize, limit, this.path);
      const storage = await this.storage();
      return (await readColumnar(storage, storage.objectValues, sel, count, this.elementSize, this.path)) as T;
    });
  }

  /**
   * Reads numbers into `out` (like h5py's `read_direct`), e.g. a frame buffer reused across reads:
   * no result array is allocated, and with a native-order dtype and an `out` of the type the
   * dataset decodes to (e.g. `Uint16Array` for uint16) the file bytes land straight in `out`.
   * `out` holds one element per selected element (flat, selection order). Integer and float
   * datasets only.
   *
   * An `out` of another element type gets converted values, checked (`casting: 'same_kind'`, the
   * default): a value the array cannot hold (float32 data with 2^31 into an `Int16Array`, -1 into a
   * `Uint8Array`, 2.5 or NaN into any integer array, 1e300 into a `Float32Array`) is a
   * {@link ValueError} naming the element, thrown before `out` is written; floats round as usual
   * (float64 data into a `Float32Array`). `{ casting: 'same_value' }` refuses rounding too;
   * `{ casting: 'unsafe' }` converts anyway, as TypedArrays store numbers (integers wrap, fractions
   * truncate, NaN becomes 0).
   * @throws ValueError for another datatype class, an `out` of the wrong length, or a value that
   *   would change (unless `casting: 'unsafe'`).
   */
  async readInto<T extends NumericArray>(out: T, selection?: Selection, opts: ReadIntoOptions = {}): Promise<T> {
    return this.locked('read', async () => {
      const casting = opts.casting ?? 'same_kind';
      if (!CASTINGS.includes(casting)) {
        throw new ValueError(`unknown casting ${JSON.stringify(casting)}; use ${CASTINGS.map((c) => `'${c}'`).join(' or ')}`);
      }
      const sel = selection ?? selectAll();
      const count = this.countOf(sel);
      if (this.dtype.class !== 'integer' && this.dtype.class !== 'float') {
        throw new ValueError(`readInto needs an integer or float dataset, not ${this.dtype.class}`);
      }
      if (out.length !== count) throw new ValueError(`readInto: the selection has ${count} elements but out holds ${out.length}`);
      if (out.byteLength !== count * this.elementSize || out.constructor !== nativeArrayType(this.dtype)) {
        castInto((await this.readValues(sel)) as NumericArray, out, casting);
        return out;
      }
      const into = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
      const { bytes } = await (await this.storage()).read(sel, count, into);
      const v = await bytesToValues(this.ctx, bytes, this.dtype, count, bytes.byteLength === bytes.buffer.byteLength);
      const tv = v as NumericArray;
      if (tv.buffer !== out.buffer || tv.byteOffset !== out.byteOffset || tv.constructor !== out.constructor) castInto(tv, out, casting);
      return out;
    });
  }

  /**
   * Reads with numpy-style indices, like h5py's `dset[2, 10:20, ::2]` →
   * `dset.get(2, [10, 20], [null, null, 2])`. Values come flat in C order; `shape` is h5py's result shape.
   */
  async get(...spec: SliceSpec[]): Promise<{ values: Values; shape: number[] }> {
    return this.locked('read', async () => {
      const { selection, shape } = slice(this.shape, ...spec);
      return { values: await this.readValues(selection), shape };
    });
  }

  /**
   * The elements within `selection` (default: all) that hold values (docs/architecture.md §6.1 `H5Dget_defined`).
   * Every element of a dense dataset is defined, so it returns the selection unchanged.
   */
  async getDefined(selection?: Selection): Promise<Selection> {
    return this.locked('read', () => this.definedIn(selection ?? selectAll()));
  }

  /** The defined elements within `selection` and their values (in the defined selection's C order), in one call. */
  async readDefined(selection?: Selection, opts: ReadOptions = {}): Promise<{ selection: Selection; values: Values }> {
    return this.locked('read', async () => {
      const sel = selection ?? selectAll();
      this.countOf(sel);
      // One pass when the chunks allow it (each chunk read once, its defined elements and values together).
      const storage = this.state.storage ?? (await this.storage());
      const one = await storage.readDefined?.(sel);
      if (one) return { selection: one.selection, values: await bytesToValues(this.ctx, one.bytes, this.dtype, one.bytes.length / this.elementSize, true) };
      const defined = await this.definedIn(sel);
      return { selection: defined, values: await this.readValues(defined, opts) };
    });
  }

  // ---- direct chunk I/O (H5Dread_chunk / H5Dwrite_chunk / H5Dget_chunk_info) --------------

  /** Stored chunks of a chunked dataset, in index order (`cb` runs after the listing, outside the call order). */
  async iterateChunks(cb: (info: ChunkInfo) => void | Promise<void>): Promise<void> {
    const all = await this.locked('read', async () => (await this.chunked()).chunks());
    for (const c of all) await cb(c);
  }

  /** Number of stored chunks. */
  async numChunks(): Promise<number> {
    return this.locked('read', async () => (await (await this.chunked()).chunks()).length);
  }

  /** The `index`-th stored chunk (index order, like `H5Dget_chunk_info`). */
  async chunkInfo(index: number): Promise<ChunkInfo> {
    return this.locked('read', async () => {
      const all = await (await this.chunked()).chunks();
      const c = all[index];
      if (!c) throw new ValueError(`chunk index ${index} is out of range (${all.length} chunks stored)`);
      return c;
    });
  }

  /** The stored chunk whose first element is at `offset`, or null when never written. */
  async chunkInfoByCoord(offset: number[]): Promise<ChunkInfo | null> {
    return this.locked('read', async () => (await this.chunked()).chunkInfoByCoord(offset));
  }

  /** The raw stored (filtered) bytes of the chunk at `offset` and its filter mask. */
  async readChunk(offset: number[]): Promise<ChunkImage> {
    return this.locked('read', async () => (await this.chunked()).readChunk(offset), offset);
  }

  /**
   * Runs `fn` in the dataset's call order (the class comment describes it), adding the dataset path
   * (and chunk offset) to typed errors that lack a path.
   * @internal
   */
  protected async locked<T>(mode: LockMode, fn: () => Promise<T>, chunkOffset?: readonly number[]): Promise<T> {
    try {
      return await this.ctx.lock.dataset(this.state.lock, mode, fn);
    } catch (e) {
      if (!(e instanceof H5Error)) throw e;
      throw e.withPath(chunkOffset ? `${this.path} (chunk at [${chunkOffset.join(', ')}])` : this.path);
    }
  }

  // ---- direct structured-chunk I/O (structured-chunk datasets: sparse, VL …; docs/architecture.md §6.2) ----

  /** The stored (filtered) sections of the structured chunk at `offset` and its info record. */
  async readStructChunk(offset: number[]): Promise<{ sections: Uint8Array[]; info: StructChunkInfo }> {
    return this.locked('read', async () => {
      const layout = this.structuredLayout();
      const storage = await this.chunked();
      const image = await storage.readChunk(offset);
      const info = structInfo(offset.slice(), -1, image.bytes.length, image.sections, layout.sectionCount);
      const stored = await storage.chunkInfoByCoord(offset);
      info.address = stored?.address ?? -1;
      return { sections: splitSections(image, layout.sectionCount, this.path), info };
    }, offset);
  }

  /** The info record of the `index`-th stored structured chunk. */
  async structChunkInfo(index: number): Promise<StructChunkInfo> {
    const c = await this.chunkInfo(index);
    return structInfo(c.offset, c.address, c.size, c.sections, this.structuredLayout().sectionCount);
  }

  /** The info record of the structured chunk whose first element is at `offset` (null when none is stored). */
  async structChunkInfoByCoord(offset: number[]): Promise<StructChunkInfo | null> {
    const c = await this.chunkInfoByCoord(offset);
    return c ? structInfo(c.offset, c.address, c.size, c.sections, this.structuredLayout().sectionCount) : null;
  }

  /** Calls `cb` with the info record of every stored structured chunk. */
  async iterateStructChunks(cb: (info: StructChunkInfo) => void | Promise<void>): Promise<void> {
    const n = this.structuredLayout().sectionCount;
    await this.iterateChunks((c) => cb(structInfo(c.offset, c.address, c.size, c.sections, n)));
  }

  // ---- the work of the calls, without ordering (for calls that already hold the order) ------

  /** @internal */
  protected async readValues(sel: Selection, opts: ReadOptions = {}): Promise<Values> {
    const count = this.countOf(sel);
    const limit = opts.maxReadBytes === undefined ? this.ctx.maxReadBytes : validReadLimit(opts.maxReadBytes, 'read');
    checkReadSize(count, this.elementSize, limit, this.path);
    const storage = await this.storage();
    if (storage.objectValues) return readObjects(storage, storage.objectValues, sel, count, this.elementSize);
    // (shared memory only for numbers that come as views of the bytes: other values are decoded from them)
    const { bytes, owned } = await storage.read(sel, count, undefined, opts.allowShared === false || !nativeArrayType(this.dtype));
    return bytesToValues(this.ctx, bytes, this.dtype, count, owned);
  }

  /** @internal */
  protected async definedIn(sel: Selection): Promise<Selection> {
    this.countOf(sel);
    const storage = await this.storage();
    return storage.defined ? await storage.defined(sel) : sel;
  }

  /** @internal */
  protected structuredLayout(): StructuredChunkLayout {
    const l = this.layout;
    if (l.class !== 'structured') throw new ValueError('structured-chunk I/O needs a structured-chunk dataset (e.g. sparse)', { path: this.path });
    return l;
  }

  /** @internal */
  protected async chunked(): Promise<ReadChunkedStorage> {
    const s = await this.storage();
    if (!(s instanceof ReadChunkedStorage)) throw new ValueError('the dataset is not chunked', { path: this.path });
    return s;
  }

  /** @internal */
  protected countOf(sel: Selection): number {
    const space = this.state.space;
    if (space.kind === 'null') {
      if (sel.kind === 'all' || sel.kind === 'none') return 0;
      throw new ValueError('a dataset with a null dataspace has no elements to select', { path: this.path });
    }
    const dims = space.kind === 'scalar' ? [] : this.shape;
    if (sel.kind === 'all') return elementCount(dims);
    validateSelection(sel, dims);
    return selectionCount(sel, dims);
  }

  /** The storage of the dataset's layout (opened once per dataset, shared by its handles). @internal */
  async storage(create = false): Promise<DatasetStorage> {
    // opened already: its parts (layout, filters, fill value) are not worked out again for every call
    if (this.state.storageP) return this.state.storageP;
    return storageOf(this.ctx, this.model, this.state, {
      path: this.path,
      layout: this.layout,
      dtype: this.dtype,
      elementSize: this.elementSize,
      filters: this.filters,
      sectionFilters: this.sectionFilters,
      fillValue: this.fill.value,
    }, create);
  }

  /** @internal the header model (for tools and the CLI). */
  get headerModel(): HeaderModel {
    return this.model;
  }}
