/**
 * Serialised hyperslab selections (`H5S_SEL_HYPERSLABS` = 2): version 1 (block list, 4-byte
 * coordinates, length field), version 2 (8-byte fields, regular form) and version 3 (encoded
 * width; regular start/stride/count/block or an irregular block list). Blocks are stored as a
 * start corner then an inclusive end corner; a decoder ORs them, so any block list (order,
 * overlaps) denotes its union.
 * @module
 */
import type { ByteReader, ByteWriter } from '../../format/bytes.js';
import { MAX_EXPANDED_BOXES, productToBoxes } from '../hyperslab.js';
import { blocksFromCanonical, selectNone, type HyperslabSelection, type Selection } from '../selection.js';
import type { SelectionExtent } from './extent.js';
import { canonicalBoxes } from './canonical.js';
import { checkRank } from './points.js';
import { isAllOnesAt, isWidth, readUint, readUints, writeUint, type UintWidth } from './uint.js';

/** Selection type code of hyperslab selections. */
export const SEL_HYPERSLABS = 2;

/** Flag bit of versions 2/3: the selection is stored in regular form. */
const FLAG_REGULAR = 0x01;

/** Parameters of one regular hyperslab (count/block already normalised, none unlimited). */
export interface RegularParams {
  start: number[];
  stride: number[];
  count: number[];
  block: number[];
}

/** Size in bytes of a block-list hyperslab selection (version 1, or 3 with `width`). */
export function blockListSize(version: 1 | 3, rank: number, nblocks: number, width: UintWidth = 4): number {
  return version === 1 ? 24 + 8 * rank * nblocks : 14 + width + 2 * width * rank * nblocks;
}

/**
 * Bytes of one block of a block-list hyperslab selection: its start and end corners, `rank`
 * coordinates each of `width` bytes (version 1: width 4).
 */
export function blockRecordSize(rank: number, width: UintWidth): number {
  return 2 * rank * width;
}

/** Size in bytes of a regular hyperslab selection (version 2, or 3 with `width`). */
export function regularSize(version: 2 | 3, rank: number, width: UintWidth = 8): number {
  return version === 2 ? 17 + 32 * rank : 14 + 4 * width * rank;
}

/** Marker for an unlimited count or block while decoding. */
const UNL = -1;

/**
 * Decodes a hyperslab selection; the reader stands after the selection type field.
 */
// Hyperslab selection v1/v2/v3 (docs/structured-chunk-format.md §7.3; HDF5 H5Shyper.c H5S__hyper_deserialize; spec: selection encoding of region references).
export function decodeHyperslab(r: ByteReader, extent: SelectionExtent): Selection {
  const version = r.u32();
  let flags = 0;
  let width: UintWidth;
  let length = -1;
  if (version === 1) {
    r.skip(4); // reserved
    length = r.u32();
    width = 4;
  } else if (version === 2) {
    flags = r.u8();
    length = r.u32();
    width = 8;
  } else if (version === 3) {
    flags = r.u8();
    const w = r.u8();
    if (!isWidth(w)) throw r.error(`hyperslab selection: unsupported coordinate width ${w}`);
    width = w;
  } else {
    throw r.error(`hyperslab selection: unknown version ${version}`);
  }
  if (flags & ~FLAG_REGULAR) throw r.error(`hyperslab selection: unknown flags 0x${flags.toString(16)}`);
  const rank = r.u32();
  checkRank(r, 'hyperslab selection', rank, extent);
  if (flags & FLAG_REGULAR) {
    if (version === 2 && length !== 4 + 32 * rank) {
      throw r.error(`hyperslab selection: length field ${length} does not match a regular hyperslab of rank ${rank} (${4 + 32 * rank})`);
    }
    return decodeRegular(r, rank, width, extent);
  }
  const nblocks = readUint(r, width, 'block count');
  if (nblocks === 0) throw r.error('hyperslab selection with no blocks');
  if (version === 1 && length !== 8 + 8 * rank * nblocks) {
    throw r.error(`hyperslab selection: length field ${length} does not match ${nblocks} blocks of rank ${rank} (${8 + 8 * rank * nblocks})`);
  }
  if (nblocks * 2 * rank * width > r.remaining) {
    throw r.error(`hyperslab selection: ${nblocks} blocks of rank ${rank} need ${nblocks * 2 * rank * width} bytes but only ${r.remaining} remain`);
  }
  const at = r.pos;
  let boxes = width === 8 ? null : readBlockCorners(r, nblocks, rank, width, extent.dims);
  if (!boxes) {
    // 8-byte coordinates, or a block out of order or outside the extent (named here)
    const v = readUints(r, nblocks * 2 * rank, width, 'hyperslab blocks');
    const dims = extent.dims;
    boxes = new Float64Array(v.length);
    const w2 = 2 * rank;
    for (let i = 0; i < nblocks; i++) {
      const base = i * w2;
      for (let d = 0; d < rank; d++) {
        const s = v[base + d]!;
        const e = v[base + rank + d]!;
        if (s > e || e >= dims[d]!) {
          throw r.error(
            `hyperslab block ${i} (at offset ${at + base * width}) spans [${s}, ${e}] in dimension ${d}, ` +
              (s > e ? 'its start is after its end' : `outside the extent size ${dims[d]}`),
          );
        }
        boxes[base + 2 * d] = s;
        boxes[base + 2 * d + 1] = e + 1;
      }
    }
  }
  const c = canonicalBoxes(boxes, rank);
  if (c.buffer !== scratch.buffer) return blocksFromCanonical(c, rank);
  // the corners, canonical, are the result: the scratch buffer is handed over when they fill most of it
  if (2 * c.length <= scratch.length) return blocksFromCanonical(c.slice(), rank);
  scratch = new Float64Array(0);
  return blocksFromCanonical(c, rank);
}

