/**
 * Variable-length values ↔ heap bytes (docs/format-vl.md §3): strings as their UTF-8 (or ASCII)
 * bytes, sequences of a numeric base type as the base elements in the file's byte order. The
 * length recorded for a value counts base elements (bytes for strings), as HDF5's own VL elements do.
 * @module
 */
import { ValueError, type Datatype, type ObjectValues, type Values } from '@chunkform/core';
import { decodeValues } from '@chunkform/core/plugin';
import { encodeValues } from '@chunkform/core/plugin';
import type { SizeContext } from '@chunkform/core/plugin';

/** How the values of one VL datatype become heap bytes and back. */
export interface VlCodec extends ObjectValues {
  /** Bytes per base element (1 for strings). */
  readonly baseSize: number;
  /** True for strings. */
  readonly text: boolean;
  /** True for ASCII strings (non-ASCII characters are refused on write). */
  readonly ascii: boolean;
  /** The value of `len` base elements stored at `heap[off…]`. */
  decode(heap: Uint8Array, off: number, len: number): unknown;
  /** The bytes of a checked value (not for strings: they are encoded straight into the heap). */
  encode(v: unknown): Uint8Array;
}

const SIZES: SizeContext = { sizeOfOffsets: 8, sizeOfLengths: 8 };
const utf8 = new TextDecoder('utf-8', { fatal: false });
const utf8enc = new TextEncoder();

/** The datatypes a VL chunk can hold: variable-length strings and VL sequences of integers or floats. */
export function vlBaseOf(t: Datatype, path: string): { text: boolean; ascii: boolean; base: Datatype | null } {
  if (t.class === 'string' && t.length === 'variable') return { text: true, ascii: t.charset === 'ascii', base: null };
  if (t.class === 'vlen' && (t.base.class === 'integer' || t.base.class === 'float')) return { text: false, ascii: false, base: t.base };
  throw new ValueError(
    `VL chunks hold variable-length strings or variable-length sequences of integers or floats, not ${t.class === 'vlen' ? `sequences of ${t.base.class}` : t.class}`,
    { path },
  );
}

/** The codec of a VL datatype. */
export function vlCodec(t: Datatype, path: string): VlCodec {
  const { text, ascii, base } = vlBaseOf(t, path);
  if (text) return stringCodec(ascii, path);
  return sequenceCodec(base!, path);
}

function stringCodec(ascii: boolean, path: string): VlCodec {
  return {
    baseSize: 1,
    text: true,
    ascii,
    fill: () => '',
    decode: (heap, off, len) => utf8.decode(heap.subarray(off, off + len)),
    encode: (v) => utf8enc.encode(v as string),
    fromUser(data: unknown, count: number): unknown[] {
      const arr = asArray(data, count, path);
      for (let i = 0; i < count; i++) {
        const v = arr[i];
        if (typeof v !== 'string') throw new ValueError(`element ${i} is ${v === null ? 'null' : typeof v}, not a string`, { path });
      }
      return arr as unknown[];
    },
    toUser: (values) => values as string[],
  };
}

function sequenceCodec(base: Datatype, path: string): VlCodec {
  const bs = base.class === 'integer' || base.class === 'float' ? base.size : 1;
  const empty = decodeValues(new Uint8Array(0), base, 0, SIZES);
  return {
    baseSize: bs,
    text: false,
    ascii: false,
    fill: () => empty,
    decode: (heap, off, len) => decodeValues(heap.subarray(off, off + len * bs), base, len, SIZES),
    encode: (v) => {
      const n = (v as ArrayLike<unknown>).length;
      // encodeValues may return a view of `v` itself: the heap copies it.
      return encodeValues(v, base, n, SIZES);
    },
    fromUser(data: unknown, count: number): unknown[] {
      const arr = asArray(data, count, path);
      const out = new Array<unknown>(count);
      for (let i = 0; i < count; i++) {
        const v = arr[i];
        if (!(Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView)))) {
          throw new ValueError(`element ${i} is not an array or TypedArray of numbers (a variable-length sequence)`, { path });
        }
        // checked (and converted) now, so a bad value fails before anything is written
        out[i] = decodeValues(encodeValues(v, base, (v as ArrayLike<unknown>).length, SIZES).slice(), base, (v as ArrayLike<unknown>).length, SIZES);
      }
      return out;
    },
    toUser: (values) => values as Values,
  };
}

/** The user's data as an array of `count` values. */
function asArray(data: unknown, count: number, path: string): ArrayLike<unknown> {
  const arr = count === 1 && !Array.isArray(data) ? [data] : data;
  if (!Array.isArray(arr)) throw new ValueError('variable-length values are given as an array (one value per element)', { path });
  if (arr.length !== count) throw new ValueError(`${arr.length} values given for ${count} elements`, { path });
  return arr;
}

/**
 * Encodes the strings of `parts` (`chars` UTF-16 units together), joined, at
 * `buf[at…]`, which has room for `chars` bytes: true when they were all ASCII (one byte per
 * character, so each string's bytes follow from its length). On false the bytes written there
 * mean nothing and the caller encodes the strings one by one over them.
 */
export function putAsciiBatch(parts: readonly string[], chars: number, buf: Uint8Array, at: number): boolean {
  if (chars === 0) return true;
  const r = utf8enc.encodeInto(parts.length === 1 ? parts[0]! : parts.join(''), buf.subarray(at, at + chars));
  return r.read === chars && r.written === chars;
}

/**
 * Encodes `s` at `heap[at…]` and returns the byte count, or -1 when the heap has no room for it
 * (up to `3 × s.length` bytes). ASCII is copied char by char; the rest goes through `encodeInto`.
 */
export function putString(heap: Uint8Array, at: number, s: string, ascii: boolean, path: string): number {
  const n = s.length;
  if (at + n > heap.length) return -1;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      if (ascii) throw new ValueError(`string "${s.length > 40 ? `${s.slice(0, 40)}…` : s}" is not ASCII (the dataset's charset)`, { path });
      const r = utf8enc.encodeInto(s.slice(i), heap.subarray(at + i));
      return r.read === n - i ? i + r.written : -1;
    }
    heap[at + i] = c;
  }
  return n;
}
