/**
 * Contiguous storage read-only (spec IV.A.2.i, layout class 1): the elements in C order in one
 * block of the file, read as fill value while the block is not allocated. The writing subclass is
 * `ContiguousStorage` (contiguous-storage.ts); a read-only file makes this one, so its bundle
 * leaves out the layout encoder and the copy-on-write code.
 * @module
 */
import { FormatError } from '../errors.js';
import { isDefinedAddress } from '../format/bytes.js';
import type { ContiguousLayout } from '../format/messages/layout.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import { selectionRuns } from '../selection/runs.js';
import type { Selection } from '../selection/selection.js';
import type { DatasetStorage, StorageRead } from './dataset-storage.js';
import { allocBytes } from './read-limit.js';
import { checkInto, copyRunsFromFlat, filledBytes, isAll, runsExtent } from './flat-runs.js';

/** A contiguous dataset's storage, for reading. */
export class ReadContiguousStorage implements DatasetStorage {
  constructor(
    protected readonly ctx: FileContext,
    protected readonly model: HeaderModel,
    protected readonly path: string,
    protected layout: ContiguousLayout,
    protected readonly dims: readonly number[],
    protected readonly elementSize: number,
    protected readonly fill: Uint8Array | null,
  ) {}

  async read(sel: Selection, count: number, into?: Uint8Array): Promise<StorageRead> {
    const es = this.elementSize;
    const total = this.dims.reduce((a, b) => a * b, 1);
    if (into) checkInto(into, count, es, this.path);
    if (!isDefinedAddress(this.layout.address) || count === 0) {
      const fill = filledBytes(count, es, this.fill);
      if (!into) return { bytes: fill, owned: true };
      into.set(fill);
      return { bytes: into, owned: false };
    }
    if (this.layout.size < total * es) {
      throw new FormatError(`contiguous storage holds ${this.layout.size} bytes, ${total * es} expected`, {
        path: this.path,
        structure: 'layout message',
      });
    }
    if (isAll(sel)) {
      if (into) {
        await this.ctx.readRawInto(this.layout.address, into, 'contiguous dataset storage');
        return { bytes: into, owned: false };
      }
      const bytes = await this.ctx.readRaw(this.layout.address, total * es, 'contiguous dataset storage');
      return { bytes, owned: this.ctx.freshReads };
    }
    const runs = selectionRuns(sel, [...this.dims]);
    const [lo, hi] = runsExtent(runs);
    const span = await this.ctx.readRaw(this.layout.address + lo * es, (hi - lo) * es, 'contiguous dataset storage');
    const out = into ?? allocBytes(count * es, this.path);
    copyRunsFromFlat(span, lo, runs, out, es);
    return { bytes: out, owned: !into };
  }

  /** The current layout (address changes on first write). */
  get current(): ContiguousLayout {
    return this.layout;
  }
}
