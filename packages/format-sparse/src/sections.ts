/**
 * The file form of a sparse structured chunk (docs/structured-chunk-format.md §6.1–6.4, docs/structured-chunk-format.md (RFC tables 3–5)):
 * section 0 = the encoded selection of the defined elements (the whole `H5Sencode` buffer, §7)
 * followed by the lookup3 checksum of exactly those bytes; section 1 = the defined values in
 * selection order (§6.2). Each section goes through its own filter pipeline (§4.5) and the stored
 * sections follow each other; the index record keeps the offset of section 1 and, when any section
 * is filtered, every section's unfiltered size and filter mask (§5.1).
 * @module
 */
import {
  ChecksumError,
  FormatError,
  H5Error,
  SelectionError,
  ValueError,
  decodeChunk,
  decodeSelection,
  encodeChunk,
  lookup3,
  selectionCount,
  selectionRuns,
  validateSelection,
  type ChunkFormatContext,
  type ChunkImage,
  type ChunkRecord,
  type FilterPipeline,
  type BlockSelection,
  type DecodedSelection,
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
  pipelineOffload,
  pointOffsets,
  sameNumbers,
  sectionPipeline,
  selectionExtentMaxDims,
} from '@chunkform/core/plugin';
import { encodePlan } from './encode-plan.js';
import { headroomOf, pairsToDefined } from './runs.js';
import { boxesElements } from './slabs.js';
import { lazyRuns, lendValues, runsSelection, type SparseChunk } from './sparse-chunk.js';

/** Section numbers of a fixed-size sparse chunk (docs/structured-chunk-format.md §1). */
export const SECTION_SELECTION = 0;
/** Section 1: the values. */
export const SECTION_VALUES = 1;
/** Sections per fixed-size sparse chunk. */
export const SPARSE_SECTION_COUNT = 2;

function fail(ctx: ChunkFormatContext, rec: ChunkRecord, what: string, structure = 'structured chunk'): FormatError {
  return new FormatError(what, { path: chunkLabel(ctx, rec.coords), structure, address: rec.address });
}

/**
 * Filter context of a section: the section is a 1-D array of `count` elements of `size` bytes
 * (`background`: decoded ahead of its use, see `FilterContext.background`).
 */
function sectionContext(ctx: ChunkFormatContext, size: number, count: number, background = false): PipelineContext {
  const fill = ctx.fillValue;
  return { datatype: ctx.datatype, elementSize: size, chunkDims: [count], ...(fill ? { fillValue: fill } : {}), ...(background ? { background } : {}) };
}

/**
 * Runs one section through its pipeline backwards. A stream must fill its input exactly: extra bytes
 * after it mean wrong section offsets (docs/structured-chunk-format.md §6.6), which `wholeInput` asks the
 * filters to reject (deflate: zlib reports how much input it consumed).
 */
function decodeSection(bytes: Uint8Array, pipeline: FilterPipeline, mask: number, ctx: ChunkFormatContext, fctx: PipelineContext, rec: ChunkRecord): Promise<Uint8Array> {
  const where: ChunkWhere = { path: ctx.datasetPath, chunk: rec.coords, address: rec.address };
  return decodeChunk(bytes, pipeline, mask, ctx.resolveFilter, { ...fctx, wholeInput: true }, where);
}

/** Encodings of section 0 (the `selectionEncoding` access option). */
export const SELECTION_ENCODINGS = ['smallest', 'prototype'] as const;

/**
 * A `selectionEncoding` option checked: 'smallest' (default when undefined; the smallest valid H5S
 * encoding) or 'prototype' (what the HDF Group prototype writes).
 * @throws ValueError for another value.
 */
export function checkSelectionEncoding(e: unknown, path: string): 'smallest' | 'prototype' {
  if (e === undefined) return 'smallest';
  if (!(SELECTION_ENCODINGS as readonly unknown[]).includes(e)) {
    throw new ValueError(`unknown selectionEncoding ${JSON.stringify(e)}; use 'smallest' or 'prototype'`, { path });
  }
  return e as 'smallest' | 'prototype';
}

/** How section 0 of this dataset's chunks encodes selections (its `selectionEncoding` access option). */
export function selectionEncodingOf(ctx: ChunkFormatContext): 'smallest' | 'prototype' {
  return checkSelectionEncoding(ctx.access?.['selectionEncoding'], ctx.datasetPath);
}

