/**
 * Writes of many small blocks joined into one I/O per run of adjacent file addresses: the chunk
 * engine's gathered chunk writes and a flush's metadata (object headers, heap blocks, B-tree nodes).
 * @module
 */

/** A block to write: `bytes` at file address `address`. */
export interface Placement {
  address: number;
  bytes: Uint8Array;
}

/** One I/O: the bytes of a run of adjacent (or overlapping) placements. */
export interface Run {
  address: number;
  bytes: Uint8Array;
  /** Index (in the placements given) of the run's lowest-address placement, e.g. to name it in errors. */
  first: number;
}

/**
 * Groups `items` into runs of adjacent or overlapping file addresses (sorted by address). A run of
 * one placement, or of placements that are also consecutive in one buffer, is written from that
 * memory as is; other runs are joined into a new buffer. Where placements overlap, the later one
 * in `items` wins (as if they were written in that order).
 */
export function joinRuns(items: readonly Placement[]): Run[] {
  const order = Array.from(items.keys());
  order.sort((a, b) => items[a]!.address - items[b]!.address || a - b);
  const runs: Run[] = [];
  for (let i = 0; i < order.length; ) {
    const head = items[order[i]!]!;
    let end = head.address + head.bytes.length;
    let inOneBuffer = true;
    let overlap = false;
    let j = i + 1;
    for (; j < order.length; j++) {
      const p = items[order[j]!]!;
      if (p.address > end) break;
      const prev = items[order[j - 1]!]!;
      if (p.address < end) overlap = true;
      if (p.bytes.buffer !== prev.bytes.buffer || p.bytes.byteOffset !== prev.bytes.byteOffset + prev.bytes.length || p.address !== prev.address + prev.bytes.length) {
        inOneBuffer = false;
      }
      end = Math.max(end, p.address + p.bytes.length);
    }
    let bytes: Uint8Array;
    if (j === i + 1) bytes = head.bytes;
    else if (inOneBuffer && !overlap) bytes = new Uint8Array(head.bytes.buffer, head.bytes.byteOffset, end - head.address);
    else {
      bytes = new Uint8Array(end - head.address);
      const members = order.slice(i, j);
      // Overlapping placements are copied in the order given, so the later one wins.
      if (overlap) members.sort((a, b) => a - b);
      for (const k of members) bytes.set(items[k]!.bytes, items[k]!.address - head.address);
    }
    runs.push({ address: head.address, bytes, first: order[i]! });
    i = j;
  }
  return runs;
}

/**
 * Small writes held back and written together: each added block is copied (the caller may reuse
 * its buffer at once) into one growing arena; {@link drain} writes them with one I/O per run of
 * adjacent addresses. Blocks written one after another at increasing addresses (the common case)
 * are consecutive in the arena too and go out without another copy.
 */
export class WriteBatch {
  private arena = new Uint8Array(0);
  private used = 0;
  private items: Placement[] = [];

  /** Bytes held. */
  get bytes(): number {
    return this.used;
  }

  /** True when nothing is held. */
  get empty(): boolean {
    return this.items.length === 0;
  }

  /** Holds a copy of `bytes` for address `address`. */
  add(address: number, bytes: Uint8Array): void {
    const need = this.used + bytes.length;
    if (need > this.arena.length) {
      let cap = Math.max(this.arena.length * 2, 64 << 10);
      while (cap < need) cap *= 2;
      // Earlier placements keep viewing the old arena; only new ones go to the new one.
      this.arena = new Uint8Array(cap);
      this.used = 0;
    }
    const view = this.arena.subarray(this.used, this.used + bytes.length);
    view.set(bytes);
    this.used += bytes.length;
    this.items.push({ address, bytes: view });
  }

  /**
   * Writes everything held, one `write` per run. When a write fails, everything stays held (a
   * later drain writes it all again: the blocks are idempotent) and the error is thrown.
   */
  drain(write: (address: number, bytes: Uint8Array) => Promise<void>): Promise<void> {
    // Drains run one at a time, so blocks reach the store in the order they were added.
    const run = this.draining.then(() => this.drainOnce(write));
    this.draining = run.catch(() => undefined);
    return run;
  }

  private draining: Promise<void> = Promise.resolve();

  private async drainOnce(write: (address: number, bytes: Uint8Array) => Promise<void>): Promise<void> {
    if (this.items.length === 0) return;
    // Blocks added while the writes are awaited go after these in the arena and stay for the next drain.
    const items = this.items;
    this.items = [];
    try {
      for (const run of joinRuns(items)) await write(run.address, run.bytes);
    } catch (e) {
      this.items = items.concat(this.items);
      throw e;
    }
    if (this.items.length === 0) this.used = 0;
  }
}
