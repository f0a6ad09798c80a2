/**
 * File-space allocation for writers: a bump allocator at the end of the file with a first-fit free
 * list, so released space is reused. Addresses are relative to the superblock's base address
 * (always 0 for files we create).
 *
 * Copy-on-write bookkeeping: space allocated since the last flush is *fresh* — nothing the file's
 * last flushed state references lives there, so it may be written (and rewritten) freely. All other
 * allocated space holds the last flushed state: it must not be written, and when it is released
 * its reuse waits until the next flush has succeeded (the flushed state still points at it until
 * then).
 * @module
 */

/** A block of file space. */
export interface Extent {
  address: number;
  size: number;
}

/** Index of the first extent of a sorted list of disjoint extents that ends at or after `address` (binary search). */
function firstEndingFrom(list: readonly Extent[], address: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const e = list[mid]!;
    if (e.address + e.size < address) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Inserts `[address, address + size)` into a sorted list of disjoint extents, merging neighbours (O(log n) search). */
function addExtent(list: Extent[], address: number, size: number): void {
  const i = firstEndingFrom(list, address);
  const end = address + size;
  // The common case, a block appended at or touching the end: grow the last extent in place.
  const at = list[i];
  if (at === undefined) {
    list.push({ address, size });
    return;
  }
  if (at.address > end) {
    list.splice(i, 0, { address, size });
    return;
  }
  const start = Math.min(at.address, address);
  let stop = Math.max(at.address + at.size, end);
  let j = i + 1;
  while (j < list.length && list[j]!.address <= stop) {
    stop = Math.max(stop, list[j]!.address + list[j]!.size);
    j++;
  }
  at.address = start;
  at.size = stop - start;
  if (j > i + 1) list.splice(i + 1, j - i - 1);
}

/** Removes `[address, address + size)` from a sorted list of disjoint extents. */
function removeExtent(list: Extent[], address: number, size: number): void {
  const end = address + size;
  // Extents ending after `address` (a touching one is left alone below).
  let i = firstEndingFrom(list, address + 1);
  const out: Extent[] = [];
  let j = i;
  for (; j < list.length && list[j]!.address < end; j++) {
    const e = list[j]!;
    const eEnd = e.address + e.size;
    if (e.address < address) out.push({ address: e.address, size: address - e.address });
    if (eEnd > end) out.push({ address: end, size: eEnd - end });
  }
  if (j > i) list.splice(i, j - i, ...out);
}

/** Hands out file space and knows which of it is fresh (allocated since the last flush). */
export class Allocator {
  private free: Extent[] = [];
  /** Space allocated since the last flush (sorted, disjoint, merged). */
  private fresh: Extent[] = [];
  /** Flushed space released since the last flush: reusable once the next flush has succeeded. */
  private deferred: Extent[] = [];

  /** @param eof first unused byte of the file (the end-of-file address). */
  constructor(public eof: number) {}

  /** Allocates `size` bytes aligned to `align` (reusing freed space when a block fits exactly enough); the space is fresh. */
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
        addExtent(this.fresh, start, size);
        return start;
      }
    }
    const start = Math.ceil(this.eof / align) * align;
    if (start > this.eof) this.notePadding(start, start - this.eof);
    // The alignment padding is fresh too (nothing flushed lies past the end of file): blocks taken
    // one after another from the end form one fresh extent, and may be written with one I/O.
    addExtent(this.fresh, this.eof, start + size - this.eof);
    this.eof = start + size;
    return start;
  }

  /** Claims space at a given address (a new file's root object header) as fresh, growing the file if needed. */
  claim(address: number, size: number): void {
    if (size <= 0) return;
    removeExtent(this.free, address, size);
    if (address + size > this.eof) this.eof = address + size;
    addExtent(this.fresh, address, size);
  }

  /** True when `[address, address + size)` lies wholly in fresh space (allocated since the last flush). */
  isFresh(address: number, size: number): boolean {
    const end = address + Math.max(size, 0);
    const e = this.fresh[firstEndingFrom(this.fresh, end)];
    return e !== undefined && e.address <= address;
  }

  /**
   * Returns space no longer used. Fresh space is reusable at once; flushed space (or a block only
   * partly fresh) after the next successful flush ({@link commit}).
   */
  release(address: number, size: number): void {
    if (size <= 0) return;
    if (this.isFresh(address, size)) {
      removeExtent(this.fresh, address, size);
      this.freeNow(address, size);
    } else this.deferred.push({ address, size });
  }

  /**
   * A flush starts writing the file's new state in place (superblock, object headers): from now on
   * nothing counts as fresh, so nothing that state may reference is written again. Deferred releases
   * stay deferred (the commit may not complete).
   */
  beginCommit(): void {
    this.fresh = [];
  }

  /** A flush has completed: space released since the previous one becomes reusable. */
  commit(): void {
    this.fresh = [];
    for (const e of this.deferred.splice(0)) this.freeNow(e.address, e.size);
  }

  /** Bytes of flushed space waiting for the next flush before reuse (for tests and tools). */
  get deferredBytes(): number {
    return this.deferred.reduce((n, e) => n + e.size, 0);
  }

  /** Adds a block to the free list (merging neighbours; a block at the end shrinks the file). */
  private freeNow(address: number, size: number): void {
    addExtent(this.free, address, size);
    const tail = this.free[this.free.length - 1];
    if (tail && tail.address + tail.size >= this.eof) {
      // The alignment padding before a block taken from the end goes with it (else the end of
      // file would lie past the last byte written).
      this.eof = tail.address - (this.padding.get(tail.address) ?? 0);
      this.padding.delete(tail.address);
      this.free.pop();
    }
  }

  /** Alignment padding before recent blocks taken from the end of the file (start → bytes). */
  private readonly padding = new Map<number, number>();

  private notePadding(start: number, pad: number): void {
    this.padding.set(start, pad);
    // Only recent blocks are released at the end of the file (a failed create): keep a few.
    if (this.padding.size > 256) this.padding.delete(this.padding.keys().next().value!);
  }
}