/**
 * Corners of block lists of up to 2^17 numbers are read into this buffer (decoding is synchronous),
 * reused when they are normalised into a new array (else they would be garbage).
 */
let scratch = new Float64Array(0);

/** Buffers of decoded block lists given back by {@link spareBlockList}. */
const spare: Float64Array<ArrayBuffer>[] = [];

/**
 * Gives back the buffer of a block list decoded here once nothing can reference it or any view of it
 * (a chunk format's `release`): a later list is read into it, touching no fresh memory.
 */
export function spareBlockList(boxes: Float64Array): void {
  const b = new Float64Array(boxes.buffer as ArrayBuffer);
  if (boxes.byteOffset === 0 && b.length <= 1 << 17 && spare.length < 8) spare.push(b);
}

/**
 * The `nblocks` blocks of a block list with 2- or 4-byte coordinates (start corner, then inclusive
 * end corner) as flat `[s, e)` boxes, read and checked in one pass; the reader moves past them.
 * Null (reader unmoved) when a block's start is after its end or it leaves `dims`. The caller has
 * checked that the bytes are there.
 */
function readBlockCorners(r: ByteReader, nblocks: number, rank: number, width: 2 | 4, dims: readonly number[]): Float64Array | null {
  const n = nblocks * 2 * rank;
  if (n <= 1 << 17 && scratch.length < n) {
    const s = spare.pop();
    scratch = s && s.length >= n ? s : new Float64Array(n);
  }
  const boxes = n <= 1 << 17 ? scratch.subarray(0, n) : new Float64Array(n);
  const p = cornersInto(r.bytes, r.pos, boxes, rank, width, Float64Array.from(dims));
  if (p < 0) return null;
  r.pos = p;
  return boxes;
}

/**
 * The loop of {@link readBlockCorners}: fills `boxes` from the corners at `p`; the position after them,
 * or -1 when a block is reversed or reaches `lim`. A function of its own with no property access after
 * the loop: V8 compiles the loop on the stack (OSR) during a call, and the reader update after it,
 * never run by that code, deoptimised it on every selection decoded.
 */
