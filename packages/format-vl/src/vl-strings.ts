/**
 * Columnar variable-length strings: one UTF-8 byte buffer plus `n + 1` offsets (Apache Arrow's
 * string array layout), so a million strings cross `Dataset.write` / `Dataset.readColumnar`
 * without a million JS strings (docs/format-vl.md §5.1). Strings are decoded only when asked for.
 * @module
 */
import { ValueError } from '@chunkform/core';
import { putAsciiBatch } from './vl-values.js';

/** The offsets of a {@link VLStrings}: `offsets[i]…offsets[i + 1]` are the bytes of string `i`. */
export type VLOffsets = Uint32Array | Float64Array;

const utf8 = new TextDecoder('utf-8');
const latin1 = new TextDecoder('latin1');
const utf8enc = new TextEncoder();
/** Strings joined per `encodeInto` in {@link VLStrings.from}. */
const JOIN = 64;

/**
 * Variable-length strings in columnar form: the UTF-8 bytes of all strings back to back in
 * `bytes`, string `i` at `bytes[offsets[i] … offsets[i + 1])`. `Dataset.write` of a VL string
 * dataset (`@chunkform/format-vl`) accepts one (the bytes are copied into the chunks' heaps as
 * they are) and `dataset.readColumnar<VLStrings>()` returns one (built from the heaps with one copy
 * per run of values), neither creating a JS string per value.
 * @example
 * const col = VLStrings.from(['first line', 'second line']);
 * await d.write(col, selectHyperslab({ start: [0], count: [2] }));
 * const back = await d.readColumnar<VLStrings>();
 * back.get(1); // 'second line'
 */
export class VLStrings implements Iterable<string> {
  /** ASCII text of all bytes (null: not all ASCII; undefined: not known yet). */
  private text: string | null | undefined;

  /**
   * Wraps `bytes` and `offsets` as they are (no copy, no check: `Dataset.write` checks that the
   * offsets never decrease and stay within `bytes`, and that the bytes are valid UTF-8 or ASCII).
   */
  constructor(
    /** The UTF-8 bytes of the strings, back to back. */
    readonly bytes: Uint8Array,
    /** `length + 1` offsets into `bytes`, never decreasing. */
    readonly offsets: VLOffsets,
  ) {}

  /** Number of strings. */
  get length(): number {
    return Math.max(0, this.offsets.length - 1);
  }

  /** The UTF-8 byte length of string `i`. */
  byteLength(i: number): number {
    this.check(i);
    return this.offsets[i + 1]! - this.offsets[i]!;
  }

  /** String `i`, decoded now. */
  get(i: number): string {
    this.check(i);
    const a = this.offsets[i]!;
    const b = this.offsets[i + 1]!;
    const text = this.asText();
    return text !== null ? text.substring(a - this.offsets[0]!, b - this.offsets[0]!) : utf8.decode(this.bytes.subarray(a, b));
  }

  /** The strings in order, decoded one at a time. */
  *[Symbol.iterator](): Iterator<string> {
    for (let i = 0; i < this.length; i++) yield this.get(i);
  }

  /** All strings as a `string[]` (ASCII data is decoded once as a whole and cut). */
  toArray(): string[] {
    const n = this.length;
    const out = new Array<string>(n);
    const o = this.offsets;
    const text = this.asText();
    if (text !== null) {
      const o0 = o[0]!;
      for (let i = 0; i < n; i++) out[i] = text.substring(o[i]! - o0, o[i + 1]! - o0);
    } else {
      for (let i = 0; i < n; i++) out[i] = utf8.decode(this.bytes.subarray(o[i]!, o[i + 1]!));
    }
    return out;
  }

  /**
   * Encodes `strings` as UTF-8 into one buffer: strings are joined 64 at a time and encoded at once,
   * each batch that is all ASCII taking its offsets from the string lengths.
   * @throws ValueError when an element is not a string.
   */
  static from(strings: readonly string[]): VLStrings {
    const n = strings.length;
    let chars = 0;
    for (let i = 0; i < n; i++) {
      const s = strings[i];
      if (typeof s !== 'string') throw new ValueError(`element ${i} is ${s === null ? 'null' : typeof s}, not a string`);
      chars += s.length;
    }
    const offsets: VLOffsets = chars * 3 > 0xffffffff ? new Float64Array(n + 1) : new Uint32Array(n + 1);
    let buf = new Uint8Array(chars);
    let at = 0;
    const parts: string[] = [];
    const room = (extra: number): void => {
      if (at + extra <= buf.length) return;
      const b = new Uint8Array(Math.max(at + extra, buf.length * 2));
      b.set(buf.subarray(0, at));
      buf = b;
    };
    for (let k = 0; k < n; k += JOIN) {
      const m = Math.min(JOIN, n - k);
      parts.length = m;
      let c = 0;
      for (let q = 0; q < m; q++) c += (parts[q] = strings[k + q]!).length;
      room(c);
      if (putAsciiBatch(parts, c, buf, at)) {
        for (let q = 0; q < m; q++) {
          offsets[k + q] = at;
          at += parts[q]!.length;
        }
      } else {
        for (let q = 0; q < m; q++) {
          offsets[k + q] = at;
          room(parts[q]!.length * 3);
          at += utf8enc.encodeInto(parts[q]!, buf.subarray(at)).written;
        }
      }
    }
    offsets[n] = at;
    return new VLStrings(buf.subarray(0, at), offsets);
  }

  private check(i: number): void {
    if (!Number.isInteger(i) || i < 0 || i >= this.length) throw new ValueError(`string index ${i} is outside 0…${this.length - 1}`);
  }

