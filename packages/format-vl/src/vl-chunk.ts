/**
 * The memory form of a variable-length chunk (docs/format-vl.md §4): for every element of the chunk
 * its value's heap offset and length, the heap bytes themselves, and for sparse chunks which
 * elements are defined. Values are written into the heap in place when they fit where the old value
 * was (a shrinking value leaves unused bytes behind), otherwise appended; erased and overwritten
 * values only add to the unused-byte count, and {@link compact} takes the space back.
 * @module
 */
import { putString, type VlCodec } from './vl-values.js';

/** Bytes at the start of the heap that hold its unused-byte count. */
export const HEAP_HEADER = 4;

/** One VL chunk in memory. Mutable: writes and erasures change it in place. */
export interface VlChunk {
  /** Heap offset of each chunk element's value (from the start of the heap section). */
  off: Float64Array;
  /** Length of each element's value in base elements (bytes for strings); 0 = empty. */
  len: Float64Array;
  /** Heap bytes; `[0, HEAP_HEADER)` is reserved, values live in `[HEAP_HEADER, end)`. */
  heap: Uint8Array;
  /** End of the used part of `heap`. */
  end: number;
  /** Bytes in `[HEAP_HEADER, end)` that no value uses. */
  unused: number;
  /** Sparse chunks: 1 for each defined element; null for dense chunks (every element defined). */
  defined: Uint8Array | null;
  /** Sparse chunks: number of defined elements. */
  count: number;
  /** ASCII text of `heap[HEAP_HEADER, end)` when it is all ASCII (null: it is not; undefined: not known yet). */
  text?: string | null | undefined;
}

/** A chunk of `n` elements without values (dense: all empty; sparse: none defined). */
export function emptyVlChunk(n: number, sparse: boolean): VlChunk {
  return {
    off: new Float64Array(n),
    len: new Float64Array(n),
    heap: new Uint8Array(64),
    end: HEAP_HEADER,
    unused: 0,
    defined: sparse ? new Uint8Array(n) : null,
    count: 0,
    text: undefined,
  };
}

/** Makes room for `extra` more heap bytes. */
export function ensure(mem: VlChunk, extra: number): void {
  const need = mem.end + extra;
  if (need <= mem.heap.length) return;
  let cap = mem.heap.length * 2;
  while (cap < need) cap *= 2;
  const h = new Uint8Array(cap);
  h.set(mem.heap.subarray(0, mem.end));
  mem.heap = h;
}

/** Bytes the value of element `i` occupies in the heap (0 for undefined or empty). */
function bytesOf(mem: VlChunk, i: number, bs: number): number {
  return mem.defined && !mem.defined[i] ? 0 : mem.len[i]! * bs;
}

/** Stores `v` (checked by the codec's `fromUser`) as the value of element `i`. */
export function setValue(mem: VlChunk, i: number, v: unknown, codec: VlCodec, path: string): void {
  const bs = codec.baseSize;
  const old = bytesOf(mem, i, bs);
  mem.text = undefined;
  if (mem.defined && !mem.defined[i]) {
    mem.defined[i] = 1;
    mem.count++;
  }
  let nb: number;
  if (codec.text) {
    const s = v as string;
    if (old === 0 && s.length > 0) {
      // the common case: a new value appended where the heap has room
      nb = putString(mem.heap, mem.end, s, codec.ascii, path);
      if (nb >= 0) {
        mem.off[i] = mem.end;
        mem.len[i] = nb;
        mem.end += nb;
        return;
      }
    }
    if (s.length === 0) nb = 0;
    else if (s.length * 3 <= old) {
      // fits where the old value was whatever its encoding
      nb = putString(mem.heap, mem.off[i]!, s, codec.ascii, path);
      mem.len[i] = nb;
      mem.unused += old - nb;
      return;
    } else {
      ensure(mem, s.length * 3);
      nb = putString(mem.heap, mem.end, s, codec.ascii, path);
      if (nb <= old && nb > 0) {
        mem.heap.copyWithin(mem.off[i]!, mem.end, mem.end + nb);
        mem.len[i] = nb;
        mem.unused += old - nb;
        return;
      }
    }
  } else {
    const bytes = codec.encode(v);
    nb = bytes.length;
    if (nb > 0 && nb <= old) {
      mem.heap.set(bytes, mem.off[i]!);
      mem.len[i] = nb / bs;
      mem.unused += old - nb;
      return;
    }
    if (nb > 0) {
      ensure(mem, nb);
      mem.heap.set(bytes, mem.end);
    }
  }
  mem.unused += old;
  if (nb === 0) {
    mem.off[i] = 0;
    mem.len[i] = 0;
    return;
  }
  mem.off[i] = mem.end;
  mem.len[i] = nb / bs;
  mem.end += nb;
}

/** Makes element `i` undefined (sparse) and frees its heap bytes. */
export function eraseValue(mem: VlChunk, i: number, bs: number): void {
  if (!mem.defined || !mem.defined[i]) return;
  mem.unused += mem.len[i]! * bs;
  mem.off[i] = 0;
  mem.len[i] = 0;
  mem.defined[i] = 0;
  mem.count--;
  mem.text = undefined;
}

const ascii = new TextDecoder('latin1');

