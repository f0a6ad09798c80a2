/**
 * Compact storage (spec IV.A.2.i, layout class 0) that writes: the raw data lives inside the layout
 * message, which a write re-encodes. Reading is {@link ReadCompactStorage}'s.
 * @module
 */
import { encodeLayout } from '../format/messages/layout.js';
import { LAYOUT } from '../format/messages/message-types.js';
import { selectionRuns } from '../selection/runs.js';
import type { Selection } from '../selection/selection.js';
import { copyRunsToFlat, isAll } from './flat-runs.js';
import { ReadCompactStorage } from './read-compact-storage.js';

/** A compact dataset's storage. */
export class CompactStorage extends ReadCompactStorage {
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
