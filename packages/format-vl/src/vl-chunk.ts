/**
 * The memory form of a variable-length chunk (docs/format-vl.md §4): for every element of the chunk
 * its value's heap offset and length, the heap bytes themselves, and for sparse chunks which
 * elements are defined. Values are written into the heap in place when they fit where the old value
 * was (a shrinking value leaves unused bytes behind), otherwise appended; erased and overwritten
 * values only add to the unused-byte count, and {@link compact} takes the space back.
 * @module
 */
import { putAsciiBatch, putString, type VlCodec } from './vl-values.js';
import { firstNonAscii } from './vl-strings.js';

/** Bytes at the start of the heap that hold its unused-byte count. */
export const HEAP_HEADER = 4;

/**
 * One VL chunk in memory. Mutable: writes and erasures change it in place, each through
 * {@link change} first. The per-element offsets and lengths are built on first use: a chunk decoded
 * from the file, or built from a column in one pass, keeps its entries as the stored little-endian
 * words instead (`words`), which reads use as they are.
 */
export class VlChunk {
  private o: Float64Array | null = null;
  private l: Float64Array | null = null;
  /**
   * Entries as stored (docs/format-vl.md §3.1): four little-endian words per entry (offset low,
   * high, length low, high), one entry per element (dense) or per defined element in C order
   * (sparse); checked against the heap. Null once `off` / `len` are built.
   */
  words: Uint32Array | null = null;
  /** While `words` is set: the values lie in the heap in element order, back to back from its start (no unused bytes). */
  inOrder = false;
  /** Heap bytes; `[0, HEAP_HEADER)` is reserved, values live in `[HEAP_HEADER, end)`. */
  heap: Uint8Array = new Uint8Array(64);
  /** End of the used part of `heap`. */
  end = HEAP_HEADER;
  /** Bytes in `[HEAP_HEADER, end)` that no value uses. */
  unused = 0;
  /** Sparse chunks: number of defined elements. */
  count = 0;
  /** ASCII text of `heap[HEAP_HEADER, end)` when it is all ASCII (null: it is not; undefined: not known yet). */
  text: string | null | undefined = undefined;
  /**
   * The stored image of this unfiltered-layout dense chunk as it is now (entries section, then heap
   * section, checksums written), when it was built in one pass: stored as it is. `heap` is then a
   * view of it; {@link change} drops it and gives the chunk a heap of its own first.
   */
  image: Uint8Array | null = null;

  constructor(
    /** Elements of the chunk. */
    readonly n: number,
    /** Sparse chunks: 1 for each defined element; null for dense chunks (every element defined). */
    public defined: Uint8Array | null,
  ) {}

  /** Heap offset of each chunk element's value (from the start of the heap section). */
  get off(): Float64Array {
    if (this.o === null) this.unpack();
    return this.o!;
  }

  /** Length of each element's value in base elements (bytes for strings); 0 = empty. */
  get len(): Float64Array {
    if (this.l === null) this.unpack();
    return this.l!;
  }

  /** Builds `off` and `len` (from `words` when the chunk has them, else empty values). */
  private unpack(): void {
    const off = new Float64Array(this.n);
    const len = new Float64Array(this.n);
    const w = this.words;
    if (w) {
      const d = this.defined;
      for (let i = 0, k = 0; i < this.n; i++) {
        if (d && !d[i]) continue;
        const L = w[k + 2]! + w[k + 3]! * 0x100000000;
        if (L > 0) {
          off[i] = w[k]! + w[k + 1]! * 0x100000000;
          len[i] = L;
        }
        k += 4;
      }
      this.words = null;
    }
    this.o = off;
    this.l = len;
  }
}

/** A chunk of `n` elements without values (dense: all empty; sparse: none defined). */
export function emptyVlChunk(n: number, sparse: boolean): VlChunk {
  return new VlChunk(n, sparse ? new Uint8Array(n) : null);
}

/**
 * Called before any change to `mem`: its stored image no longer describes it, and a heap that is a
 * view of that image (which may be on its way to the file) is copied first. Entries stay as they are.
 */
