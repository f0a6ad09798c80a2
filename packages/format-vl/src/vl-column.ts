/**
 * VL string chunks ↔ columnar strings ({@link VLStrings}, docs/format-vl.md §5.1): a write copies
 * each run's byte range straight into the chunk's heap and computes the entries from the offsets;
 * a read stages each run's bytes (one copy per stretch of values adjacent in the heap) and the
 * value lengths, and makes offsets of them at the end. No JS string is made.
 * @module
 */
import type { ColumnarValues } from '@chunkform/core';
import { change, define, ensure, setBytes, type VlChunk } from './vl-chunk.js';
import { VLStrings, checkColumn } from './vl-strings.js';

/**
 * A columnar read in progress: the end offset (or the length) of each value, and the bytes of each
 * request run copied into one staging buffer as the runs arrive. Runs usually arrive in read order,
 * each starting where the previous one ended (a whole or row read of chunks in C order): the staging
 * buffer is then the result's bytes as they are, and each value's end offset is known as it arrives
 * (no pass turning lengths into offsets at the end).
 */
export class ColumnRead {
  /**
   * `lengths[i + 1]`: while {@link running}, the end offset of value `i` in the result (for the
   * values before {@link next}); otherwise its byte length (0: empty or undefined), made the offsets
   * in place by {@link finish}. (A single value fits a heap, a `Uint8Array`: < 2^32 bytes.)
   */
  readonly lengths: Uint32Array;
  /** Every run so far started at {@link next} and `lengths` holds end offsets (below 2^32). */
  running = true;
  /** The read position after the last run (while {@link running}). */
  next = 0;
  /** The read position of each piece's first value … */
  readonly starts: number[] = [];
  /** … and where its bytes are in `buf`. */
  readonly at: number[] = [];
  /** Staging buffer: the pieces' bytes back to back, in arrival order. */
  buf = new Uint8Array(1 << 16);
  /** Bytes of all pieces. */
  total = 0;
  /** Every piece so far starts after the previous one (read order). */
  inOrder = true;
  /** Values whose lengths are known so far. */
  seen = 0;
  /**
   * An in-place read ({@link stageInPlace}): the memory of `buf`, into which stored chunks are read
   * and their values moved down to the front; null otherwise (or once `buf` is another).
   */
  inPlace: ArrayBufferLike | null = null;

  constructor(count: number) {
    this.lengths = new Uint32Array(count + 1);
  }

  /**
   * Room for `n` more bytes at `total`: returns the staging buffer. It grows to what the whole read
   * needs at the bytes per value seen so far (one or two allocations for a large read), at least doubling.
   */
  room(n: number): Uint8Array {
    const need = this.total + n;
    if (need > this.buf.length) {
      this.inPlace = null;
      const estimate = this.seen > 0 ? Math.ceil((need / this.seen) * (this.lengths.length - 1) * 1.0625) : 0;
      const b = new Uint8Array(Math.max(need, this.buf.length * 2, estimate));
      b.set(this.buf.subarray(0, this.total));
      this.buf = b;
    }
    return this.buf;
  }

  /**
   * A staging buffer of `bytes` bytes (what the values of the chunks to come take at most) that
   * stored chunks are also read into, in file order, as far as they fit (./vl-read-many.ts): each
   * chunk's values are then moved down within it to where the values before them end, never past
   * the chunk's own bytes, as a chunk holds at least its values. The reads fill the buffer's memory
   * for the first time, on the I/O threads, not the copies on this one. Null when values were
   * staged already (the cache served some).
   */
  stageInPlace(bytes: number): Uint8Array | null {
    if (this.total > 0 || this.seen > 0) return null;
    this.buf = new Uint8Array(bytes);
    this.inPlace = this.buf.buffer;
    return this.buf;
  }

  /** Records a piece of `n` bytes just staged at `total` for the values from read position `start`. */
  added(start: number, n: number): void {
    const k = this.starts.length;
    if (k > 0 && start < this.starts[k - 1]!) this.inOrder = false;
    this.starts.push(start);
    this.at.push(this.total);
    this.total += n;
  }

