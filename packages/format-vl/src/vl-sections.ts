/**
 * The file form of variable-length structured chunks (docs/format-vl.md §2–3). Dense VL chunks
 * (two sections): 0 = one 16-byte entry (heap offset, length) per chunk element + lookup3 checksum,
 * 1 = the heap. Sparse VL chunks (three sections): 0 = encoded selection of the defined elements +
 * lookup3 (as sparse chunks), 1 = the entries of the defined elements in C order + lookup3, 2 = the
 * heap. The heap is: unused-byte count (UINT32), the value bytes, lookup3 of everything before it;
 * it is empty (0 bytes) when no element has a non-empty value. Each section goes through its own
 * filter pipeline; the index record keeps the section offsets (and, when any section is filtered,
 * every section's unfiltered size and filter mask).
 * @module
 */
import { giveBack } from './vl-image-pool.js';
import {
  ChecksumError,
  FormatError,
  H5Error,
  SelectionError,
  decodeChunk,
  decodeSelection,
  encodeChunk,
  lookup3,
  selectBlocks,
  selectionCount,
  selectionRuns,
  validateSelection,
  type Box,
  type ChunkFormatContext,
  type ChunkImage,
  type ChunkRecord,
  type Selection,
  type StructuredChunkSections,
} from '@chunkform/core';
import {
  type ChunkWhere,
  type PipelineContext,
  anySectionFiltered,
  chunkLabel,
  encodeSelectionWithTrailer,
  isPartialEdgeChunk,
  lookup3Pair,
  sectionPipeline,
  selectionExtentMaxDims,
} from '@chunkform/core/plugin';
import { HEAP_HEADER, compact, emptyVlChunk, ensure, liveBytes, type VlChunk } from './vl-chunk.js';

/** The host stores numbers little-endian, as the sections do (typed-array views of them read as they are). */
export const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** Bytes of one entry: heap offset (8, the composition offset size) and length (8). */
export const ENTRY_SIZE = 16;
/** Sections of a dense VL chunk: entries, heap. */
export const DENSE_SECTIONS = 2;
/** Sections of a sparse VL chunk: selection, entries, heap. */
export const SPARSE_SECTIONS = 3;

/** What the section code needs besides the format context. */
export interface VlShape {
  sparse: boolean;
  /** Elements per chunk. */
  n: number;
  /** Bytes per base element. */
  bs: number;
}

function fail(ctx: ChunkFormatContext, rec: ChunkRecord, what: string): FormatError {
  return new FormatError(what, { path: chunkLabel(ctx, rec.coords), structure: 'variable-length structured chunk', address: rec.address });
}

/** Filter context of a section: `count` elements of `size` bytes in one dimension. */
function sectionContext(ctx: ChunkFormatContext, size: number, count: number): PipelineContext {
  return { datatype: ctx.datatype, elementSize: size, chunkDims: [Math.max(1, count)] };
}

function putU32(b: Uint8Array, at: number, v: number): void {
  b[at] = v & 0xff;
  b[at + 1] = (v >>> 8) & 0xff;
  b[at + 2] = (v >>> 16) & 0xff;
  b[at + 3] = v >>> 24;
}

function getU32(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}

/** Appends the lookup3 checksum of `b[0, b.length − 4)` in the last four bytes. */
export function seal(b: Uint8Array): Uint8Array {
  putU32(b, b.length - 4, lookup3(b.subarray(0, b.length - 4)));
  return b;
}

const pairSums = new Uint32Array(2);

/** {@link seal} of `x` and of `y` (two sections of one chunk), their checksums computed side by side (core's `lookup3Pair`). */
export function sealPair(x: Uint8Array, y: Uint8Array): void {
  lookup3Pair(x.subarray(0, x.length - 4), y.subarray(0, y.length - 4), pairSums);
  putU32(x, x.length - 4, pairSums[0]!);
  putU32(y, y.length - 4, pairSums[1]!);
}

/**
 * Entries (heap offset, length) of every element (dense) or of the defined ones in C order
 * (sparse), + checksum, written into `out` (new when absent) from byte 0.
 */