  private asText(): string | null {
    if (this.text === undefined) {
      const n = this.length;
      const a = n === 0 ? 0 : this.offsets[0]!;
      const b = n === 0 ? 0 : this.offsets[n]!;
      this.text = firstNonAscii(this.bytes, a, b) < 0 ? latin1.decode(this.bytes.subarray(a, b)) : null;
    }
    return this.text;
  }
}

/**
 * Node's `buffer.isAscii` / `isUtf8` (simdutf) where the runtime offers them without an import
 * (`process.getBuiltinModule`, Node ≥ 20.16); null elsewhere (browsers, older Node: the checks below
 * run in JavaScript).
 */
const nodeBuffer = ((): { isAscii: (b: Uint8Array) => boolean; isUtf8: (b: Uint8Array) => boolean } | null => {
  const p = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const m = (typeof p?.getBuiltinModule === 'function' ? p.getBuiltinModule('node:buffer') : undefined) as { isAscii?: unknown; isUtf8?: unknown } | undefined;
  return m && typeof m.isAscii === 'function' && typeof m.isUtf8 === 'function' ? (m as { isAscii: (b: Uint8Array) => boolean; isUtf8: (b: Uint8Array) => boolean }) : null;
})();

/** Below this many bytes the JavaScript scan is as quick as a call into the runtime. */
const NATIVE_SCAN = 1024;

/** Position of the first byte ≥ 0x80 in `bytes[a…b)`, or -1. */
export function firstNonAscii(bytes: Uint8Array, a: number, b: number): number {
  if (nodeBuffer && b - a >= NATIVE_SCAN && nodeBuffer.isAscii(bytes.subarray(a, b))) return -1;
  let i = a;
  // to a 4-byte boundary, then eight words at a time until a block with a high bit, then word by word
  const w = (bytes.byteOffset + i) & 3;
  for (let k = 0; k < ((4 - w) & 3) && i < b; k++, i++) if (bytes[i]! >= 0x80) return i;
  if (i + 4 <= b) {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset + i, (b - i) >>> 2);
    const nw = words.length;
    let j = 0;
    for (; j + 8 <= nw; j += 8) {
      const or = words[j]! | words[j + 1]! | words[j + 2]! | words[j + 3]! | words[j + 4]! | words[j + 5]! | words[j + 6]! | words[j + 7]!;
      if ((or & 0x80808080) !== 0) break;
    }
    for (; j < nw; j++) if ((words[j]! & 0x80808080) !== 0) break;
    i += j * 4;
  }
  for (; i < b; i++) if (bytes[i]! >= 0x80) return i;
  return -1;
}

/** Index of the first offset after 0 that is below its predecessor or not an integer, or -1. */
function badOffset(offsets: VLOffsets, count: number): number {
  if (offsets instanceof Uint32Array) {
    // integers by type: only the order to check
    let prev = offsets[0]!;
    for (let i = 1; i <= count; i++) {
      const o = offsets[i]!;
      if (o < prev) return i;
      prev = o;
    }
    return -1;
  }
  let prev = offsets[0]!;
  for (let i = 1; i <= count; i++) {
    const o = offsets[i]!;
    if (!(o >= prev) || !Number.isInteger(o)) return i;
    prev = o;
  }
  return -1;
}

const fatal = new TextDecoder('utf-8', { fatal: true });

/**
 * Checks user columnar strings for `count` elements of dataset `path` before anything is written:
 * `count + 1` integer offsets, never decreasing, within `bytes`; ASCII bytes for an ASCII dataset,
 * valid UTF-8 per string otherwise.
 * @throws ValueError naming the dataset and the offending offset or string.
 */
export function checkColumn(col: VLStrings, count: number, ascii: boolean, path: string): void {
  const { bytes, offsets } = col;
  if (!(bytes instanceof Uint8Array) || !(offsets instanceof Uint32Array || offsets instanceof Float64Array)) {
    throw new ValueError('columnar strings need a Uint8Array of bytes and Uint32Array or Float64Array offsets', { path });
  }
  if (offsets.length !== count + 1) throw new ValueError(`${Math.max(0, offsets.length - 1)} columnar strings given for ${count} elements`, { path });
  const first = offsets[0]!;
  if (!Number.isInteger(first) || first < 0) throw new ValueError(`columnar string offset 0 is ${first}, not a byte position`, { path });
  const bad = badOffset(offsets, count);
  if (bad > 0) throw new ValueError(`columnar string offsets are not monotone: offset ${bad} is ${offsets[bad]}, offset ${bad - 1} is ${offsets[bad - 1]}`, { path });
  const prev = offsets[count]!;
  if (prev > bytes.length) throw new ValueError(`columnar string offset ${count} (${prev}) is past the end of the ${bytes.length} bytes`, { path });
  const high = firstNonAscii(bytes, first, prev);
  if (high < 0) return;
  const at = stringAt(offsets, high);
  if (ascii) throw new ValueError(`columnar string ${at} is not ASCII (the dataset's charset)`, { path });
  // valid UTF-8 as a whole, and no string starts inside a character: every string is valid UTF-8
  let whole = true;
  if (nodeBuffer) whole = nodeBuffer.isUtf8(bytes.subarray(first, prev));
  else {
    try {
      fatal.decode(bytes.subarray(first, prev));
    } catch {
      whole = false;
    }
  }
  for (let i = at; i < count && whole; i++) {
    const o = offsets[i]!;
    if (o < offsets[i + 1]! && (bytes[o]! & 0xc0) === 0x80) whole = false;
  }
  if (!whole) throw new ValueError(`columnar strings from string ${at} on are not valid UTF-8`, { path });
}

/** The string whose bytes hold byte `pos` (offsets never decrease). */
function stringAt(offsets: VLOffsets, pos: number): number {
  let lo = 0;
  let hi = offsets.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (offsets[mid]! <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
