/**
 * `Dataset`: an HDF5 dataset (h5py's `Dataset`): shape, datatype, layout, fill value, attributes,
 * reading and writing values (whole or through a selection), resizing, and direct chunk I/O.
 * @module
 */
import { FormatError, H5Error, UnsupportedError, ValueError } from '../errors.js';
import { datatypeSize, type Datatype } from '../format/messages/datatype.js';
import { decodeDataspace, encodeDataspace, type Dataspace } from '../format/messages/dataspace.js';
import { decodeFillValue, decodeFillValueOld, type FillValue } from '../format/messages/fill-value.js';
import { decodeFilterPipeline, type FilterPipeline } from '../format/messages/filter-pipeline.js';
import { decodeLayout, type DataLayout } from '../format/messages/layout.js';
import {
  DATASPACE,
  DATATYPE,
  EXTERNAL_FILES,
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
import type { ChunkCacheOptions } from '../chunk/cache.js';
import type { ChunkImage } from '../chunk/chunk-format.js';
import { selectAll, type Selection } from '../selection/selection.js';
import { slice, type SliceSpec } from '../selection/slice.js';
import { selectionCount, validateSelection } from '../selection/algebra.js';
import type { DatasetStorage } from '../storage/dataset-storage.js';
import { CompactStorage } from '../storage/compact-storage.js';
import { ContiguousStorage } from '../storage/contiguous-storage.js';
import { ChunkedStorage, type ChunkInfo } from '../storage/chunked-storage.js';
import { Attributes } from './attributes.js';
import { joinSections, splitSections, structInfo, type StructChunkInfo, type StructChunkWriteInfo } from './struct-chunk-io.js';
import type { StructuredChunkLayout } from '../format/messages/layout-structured.js';
import { resolveDatatypeMessage } from './shared-datatype.js';
import { elementCount } from './shape.js';
import { bytesToValues, valuesToBytes } from './values-io.js';

/** The unlimited maximum dimension size, as `maxShape` reports it (h5py uses `None`). */
export const UNLIMITED = null;

/** Options when a dataset is opened. */
export interface DatasetAccessOptions {
  /** Chunk cache settings for this dataset. */
  chunkCache?: ChunkCacheOptions;
  /**
   * Sparse datasets: how section 0 of chunks written from now on encodes the defined elements —
   * 'smallest' (default; the smallest valid H5S encoding) or 'prototype' (what the HDF Group prototype writes).
   */
  selectionEncoding?: 'smallest' | 'prototype';
}

/** An HDF5 dataset. Obtain one from {@link Group.get} or {@link Group.createDataset}. */
export class Dataset {
  /** The dataset's attributes. */
  readonly attrs: Attributes;
  /** Element datatype. */
  readonly dtype: Datatype;
  /** Filter pipeline (empty when unfiltered). */
  readonly filters: FilterPipeline['filters'];
  /** Fill value settings (from the fill value message, or the old one). */
  readonly fill: FillValue;
  /** Sparse (structured-chunk) datasets: the filter pipeline of each section (0 = selection, 1 = values). */
  readonly sectionFilters: FilterPipeline[] | null;
  private space: Dataspace;
  private storageP: Promise<DatasetStorage> | undefined;
  private access: DatasetAccessOptions = {};
  /** The layout class (fixed for the dataset's lifetime), once looked up. */
  private layoutClass: DataLayout['class'] | undefined;

  /** @internal use {@link Dataset.open} */
  constructor(
    private readonly ctx: FileContext,
    private readonly model: HeaderModel,
    /** Full path of the dataset in the file. */
    readonly path: string,
    parts: {
      dataspace: Dataspace;
      dtype: Datatype;
      filters: FilterPipeline['filters'];
      fill: FillValue;
      sectionFilters: FilterPipeline[] | null;
    },
  ) {
    this.sectionFilters = parts.sectionFilters;
    this.space = parts.dataspace;
    this.dtype = parts.dtype;
    this.filters = parts.filters;
    this.fill = parts.fill;
    this.attrs = new Attributes(ctx, async () => this.model, path);
  }

  /** Builds a dataset from its object header. @internal */
  static async open(ctx: FileContext, model: HeaderModel, path: string): Promise<Dataset> {
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
      const d = new Dataset(ctx, model, path, { dataspace, dtype, filters, fill, sectionFilters });
      void d.layout; // decode now so a corrupt layout message fails at open
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
    return this.space;
  }

  /** Shape (`[]` for a scalar or empty dataset). */
  get shape(): number[] {
    return this.space.kind === 'simple' ? this.space.dims.slice() : [];
  }

  /** Maximum shape (`null` entries are unlimited), or `null` when the file stores none. */
  get maxShape(): (number | null)[] | null {
    return this.space.kind === 'simple' && this.space.maxDims ? this.space.maxDims.map((d) => (d === -1 ? UNLIMITED : d)) : null;
  }

  /** Storage layout as stored in the file (current: chunked datasets update it on flush). */
  get layout(): DataLayout {
    const cached = this.model.derived.get('layout') as DataLayout | undefined;
    if (cached) return cached;
    const layout = decodeLayout(this.model.find(LAYOUT)!.body, this.ctx.sizes, this.model.address);
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
    return this.space.kind === 'null' ? 0 : elementCount(this.shape);
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

  /** Sets access options (chunk cache) before the first read or write. */
  setAccess(opts: DatasetAccessOptions): this {
    if (this.storageP) throw new ValueError('access options must be set before the first read or write', { path: this.path });
    this.access = { ...opts };
    return this;
  }

  /**
   * Reads values (flat, in selection order — C order for hyperslabs): a TypedArray for numbers,
   * `string[]` for strings, records for compounds. Without a selection, the whole dataset.
   */
  async read(selection?: Selection): Promise<Values> {
    try {
      const sel = selection ?? selectAll();
      const count = this.countOf(sel);
      const { bytes, owned } = await (await this.storage()).read(sel, count);
      return await bytesToValues(this.ctx, bytes, this.dtype, count, owned);
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(this.path) : e;
    }
  }

  /**
   * Reads numbers into `out` (like h5py's `read_direct`), e.g. a frame buffer reused across reads:
   * no result array is allocated, and with a native-order dtype and an `out` of the stored element
   * size the file bytes land straight in `out`. `out` holds one element per selected element
   * (flat, selection order). Integer and float datasets only.
   * @throws ValueError for another datatype class or an `out` of the wrong length.
   */
  async readInto<T extends NumericArray>(out: T, selection?: Selection): Promise<T> {
    try {
      const sel = selection ?? selectAll();
      const count = this.countOf(sel);
      if (this.dtype.class !== 'integer' && this.dtype.class !== 'float') {
        throw new ValueError(`readInto needs an integer or float dataset, not ${this.dtype.class}`);
      }
      if (out.length !== count) throw new ValueError(`readInto: the selection has ${count} elements but out holds ${out.length}`);
      if (out.byteLength !== count * this.elementSize) {
        out.set((await this.read(sel)) as NumericArray as never);
        return out;
      }
      const into = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
      const { bytes } = await (await this.storage()).read(sel, count, into);
      const v = await bytesToValues(this.ctx, bytes, this.dtype, count, bytes.byteLength === bytes.buffer.byteLength);
      const tv = v as NumericArray;
      if (tv.buffer !== out.buffer || tv.byteOffset !== out.byteOffset || tv.constructor !== out.constructor) out.set(tv as never);
      return out;
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(this.path) : e;
    }
  }

  /**
   * Reads with numpy-style indices, like h5py's `dset[2, 10:20, ::2]` →
   * `dset.get(2, [10, 20], [null, null, 2])`. Values come flat in C order; `shape` is h5py's result shape.
   */
  async get(...spec: SliceSpec[]): Promise<{ values: Values; shape: number[] }> {
    const { selection, shape } = slice(this.shape, ...spec);
    return { values: await this.read(selection), shape };
  }

  /** Writes with numpy-style indices, like h5py's `dset[2, 10:20] = data` → `dset.set(data, 2, [10, 20])`. */
  async set(data: unknown, ...spec: SliceSpec[]): Promise<void> {
    await this.write(data, slice(this.shape, ...spec).selection);
  }

  /** Writes values (flat or nested arrays in selection order, or a TypedArray) to the selection (default: all). */
  async write(data: unknown, selection?: Selection): Promise<void> {
    this.ctx.requireWriter(`write dataset "${this.path}"`);
    try {
      const sel = selection ?? selectAll();
      const count = this.countOf(sel);
      const bytes = valuesToBytes(this.ctx, data, this.dtype, count, `write dataset "${this.path}"`);
      if (count === 0) return;
      await (await this.storage()).write(sel, bytes);
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(this.path) : e;
    }
  }

  /**
   * The elements within `selection` (default: all) that hold values (seed 003 `H5Dget_defined`).
   * Every element of a dense dataset is defined, so it returns the selection unchanged.
   */
  async getDefined(selection?: Selection): Promise<Selection> {
    try {
      const sel = selection ?? selectAll();
      this.countOf(sel);
      const storage = await this.storage();
      return storage.defined ? await storage.defined(sel) : sel;
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(this.path) : e;
    }
  }

  /** The defined elements within `selection` and their values (in the defined selection's C order), in one call. */
  async readDefined(selection?: Selection): Promise<{ selection: Selection; values: Values }> {
    try {
      const sel = selection ?? selectAll();
      this.countOf(sel);
      const storage = await this.storage();
      const one = storage instanceof ChunkedStorage ? await storage.readDefined(sel) : undefined;
      if (one) return { selection: one.selection, values: await bytesToValues(this.ctx, one.bytes, this.dtype, one.bytes.length / this.elementSize, true) };
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(this.path) : e;
    }
    const defined = await this.getDefined(selection);
    return { selection: defined, values: await this.read(defined) };
  }

  /** Makes the elements of `selection` undefined (sparse datasets; seed 003 `H5Derase`). */
  async erase(selection: Selection): Promise<void> {
    this.ctx.requireWriter(`erase elements of "${this.path}"`);
    try {
      this.countOf(selection);
      const storage = await this.storage();
      if (!storage.erase || !(storage instanceof ChunkedStorage) || !(await storage.tracksDefined())) {
        throw new ValueError('erase needs a sparse dataset: every element of a dense dataset is defined');
      }
      await storage.erase(selection);
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(this.path) : e;
    }
  }

  /** Changes the shape of a chunked dataset within its maximum shape (h5py's `resize`). */
  async resize(shape: number[]): Promise<void> {
    const writer = this.ctx.requireWriter(`resize dataset "${this.path}"`);
    const old = this.shape;
    const max = this.space.maxDims;
    // The layout class never changes (and decoding the layout after every resize's header touch costs)
    this.layoutClass ??= this.layout.class;
    if (this.layoutClass !== 'chunked' && this.layoutClass !== 'structured') {
      throw new ValueError('only chunked and sparse datasets can be resized', { path: this.path });
    }
    if (shape.length !== old.length) throw new ValueError(`new shape has rank ${shape.length}, the dataset rank ${old.length}`, { path: this.path });
    shape.forEach((d, i) => {
      const m = max ? max[i]! : old[i]!;
      if (!Number.isSafeInteger(d) || d < 0 || (m !== -1 && d > m)) {
        throw new ValueError(`cannot resize dimension ${i} to ${d} (maximum ${m === -1 ? 'unlimited' : m})`, { path: this.path });
      }
    });
    const storage = await this.storage();
    await storage.resize!(old, shape);
    this.space = { ...this.space, dims: shape.slice() };
    writer.adopt(this.model, this.path);
    this.model.find(DATASPACE)!.body = encodeDataspace(this.space, this.ctx.sizes);
    this.model.touch();
  }

  // ---- direct chunk I/O (H5Dread_chunk / H5Dwrite_chunk / H5Dget_chunk_info) --------------

  /** Stored chunks of a chunked dataset, in index order. */
  async iterateChunks(cb: (info: ChunkInfo) => void | Promise<void>): Promise<void> {
    const all = await this.located(async () => (await this.chunked()).chunks());
    for (const c of all) await cb(c);
  }

  /** Number of stored chunks. */
  async numChunks(): Promise<number> {
    return this.located(async () => (await (await this.chunked()).chunks()).length);
  }

  /** The `index`-th stored chunk (index order, like `H5Dget_chunk_info`). */
  async chunkInfo(index: number): Promise<ChunkInfo> {
    return this.located(async () => {
      const all = await (await this.chunked()).chunks();
      const c = all[index];
      if (!c) throw new ValueError(`chunk index ${index} is out of range (${all.length} chunks stored)`);
      return c;
    });
  }

  /** The stored chunk whose first element is at `offset`, or null when never written. */
  async chunkInfoByCoord(offset: number[]): Promise<ChunkInfo | null> {
    return this.located(async () => (await this.chunked()).chunkInfoByCoord(offset));
  }

  /** The raw stored (filtered) bytes of the chunk at `offset` and its filter mask. */
  async readChunk(offset: number[]): Promise<ChunkImage> {
    return this.located(async () => (await this.chunked()).readChunk(offset), offset);
  }

  /** Stores already-filtered bytes as the chunk at `offset` (filter mask: bit i = filter i not applied). */
  async writeChunk(offset: number[], bytes: Uint8Array, filterMask = 0): Promise<void> {
    return this.located(async () => (await this.chunked()).writeChunk(offset, { bytes, filterMask }), offset);
  }

  /** Runs `fn`, adding the dataset path (and chunk offset) to typed errors that lack a path. */
  private async located<T>(fn: () => Promise<T>, chunkOffset?: readonly number[]): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof H5Error)) throw e;
      throw e.withPath(chunkOffset ? `${this.path} (chunk at [${chunkOffset.join(', ')}])` : this.path);
    }
  }

  // ---- direct structured-chunk I/O (sparse datasets; seed 003 §2.2) ---------------------------

  /** The stored (filtered) sections of the sparse chunk at `offset` and its info record. */
  async readStructChunk(offset: number[]): Promise<{ sections: Uint8Array[]; info: StructChunkInfo }> {
    const layout = this.structuredLayout();
    const image = await (await this.chunked()).readChunk(offset);
    const info = structInfo(offset.slice(), -1, image.bytes.length, image.sections, layout.sectionCount);
    const stored = await this.chunkInfoByCoord(offset);
    info.address = stored?.address ?? -1;
    return { sections: splitSections(image, layout.sectionCount, this.path), info };
  }

  /** Stores already-encoded (and filtered) sections as the sparse chunk at `offset`. */
  async writeStructChunk(offset: number[], sections: Uint8Array[], info: StructChunkWriteInfo = {}): Promise<void> {
    const layout = this.structuredLayout();
    if (sections.length !== layout.sectionCount) {
      throw new ValueError(`${sections.length} sections given, the dataset's chunks have ${layout.sectionCount}`, { path: this.path });
    }
    const filtered = (this.sectionFilters ?? []).some((p) => p.filters.length > 0);
    await (await this.chunked()).writeChunk(offset, joinSections(sections, info, filtered, this.path));
  }

  /** The info record of the `index`-th stored sparse chunk. */
  async structChunkInfo(index: number): Promise<StructChunkInfo> {
    const c = await this.chunkInfo(index);
    return structInfo(c.offset, c.address, c.size, c.sections, this.structuredLayout().sectionCount);
  }

  /** The info record of the sparse chunk whose first element is at `offset` (null when none is stored). */
  async structChunkInfoByCoord(offset: number[]): Promise<StructChunkInfo | null> {
    const c = await this.chunkInfoByCoord(offset);
    return c ? structInfo(c.offset, c.address, c.size, c.sections, this.structuredLayout().sectionCount) : null;
  }

  /** Calls `cb` with the info record of every stored sparse chunk. */
  async iterateStructChunks(cb: (info: StructChunkInfo) => void | Promise<void>): Promise<void> {
    const n = this.structuredLayout().sectionCount;
    await this.iterateChunks((c) => cb(structInfo(c.offset, c.address, c.size, c.sections, n)));
  }

  private structuredLayout(): StructuredChunkLayout {
    const l = this.layout;
    if (l.class !== 'structured') throw new ValueError('structured-chunk I/O needs a sparse dataset', { path: this.path });
    return l;
  }

  private async chunked(): Promise<ChunkedStorage> {
    const s = await this.storage();
    if (!(s instanceof ChunkedStorage)) throw new ValueError('the dataset is not chunked', { path: this.path });
    return s;
  }

  private countOf(sel: Selection): number {
    if (this.space.kind === 'null') {
      if (sel.kind === 'all' || sel.kind === 'none') return 0;
      throw new ValueError('a dataset with a null dataspace has no elements to select', { path: this.path });
    }
    const dims = this.space.kind === 'scalar' ? [] : this.shape;
    if (sel.kind === 'all') return elementCount(dims);
    validateSelection(sel, dims);
    return selectionCount(sel, dims);
  }

  /** The per-section pipelines, one per section (unfiltered sections get an empty pipeline). */
  private sectionPipelines(count: number): FilterPipeline[] {
    const out: FilterPipeline[] = [];
    for (let i = 0; i < count; i++) out.push({ filters: this.sectionFilters?.[i]?.filters ?? [] });
    return out;
  }

  /** The storage of the dataset's layout (opened once). @internal */
  async storage(create = false): Promise<DatasetStorage> {
    this.storageP ??= this.openStorage(create);
    this.storageP.catch(() => (this.storageP = undefined));
    return this.storageP;
  }

  private async openStorage(create: boolean): Promise<DatasetStorage> {
    if (this.model.find(EXTERNAL_FILES)) throw new UnsupportedError('datasets stored in external files are not supported');
    const layout = this.layout;
    const dims = this.space.kind === 'simple' ? this.space.dims.slice() : this.space.kind === 'scalar' ? [] : [0];
    const es = this.elementSize;
    switch (layout.class) {
      case 'compact':
        return new CompactStorage(this.ctx, this.model, this.path, layout, dims, es);
      case 'contiguous':
        return new ContiguousStorage(this.ctx, this.model, this.path, layout, dims, es, this.fill.value);
      case 'chunked':
      case 'structured':
        return ChunkedStorage.open(this.ctx, this.model, {
          ...(layout.class === 'structured'
            ? { sectionPipelines: this.sectionPipelines(layout.sectionCount), selectionEncoding: this.access.selectionEncoding ?? 'smallest' }
            : {}),
          path: this.path,
          layout,
          pipeline: { filters: this.filters },
          datatype: this.dtype,
          elementSize: es,
          dims,
          maxDims: this.space.maxDims?.slice() ?? dims.slice(),
          fillValue: this.fill.value,
          ...(this.access.chunkCache ? { cache: this.access.chunkCache } : {}),
        }, create);
      default:
        throw new UnsupportedError(`reading ${layout.class} datasets is not supported yet`);
    }
  }

  /** @internal the header model (for tools and the CLI). */
  get headerModel(): HeaderModel {
    return this.model;
  }
}

/** Validates user arguments common to dataset creation. @internal */
export function checkShape(shape: readonly number[], maxShape: readonly (number | null)[] | undefined, path: string): void {
  elementCount(shape);
  if (maxShape) {
    if (maxShape.length !== shape.length) throw new ValueError(`maxShape has rank ${maxShape.length}, shape has rank ${shape.length}`, { path });
    maxShape.forEach((m, i) => {
      if (m !== null && (!Number.isSafeInteger(m) || m < shape[i]!)) {
        throw new ValueError(`maxShape[${i}] = ${m} is smaller than shape[${i}] = ${shape[i]}`, { path });
      }
    });
  }
}
