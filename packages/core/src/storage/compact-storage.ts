/**
 * Compact storage (spec IV.A.2.i, layout class 0): the raw data lives inside the layout message.
 * @module
 */
import { FormatError } from '../errors.js';
import { encodeLayout, type CompactLayout } from '../format/messages/layout.js';
import { LAYOUT } from '../format/messages/message-types.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import { selectionRuns } from '../selection/runs.js';
import type { Selection } from '../selection/selection.js';
import type { DatasetStorage, StorageRead } from './dataset-storage.js';
import { allocBytes } from './read-limit.js';
import { checkInto, copyRunsFromFlat, copyRunsToFlat, isAll } from './flat-runs.js';

/** A compact dataset's storage. */
export class CompactStorage implements DatasetStorage {
  constructor(
    private readonly ctx: FileContext,
    private readonly model: HeaderModel,
    private readonly path: string,
    private layout: CompactLayout,
    private readonly dims: readonly number[],
    private readonly elementSize: number,
  ) {}

  private data(): Uint8Array {
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

  async write(sel: Selection, bytes: Uint8Array): Promise<void> {
    const writer = this.ctx.requireWriter(`write dataset "${this.path}"`);
    const data = this.data().slice();
    if (isAll(sel)) data.set(bytes);
    else copyRunsToFlat(data, 0, selectionRuns(sel, [...this.dims]), bytes, this.elementSize);
    writer.adopt(this.model, this.path);
    this.layout = { ...this.layout, data };
    this.model.find(LAYOUT)!.body = encodeLayout(this.layout, this.ctx.sizes);
    this.model.touch();
  }
}