/** The heap as text when every value byte is ASCII (one decode serves every value of the chunk). */
function textOf(mem: VlChunk): string | null {
  if (mem.text !== undefined) return mem.text;
  const h = mem.heap;
  let hi = 0;
  for (let i = HEAP_HEADER; i < mem.end; i++) hi |= h[i]!;
  mem.text = hi < 0x80 ? ascii.decode(h.subarray(HEAP_HEADER, mem.end)) : null;
  return mem.text;
}

/** Reads the values of the request's runs into `values` (from `base`): fill for undefined elements. */
export function readValues(mem: VlChunk, runs: Float64Array, values: unknown[], base: number, codec: VlCodec): void {
  const text = codec.text ? textOf(mem) : null;
  const fill = codec.fill();
  const { off, len, defined, heap } = mem;
  for (let r = 0; r < runs.length; r += 3) {
    const c = runs[r]!;
    const b = base + runs[r + 1]!;
    const n = runs[r + 2]!;
    for (let k = 0; k < n; k++) {
      const i = c + k;
      const L = len[i]!;
      if (L === 0 || (defined && !defined[i])) values[b + k] = fill;
      else if (text !== null) {
        const o = off[i]! - HEAP_HEADER;
        values[b + k] = text.substring(o, o + L);
      } else values[b + k] = codec.decode(heap, off[i]!, L);
    }
  }
}

/** Writes the values of the request's runs from `values` (from `base`). */
export function writeValues(mem: VlChunk, runs: Float64Array, values: readonly unknown[], base: number, codec: VlCodec, path: string): void {
  if (codec.text) {
    // room for the new strings at once (ASCII: exact; others grow as they go)
    let chars = 0;
    let fresh = true;
    for (let r = 0; r < runs.length; r += 3) {
      const b = base + runs[r + 1]!;
      const c = runs[r]!;
      for (let k = 0; k < runs[r + 2]!; k++) {
        chars += (values[b + k] as string).length;
        if (mem.len[c + k] !== 0) fresh = false;
      }
    }
    ensure(mem, chars);
    if (fresh && appendText(mem, runs, values, base)) return;
  }
  for (let r = 0; r < runs.length; r += 3) {
    const c = runs[r]!;
    const b = base + runs[r + 1]!;
    const n = runs[r + 2]!;
    for (let k = 0; k < n; k++) setValue(mem, c + k, values[b + k], codec, path);
  }
}

const utf8 = new TextEncoder();

/**
 * Appends the strings of elements that hold no value yet in one `encodeInto` of their
 * concatenation: when that writes one byte per character (all ASCII), each value's offset follows
 * from the string lengths. False (nothing changed) otherwise.
 */
function appendText(mem: VlChunk, runs: Float64Array, values: readonly unknown[], base: number): boolean {
  const parts: string[] = runs.length === 3 ? (values.slice(base + runs[1]!, base + runs[1]! + runs[2]!) as string[]) : [];
  for (let r = 0; runs.length !== 3 && r < runs.length; r += 3) {
    const b = base + runs[r + 1]!;
    for (let k = 0; k < runs[r + 2]!; k++) parts.push(values[b + k] as string);
  }
  const joined = parts.join('');
  const res = utf8.encodeInto(joined, mem.heap.subarray(mem.end));
  if (res.read !== joined.length || res.written !== joined.length) return false;
  let at = mem.end;
  const { off, len, defined } = mem;
  let p = 0;
  for (let r = 0; r < runs.length; r += 3) {
    const c = runs[r]!;
    for (let k = 0; k < runs[r + 2]!; k++) {
      const n = parts[p++]!.length;
      const i = c + k;
      off[i] = n === 0 ? 0 : at;
      len[i] = n;
      at += n;
      if (defined && !defined[i]) {
        defined[i] = 1;
        mem.count++;
      }
    }
  }
  mem.end = at;
  mem.text = undefined;
  return true;
}

/** Writes empty values over the request's runs (element bytes of zeros: the VL fill). */
export function writeEmpty(mem: VlChunk, runs: Float64Array, codec: VlCodec, path: string): void {
  const empty = codec.fill();
  for (let r = 0; r < runs.length; r += 3) {
    const c = runs[r]!;
    for (let k = 0; k < runs[r + 2]!; k++) setValue(mem, c + k, empty, codec, path);
  }
}

/** Bytes of live values (the heap without its header and unused bytes). */
export function liveBytes(mem: VlChunk): number {
  return mem.end - HEAP_HEADER - mem.unused;
}

/**
 * Takes the unused heap bytes back once they are at least half of the heap: the live values are
 * copied, in element order, into a new heap. Values and their order do not change.
 */
export function compact(mem: VlChunk, bs: number, force = false): void {
  if (mem.unused === 0) return;
  const live = liveBytes(mem);
  if (!force && mem.unused < live) return;
  const h = new Uint8Array(Math.max(64, HEAP_HEADER + live));
  let at = HEAP_HEADER;
  const { off, len, defined, heap } = mem;
  for (let i = 0; i < off.length; i++) {
    const L = len[i]! * bs;
    if (L === 0 || (defined && !defined[i])) continue;
    h.set(heap.subarray(off[i]!, off[i]! + L), at);
    off[i] = at;
    at += L;
  }
  mem.heap = h;
  mem.end = at;
  mem.unused = 0;
  mem.text = undefined;
}