function cornersInto(b: Uint8Array, p: number, boxes: Float64Array, rank: number, width: 2 | 4, lim: Float64Array): number {
  if (width === 2 && rank === 3) return corners2Rank3(b, p, boxes, lim);
  const n = boxes.length;
  const cw = rank * width; // bytes of one corner
  let ok = true;
  for (let i = 0; i < n; i += 2 * rank, p += 2 * cw) {
    for (let d = 0; d < rank; d++) {
      const q = p + d * width;
      let s: number;
      let e: number;
      if (width === 2) {
        s = b[q]! | (b[q + 1]! << 8);
        e = b[q + cw]! | (b[q + cw + 1]! << 8);
      } else {
        s = (b[q]! | (b[q + 1]! << 8) | (b[q + 2]! << 16) | (b[q + 3]! << 24)) >>> 0;
        e = (b[q + cw]! | (b[q + cw + 1]! << 8) | (b[q + cw + 2]! << 16) | (b[q + cw + 3]! << 24)) >>> 0;
      }
      if (s > e || e >= lim[d]!) ok = false;
      boxes[i + 2 * d] = s;
      boxes[i + 2 * d + 1] = e + 1;
    }
  }
  return ok ? p : -1;
}

/**
 * {@link cornersInto} for 2-byte coordinates of rank 3 (point-group and image-stack chunks), the loop
 * unrolled: ≈ 3× faster per block than the general loop.
 */
function corners2Rank3(b: Uint8Array, p: number, boxes: Float64Array, lim: Float64Array): number {
  const n = boxes.length;
  const l0 = lim[0]!;
  const l1 = lim[1]!;
  const l2 = lim[2]!;
  let bad = 0;
  for (let i = 0; i < n; i += 6, p += 12) {
    const s0 = b[p]! | (b[p + 1]! << 8);
    const s1 = b[p + 2]! | (b[p + 3]! << 8);
    const s2 = b[p + 4]! | (b[p + 5]! << 8);
    const e0 = b[p + 6]! | (b[p + 7]! << 8);
    const e1 = b[p + 8]! | (b[p + 9]! << 8);
    const e2 = b[p + 10]! | (b[p + 11]! << 8);
    bad |= (s0 > e0 || e0 >= l0 || s1 > e1 || e1 >= l1 || s2 > e2 || e2 >= l2) ? 1 : 0;
    boxes[i] = s0;
    boxes[i + 1] = e0 + 1;
    boxes[i + 2] = s1;
    boxes[i + 3] = e1 + 1;
    boxes[i + 4] = s2;
    boxes[i + 5] = e2 + 1;
  }
  return bad === 0 ? p : -1;
}

function decodeRegular(r: ByteReader, rank: number, width: UintWidth, extent: SelectionExtent): Selection {
  r.need(4 * width * rank, 'regular hyperslab');
  const field = (what: string, unlimitedAllowed: boolean): number => {
    if (unlimitedAllowed && isAllOnesAt(r.bytes, r.pos, width)) {
      r.skip(width);
      return UNL;
    }
    return readUint(r, width, what);
  };
  const start: number[] = [];
  const stride: number[] = [];
  const count: number[] = [];
  const block: number[] = [];
  const lastLen: number[] = []; // length of the last block when clipped by the extent (unlimited count)
  let empty = false;
  let partial = false;
  for (let d = 0; d < rank; d++) {
    const s = field('start', false);
    let st = field('stride', false);
    let c = field('count', true);
    let b = field('block', true);
    const n = extent.dims[d]!;
    if (c === UNL && b === UNL) throw r.error(`regular hyperslab: count and block both unlimited in dimension ${d}`);
    if (b === UNL) {
      if (c !== 1) throw r.error(`regular hyperslab: unlimited block with count ${c} in dimension ${d}`);
      b = Math.max(0, n - s);
    }
    let last = b;
    if (c === UNL) {
      // Unlimited count: clip to the extent (HDF5 clips unlimited selections to the current extent).
      if (st === 0) throw r.error(`regular hyperslab: unlimited count with stride 0 in dimension ${d}`);
      if (b === 0 || s >= n) c = 0;
      else {
        c = Math.ceil((n - s) / st);
        last = Math.min(b, n - (s + (c - 1) * st));
      }
    }
    if (c > 1 && st < b) throw r.error(`regular hyperslab: blocks overlap in dimension ${d} (stride ${st} < block ${b})`);
    if (c <= 1) st = 1;
    if (c === 0 || b === 0) empty = true;
    else {
      const end = s + (c - 1) * st + last;
      if (!Number.isSafeInteger(end) || end > n) {
        throw r.error(`regular hyperslab covers [${s}, ${end}) in dimension ${d}, outside the extent size ${n}`);
      }
    }
    if (last !== b) partial = true;
    start.push(s);
    stride.push(st);
    count.push(c);
    block.push(b);
    lastLen.push(last);
  }
  if (empty) return selectNone();
  if (!partial) {
    const h: HyperslabSelection = { kind: 'hyperslab', rank, start, stride, count, block };
    return h;
  }
  // A clipped last block breaks regularity: expand to the product of per-dimension intervals.
  let nb = 1;
  for (const c of count) nb *= c;
  if (nb > MAX_EXPANDED_BOXES) {
    throw r.error(`unlimited hyperslab clipped to the extent has ${nb} blocks (limit ${MAX_EXPANDED_BOXES})`);
  }
  const lists = start.map((s, d) => {
    const c = count[d]!;
    const out = new Float64Array(2 * c);
    for (let i = 0; i < c; i++) {
      out[2 * i] = s + i * stride[d]!;
      out[2 * i + 1] = out[2 * i]! + (i === c - 1 ? lastLen[d]! : block[d]!);
    }
    return out;
  });
  return blocksFromCanonical(canonicalBoxes(productToBoxes(lists), rank), rank);
}

