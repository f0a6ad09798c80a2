/**
 * VL string chunks ↔ columnar strings ({@link VLStrings}, docs/format-vl.md §5.1): a write copies
 * each run's byte range straight into the chunk's heap and computes the entries from the offsets;
 * a read collects each run's bytes (one copy per stretch of values adjacent in the heap) and the
 * value lengths, and joins them into one buffer with offsets at the end. No JS string is made.
 * @module
 */
import type { ColumnarValues } from '@chunkform/core';
import { define, ensure, setBytes, type VlChunk } from './vl-chunk.js';
import { VLStrings, checkColumn } from './vl-strings.js';

/** A columnar read in progress: the lengths of the values and the bytes of each run. */
export class ColumnRead {
  /** Byte length of each value of the read (0: empty or undefined). */
  readonly lengths: Float64Array;
  /** Bytes of the runs read so far … */
  readonly pieces: Uint8Array[] = [];
  /** … and the read position of each piece's first value. */
  readonly starts: number[] = [];

  constructor(count: number) {
    this.lengths = new Float64Array(count);
  }

  /** The values read, as one buffer and offsets. */
  finish(): VLStrings {
    const n = this.lengths.length;
    let total = 0;
    for (let i = 0; i < n; i++) total += this.lengths[i]!;
    const offsets = total > 0xffffffff ? new Float64Array(n + 1) : new Uint32Array(n + 1);
    let at = 0;
    for (let i = 0; i < n; i++) {
      offsets[i] = at;
      at += this.lengths[i]!;
    }
    offsets[n] = at;
    const bytes = new Uint8Array(total);
    for (let p = 0; p < this.pieces.length; p++) bytes.set(this.pieces[p]!, offsets[this.starts[p]!]!);
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
 * Reads the string values of the request's runs into `col` (read positions from `base`). A piece
 * is a view of the heap when the run's values lie back to back in it (the read holds the dataset:
 * no write changes the heap before `finish`), otherwise the values are gathered a stretch at a time.
 */
export function readColumn(mem: VlChunk, runs: Float64Array, col: ColumnRead, base: number): void {
  const { off, len, defined, heap } = mem;
  const lengths = col.lengths;
  for (let r = 0; r < runs.length; r += 3) {
    const c = runs[r]!;
    const b = base + runs[r + 1]!;
    const n = runs[r + 2]!;
    let total = 0;
    let from = -1; // heap start of the run's values when they are back to back
    let next = -1;
    for (let k = 0; k < n; k++) {
      const i = c + k;
      const L = defined && !defined[i] ? 0 : len[i]!;
      lengths[b + k] = L;
      if (L === 0) continue;
      if (from === -1) from = next = off[i]!;
      else if (next !== off[i]!) next = -2;
      if (next >= 0) next += L;
      total += L;
    }
    if (total === 0) continue;
    let piece: Uint8Array;
    if (next >= 0) piece = heap.subarray(from, from + total);
    else {
      piece = new Uint8Array(total);
      let at = 0;
      let s = -1; // the stretch being gathered: heap[s, e)
      let e = -1;
      for (let k = 0; k < n; k++) {
        const L = lengths[b + k]!;
        if (L === 0) continue;
        const o = off[c + k]!;
        if (o !== e) {
          if (s >= 0) at += copy(piece, at, heap, s, e);
          s = o;
        }
        e = o + L;
      }
      copy(piece, at, heap, s, e);
    }
    col.pieces.push(piece);
    col.starts.push(b);
  }
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
  const { off, len } = mem;
  mem.text = undefined;
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