// docs/format-vl.md §3.1 (entries section).
function encodeEntries(mem: VlChunk, out?: Uint8Array): Uint8Array {
  const { off, len, defined } = mem;
  const count = defined ? mem.count : off.length;
  const bytes = out ? out.subarray(0, count * ENTRY_SIZE + 4) : new Uint8Array(count * ENTRY_SIZE + 4);
  if (LITTLE_ENDIAN && (bytes.byteOffset & 3) === 0) {
    // four little-endian words per entry: offset low, high, length low, high (zero for an empty value)
    const w = new Uint32Array(bytes.buffer, bytes.byteOffset, count * 4);
    let k = 0;
    for (let i = 0; i < off.length; i++) {
      if (defined && !defined[i]) continue;
      const L = len[i]!;
      const o = L > 0 ? off[i]! : 0;
      // (a Uint32Array store keeps the value modulo 2^32; the high word truncates the quotient)
      w[k] = o;
      w[k + 1] = o / 0x100000000;
      w[k + 2] = L;
      w[k + 3] = L / 0x100000000;
      k += 4;
    }
    return seal(bytes);
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let k = 0;
  for (let i = 0; i < off.length; i++) {
    if (defined && !defined[i]) continue;
    const L = len[i]!;
    const o = L > 0 ? off[i]! : 0;
    dv.setUint32(k, o % 0x100000000, true);
    dv.setUint32(k + 4, Math.floor(o / 0x100000000), true);
    dv.setUint32(k + 8, L % 0x100000000, true);
    dv.setUint32(k + 12, Math.floor(L / 0x100000000), true);
    k += ENTRY_SIZE;
  }
  return seal(bytes);
}

/**
 * The heap section: unused count, value bytes, checksum; empty when no value has bytes. A view of
 * the chunk's own heap (count and checksum written around the values): the caller copies it into
 * the stored image before the chunk can change again.
 */
// docs/format-vl.md §3.2 (heap section).
function encodeHeap(mem: VlChunk): Uint8Array {
  if (liveBytes(mem) === 0) return new Uint8Array(0);
  ensure(mem, 0); // (room for the checksum)
  putU32(mem.heap, 0, mem.unused);
  return seal(mem.heap.subarray(0, mem.end + 4));
}

/** The chunk's defined elements as a selection (sparse chunks). */
export function definedSelection(mem: VlChunk, dims: readonly number[]): Selection {
  const d = mem.defined!;
  const rank = dims.length;
  const W = dims[rank - 1]!;
  const boxes: Box[] = [];
  const n = d.length;
  for (let i = 0; i < n; ) {
    if (!d[i]) {
      i++;
      continue;
    }
    // one run, cut at row ends (a box spans one row of the last dimension)
    const rowEnd = (Math.floor(i / W) + 1) * W;
    let j = i + 1;
    while (j < rowEnd && d[j]) j++;
    const start: number[] = new Array<number>(rank);
    let rest = i;
    for (let a = rank - 1; a >= 0; a--) {
      start[a] = rest % dims[a]!;
      rest = Math.floor(rest / dims[a]!);
    }
    const end = start.map((s, a) => (a === rank - 1 ? s + (j - i) : s + 1));
    boxes.push({ start, end });
    i = j;
  }
  return selectBlocks(boxes);
}

/** Section 0 of a sparse VL chunk: the encoded selection of its defined elements + lookup3 (as sparse chunks). */
// docs/format-vl.md §2.2 (selection section).
function encodeSelectionSection(mem: VlChunk, ctx: ChunkFormatContext): Uint8Array {
  const sel = definedSelection(mem, ctx.chunkDims);
  const out = encodeSelectionWithTrailer(sel, { dims: ctx.chunkDims, maxDims: selectionExtentMaxDims(ctx) }, { encoding: ctx.access?.['selectionEncoding'] === 'prototype' ? 'prototype' : 'smallest' }, 4);
  return seal(out);
}

/** An unfiltered dense VL chunk: entries and heap written straight into the stored image. */
function denseImage(mem: VlChunk): ChunkImage {
  const entriesBytes = mem.n * ENTRY_SIZE + 4;
  const heap = encodeHeap(mem);
  const bytes = new Uint8Array(entriesBytes + heap.length);
  encodeEntries(mem, bytes);
  bytes.set(heap, entriesBytes);
  return { bytes, filterMask: 0, sections: { offsets: [entriesBytes] } };
}

/**
 * Memory form → stored chunk: sections encoded, each through its pipeline, stored back to back.
 * `last`: the chunk is dropped after this (core's `memToFile`), so an image built in one pass is
 * stored as it is and its buffer kept for reuse once written (./vl-image-pool.ts).
 */
// docs/format-vl.md §2 (dense: table "dense VL chunk"; sparse: table "sparse VL chunk").
export async function encodeVlChunk(mem: VlChunk, ctx: ChunkFormatContext, shape: VlShape, coords: readonly number[], last = false): Promise<ChunkImage> {
  const filtered = anySectionFiltered(ctx);
  let raw: Uint8Array[];
  if (mem.image !== null && !shape.sparse) {
    // built in one pass (docs/format-vl.md §5.1): the unfiltered sections as they are; `change`
    // copies the heap before the chunk changes, so the filters below may take their time
    const eb = shape.n * ENTRY_SIZE + 4;
    if (!filtered) {
      const image = mem.image;
      return { bytes: image, filterMask: 0, sections: { offsets: [eb] }, ...(last ? { written: () => giveBack(image) } : {}) };
    }
    raw = [mem.image.subarray(0, eb), mem.image.subarray(eb)];
  } else {
    compact(mem, shape.bs);
    if (!filtered && !shape.sparse) return denseImage(mem);
    raw = shape.sparse ? [encodeSelectionSection(mem, ctx), encodeEntries(mem), encodeHeap(mem)] : [encodeEntries(mem), encodeHeap(mem)];
    // The heap section is a view of the chunk's heap: filters are awaited below, so it gets its own bytes then.
    if (filtered) raw[raw.length - 1] = raw[raw.length - 1]!.slice();
  }
  const skip = ctx.dontFilterPartialChunks && isPartialEdgeChunk(ctx, coords);
  const where: ChunkWhere = { path: ctx.datasetPath, chunk: [...coords] };
  const stored: Uint8Array[] = [];
  const masks: number[] = [];
  const entriesAt = shape.sparse ? 1 : 0;
  for (let s = 0; s < raw.length; s++) {
    const p = sectionPipeline(ctx, s);
    if (p.filters.length === 0 || raw[s]!.length === 0) {
      stored.push(raw[s]!);
      masks.push(0);
      continue;
    }
    const fctx = s === entriesAt ? sectionContext(ctx, ENTRY_SIZE, (raw[s]!.length - 4) / ENTRY_SIZE) : sectionContext(ctx, 1, raw[s]!.length);
    const e = await encodeChunk(raw[s]!, p, ctx.resolveFilter, fctx, where, { skipFilters: skip });
    stored.push(e.bytes);
    masks.push(e.filterMask);
  }
  let total = 0;
  const offsets: number[] = [];
  for (let s = 0; s < stored.length; s++) {
    if (s > 0) offsets.push(total);
    total += stored[s]!.length;
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const b of stored) {
    bytes.set(b, at);
    at += b.length;
  }
  const sections: StructuredChunkSections = { offsets };
  if (filtered) {
    sections.unfilteredSizes = raw.map((r) => r.length);
    sections.filterMasks = masks;
  }
  return { bytes, filterMask: 0, sections };
}

/**
 * Most value bytes the heap of an unfiltered stored chunk holds, from its index record (the heap
 * section, from the last section offset, less its unused-byte count and checksum); 0 for a record
 * without section offsets or with one outside the chunk (its decoding then fails).
 */
export function heapValueBytes(rec: ChunkRecord): number {
  const offsets = rec.sections?.offsets;
  const at = offsets && offsets.length > 0 ? offsets[offsets.length - 1]! : rec.size;
  return at >= 0 && at <= rec.size ? Math.max(0, rec.size - at - HEAP_HEADER - 4) : 0;
}

/** Splits a stored chunk into its sections and undoes their filters, checking sizes against the record. */
async function unfilterSections(image: Uint8Array, rec: ChunkRecord, ctx: ChunkFormatContext, nsec: number, shape: VlShape): Promise<Uint8Array[]> {
  const secs = rec.sections;
  if (!secs || secs.offsets.length !== nsec - 1) {
    throw fail(ctx, rec, `the index record has ${secs ? secs.offsets.length : 'no'} section offsets, ${nsec - 1} expected`);
  }
  const bounds = [0, ...secs.offsets, image.length];
  for (let s = 1; s < bounds.length; s++) {
    const o = bounds[s]!;
    if (!Number.isSafeInteger(o) || o < bounds[s - 1]! || o > image.length) {
      throw fail(ctx, rec, `section ${s} offset ${o} is outside the chunk's ${image.length} bytes or before section ${s - 1}`);
    }
  }
  const skip = ctx.dontFilterPartialChunks && isPartialEdgeChunk(ctx, rec.coords);
  const entriesAt = shape.sparse ? 1 : 0;
  const out: Uint8Array[] = [];
  for (let s = 0; s < nsec; s++) {
    const part = image.subarray(bounds[s]!, bounds[s + 1]!);
    const p = sectionPipeline(ctx, s);
    const expected = secs.unfilteredSizes?.[s];
    let data = part;
    if (p.filters.length > 0 && !skip && part.length > 0) {
      const guess = expected ?? (s === entriesAt ? shape.n * ENTRY_SIZE + 4 : part.length * 4);
      const fctx = s === entriesAt ? sectionContext(ctx, ENTRY_SIZE, Math.floor(guess / ENTRY_SIZE)) : sectionContext(ctx, 1, guess);
      const where: ChunkWhere = { path: ctx.datasetPath, chunk: rec.coords, address: rec.address };
      data = await decodeChunk(part, p, secs.filterMasks?.[s] ?? 0, ctx.resolveFilter, fctx, where);
    }
    if (expected !== undefined && data.length !== expected) {
      throw fail(ctx, rec, `section ${s} has ${data.length} bytes, the index records ${expected}`);
    }
    out.push(data);
  }
  return out;
}

/** Checks a section's trailing lookup3 checksum. */
function checkSum(sec: Uint8Array, what: string, ctx: ChunkFormatContext, rec: ChunkRecord): void {
  if (sec.length < 4) throw fail(ctx, rec, `${what} has ${sec.length} bytes, too short for its checksum`);
  expectSum(sec, lookup3(sec.subarray(0, sec.length - 4)), what, ctx, rec);
}

/** {@link checkSum} of the entries section then of the heap section (≥ 4 bytes each), both computed side by side (core's `lookup3Pair`). */
function checkSumPair(entries: Uint8Array, heap: Uint8Array, ctx: ChunkFormatContext, rec: ChunkRecord): void {
  lookup3Pair(entries.subarray(0, entries.length - 4), heap.subarray(0, heap.length - 4), pairSums);
  expectSum(entries, pairSums[0]!, 'entries section', ctx, rec);
  expectSum(heap, pairSums[1]!, 'heap section', ctx, rec);
}

/** A `ChecksumError` unless the last 4 bytes of `sec` hold `actual`. */
function expectSum(sec: Uint8Array, actual: number, what: string, ctx: ChunkFormatContext, rec: ChunkRecord): void {
  const stored = getU32(sec, sec.length - 4);
  if (stored !== actual) throw new ChecksumError(`variable-length chunk ${what}`, rec.address, stored, actual, chunkLabel(ctx, rec.coords));
}

/** Decodes a sparse VL chunk's selection section into the defined flags. */
function decodeDefined(sec0: Uint8Array, ctx: ChunkFormatContext, rec: ChunkRecord, n: number): { defined: Uint8Array; count: number } {
  checkSum(sec0, 'section 0 (encoded selection)', ctx, rec);
  let sel: Selection;
  try {
    sel = decodeSelection(sec0.subarray(0, sec0.length - 4), { path: ctx.datasetPath, chunk: rec.coords, address: rec.address }).selection;
    if (sel.kind !== 'all' && sel.kind !== 'none' && sel.rank !== ctx.chunkDims.length) {
      throw new SelectionError(`selection of rank ${sel.rank} in a chunk of rank ${ctx.chunkDims.length}`);
    }
    validateSelection(sel, ctx.chunkDims);
  } catch (e) {
    if (e instanceof H5Error && !(e instanceof FormatError)) throw fail(ctx, rec, `section 0: ${e.detail}`);
    throw e;
  }
  const defined = new Uint8Array(n);
  const runs = selectionRuns(sel, ctx.chunkDims);
  for (let r = 0; r < runs.length; r += 2) defined.fill(1, runs[r]!, runs[r]! + runs[r + 1]!);
  return { defined, count: selectionCount(sel, ctx.chunkDims) };
}

/** The `m` entries of an entries section as little-endian words (a copy when they are not 4-byte aligned or the host is big-endian). */
function entryWords(entries: Uint8Array, m: number): Uint32Array {
  if (LITTLE_ENDIAN && (entries.byteOffset & 3) === 0) return new Uint32Array(entries.buffer, entries.byteOffset, m * 4);
  if (LITTLE_ENDIAN) return new Uint32Array(entries.slice(0, m * ENTRY_SIZE).buffer);
  const dv = new DataView(entries.buffer, entries.byteOffset, entries.byteLength);
  const w = new Uint32Array(m * 4);
  for (let j = 0; j < w.length; j++) w[j] = dv.getUint32(j * 4, true);
  return w;
}

/** What {@link scanEntries} found: bytes of the values, and whether they lie in element order back to back. */
const scan = { live: 0, inOrder: true };

/**
 * Checks the `m` entries in `words` against a heap whose values end at `heapEnd` (a plain loop of its
 * own, so the engine optimizes it whatever the decoder around it awaits): returns the first entry
 * whose value lies outside `[HEAP_HEADER, heapEnd)`, or -1 with `into` set.
 */
function scanEntries(words: Uint32Array, m: number, bs: number, heapEnd: number, into: { live: number; inOrder: boolean }): number {
  let live = 0;
  let next = HEAP_HEADER; // where the next value starts if the values lie in element order
  let inOrder = true;
  for (let k = 0; k < 4 * m; k += 4) {
    const L = words[k + 2]!;
    if (L === 0 && words[k + 3] === 0) continue; // (an empty value: its offset is not used)
    const o = words[k]!;
    const nb = L * bs;
    // (a high word set puts the value past any heap, which is below 2^32 bytes)
    if ((words[k + 1]! | words[k + 3]!) !== 0 || o < HEAP_HEADER || o + nb > heapEnd) return k >>> 2;
    if (o !== next) inOrder = false;
    next = o + nb;
    live += nb;
  }
  into.live = live;
  into.inOrder = inOrder;
  return -1;
}

/** The chunk element of entry `k` (sparse chunks: the k-th defined element). */
function elementOf(defined: Uint8Array | null, k: number): number {
  if (!defined) return k;
  for (let i = 0, seen = 0; i < defined.length; i++) if (defined[i] && seen++ === k) return i;
  return k;
}

/** Stored chunk → memory form, validating checksums, sizes and every entry against the heap. */
// docs/format-vl.md §2–3.
export async function decodeVlChunk(image: Uint8Array, rec: ChunkRecord, ctx: ChunkFormatContext, shape: VlShape): Promise<VlChunk> {
  const nsec = shape.sparse ? SPARSE_SECTIONS : DENSE_SECTIONS;
  const secs = await unfilterSections(image, rec, ctx, nsec, shape);
  const mem = emptyVlChunk(shape.n, shape.sparse);
  let entries: Uint8Array;
  let heap: Uint8Array;
  if (shape.sparse) {
    const d = decodeDefined(secs[0]!, ctx, rec, shape.n);
    mem.defined = d.defined;
    mem.count = d.count;
    entries = secs[1]!;
    heap = secs[2]!;
  } else {
    entries = secs[0]!;
    heap = secs[1]!;
  }
  const m = shape.sparse ? mem.count : shape.n;
  if (entries.length !== m * ENTRY_SIZE + 4) {
    throw fail(ctx, rec, `the entries section has ${entries.length} bytes, ${m} elements need ${m * ENTRY_SIZE + 4}`);
  }
  if (heap.length >= HEAP_HEADER + 4) checkSumPair(entries, heap, ctx, rec);
  else checkSum(entries, 'entries section', ctx, rec);
  let heapEnd = HEAP_HEADER;
  if (heap.length > 0) {
    if (heap.length < HEAP_HEADER + 4) throw fail(ctx, rec, `the heap section has ${heap.length} bytes, too short for its header and checksum`);
    heapEnd = heap.length - 4;
    mem.unused = getU32(heap, 0);
    // the section's bytes are this chunk's own (inflated, or a private read): no copy
    mem.heap = heap.subarray(0, heapEnd);
    mem.heap.fill(0, 0, HEAP_HEADER);
    mem.end = heapEnd;
  }
  const words = entryWords(entries, m);
  const bs = shape.bs;
  const bad = scanEntries(words, m, bs, heapEnd, scan);
  if (bad >= 0) {
    const L = words[4 * bad + 2]! + words[4 * bad + 3]! * 0x100000000;
    const o = words[4 * bad]! + words[4 * bad + 1]! * 0x100000000;
    throw fail(ctx, rec, `element ${elementOf(mem.defined, bad)}: value of ${L} × ${bs} bytes at heap offset ${o} is outside the heap's values [${HEAP_HEADER}, ${heapEnd})`);
  }
  const { live, inOrder } = scan;
  // the chunk keeps the entries as they are: offsets and lengths per element are built only when needed
  mem.words = words;
  mem.inOrder = inOrder;
  if (heap.length > 0 && live + mem.unused !== heapEnd - HEAP_HEADER) {
    throw fail(ctx, rec, `the heap holds ${heapEnd - HEAP_HEADER} value bytes, but its values use ${live} and its unused-byte count is ${mem.unused}`);
  }
  return mem;
}