/** Writes a block list (type field included): version 1, or version 3 with `width`. Boxes are `[s, e)` flat. */
// Hyperslab selection v1 / v3 irregular (docs/structured-chunk-format.md §7.3; HDF5 H5Shyper.c H5S__hyper_serialize).
export function encodeBlockList(w: ByteWriter, boxes: Float64Array, rank: number, version: 1 | 3, width: UintWidth): void {
  const w2 = 2 * rank;
  const n = boxes.length / w2;
  w.u32(SEL_HYPERSLABS).u32(version);
  if (version === 1) {
    w.u32(0).u32(8 + 8 * rank * n).u32(rank).u32(n);
  } else {
    w.u8(0).u8(width).u32(rank);
    writeUint(w, n, width);
  }
  const wd = version === 1 ? 4 : width;
  if (wd === 8) {
    for (let i = 0; i < boxes.length; i += w2) {
      for (let d = 0; d < rank; d++) writeUint(w, boxes[i + 2 * d]!, 8);
      for (let d = 0; d < rank; d++) writeUint(w, boxes[i + 2 * d + 1]! - 1, 8);
    }
    return;
  }
  // 2- and 4-byte fields: straight into the output (the hot path of sparse chunk section 0).
  const out = w.reserve(boxes.length * wd);
  let p = 0;
  for (let i = 0; i < boxes.length; i += w2) {
    for (let h = 0; h < 2; h++) {
      for (let d = 0; d < rank; d++) {
        const v = boxes[i + 2 * d + h]! - h;
        out[p] = v & 0xff;
        out[p + 1] = (v >>> 8) & 0xff;
        if (wd === 4) {
          out[p + 2] = (v >>> 16) & 0xff;
          out[p + 3] = v >>> 24;
        }
        p += wd;
      }
    }
  }
}

/** Writes a regular hyperslab (type field included): version 2 (8-byte fields) or 3 with `width`. */
// Hyperslab selection v2 / v3 regular (docs/structured-chunk-format.md §7.3; HDF5 H5Shyper.c H5S__hyper_serialize).
export function encodeRegular(w: ByteWriter, p: RegularParams, version: 2 | 3, width: UintWidth): void {
  const rank = p.start.length;
  w.u32(SEL_HYPERSLABS).u32(version).u8(FLAG_REGULAR);
  if (version === 2) w.u32(4 + 32 * rank);
  else w.u8(width);
  w.u32(rank);
  const wd = version === 2 ? 8 : width;
  for (let d = 0; d < rank; d++) {
    writeUint(w, p.start[d]!, wd);
    writeUint(w, p.stride[d]!, wd);
    writeUint(w, p.count[d]!, wd);
    writeUint(w, p.block[d]!, wd);
  }
}