  /**
   * Whether the run of `n` values at read position `b` keeps the end offsets running (it starts where
   * the last one ended). When not, the offsets so far become lengths again (once) and the read goes
   * on with lengths. (Offsets are kept modulo 2^32, as a `Uint32Array` stores them: the lengths
   * they give back are exact, and {@link finish} widens a result of 4 GiB or more.)
   */
  continues(b: number, n: number): boolean {
    if (!this.running) return false;
    if (b === this.next) {
      this.next = b + n;
      return true;
    }
    this.toLengths();
    return false;
  }

  private toLengths(): void {
    const lengths = this.lengths;
    for (let i = this.next; i > 0; i--) lengths[i] -= lengths[i - 1]!;
    this.running = false;
  }

  /** The values read, as one buffer and offsets. */
  finish(): VLStrings {
    const total = this.total;
    let offsets: Uint32Array | Float64Array = this.lengths;
    if (this.running && total > 0xffffffff) this.toLengths();
    if (this.running) {
      // values after the last run (no run reached them: empty) end where it ended
      offsets.fill(total, this.next + 1);
    } else {
      if (total > 0xffffffff) offsets = Float64Array.from(offsets);
      for (let i = 1; i < offsets.length; i++) offsets[i] += offsets[i - 1]!;
    }
    let bytes: Uint8Array;
    if (this.inOrder) bytes = this.buf.length - total > total >>> 3 ? this.buf.slice(0, total) : this.buf.subarray(0, total);
    else {
      bytes = new Uint8Array(total);
      const { starts, buf } = this;
      for (let p = 0; p < starts.length; p++) {
        const a = this.at[p]!;
        const e = p + 1 < starts.length ? this.at[p + 1]! : total;
        bytes.set(buf.subarray(a, e), offsets[starts[p]!]!);
      }
    }
    return new VLStrings(bytes, offsets);
  }
}

/** The columnar form of a VL string dataset's values (core's `ObjectValues.columnar`). */
export function stringColumns(ascii: boolean, path: string): ColumnarValues {
  return {
    fromUser(data: unknown, count: number): unknown {
      if (!(data instanceof VLStrings)) return undefined;
      checkColumn(data, count, ascii, path);
      return data;
    },
    forRead: (count) => new ColumnRead(count),
    toUser: (payload) => (payload as ColumnRead).finish(),
  };
}

/**
 * Reads the string values of the request's runs into `col` (read positions from `base`): their
 * lengths, and their bytes staged with one copy per stretch of values adjacent in the heap (one per
 * run when the run's values lie back to back, as a chunk written at once stores them).
 */
export function readColumn(mem: VlChunk, runs: Float64Array, col: ColumnRead, base: number): void {
  if (col.inPlace !== null && mem.heap.buffer === col.inPlace) {
    // An in-place read: the values move down over the chunk's own entries (before its heap), which
    // are read while copying when there are several runs or copies (then copied out first); and a
    // heap is read in place only when its values are copied front to back (in heap order, one copy
    // per run, runs in chunk order): each copy then ends before the next one's bytes. Other heaps
    // are copied out of the way first.
    const inOrder = mem.words !== null && mem.defined === null && mem.inOrder && ascending(runs);
    if (mem.words !== null && (!inOrder || runs.length > 3)) mem.words = mem.words.slice();
    if (!inOrder) mem.heap = mem.heap.slice();
  }
  if (mem.words !== null && mem.defined === null) {
    readPacked(mem, mem.words, runs, col, base);
    return;
  }
  const { off, len, defined, heap } = mem;
  const lengths = col.lengths;
  for (let r = 0; r < runs.length; r += 3) {
    const c = runs[r]!;
    const b = base + runs[r + 1]!;
    const n = runs[r + 2]!;
    let total = 0;
    const running = col.continues(b, n);
    for (let k = 0; k < n; k++) {
      const i = c + k;
      const L = defined && !defined[i] ? 0 : len[i]!;
      total += L;
      lengths[b + k + 1] = running ? col.total + total : L;
    }
    col.seen += n;
    if (total === 0) continue;
    copyStretches(col.room(total), col.total, heap, off, c, len, c, 1, n, defined);
    col.added(b, total);
  }
}

/** Whether the runs' chunk offsets ascend without overlap. */
function ascending(runs: Float64Array): boolean {
  for (let r = 3; r < runs.length; r += 3) if (runs[r]! < runs[r - 3]! + runs[r - 1]!) return false;
  return true;
}