export function change(mem: VlChunk): void {
  mem.text = undefined;
  if (mem.image === null) return;
  mem.image = null;
  const h = new Uint8Array(Math.max(64, mem.end + 4));
  h.set(mem.heap.subarray(0, mem.end));
  mem.heap = h;
}

/**
 * Makes room for `extra` more heap bytes (and the 4 of the checksum the stored section ends with):
 * the heap doubles, or grows to exactly what is needed when that is more (a chunk's values
 * written at once get a heap of their size).
 */
export function ensure(mem: VlChunk, extra: number): void {
  const need = mem.end + extra + 4;
  if (need <= mem.heap.length) return;
  const h = new Uint8Array(Math.max(need, mem.heap.length * 2));
  h.set(mem.heap.subarray(0, mem.end));
  mem.heap = h;
}

/** Bytes the value of element `i` occupies in the heap (0 for undefined or empty). */
function bytesOf(mem: VlChunk, i: number, bs: number): number {
  return mem.defined && !mem.defined[i] ? 0 : mem.len[i]! * bs;
}

/** Marks element `i` defined (sparse chunks). */
export function define(mem: VlChunk, i: number): void {
  if (mem.defined && !mem.defined[i]) {
    mem.defined[i] = 1;
    mem.count++;
  }
}

/** Element `i`'s new value is the `nb` bytes at the heap's end (or empty): the old value's `old` bytes become unused. */
function commit(mem: VlChunk, i: number, old: number, nb: number, bs: number): void {
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

/** Stores `bytes` (a whole number of base elements of `bs` bytes) as the value of element `i`. */
export function setBytes(mem: VlChunk, i: number, bytes: Uint8Array, bs: number): void {
  const old = bytesOf(mem, i, bs);
  change(mem);
  define(mem, i);
  const nb = bytes.length;
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
  commit(mem, i, old, nb, bs);
}

/** Stores `v` (checked by the codec's `fromUser`) as the value of element `i`. */
export function setValue(mem: VlChunk, i: number, v: unknown, codec: VlCodec, path: string): void {
  if (!codec.text) {
    setBytes(mem, i, codec.encode(v), codec.baseSize);
    return;
  }
  const old = bytesOf(mem, i, 1);
  change(mem);
  define(mem, i);
  const s = v as string;
  let nb = 0;
  if (old === 0 && s.length > 0) {
    // the common case: a new value appended where the heap has room
    nb = putString(mem.heap, mem.end, s, codec.ascii, path);
    if (nb >= 0) {
      commit(mem, i, 0, nb, 1);
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
  commit(mem, i, old, nb, 1);
}

/** Makes element `i` undefined (sparse) and frees its heap bytes. */
export function eraseValue(mem: VlChunk, i: number, bs: number): void {
  if (!mem.defined || !mem.defined[i]) return;
  change(mem);
  mem.unused += mem.len[i]! * bs;
  mem.off[i] = 0;
  mem.len[i] = 0;
  mem.defined[i] = 0;
  mem.count--;
}

const ascii = new TextDecoder('latin1');

/** The heap as text when every value byte is ASCII (one decode serves every value of the chunk). */
function textOf(mem: VlChunk): string | null {
  if (mem.text !== undefined) return mem.text;
  mem.text = firstNonAscii(mem.heap, HEAP_HEADER, mem.end) < 0 ? ascii.decode(mem.heap.subarray(HEAP_HEADER, mem.end)) : null;
  return mem.text;
}

/** A request of fewer than 1/TEXT_SHARE of a chunk's elements decodes its strings one by one, not the whole heap. */
const TEXT_SHARE = 8;

/** Reads the values of the request's runs into `values` (from `base`): fill for undefined elements. */
export function readValues(mem: VlChunk, runs: Float64Array, values: unknown[], base: number, codec: VlCodec, count: number): void {
  const text = codec.text && (mem.text !== undefined || count * TEXT_SHARE >= mem.n) ? textOf(mem) : null;
  const fill = codec.fill();
  const { defined, heap } = mem;
  // dense chunks with their stored entries: read from those, one entry per element
  const w = defined ? null : mem.words;
  const off = w ? null : mem.off;
  const len = w ? null : mem.len;
  for (let r = 0; r < runs.length; r += 3) {
    const c = runs[r]!;
    const b = base + runs[r + 1]!;
    const n = runs[r + 2]!;
    for (let k = 0; k < n; k++) {
      const i = c + k;
      const L = w ? w[4 * i + 2]! + w[4 * i + 3]! * 0x100000000 : len![i]!;
      if (L === 0 || (defined && !defined[i])) {
        values[b + k] = fill;
        continue;
      }
      const o = w ? w[4 * i]! + w[4 * i + 1]! * 0x100000000 : off![i]!;
      if (text !== null) values[b + k] = text.substring(o - HEAP_HEADER, o - HEAP_HEADER + L);
      else values[b + k] = codec.decode(heap, o, L);
    }
  }
}

/** Writes the values of the request's runs from `values` (from `base`). */
export function writeValues(mem: VlChunk, runs: Float64Array, values: readonly unknown[], base: number, codec: VlCodec, path: string): void {
  change(mem);
  if (codec.text) {
    // new strings (the elements hold none yet) are appended in batches; room for their ASCII bytes at once
    let chars = 0;
    let fresh = true;
    for (let r = 0; r < runs.length && fresh; r += 3) {
      const b = base + runs[r + 1]!;
      const c = runs[r]!;
      for (let k = 0; k < runs[r + 2]!; k++) {
        chars += (values[b + k] as string).length;
        if (mem.len[c + k] !== 0) {
          fresh = false;
          break;
        }
      }
    }
    if (fresh) {
      ensure(mem, chars);
      appendText(mem, runs, values, base, codec, path);
      return;
    }
  }
  for (let r = 0; r < runs.length; r += 3) {
    const c = runs[r]!;
    const b = base + runs[r + 1]!;
    const n = runs[r + 2]!;
    for (let k = 0; k < n; k++) setValue(mem, c + k, values[b + k], codec, path);
  }
}

/** Strings joined per `encodeInto` when appending: small joins stay in V8's young generation. */
const JOIN = 64;

/**
 * Appends the strings of elements that hold no value yet, `JOIN` at a time: each batch is joined
 * and encoded with one `encodeInto`; when that writes one byte per character (all ASCII) each
 * value's offset follows from the string lengths, otherwise the batch's strings are encoded one by
 * one. The heap has room for the ASCII bytes of every string (`ensure` by the caller).
 */
function appendText(mem: VlChunk, runs: Float64Array, values: readonly unknown[], base: number, codec: VlCodec, path: string): void {
  const { off, len } = mem;
  const parts: string[] = [];
  for (let r = 0; r < runs.length; r += 3) {
    const c = runs[r]!;
    const b = base + runs[r + 1]!;
    const n = runs[r + 2]!;
    for (let k = 0; k < n; k += JOIN) {
      const m = Math.min(JOIN, n - k);
      parts.length = m;
      let chars = 0;
      for (let q = 0; q < m; q++) chars += (parts[q] = values[b + k + q] as string).length;
      if (mem.end + chars + 4 > mem.heap.length) ensure(mem, chars);
      if (putAsciiBatch(parts, chars, mem.heap, mem.end)) {
        let at = mem.end;
        for (let q = 0; q < m; q++) {
          const i = c + k + q;
          const L = parts[q]!.length;
          off[i] = L === 0 ? 0 : at;
          len[i] = L;
          at += L;
          define(mem, i);
        }
        mem.end = at;
      } else {
        // not all ASCII: one string at a time (UTF-8, or the ASCII charset's refusal)
        for (let q = 0; q < m; q++) setValue(mem, c + k + q, parts[q], codec, path);
      }
    }
  }
  mem.text = undefined;
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
  change(mem);
  const h = new Uint8Array(Math.max(64, HEAP_HEADER + live + 4)); // (+ the checksum of the stored section)
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
}