/** Encodes a chunk's selection for section 0 and appends the lookup3 checksum (docs/structured-chunk-format.md §6.1). */
// Structured chunk section 0 (docs/structured-chunk-format.md §6.1 (RFC table 4), §7.6).
export function encodeSelectionSection(mem: SparseChunk, ctx: ChunkFormatContext): Uint8Array {
  const out = encodeSelectionWithTrailer(
    mem.selection,
    { dims: ctx.chunkDims, maxDims: selectionExtentMaxDims(ctx) },
    { encoding: selectionEncodingOf(ctx) },
    4,
  );
  const n = out.length - 4;
  const sum = lookup3(out.subarray(0, n));
  out[n] = sum & 0xff;
  out[n + 1] = (sum >>> 8) & 0xff;
  out[n + 2] = (sum >>> 16) & 0xff;
  out[n + 3] = sum >>> 24;
  return out;
}

/**
 * Section 0 followed by section 1 as one image. When section 1 has `room` free bytes before it in
 * its buffer (a value array of `allocValues`) that hold section 0, section 0 goes there and the
 * image is a view: the values are not copied.
 */
function joinSections(s0: Uint8Array, s1: Uint8Array, room: number): Uint8Array {
  if (s0.length <= room) {
    const at = s1.byteOffset - s0.length;
    const image = new Uint8Array(s1.buffer, at, s0.length + s1.length);
    image.set(s0, 0);
    return image;
  }
  const bytes = new Uint8Array(s0.length + s1.length);
  bytes.set(s0, 0);
  bytes.set(s1, s0.length);
  return bytes;
}

/** Memory form → stored chunk (docs/architecture.md §3 `mem_to_file`; docs/structured-chunk-format.md §6.1, §4.5, §5.1). */
// Structured chunk, 2-section sparse (docs/structured-chunk-format.md §6.1–6.4 (RFC tables 3–5)).
export async function encodeSparseChunk(mem: SparseChunk, ctx: ChunkFormatContext, coords: readonly number[]): Promise<ChunkImage> {
  decoded.delete(mem); // its selection may be kept (`plan.zero`)
  // pipelines and the last chunk's section 0 (the same region of every frame) kept per dataset
  const plan = encodePlan(ctx);
  const sel = mem.selection;
  const z = plan.zero;
  // (a section 0 is never written into once made: chunks share it)
  const s0 = z && sel.kind === 'blocks' && sameNumbers(z.sel.boxes, sel.boxes) ? z.bytes : encodeSelectionSection(mem, ctx);
  if (sel.kind === 'blocks') plan.zero = { sel, bytes: s0 };
  const raw = [s0, mem.values];
  const sizes = [raw[0]!.length, raw[1]!.length];
  const skip = ctx.dontFilterPartialChunks && isPartialEdgeChunk(ctx, coords);
  const where: ChunkWhere = { path: ctx.datasetPath, chunk: [...coords] };
  const pipelines = plan.pipelines;
  const fctxs = [sectionContext(ctx, 1, sizes[0]!), sectionContext(ctx, ctx.elementSize, sizes[1]! / ctx.elementSize)];
  const image = (bytes: Uint8Array, offset: number, masks: number[]): ChunkImage => {
    const sections: StructuredChunkSections = { offsets: [offset] };
    if (anySectionFiltered(ctx)) {
      sections.unfilteredSizes = sizes;
      sections.filterMasks = masks;
    }
    return { bytes, filterMask: 0, sections };
  };
  // Filtered values: both sections in one job on a filter thread when one takes them (it gives the
  // bytes the loop below gives, the image already joined); else each section here.
  const offload = skip || pipelines[1]!.filters.length === 0 ? null : pipelineOffload();
  const job = offload?.encodeSections?.(raw.map((bytes, s) => ({ bytes, pipeline: pipelines[s]!, impls: pipelines[s]!.filters.map((f) => ctx.resolveFilter(f.id)), ctx: fctxs[s]! })));
  const done = job ? await job : null;
  if (done) return image(done.bytes, done.sizes[0]!, done.filterMasks);
  const stored: Uint8Array[] = [];
  const masks: number[] = [];
  for (let s = 0; s < SPARSE_SECTION_COUNT; s++) {
    const p = pipelines[s]!;
    if (p.filters.length === 0) {
      stored.push(raw[s]!);
      masks.push(0);
      continue;
    }
    const e = await encodeChunk(raw[s]!, p, ctx.resolveFilter, fctxs[s]!, where, { skipFilters: skip });
    stored.push(e.bytes);
    masks.push(e.filterMask);
  }
  const bytes = joinSections(stored[0]!, stored[1]!, stored[1] === mem.values ? headroomOf(mem.values) : 0);
  // The image may be a view of the values until it is written: later in-place writes copy first.
  if (bytes.buffer === mem.values.buffer) lendValues(mem);
  return image(bytes, stored[0]!.length, masks);
}

