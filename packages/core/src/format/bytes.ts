/**
 * Bounds-checked little-endian cursors over `Uint8Array`s: the only way format decoders touch bytes.
 * A read past the end throws {@link TruncatedError} naming the structure, never returns garbage.
 * @module
 */
import { ChecksumError, FormatError, TruncatedError } from '../errors.js';
import { lookup3 } from './checksum/lookup3.js';

/** Sizes of file addresses ("offsets") and lengths, from the superblock. */
export interface SizeContext {
  /** Size of offsets in bytes (2, 4 or 8). */
  sizeOfOffsets: number;
  /** Size of lengths in bytes (2, 4 or 8). */
  sizeOfLengths: number;
}

/** The "undefined address" (all bits set in the file) as chunkform represents it. */
export const UNDEFINED_ADDRESS = -1;

/** True when `addr` is a real file address (not {@link UNDEFINED_ADDRESS}). */
export function isDefinedAddress(addr: number): boolean {
  return addr !== UNDEFINED_ADDRESS;
}

/** The default size context: 8-byte offsets and lengths (what every modern HDF5 file uses). */
export const DEFAULT_SIZES: SizeContext = Object.freeze({ sizeOfOffsets: 8, sizeOfLengths: 8 });

/**
 * A forward cursor over bytes. `base` is the file address of `bytes[0]` so errors can report
 * file addresses; `structure` names what is being decoded.
 */
export class ByteReader {
  readonly bytes: Uint8Array;
  /** Current position, relative to `bytes`. */
  pos: number;
  readonly sizes: SizeContext;
  readonly structure: string;
  readonly base: number;
  private dv: DataView | null = null;

  constructor(bytes: Uint8Array, opts: { pos?: number; sizes?: SizeContext; structure?: string; base?: number } = {}) {
    this.bytes = bytes;
    this.pos = opts.pos ?? 0;
    this.sizes = opts.sizes ?? DEFAULT_SIZES;
    this.structure = opts.structure ?? 'structure';
    this.base = opts.base ?? UNDEFINED_ADDRESS;
  }

