/**
 * Contiguous storage (spec IV.A.2.i, layout class 1): the elements in C order in one block of the
 * file, allocated on first write (late allocation) and read as fill value until then.
 *
 * Copy-on-write: the first write after a flush into a block the flushed state holds copies the
 * block to new space (the layout message then points there from the next flush on); later writes
 * before the next flush go into that fresh copy in place.
 * @module
 */
import { isDefinedAddress } from '../format/bytes.js';
import { encodeLayout } from '../format/messages/layout.js';
import { LAYOUT } from '../format/messages/message-types.js';
import type { FileWriter } from '../file/file-writer.js';
import { selectionRuns } from '../selection/runs.js';
import type { Selection } from '../selection/selection.js';
import { copyRunsToFlat, filledBytes, isAll, runsExtent } from './flat-runs.js';
import { ReadContiguousStorage } from './read-contiguous-storage.js';

/** Copy-on-write copies a flushed block through buffers of at most this many bytes. */
const COPY_PIECE = 16 << 20;

/** A contiguous dataset's storage that writes (reading is {@link ReadContiguousStorage}'s). */
export class ContiguousStorage extends ReadContiguousStorage {
  async write(sel: Selection, bytes: Uint8Array): Promise<void> {
    const writer = this.ctx.requireWriter(`write dataset "${this.path}"`);
    const es = this.elementSize;
    const total = this.dims.reduce((a, b) => a * b, 1);
    if (total === 0 || bytes.length === 0) return;
    const whole = isAll(sel);
    if (!isDefinedAddress(this.layout.address)) {
      // A partial first write leaves the rest of the dataset at the fill value.
      await this.moveTo(writer, whole ? null : async (address) => writer.writeRaw(address, filledBytes(total, es, this.fill)));
    } else if (!writer.isFresh(this.layout.address, this.layout.size)) {
      // The block holds the last flushed state: copy it (unless every element is rewritten).
      const from = this.layout;
      await this.moveTo(writer, whole ? null : (address) => this.copyBlock(writer, from.address, address, from.size));
      writer.allocator.release(from.address, from.size);
    }
    if (whole) {
      await writer.writeRaw(this.layout.address, bytes);
      return;
    }
    const runs = selectionRuns(sel, [...this.dims]);
    if (runs.length / 2 <= 8) {
      let b = 0;
      for (let i = 0; i < runs.length; i += 2) {
        const n = runs[i + 1]! * es;
        await writer.writeRaw(this.layout.address + runs[i]! * es, bytes.subarray(b, b + n));
        b += n;
      }
      return;
    }
    const [lo, hi] = runsExtent(runs);
    const span = (await this.ctx.readRaw(this.layout.address + lo * es, (hi - lo) * es, 'contiguous dataset storage')).slice();
    copyRunsToFlat(span, lo, runs, bytes, es);
    await writer.writeRaw(this.layout.address + lo * es, span);
  }

  /**
   * Gives the dataset a new block of fresh space (`init` fills it) and points the layout message
   * there. Nothing is released here.
   */
  private async moveTo(writer: FileWriter, init: ((address: number) => Promise<void>) | null): Promise<void> {
    const size = this.dims.reduce((a, b) => a * b, 1) * this.elementSize;
    writer.adopt(this.model, this.path);
    const address = writer.allocator.alloc(size);
    try {
      await init?.(address);
    } catch (e) {
      writer.allocator.release(address, size);
      throw e;
    }
    this.layout = { ...this.layout, address, size };
    this.model.find(LAYOUT)!.body = encodeLayout(this.layout, this.ctx.sizes);
    this.model.touch();
  }

  /** Copies `size` bytes of the block at `from` to `to`, in pieces of at most {@link COPY_PIECE} bytes. */
  private async copyBlock(writer: FileWriter, from: number, to: number, size: number): Promise<void> {
    for (let at = 0; at < size; at += COPY_PIECE) {
      const n = Math.min(COPY_PIECE, size - at);
      const bytes = await this.ctx.readRaw(from + at, n, 'contiguous dataset storage');
      await writer.writeRaw(to + at, this.ctx.freshReads ? bytes : bytes.slice());
    }
  }
}
