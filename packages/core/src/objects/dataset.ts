/**
 * `Dataset`: an HDF5 dataset (h5py's `Dataset`): shape, datatype, layout, fill value, attributes,
 * and reading/writing its values.
 * @module
 */
import { FormatError, H5Error, UnsupportedError, ValueError } from '../errors.js';
import { isDefinedAddress } from '../format/bytes.js';
import { datatypeSize, type Datatype } from '../format/messages/datatype.js';
import { decodeDataspace, type Dataspace } from '../format/messages/dataspace.js';
import { decodeFillValue, decodeFillValueOld, type FillValue } from '../format/messages/fill-value.js';
import { decodeFilterPipeline, type FilterPipeline } from '../format/messages/filter-pipeline.js';
import { decodeLayout, encodeLayout, type DataLayout } from '../format/messages/layout.js';
import {
  DATASPACE,
  DATATYPE,
  EXTERNAL_FILES,
  FILL_VALUE,
  FILL_VALUE_OLD,
  FILTER_PIPELINE,
  LAYOUT,
} from '../format/messages/message-types.js';
import type { Values } from '../values/types.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import { Attributes } from './attributes.js';
import { resolveDatatypeMessage } from './shared-datatype.js';
import { elementCount } from './shape.js';
import { bytesToValues, valuesToBytes } from './values-io.js';

/** The unlimited maximum dimension size, as `maxShape` reports it (h5py uses `None`). */
export const UNLIMITED = null;

/** An HDF5 dataset. Obtain one from {@link Group.get} or {@link Group.createDataset}. */
export class Dataset {
  /** The dataset's attributes. */
  readonly attrs: Attributes;
  /** Shape (`[]` for a scalar dataset). */
  readonly shape: number[];
  /** Maximum shape (`null` entries are unlimited), or `null` when the file stores none. */
  readonly maxShape: (number | null)[] | null;
  /** Element datatype. */
  readonly dtype: Datatype;
  /** Storage layout as stored in the file. */
  readonly layout: DataLayout;
  /** Filter pipeline (empty when unfiltered). */
  readonly filters: FilterPipeline['filters'];
  /** The dataspace message. */
  readonly dataspace: Dataspace;
  /** Fill value settings (from the fill value message, or the old one). */
  readonly fill: FillValue;

