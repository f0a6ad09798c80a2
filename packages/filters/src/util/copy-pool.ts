/**
 * Reused buffers for private copies of chunk bytes handed to another thread (libuv's pool for
 * zlib, the filter workers): a copy goes into a kept buffer of `n`–`2n` bytes when one exists, so
 * copying large chunks costs no new allocation (page faults, garbage collections).
 * @module
 */

/** Bounds on what a {@link CopyPool} keeps. */
export interface CopyPoolLimits {
  /** Most buffers kept (read at each `keep`: it may follow the thread count). */
  buffers: () => number;
  /** Most bytes kept in all. */
  maxBytes: number;
  /** Buffers larger than this are not kept. */
  maxBufferBytes: number;
  /** Buffers smaller than this are not kept (they would never fit the large copies). */
  minBufferBytes?: number;
  /** New buffers are `SharedArrayBuffer`s (another thread reads or writes them without a transfer). */
  shared?: boolean;
}

/** Kept buffers for private copies, oldest dropped first beyond the limits. */
export class CopyPool {
  private readonly kept: ArrayBufferLike[] = [];
  private bytes = 0;

  constructor(private readonly limits: CopyPoolLimits) {}

  /** A private copy of `data` (never a view of its memory), in a kept buffer when one fits. */
  copy(data: Uint8Array): Uint8Array {
    const c = this.take(data.length);
    c.set(data);
    return c;
  }

  /** `n` bytes (contents undefined) at the start of a kept buffer when one fits, else of a new one. */
  take(n: number): Uint8Array {
    const b = this.reuse(n);
    return b ? new Uint8Array(b, 0, n) : this.limits.shared ? new Uint8Array(new SharedArrayBuffer(n)) : new Uint8Array(n);
  }

  /** A shared buffer (the pool's {@link CopyPoolLimits.shared} buffers) of `n` to `2n` bytes: a kept one when one fits, else a new one. */
  sharedBuffer(n: number): SharedArrayBuffer {
    return (this.reuse(n) as SharedArrayBuffer | undefined) ?? new SharedArrayBuffer(n);
  }

  /** A kept buffer of `n` to `2n` bytes (no longer kept), or undefined when none fits. */
  private reuse(n: number): ArrayBufferLike | undefined {
    for (let i = this.kept.length - 1; i >= 0; i--) {
      const b = this.kept[i]!;
      if (b.byteLength >= n && b.byteLength <= 2 * n) {
        this.kept.splice(i, 1);
        this.bytes -= b.byteLength;
        return b;
      }
    }
    return undefined;
  }

  /** Keeps `buffer` (no longer used by anyone) for a later copy. */
  keep(buffer: ArrayBufferLike): void {
    const { maxBytes, maxBufferBytes, minBufferBytes = 0 } = this.limits;
    if (buffer.byteLength > maxBufferBytes || buffer.byteLength < minBufferBytes) return;
    this.kept.push(buffer);
    this.bytes += buffer.byteLength;
    while (this.kept.length > this.limits.buffers() || this.bytes > maxBytes) this.bytes -= this.kept.shift()!.byteLength;
  }

  /** Drops every kept buffer. */
  clear(): void {
    this.kept.length = 0;
    this.bytes = 0;
  }
}
