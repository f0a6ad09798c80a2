/**
 * File-space allocation for writers: a bump allocator at the end of the file with a first-fit free
 * list, so space released by rewritten metadata (continuation blocks, global heap collections) is
 * reused. Addresses are relative to the superblock's base address (always 0 for files we create).
 * @module
 */

/** A block of file space. */
export interface Extent {
  address: number;
  size: number;
}

/** Hands out file space. */
export class Allocator {
  private free: Extent[] = [];

  /** @param eof first unused byte of the file (the end-of-file address). */
  constructor(public eof: number) {}

  /** Allocates `size` bytes aligned to `align` (reusing freed space when a block fits exactly enough). */
  alloc(size: number, align = 8): number {
    if (!(size > 0)) throw new RangeError(`allocation of ${size} bytes`);
    for (let i = 0; i < this.free.length; i++) {
      const f = this.free[i]!;
      const start = Math.ceil(f.address / align) * align;
      const waste = start - f.address;
      if (f.size - waste >= size) {
        const rest = f.size - waste - size;
        const replacement: Extent[] = [];
        if (waste > 0) replacement.push({ address: f.address, size: waste });
        if (rest > 0) replacement.push({ address: start + size, size: rest });
        this.free.splice(i, 1, ...replacement);
        return start;
      }
    }
    const start = Math.ceil(this.eof / align) * align;
    if (start > this.eof) this.notePadding(start, start - this.eof);
    this.eof = start + size;
    return start;
  }

  /** Returns a block to the free list (merging neighbours; a block at the end shrinks the file). */
  release(address: number, size: number): void {
    if (size <= 0) return;
    this.free.push({ address, size });
    this.free.sort((a, b) => a.address - b.address);
    const merged: Extent[] = [];
    for (const f of this.free) {
      const last = merged[merged.length - 1];
      if (last && last.address + last.size >= f.address) {
        last.size = Math.max(last.size, f.address + f.size - last.address);
      } else merged.push({ ...f });
    }
    const tail = merged[merged.length - 1];
    if (tail && tail.address + tail.size >= this.eof) {
      // The alignment padding before a block taken from the end goes with it (else the end of
      // file would lie past the last byte written).
      this.eof = tail.address - (this.padding.get(tail.address) ?? 0);
      this.padding.delete(tail.address);
      merged.pop();
    }
    this.free = merged;
  }

  /** Alignment padding before recent blocks taken from the end of the file (start → bytes). */
  private readonly padding = new Map<number, number>();

  private notePadding(start: number, pad: number): void {
    this.padding.set(start, pad);
    // Only recent blocks are released at the end of the file (a failed create): keep a few.
    if (this.padding.size > 256) this.padding.delete(this.padding.keys().next().value!);
  }
}
