/**
 * MSB-first bit streams as the scale-offset and n-bit filters pack them (H5Zscaleoffset.c,
 * H5Znbit.c): values are written from their most significant kept bit down, filling each byte
 * from its high bit; a stream starts at a byte boundary.
 * @module
 */
import { FilterError, type FilterErrorInfo } from '@chunkform/core/plugin';

/** Reads MSB-first bit fields of up to 32 bits. */
export class BitReader {
  private pos: number;
  /** Bits not yet read in `buf[pos]` (1–8). */
  private left = 8;

  constructor(
    private readonly buf: Uint8Array,
    start: number,
    private readonly info: FilterErrorInfo,
  ) {
    this.pos = start;
  }

  private eof(): never {
    throw new FilterError(`packed data ends early (${this.buf.length} bytes)`, this.info);
  }

  /** Reads `n` bits (0 ≤ n ≤ 8) as an unsigned number. */
  read8(n: number): number {
    if (n === 0) return 0;
    const buf = this.buf;
    if (this.pos >= buf.length) this.eof();
    const left = this.left;
    const cur = buf[this.pos]!;
    if (n < left) {
      this.left = left - n;
      return (cur >>> (left - n)) & ((1 << n) - 1);
    }
    const hi = cur & ((1 << left) - 1);
    const rest = n - left;
    this.pos++;
    this.left = 8;
    if (rest === 0) return hi;
    if (this.pos >= buf.length) this.eof();
    this.left = 8 - rest;
    return (hi << rest) | (buf[this.pos]! >>> (8 - rest));
  }

  /** Reads `n` bits (0 ≤ n ≤ 32) as an unsigned number. */
  read(n: number): number {
    let v = 0;
    while (n > 8) {
      v = v * 256 + this.read8(8);
      n -= 8;
    }
    return v * (1 << n) + this.read8(n);
  }
}

/** Writes MSB-first bit fields of up to 32 bits into a zeroed buffer. */
export class BitWriter {
  /** Index of the byte being filled. */
  pos: number;
  /** Bits still free in `buf[pos]` (1–8). */
  private left = 8;

  constructor(
    readonly buf: Uint8Array,
    start: number,
  ) {
    this.pos = start;
  }

  /** Writes the low `n` bits (0 ≤ n ≤ 8) of `v`. */
  write8(v: number, n: number): void {
    if (n === 0) return;
    v &= (1 << n) - 1;
    const left = this.left;
    if (n < left) {
      this.buf[this.pos]! |= v << (left - n);
      this.left = left - n;
      return;
    }
    const rest = n - left;
    this.buf[this.pos]! |= v >>> rest;
    this.pos++;
    this.left = 8;
    if (rest === 0) return;
    this.buf[this.pos] = (v << (8 - rest)) & 0xff;
    this.left = 8 - rest;
  }

  /** Writes the low `n` bits (0 ≤ n ≤ 32) of the non-negative integer `v`. */
  write(v: number, n: number): void {
    while (n > 8) {
      n -= 8;
      this.write8(Math.floor(v / 2 ** n) & 0xff, 8);
    }
    this.write8(v % 256, n);
  }
}
