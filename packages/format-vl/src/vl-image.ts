/**
 * Whole dense VL chunks built as their stored image in one pass (docs/format-vl.md §5.1): when a
 * write covers every element of a chunk, the entries section and the heap section are written
 * straight into one buffer — the heap's value bytes in element order, the entries computed from the
 * value lengths, one lookup3 per section — with no per-element arrays and no copy into an image
 * afterwards. The chunk keeps the image (`VlChunk.image`) and stores it as it is when its layout
 * has no filters; a later change copies the heap first (`change`).
 * @module
 */
import { HEAP_HEADER, VlChunk } from './vl-chunk.js';
import { ENTRY_SIZE, LITTLE_ENDIAN, seal, sealPair } from './vl-sections.js';
import type { VLOffsets } from './vl-strings.js';
import { putAsciiBatch } from './vl-values.js';
import { giveBack, takeImage } from './vl-image-pool.js';

/** Strings joined per `encodeInto` (as `appendText` does). */
const JOIN = 64;

/**
 * A chunk of `n` elements over an image with `values` heap bytes (in a kept buffer when one fits:
 * ./vl-image-pool.ts): its heap's unused-byte count zero, and its entries zero (every value empty)
 * unless `covered` says the caller writes every entry.
 */
function imageChunk(n: number, values: number, covered: boolean, into?: VlChunk): { mem: VlChunk; image: Uint8Array; words: Uint32Array; eb: number } {
  const eb = n * ENTRY_SIZE + 4;
  const { image, reused } = takeImage(eb + (values > 0 ? HEAP_HEADER + values + 4 : 0));
  const words = new Uint32Array(image.buffer, 0, n * 4);
  if (reused) {
    if (!covered) words.fill(0);
    if (values > 0) image.fill(0, eb, eb + HEAP_HEADER);
  }
  const mem = into ?? new VlChunk(n, null);
  mem.words = words;
  return { mem, image, words, eb };
}

/** Seals both sections (heap values end at `end`) and hands the image to the chunk. */
function finish(mem: VlChunk, image: Uint8Array, eb: number, end: number): VlChunk {
  if (end > HEAP_HEADER) sealPair(image.subarray(0, eb), image.subarray(eb));
  else seal(image.subarray(0, eb));
  adoptImage(mem, image);
  return mem;
}

/**
 * Gives the dense chunk `mem` (of `mem.n` elements, no values yet) the sealed stored image `image`
 * built in one pass (here, or in a shared slab: ./vl-image-offload.ts): its entries words, heap and image.
 */
export function adoptImage(mem: VlChunk, image: Uint8Array): void {
  const eb = mem.n * ENTRY_SIZE + 4;
  mem.words = new Uint32Array(image.buffer, image.byteOffset, mem.n * 4);
  if (image.length > eb) {
    mem.end = image.length - eb - 4;
    mem.heap = image.subarray(eb, eb + mem.end);
  }
  mem.image = image;
}

/** Strings as one byte buffer and the offsets of each (a `VLStrings`, or its staged copy). */
export interface ColumnBytes {
  /** The bytes: those at offset `o` are at `bytes[o - origin]`. */
  readonly bytes: Uint8Array;
  readonly offsets: VLOffsets;
  /** Offset of `bytes[0]` (default 0: a part of a column staged with its offsets as they are). */
  readonly origin?: number;
}

/**
 * A whole dense chunk of `n` elements from the strings of `col` (checked) at the request's runs
 * (column positions from `base`): one copy of each run's bytes, the entries from the column's
 * offsets. Null on a big-endian host (the caller writes value by value). `into`: an empty dense
 * chunk of `n` elements to build it in (./vl-deferred.ts), else a new one.
 */
