/**
 * Compact storage read-only (spec IV.A.2.i, layout class 0): the raw data lives inside the layout
 * message. The writing subclass is `CompactStorage` (compact-storage.ts); a read-only file makes
 * this one, so its bundle leaves out the layout encoder.
 * @module
 */
import { FormatError } from '../errors.js';
import type { CompactLayout } from '../format/messages/layout.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import { selectionRuns } from '../selection/runs.js';
import type { Selection } from '../selection/selection.js';
import type { DatasetStorage, StorageRead } from './dataset-storage.js';
import { allocBytes } from './read-limit.js';
import { checkInto, copyRunsFromFlat, isAll } from './flat-runs.js';

/** A compact dataset's storage, for reading. */
export class ReadCompactStorage implements DatasetStorage {
  constructor(
    protected readonly ctx: FileContext,
    protected readonly model: HeaderModel,
    protected readonly path: string,
    protected layout: CompactLayout,
    protected readonly dims: readonly number[],
    protected readonly elementSize: number,
  ) {}

  /** The stored elements (checked against the dataspace). */
  protected data(): Uint8Array {
    const need = this.dims.reduce((a, b) => a * b, 1) * this.elementSize;
    if (this.layout.data.length < need) {
      throw new FormatError(`compact data has ${this.layout.data.length} bytes, ${need} expected`, {
        path: this.path,
        structure: 'layout message',
      });
    }
    return this.layout.data.subarray(0, need);
  }

  async read(sel: Selection, count: number, into?: Uint8Array): Promise<StorageRead> {
    const data = this.data();
    if (into) checkInto(into, count, this.elementSize, this.path);
    if (isAll(sel)) {
      if (!into) return { bytes: data, owned: false };
      into.set(data);
      return { bytes: into, owned: false };
    }
    const out = into ?? allocBytes(count * this.elementSize, this.path);
    copyRunsFromFlat(data, 0, selectionRuns(sel, [...this.dims]), out, this.elementSize);
    return { bytes: out, owned: !into };
  }
}