  /** @internal use {@link Dataset.open} */
  constructor(
    private readonly ctx: FileContext,
    private readonly model: HeaderModel,
    /** Full path of the dataset in the file. */
    readonly path: string,
    parts: { dataspace: Dataspace; dtype: Datatype; layout: DataLayout; filters: FilterPipeline['filters']; fill: FillValue },
  ) {
    this.dataspace = parts.dataspace;
    this.shape = parts.dataspace.kind === 'simple' ? parts.dataspace.dims.slice() : [];
    this.maxShape =
      parts.dataspace.kind === 'simple' && parts.dataspace.maxDims
        ? parts.dataspace.maxDims.map((d) => (d === -1 ? UNLIMITED : d))
        : null;
    this.dtype = parts.dtype;
    this.layout = parts.layout;
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
      const lay = model.find(LAYOUT);
      if (!ds || !dt || !lay) {
        throw new FormatError('dataset object header lacks a dataspace, datatype or layout message', {
          structure: 'object header',
          address: model.address,
        });
      }
      const dataspace = decodeDataspace(ds.body, sizes, model.address);
      const dtype = await resolveDatatypeMessage(ctx, dt, path);
      const layout = decodeLayout(lay.body, sizes, model.address);
      const pl = model.find(FILTER_PIPELINE);
      const filters = pl ? decodeFilterPipeline(pl.body, model.address).filters : [];
      const fv = model.find(FILL_VALUE);
      let fill: FillValue;
      if (fv) fill = decodeFillValue(fv.body, model.address);
      else {
        const old = model.find(FILL_VALUE_OLD);
        const value = old ? decodeFillValueOld(old.body) : null;
        fill = { allocTime: 'late', fillTime: 'ifset', defined: value !== null && value.length > 0, value: value && value.length ? value : null };
      }
      return new Dataset(ctx, model, path, { dataspace, dtype, layout, filters, fill });
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(path) : e;
    }
  }

  /** Last path component. */
  get name(): string {
    return this.path === '/' ? '/' : this.path.slice(this.path.lastIndexOf('/') + 1);
  }

  /** Number of elements. */
  get size(): number {
    return this.dataspace.kind === 'null' ? 0 : elementCount(this.shape);
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

  /** Reads all values (flat, C order): a TypedArray for numbers, `string[]` for strings, records for compounds. */
  async read(): Promise<Values> {
    try {
      const { bytes, owned } = await this.readBytes();
      return await bytesToValues(this.ctx, bytes, this.dtype, this.size, owned);
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(this.path) : e;
    }
  }

  /** Writes all values (flat or nested arrays in C order, or a TypedArray). */
  async write(data: unknown): Promise<void> {
    const writer = this.ctx.requireWriter(`write dataset "${this.path}"`);
    try {
      const count = this.size;
      const bytes = valuesToBytes(this.ctx, data, this.dtype, count, `write dataset "${this.path}"`);
      const layout = this.layout;
      if (this.model.find(EXTERNAL_FILES)) throw new UnsupportedError('datasets stored in external files cannot be written');
      if (layout.class === 'compact') {
        writer.adopt(this.model, this.path);
        const lay = this.model.find(LAYOUT)!;
        const data = bytes.slice();
        lay.body = encodeLayout({ class: 'compact', data }, this.ctx.sizes);
        (this as { layout: DataLayout }).layout = { class: 'compact', data };
        this.model.touch();
      } else if (layout.class === 'contiguous') {
        if (bytes.length === 0) return;
        let address = layout.address;
        if (!isDefinedAddress(address)) {
          writer.adopt(this.model, this.path);
          address = writer.allocator.alloc(bytes.length);
          const next: DataLayout = { class: 'contiguous', address, size: bytes.length };
          this.model.find(LAYOUT)!.body = encodeLayout(next, this.ctx.sizes);
          (this as { layout: DataLayout }).layout = next;
          this.model.touch();
        } else if (layout.size < bytes.length) {
          throw new FormatError(`contiguous storage holds ${layout.size} bytes, ${bytes.length} needed`, { structure: 'layout message' });
        }
        await writer.writeRaw(address, bytes);
      } else {
        throw new UnsupportedError(`writing ${layout.class} datasets is not supported yet (chunked storage arrives with the chunk engine)`);
      }
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(this.path) : e;
    }
  }

  /** The raw element bytes of the whole dataset (fill value where nothing was stored). */
  private async readBytes(): Promise<{ bytes: Uint8Array; owned: boolean }> {
    const count = this.size;
    const esize = this.elementSize;
    const need = count * esize;
    if (this.model.find(EXTERNAL_FILES)) throw new UnsupportedError('datasets stored in external files are not supported');
    const layout = this.layout;
    switch (layout.class) {
      case 'compact':
        if (layout.data.length < need) {
          throw new FormatError(`compact data has ${layout.data.length} bytes, ${need} expected`, { structure: 'layout message' });
        }
        return { bytes: layout.data.subarray(0, need), owned: false };
      case 'contiguous':
        if (!isDefinedAddress(layout.address) || need === 0) return { bytes: this.filled(count, esize), owned: true };
        if (layout.size < need) {
          throw new FormatError(`contiguous storage holds ${layout.size} bytes, ${need} expected`, { structure: 'layout message' });
        }
        return { bytes: await this.ctx.readRaw(layout.address, need, 'contiguous dataset storage'), owned: this.ctx.freshReads };
      default:
        throw new UnsupportedError(`reading values of ${layout.class} datasets is not supported yet`);
    }
  }

  /** `count` copies of the fill value (zeros when none is defined). */
  private filled(count: number, esize: number): Uint8Array {
    const out = new Uint8Array(count * esize);
    const v = this.fill.value;
    if (v && v.length === esize && v.some((b) => b !== 0)) {
      out.set(v, 0);
      // Double the filled prefix until the buffer is full: O(log n) copies.
      for (let filled = esize; filled < out.length; filled *= 2) out.copyWithin(filled, 0, Math.min(filled, out.length - filled));
    }
    return out;
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