export function columnChunk(n: number, runs: Float64Array, col: ColumnBytes, base: number, into?: VlChunk): VlChunk | null {
  if (!LITTLE_ENDIAN) return null;
  const { bytes, offsets, origin = 0 } = col;
  let total = 0;
  let count = 0;
  for (let r = 0; r < runs.length; r += 3) {
    const b = base + runs[r + 1]!;
    count += runs[r + 2]!;
    total += offsets[b + runs[r + 2]!]! - offsets[b]!;
  }
  // (the runs of a request do not overlap: `count === n` covers every entry)
  const { mem, image, words, eb } = imageChunk(n, total, count === n, into);
  let at = HEAP_HEADER; // (heap offsets count from the heap section's start)
  for (let r = 0; r < runs.length; r += 3) {
    const c = runs[r]!;
    const b = base + runs[r + 1]!;
    const m = runs[r + 2]!;
    const o0 = offsets[b]!;
    const nb = offsets[b + m]! - o0;
    if (nb > 0) image.set(bytes.subarray(o0 - origin, o0 - origin + nb), eb + at);
    entriesOf(words, c, offsets, b, m, at - o0, image.length - eb >= 0x80000000);
    at += nb;
  }
  return finish(mem, image, eb, at);
}

/**
 * Entries (all four words) of the `m` elements from `c` for the column's strings from `b`, heap
 * offset = column offset + `shift` (0 when empty). `wide`: a heap offset may reach 2^31 (else every
 * high word is 0, and 32-bit offsets below 2^31 are read and the entries written as int32).
 */
export function entriesOf(w: Uint32Array, c: number, offsets: VLOffsets, b: number, m: number, shift: number, wide: boolean): void {
  if (!wide && offsets instanceof Uint32Array && offsets[b + m]! < 0x80000000) {
    // (int32 loads and stores: no conversions through doubles)
    const o = new Int32Array(offsets.buffer, offsets.byteOffset + 4 * b, m + 1);
    const e = new Int32Array(w.buffer, w.byteOffset + ENTRY_SIZE * c, 4 * m);
    let prev = o[0]!;
    for (let k = 0, j = 0; k < m; k++, j += 4) {
      const next = o[k + 1]!;
      const L = (next - prev) | 0;
      e[j] = L > 0 ? (prev + shift) | 0 : 0;
      e[j + 1] = 0;
      e[j + 2] = L;
      e[j + 3] = 0;
      prev = next;
    }
    return;
  }
  let prev = offsets[b]!;
  for (let k = 0, j = 4 * c; k < m; k++, j += 4) {
    const next = offsets[b + k + 1]!;
    const L = next - prev;
    const o = L > 0 ? prev + shift : 0;
    // (a Uint32Array store keeps the value modulo 2^32; the high word truncates the quotient)
    w[j] = o;
    w[j + 1] = o / 0x100000000;
    w[j + 2] = L;
    w[j + 3] = L / 0x100000000;
    prev = next;
  }
}

/**
 * A whole dense chunk of `n` elements from the strings `values` (checked) at the request's runs
 * (positions from `base`), when every one is ASCII: strings joined and encoded `JOIN` at a time
 * straight into the heap section, each value's entry from its length. Null when a string is not
 * ASCII, or on a big-endian host (the caller then writes value by value, which encodes UTF-8 or
 * refuses the string for an ASCII dataset). `into`: as {@link columnChunk}'s (left empty when null).
 */
export function textChunk(n: number, runs: Float64Array, values: readonly unknown[], base: number, into?: VlChunk): VlChunk | null {
  if (!LITTLE_ENDIAN) return null;
  let chars = 0;
  for (let r = 0; r < runs.length; r += 3) {
    const b = base + runs[r + 1]!;
    for (let k = 0; k < runs[r + 2]!; k++) chars += (values[b + k] as string).length;
  }
  const { mem, image, words, eb } = imageChunk(n, chars, false, into);
  const parts: string[] = [];
  let at = HEAP_HEADER;
  for (let r = 0; r < runs.length; r += 3) {
    const c = runs[r]!;
    const b = base + runs[r + 1]!;
    const m = runs[r + 2]!;
    for (let k = 0; k < m; k += JOIN) {
      const mm = Math.min(JOIN, m - k);
      parts.length = mm;
      let cc = 0;
      for (let q = 0; q < mm; q++) cc += (parts[q] = values[b + k + q] as string).length;
      if (!putAsciiBatch(parts, cc, image, eb + at)) {
        giveBack(image); // (not handed out)
        if (into) into.words = null; // (left empty)
        return null;
      }
      for (let q = 0, j = 4 * (c + k); q < mm; q++, j += 4) {
        const L = parts[q]!.length;
        if (L > 0) {
          words[j] = at;
          words[j + 2] = L;
          at += L;
        }
      }
    }
  }
  return finish(mem, image, eb, at);
}
