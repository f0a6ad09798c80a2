/**
 * `Dataset`: an HDF5 dataset (h5py's `Dataset`): everything {@link ReadDataset} reads, plus writing
 * values (whole or through a selection), erasing, resizing, and direct chunk writes.
 *
 * Calls need not be awaited one by one: the calls on a dataset run as if one after the other, in the
 * order they were made (see {@link Dataset}).
 * @module
 */
import { ValueError } from '../errors.js';
import { encodeDataspace } from '../format/messages/dataspace.js';
import { DATASPACE } from '../format/messages/message-types.js';
import { selectAll, type Selection } from '../selection/selection.js';
import { slice, type SliceSpec } from '../selection/slice.js';
import { ChunkedStorage } from '../storage/chunked-storage.js';
import type { Attributes } from './attributes.js';
import { joinSections, type StructChunkWriteInfo } from '../structured/sections.js';
import { elementCount } from './shape.js';
import { writeObjects } from '../chunk/object-lane.js';
import { valuesToBytes } from './values-io.js';
import { ReadDataset } from './read-dataset.js';

export { UNLIMITED, ReadDataset, type DatasetAccessOptions, type ReadIntoOptions, type ReadOptions } from './read-dataset.js';

/**
 * An HDF5 dataset. Obtain one from {@link Group.get} or {@link Group.createDataset}.
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
export class Dataset extends ReadDataset {
  /** The dataset's attributes. */
  declare readonly attrs: Attributes;

  /** @internal */
  protected override async chunked(): Promise<ChunkedStorage> {
    return (await super.chunked()) as ChunkedStorage;
  }


  /** Writes with numpy-style indices, like h5py's `dset[2, 10:20] = data` → `dset.set(data, 2, [10, 20])`. */
  async set(data: unknown, ...spec: SliceSpec[]): Promise<void> {
    return this.locked('write', () => this.writeValues(data, slice(this.shape, ...spec).selection));
  }

  /**
   * Writes values (flat or nested arrays in selection order, or a TypedArray) to the selection (default: all).
   * `data` is read when the call runs: do not change a buffer passed here before the call settles.
   */
  async write(data: unknown, selection?: Selection): Promise<void> {
    return this.locked('write', () => this.writeValues(data, selection ?? selectAll()));
  }

  /** Makes the elements of `selection` undefined (formats that track defined elements, e.g. sparse; docs/architecture.md §6.1 `H5Derase`). */
  async erase(selection: Selection): Promise<void> {
    return this.locked('write', async () => {
      this.ctx.requireWriter(`erase elements of "${this.path}"`);
      this.countOf(selection);
      const storage = await this.storage();
      if (!storage.erase || !(storage instanceof ChunkedStorage) || !(await storage.tracksDefined())) {
        throw new ValueError('erase needs a format that tracks defined elements (e.g. sparse): every element of a dense dataset is defined');
      }
      await storage.erase(selection);
    });
  }

  /** Changes the shape of a chunked dataset within its maximum shape (h5py's `resize`). */
  async resize(shape: number[]): Promise<void> {
    return this.locked('write', () => this.resizeTo(shape));
  }

  private async resizeTo(shape: number[]): Promise<void> {
    const writer = this.ctx.requireWriter(`resize dataset "${this.path}"`);
    const old = this.shape;
    const max = this.state.space.maxDims;
    // The layout class never changes (and decoding the layout after every resize's header touch costs)
    this.layoutClass ??= this.layout.class;
    if (this.layoutClass !== 'chunked' && this.layoutClass !== 'structured') {
      throw new ValueError('only chunked and structured-chunk datasets can be resized', { path: this.path });
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
    const space = { ...this.state.space, dims: shape.slice() };
    this.state.space = space;
    writer.adopt(this.model, this.path);
    this.model.find(DATASPACE)!.body = encodeDataspace(space, this.ctx.sizes);
    this.model.touch();
  }

  /** Stores already-filtered bytes as the chunk at `offset` (filter mask: bit i = filter i not applied). */
  async writeChunk(offset: number[], bytes: Uint8Array, filterMask = 0): Promise<void> {
    return this.locked('write', async () => (await this.chunked()).writeChunk(offset, { bytes, filterMask }), offset);
  }

  /** Stores already-encoded (and filtered) sections as the structured chunk at `offset`. */
  async writeStructChunk(offset: number[], sections: Uint8Array[], info: StructChunkWriteInfo = {}): Promise<void> {
    return this.locked('write', async () => {
      const layout = this.structuredLayout();
      if (sections.length !== layout.sectionCount) {
        throw new ValueError(`${sections.length} sections given, the dataset's chunks have ${layout.sectionCount}`, { path: this.path });
      }
      const filtered = (this.sectionFilters ?? []).some((p) => p.filters.length > 0);
      await (await this.chunked()).writeChunk(offset, joinSections(sections, info, filtered, this.path));
    });
  }

  /** Writes without taking the call order: for a caller that holds the file or the dataset already. @internal */
  async writeValues(data: unknown, sel: Selection): Promise<void> {
    this.ctx.requireWriter(`write dataset "${this.path}"`);
    const count = this.countOf(sel);
    const storage = await this.storage();
    if (storage.objectValues) return writeObjects(storage, storage.objectValues, data, sel, count, this.elementSize);
    const bytes = valuesToBytes(this.ctx, data, this.dtype, count, `write dataset "${this.path}"`);
    if (count === 0) return;
    await storage.write!(sel, bytes);
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