/** Checks a decoded selection against the chunk and rethrows selection errors as format errors. */
function checkSelection(sel: Selection, rank: number, ctx: ChunkFormatContext, rec: ChunkRecord): void {
  try {
    if (sel.kind !== 'all' && sel.kind !== 'none' && sel.rank !== rank) {
      throw new SelectionError(`selection of rank ${sel.rank} in a chunk of rank ${rank}`);
    }
    validateSelection(sel, ctx.chunkDims);
  } catch (e) {
    if (e instanceof SelectionError) throw fail(ctx, rec, `section 0: the selection is outside the chunk [${ctx.chunkDims.join(', ')}]: ${e.detail}`);
    throw e;
  }
}

/** The memory form of a point selection and its values: points sorted into C order, the last duplicate wins. */
function fromPoints(coords: Float64Array, values: Uint8Array, es: number, dims: readonly number[]): SparseChunk {
  const offs = pointOffsets(coords, dims);
  const n = offs.length;
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) sorted = offs[i]! > offs[i - 1]!;
  let order: Uint32Array | null = null;
  if (!sorted) {
    order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => offs[a]! - offs[b]! || a - b);
  }
  const pairs = new Float64Array(2 * n);
  const out = sorted ? values : new Uint8Array(n * es);
  let k = 0;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const p = order ? order[i]! : i;
    const o = offs[p]!;
    if (order) {
      // the last of equal offsets (highest index) is the one that stays
      if (i + 1 < n && offs[order[i + 1]!] === o) continue;
      out.set(values.subarray(p * es, p * es + es), m * es);
      m++;
    }
    if (k > 0 && pairs[k - 2]! + pairs[k - 1]! === o) pairs[k - 1] = pairs[k - 1]! + 1;
    else {
      pairs[k++] = o;
      pairs[k++] = 1;
    }
  }
  const runs = pairsToDefined(pairs.slice(0, k));
  return { selection: runsSelection(runs, dims), values: sorted ? out : out.slice(0, m * es), runs };
}

/**
 * Stored chunk → memory form (docs/architecture.md §3 `file_to_mem`; docs/structured-chunk-format.md §6, §13.3), validating
 * everything. `background`: decoded ahead of its use, so both sections' filters may run on other threads at once.
 */
// Structured chunk, 2-section sparse (docs/structured-chunk-format.md §6.1–6.4 (RFC tables 3–5), §7.5, §13.3).
export async function decodeSparseChunk(image: Uint8Array, rec: ChunkRecord, ctx: ChunkFormatContext, background = false): Promise<SparseChunk> {
  const es = ctx.elementSize;
  const dims = ctx.chunkDims;
  const secs = rec.sections;
  if (!secs || secs.offsets.length !== SPARSE_SECTION_COUNT - 1) {
    throw fail(ctx, rec, `the index record has ${secs ? secs.offsets.length : 'no'} section offsets, ${SPARSE_SECTION_COUNT - 1} expected`);
  }
  const off = secs.offsets[0]!;
  if (!Number.isSafeInteger(off) || off < 0 || off > image.length) {
    throw fail(ctx, rec, `section 1 offset ${off} is past the chunk's ${image.length} bytes`);
  }
  const skip = ctx.dontFilterPartialChunks && isPartialEdgeChunk(ctx, rec.coords);
  const chunkElements = dims.reduce((a, b) => a * b, 1);
  const parts = [image.subarray(0, off), image.subarray(off)];
  const section = (s: number): Uint8Array | Promise<Uint8Array> => {
    const p = sectionPipeline(ctx, s);
    if (p.filters.length === 0 || skip) return parts[s]!;
    const expected = secs.unfilteredSizes?.[s];
    const fctx =
      s === SECTION_SELECTION
        ? sectionContext(ctx, 1, expected ?? 16 * dims.length * chunkElements + 4096, background)
        : sectionContext(ctx, es, expected !== undefined && expected % es === 0 ? expected / es : chunkElements, background);
    return decodeSection(parts[s]!, p, secs.filterMasks?.[s] ?? 0, ctx, fctx, rec);
  };
  const sized = (s: number, bytes: Uint8Array): Uint8Array => {
    const expected = secs.unfilteredSizes?.[s];
    if (expected !== undefined && bytes.length !== expected) {
      throw fail(ctx, rec, `section ${s} has ${bytes.length} bytes, the index records ${expected}`);
    }
    return bytes;
  };
  // The values start decoding first (a large section inflates on another thread) while section 0
  // and its selection are decoded here; a failure of section 0 is reported first, as before.
  const pending = section(SECTION_VALUES);
  if (pending instanceof Promise) pending.catch(() => undefined); // awaited below, unless section 0 fails first
  const sec0 = sized(SECTION_SELECTION, await section(SECTION_SELECTION));
  const decodedSelection = selectionOfSection(sec0, rec, ctx);
  const values = sized(SECTION_VALUES, await pending);
  return chunkOfSelection(decodedSelection, values, values === parts[1], rec, ctx);
}