  /**
   * A DataView of `bytes`, made on first use: most structures decode from the bytes directly, and
   * a view of a small array costs more than decoding it.
   */
  get view(): DataView {
    return (this.dv ??= new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength));
  }

  /** Bytes left after the cursor. */
  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  /** Throws {@link TruncatedError} unless `n` more bytes are available. */
  need(n: number, what = 'field'): void {
    if (!(n >= 0) || this.pos + n > this.bytes.length) {
      throw new TruncatedError(
        `${what} needs ${n} bytes at offset ${this.pos} but only ${Math.max(0, this.bytes.length - this.pos)} remain`,
        { structure: this.structure, address: this.base },
      );
    }
  }

  /** A {@link FormatError} located at this structure. */
  error(message: string): FormatError {
    return new FormatError(message, { structure: this.structure, address: this.base });
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.pos++]!;
  }
  u16(): number {
    this.need(2);
    const b = this.bytes;
    const p = this.pos;
    this.pos = p + 2;
    return b[p]! | (b[p + 1]! << 8);
  }
  u32(): number {
    return this.i32() >>> 0;
  }
  i32(): number {
    this.need(4);
    const b = this.bytes;
    const p = this.pos;
    this.pos = p + 4;
    return b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24);
  }
  /** Unsigned 64-bit as a number; throws if it exceeds 2^53 − 1. */
  u64(): number {
    return this.uN(8);
  }
  /** Unsigned 64-bit as a bigint (exact). */
  u64n(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /**
   * Unsigned little-endian integer of `n` bytes (0..8) as a number.
   * Throws {@link FormatError} when the value does not fit a safe integer.
   */
  uN(n: number): number {
    this.need(n);
    let v = 0;
    let mul = 1;
    for (let i = 0; i < n; i++) {
      const b = this.bytes[this.pos + i]!;
      if (mul >= 2 ** 53 && b !== 0) throw this.error(`${n}-byte integer at offset ${this.pos} exceeds 2^53`);
      v += b * mul;
      mul *= 256;
    }
    if (v > Number.MAX_SAFE_INTEGER) throw this.error(`${n}-byte integer at offset ${this.pos} exceeds 2^53`);
    this.pos += n;
    return v;
  }

  /** A file address (size of offsets); all-ones → {@link UNDEFINED_ADDRESS}. */
  offset(): number {
    return this.allOnesOr(this.sizes.sizeOfOffsets);
  }

  /** A length (size of lengths); all-ones → {@link UNDEFINED_ADDRESS} (used as "unlimited" in some fields). */
  length(): number {
    return this.allOnesOr(this.sizes.sizeOfLengths);
  }

  /** An `n`-byte unsigned integer, or {@link UNDEFINED_ADDRESS} when all its bits are set. */
  private allOnesOr(n: number): number {
    this.need(n);
    for (let i = 0; i < n; i++) {
      if (this.bytes[this.pos + i] !== 0xff) return this.uN(n);
    }
    this.pos += n;
    return UNDEFINED_ADDRESS;
  }

  /** A view (no copy) of the next `n` bytes. */
  bytesView(n: number, what = 'bytes'): Uint8Array {
    this.need(n, what);
    const v = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  /** Reads `sig.length` bytes and throws {@link FormatError} unless they spell `sig`. */
  signature(sig: string): void {
    this.need(sig.length, 'signature');
    for (let i = 0; i < sig.length; i++) {
      if (this.bytes[this.pos + i] !== sig.charCodeAt(i)) {
        const got = Array.from(this.bytes.subarray(this.pos, this.pos + sig.length), (b) =>
          b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`,
        ).join('');
        throw this.error(`bad signature: expected "${sig}", found "${got}"`);
      }
    }
    this.pos += sig.length;
  }

  /** A NUL-terminated string starting at the cursor (ASCII/UTF-8), consuming the NUL. */
  cstring(maxLen = this.remaining): string {
    const end = this.bytes.indexOf(0, this.pos);
    if (end < 0 || end - this.pos > maxLen) throw this.error(`unterminated string at offset ${this.pos}`);
    const s = utf8Decode(this.bytes.subarray(this.pos, end));
    this.pos = end + 1;
    return s;
  }

  /**
   * Verifies the lookup3 checksum stored at the cursor against bytes [start, cursor) and
   * consumes it. Throws {@link ChecksumError} on mismatch.
   */
  checksum(start = 0): void {
    const computed = lookup3(this.bytes.subarray(start, this.pos));
    const stored = this.u32();
    if (stored !== computed) throw new ChecksumError(this.structure, this.base, stored, computed);
  }
}

/** Verifies a lookup3 checksum stored as the last 4 bytes of `bytes`. */
export function verifyTrailingChecksum(bytes: Uint8Array, structure: string, address: number): void {
  if (bytes.length < 4) throw new TruncatedError('too short to hold a checksum', { structure, address });
  const end = bytes.length - 4;
  const stored = (bytes[end]! | (bytes[end + 1]! << 8) | (bytes[end + 2]! << 16) | (bytes[end + 3]! << 24)) >>> 0;
  const computed = lookup3(bytes.subarray(0, end));
  if (stored !== computed) throw new ChecksumError(structure, address, stored, computed);
}

/** Buffer size of {@link ByteWriter}s drawn from the scratch pool (writers expecting more get their own). */
const SCRATCH_BYTES = 4096;
/** Scratch buffers (all zeros) for small writers: most encoders write a few dozen bytes, and a new buffer each costs more than the encoding. */
const scratchPool: { buf: Uint8Array; view: DataView }[] = [];

/**
 * A growable little-endian byte buffer for encoders. Small writers work in a pooled scratch buffer
 * and {@link finish} copies out exactly the bytes written.
 */
export class ByteWriter {
  private buf: Uint8Array;
  /** A view of `buf` (null after {@link finish}, until a write needs one). */
  private view: DataView | null;
  /** True while `buf` is a pooled scratch buffer (given back by {@link finish}). */
  private scratch: boolean;
  /** Write position (also the length of what was written so far, unless `pos` was moved back). */
  pos = 0;
  private high = 0;
  readonly sizes: SizeContext;

  /**
   * @param initial expected size in bytes (the buffer grows as needed).
   * @param own work in a buffer of its own (never a pooled one), so that {@link finish} returns a
   *   view of it, with whatever room is left after the bytes written (e.g. for a trailer).
   */
  constructor(sizes: SizeContext = DEFAULT_SIZES, initial = 256, own = false) {
    this.sizes = sizes;
    const small = initial <= SCRATCH_BYTES && !own;
    const s = small ? scratchPool.pop() : undefined;
    if (s) {
      this.buf = s.buf;
      this.view = s.view;
      this.scratch = true;
    } else {
      this.buf = new Uint8Array(small ? SCRATCH_BYTES : initial);
      this.view = new DataView(this.buf.buffer);
      this.scratch = small;
    }
  }

  /** Gives the scratch buffer back to the pool (zeroed where it was written). */
  private giveBack(): void {
    if (!this.scratch) return;
    this.scratch = false;
    this.buf.fill(0, 0, this.high);
    if (scratchPool.length < 16 && this.view) scratchPool.push({ buf: this.buf, view: this.view });
  }

  private dv(): DataView {
    return (this.view ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength));
  }

  private ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const nb = new Uint8Array(cap);
    nb.set(this.buf.subarray(0, this.high));
    this.giveBack();
    this.buf = nb;
    this.view = new DataView(nb.buffer);
  }
  private advance(n: number): void {
    this.pos += n;
    if (this.pos > this.high) this.high = this.pos;
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.pos] = v & 0xff;
    this.advance(1);
    return this;
  }
  u16(v: number): this {
    this.ensure(2);
    this.dv().setUint16(this.pos, v, true);
    this.advance(2);
    return this;
  }
  u32(v: number): this {
    this.ensure(4);
    this.dv().setUint32(this.pos, v >>> 0, true);
    this.advance(4);
    return this;
  }
  u64(v: number | bigint): this {
    this.ensure(8);
    this.dv().setBigUint64(this.pos, BigInt(v), true);
    this.advance(8);
    return this;
  }
  /** Unsigned little-endian integer of `n` bytes. */
  uN(v: number, n: number): this {
    this.ensure(n);
    let x = v;
    for (let i = 0; i < n; i++) {
      this.buf[this.pos + i] = x % 256;
      x = Math.floor(x / 256);
    }
    this.advance(n);
    return this;
  }
  /** A file address; {@link UNDEFINED_ADDRESS} is written as all ones. */
  offset(addr: number): this {
    return this.allOnesOr(addr, this.sizes.sizeOfOffsets);
  }
  /** A length; {@link UNDEFINED_ADDRESS} is written as all ones. */
  length(v: number): this {
    return this.allOnesOr(v, this.sizes.sizeOfLengths);
  }
  private allOnesOr(v: number, n: number): this {
    if (v === UNDEFINED_ADDRESS) {
      this.ensure(n);
      this.buf.fill(0xff, this.pos, this.pos + n);
      this.advance(n);
      return this;
    }
    return this.uN(v, n);
  }
  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.advance(b.length);
    return this;
  }
  /**
   * The next `n` bytes as a view to fill directly (bulk writers), then moves past them. The view
   * is valid until the next write (which may grow the buffer); its bytes start as zeros unless
   * `pos` was moved back over written bytes.
   */
  reserve(n: number): Uint8Array {
    this.ensure(n);
    const at = this.pos;
    this.advance(n);
    return this.buf.subarray(at, at + n);
  }
  /** `n` zero bytes. */
  zeros(n: number): this {
    this.ensure(n);
    this.buf.fill(0, this.pos, this.pos + n);
    this.advance(n);
    return this;
  }
  /** ASCII signature such as "OHDR". */
  signature(sig: string): this {
    for (let i = 0; i < sig.length; i++) this.u8(sig.charCodeAt(i));
    return this;
  }
  /** Appends the lookup3 checksum of bytes [start, pos). */
  checksum(start = 0): this {
    return this.u32(lookup3(this.buf.subarray(start, this.pos)));
  }
  /** Overwrites a u32 at `at` without moving the cursor. */
  patchU32(at: number, v: number): void {
    this.dv().setUint32(at, v >>> 0, true);
  }
  /** Overwrites an n-byte integer at `at` without moving the cursor. */
  patchUN(at: number, v: number, n: number): void {
    const save = this.pos;
    this.pos = at;
    this.uN(v, n);
    this.pos = save;
  }
  /**
   * The bytes written so far: a copy of exactly those bytes for small writers (their scratch buffer
   * goes back to the pool; the writer may still be used, on the copy), else (large writers, and
   * those made with `own`) a view of the writer's buffer.
   */
  finish(): Uint8Array {
    if (!this.scratch) return this.buf.subarray(0, this.high);
    return this.copyOut();
  }

  /** The bytes written so far in an array of their own, exactly as long (one copy at most). */
  finishExact(): Uint8Array {
    if (!this.scratch) return this.buf.slice(0, this.high);
    return this.copyOut();
  }

  private copyOut(): Uint8Array {
    const out = this.buf.slice(0, this.high);
    this.giveBack();
    this.buf = out;
    this.view = null;
    return out;
  }
}

const decoder = new TextDecoder('utf-8');
const encoder = new TextEncoder();

/** True when `a` and `b` hold the same numbers (bytes, coordinates, runs). */
export function sameNumbers(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** UTF-8 decode (invalid sequences become U+FFFD, never throw). */
export function utf8Decode(b: Uint8Array): string {
  return decoder.decode(b);
}
/** UTF-8 encode (names are mostly short ASCII: copied char by char, which beats `TextEncoder` several times over). */
export function utf8Encode(s: string): Uint8Array {
  const n = s.length;
  if (n > 256) return encoder.encode(s);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return encoder.encode(s);
    out[i] = c;
  }
  return out;
}

/** Throws {@link FormatError} when `cond` is false. */
export function check(cond: boolean, message: string, structure: string, address = UNDEFINED_ADDRESS): asserts cond {
  if (!cond) throw new FormatError(message, { structure, address });
}