/**
 * {@link readColumn} for a dense chunk that keeps its stored entries (`w`: four words per element,
 * checked against the heap when decoded, so offset and length fit their low words).
 */
function readPacked(mem: VlChunk, w: Uint32Array, runs: Float64Array, col: ColumnRead, base: number): void {
  const heap = mem.heap;
  const lengths = col.lengths;
  for (let r = 0; r < runs.length; r += 3) {
    const c = runs[r]!;
    const b = base + runs[r + 1]!;
    const n = runs[r + 2]!;
    let total = 0;
    if (col.continues(b, n)) {
      const at = col.total;
      for (let k = 0, j = 4 * c + 2; k < n; k++, j += 4) {
        total += w[j]!;
        lengths[b + k + 1] = at + total;
      }
    } else {
      for (let k = 0, j = 4 * c + 2; k < n; k++, j += 4) {
        const L = w[j]!;
        lengths[b + k + 1] = L;
        total += L;
      }
    }
    col.seen += n;
    if (total === 0) continue;
    const buf = col.room(total);
    const at = col.total;
    if (mem.inOrder) {
      // the run's values are back to back in the heap from its first non-empty value's offset
      let j = 4 * c;
      while (w[j + 2] === 0) j += 4;
      copy(buf, at, heap, w[j]!, w[j]! + total);
      col.added(b, total);
      continue;
    }
    copyStretches(buf, at, heap, w, 4 * c, w, 4 * c + 2, 4, n);
    col.added(b, total);
  }
}

/**
 * Copies the non-empty values `k < n` (heap offset `offs[o0 + k·stride]`, length
 * `lens[l0 + k·stride]`) to `to` from `at`, one copy per stretch of values adjacent in the heap.
 */
function copyStretches(to: Uint8Array, at: number, heap: Uint8Array, offs: Uint32Array | Float64Array, o0: number, lens: Uint32Array | Float64Array, l0: number, stride: number, n: number, defined: Uint8Array | null = null): void {
  let s = -1; // the stretch being copied: heap[s, e)
  let e = -1;
  for (let k = 0, jo = o0, jl = l0; k < n; k++, jo += stride, jl += stride) {
    const L = defined !== null && !defined[o0 + k] ? 0 : lens[jl]!;
    if (L === 0) continue;
    const o = offs[jo]!;
    if (o !== e) {
      if (s >= 0) at += copy(to, at, heap, s, e);
      s = o;
    }
    e = o + L;
  }
  copy(to, at, heap, s, e);
}

function copy(to: Uint8Array, at: number, from: Uint8Array, s: number, e: number): number {
  to.set(from.subarray(s, e), at);
  return e - s;
}

/**
 * Writes the strings of `col` (checked) at the request's runs (column positions from `base`): a
 * run over elements without values is one copy of its byte range to the heap's end, with offsets
 * and lengths from the column's offsets; other runs store value by value.
 */
export function writeColumn(mem: VlChunk, runs: Float64Array, col: VLStrings, base: number): void {
  const { bytes, offsets } = col;
  change(mem);
  const { off, len } = mem;
  for (let r = 0; r < runs.length; r += 3) {
    const c = runs[r]!;
    const b = base + runs[r + 1]!;
    const n = runs[r + 2]!;
    let fresh = true;
    for (let k = 0; k < n && fresh; k++) fresh = len[c + k] === 0;
    if (!fresh) {
      for (let k = 0; k < n; k++) setBytes(mem, c + k, bytes.subarray(offsets[b + k]!, offsets[b + k + 1]!), 1);
      continue;
    }
    const o0 = offsets[b]!;
    const total = offsets[b + n]! - o0;
    if (total > 0) {
      ensure(mem, total);
      mem.heap.set(bytes.subarray(o0, o0 + total), mem.end);
    }
    const at = mem.end - o0;
    for (let k = 0; k < n; k++) {
      const i = c + k;
      const L = offsets[b + k + 1]! - offsets[b + k]!;
      off[i] = L === 0 ? 0 : at + offsets[b + k]!;
      len[i] = L;
      define(mem, i);
    }
    mem.end += total;
  }
}