/** The selection of section 0 (encoded selection + lookup3), checked against the chunk. */
function selectionOfSection(sec0: Uint8Array, rec: ChunkRecord, ctx: ChunkFormatContext): Selection {
  const dims = ctx.chunkDims;
  if (sec0.length < 4) throw fail(ctx, rec, `section 0 has ${sec0.length} bytes, too short for a selection and its checksum`);
  const enc = sec0.subarray(0, sec0.length - 4);
  const stored = new DataView(sec0.buffer, sec0.byteOffset, sec0.byteLength).getUint32(enc.length, true);
  const actual = lookup3(enc);
  if (stored !== actual) throw new ChecksumError('structured chunk section 0 (encoded selection)', rec.address, stored, actual, chunkLabel(ctx, rec.coords));
  let decoded: DecodedSelection;
  try {
    decoded = decodeSelection(enc, { path: ctx.datasetPath, chunk: rec.coords, address: rec.address });
  } catch (e) {
    if (e instanceof H5Error && !(e instanceof FormatError)) throw fail(ctx, rec, `section 0: ${e.detail}`);
    throw e;
  }
  const sel = decoded.selection;
  // A block list was checked block by block against its extent while decoded: an extent within the
  // chunk needs no second pass over the blocks.
  const ext = decoded.extent;
  const inside = sel.kind === 'blocks' && ext.kind === 'simple' && ext.rank === dims.length && ext.dims.every((n, d) => n <= dims[d]!);
  if (!inside) checkSelection(sel, dims.length, ctx, rec);
  return sel;
}

/** The memory form of a decoded chunk: `sel` and its `values` (`borrowedValues`: a view of the bytes read). */
function chunkOfSelection(sel: Selection, values: Uint8Array, borrowedValues: boolean, rec: ChunkRecord, ctx: ChunkFormatContext): SparseChunk {
  const es = ctx.elementSize;
  const dims = ctx.chunkDims;
  // (a block list's count comes with the prefix sums its frames are found by: one pass for both)
  const count = sel.kind === 'blocks' ? boxesElements(sel.boxes, sel.rank) : selectionCount(sel, dims);
  if (values.length !== count * es) {
    throw fail(ctx, rec, `section 1 has ${values.length} bytes, the selection of ${count} elements needs ${count * es}`);
  }
  if (sel.kind === 'points') return fromPoints(sel.coords, borrowedValues ? values.slice() : values, es, dims);
  // Unfiltered values are a view of the bytes read, which the store may reuse: keep a copy.
  const own = borrowedValues ? values.slice() : values;
  // A decoded block list is canonical already (and validated above): it is the chunk's selection,
  // and its runs are derived when first needed (reading whole chunks never needs them).
  if (sel.kind === 'blocks') {
    const mem = lazyRuns(sel, own, () => pairsToDefined(selectionRuns(sel, dims)));
    decoded.set(mem, sel);
    return mem;
  }
  const runs = pairsToDefined(selectionRuns(sel, dims));
  return { selection: runsSelection(runs, dims), values: own, runs };
}

/**
 * Chunks decoded here and their decoded block list: boxes of their own, never changed (a write gives a
 * chunk a new selection), of which callers of `definedValues` / `defined` only ever keep copies.
 */
export const decoded = new WeakMap<SparseChunk, BlockSelection>();

