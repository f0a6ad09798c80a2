/**
 * The memory form of a sparse (structured) chunk and its operations (docs/structured-chunk-format.md §6, §8;
 * docs/architecture.md §3): the defined elements as a selection in chunk-relative coordinates plus their values
 * in selection order — C order of the defined elements (docs/structured-chunk-format.md §6.2) — as one byte array. Reads,
 * writes and erasures merge run lists; no per-element objects.
 * @module
 */
import {
  boundingBox,
  intersect,
  selectionCount,
  selectionRuns,
  selectNone,
  toBlocks,
  ValueError,
  type BlockSelection,
  type ChunkRequest,
  type NoneSelection,
  type Selection,
} from '@chunkform/core';
import { blocksFromCanonical, sameNumbers, trustSelection } from '@chunkform/core/plugin';
import { runsToBoxes } from './canonical.js';
import type { EncodePlan } from './encode-plan.js';
import { keepValues } from './owned-values.js';
import { appendBoxes, appendDefined, appendsAfter, boxesInSlab, boxesRows } from './slabs.js';
import {
  DEF,
  allocValues,
  copyBytes,
  definedFromPoints,
  definedFromSorted,
  definedCount,
  findRun,
  seekRun,
  moveValues,
  pairsToDefined,
  requestSet,
  requestSorted,
  subtractDefined,
  unionDefined,
} from './runs.js';

/** One sparse chunk in memory. Mutable: `memWrite` and `erase` update it in place. */
export interface SparseChunk {
  /** The defined elements, chunk-relative: canonical blocks (`none` when nothing is defined). */
  selection: BlockSelection | NoneSelection;
  /** Values of the defined elements in C order of their coordinates: `count × elementSize` bytes. */
  values: Uint8Array;
  /**
   * The defined elements as runs of C-order chunk offsets: flat triples `[offset, length,
   * valueIndex]`, sorted and merged (derived from `selection`; kept for fast reads and writes).
   */
  runs: Float64Array;
}

/** Value arrays that are views of a caller's buffer (see {@link chunkFromRequest}): copied before any in-place write. */
const borrowed = new WeakSet<Uint8Array>();

/**
 * A second handle on a chunk that shares its arrays: selection and runs are never changed in place,
 * and the values are marked borrowed, so the first in-place write through either handle copies them.
 * `mem` itself must not be written through afterwards (the handle reads its runs on first use).
 */
export function shareChunk(mem: SparseChunk): SparseChunk {
  lendValues(mem);
  // `mem.runs` may be derived on first use (decoded chunks): not asked for until the handle needs it
  return lazyRuns(mem.selection, mem.values, () => mem.runs, runsPending.has(mem));
}

/** Chunks made by {@link lazyRuns} whose runs nobody asked for yet. */
const runsPending = new WeakSet<SparseChunk>();

/** A chunk whose defined runs come from `derive` on first use (or are set by a writer); `pending`: not derived yet. */
export function lazyRuns(selection: BlockSelection | NoneSelection, values: Uint8Array, derive: () => Float64Array, pending = true): SparseChunk {
  let runs: Float64Array | undefined;
  const mem: SparseChunk = {
    selection,
    values,
    get runs(): Float64Array {
      runsPending.delete(mem);
      return (runs ??= derive());
    },
    set runs(r: Float64Array) {
      runsPending.delete(mem);
      runs = r;
    },
  };
  if (pending) runsPending.add(mem);
  return mem;
}

/**
 * Bytes of a chunk's runs; while they are not derived, an upper bound from its boxes (one run per
 * row of a box at most) — deriving them only to size a cache entry would cost more than a read.
 */
export function runsBytes(mem: SparseChunk): number {
  const sel = mem.selection;
  if (!runsPending.has(mem) || sel.kind !== 'blocks') return mem.runs.byteLength;
  return 8 * DEF * boxesRows(sel.boxes, sel.rank);
}

/** Marks a chunk's values as shared with something else (e.g. a pending chunk image): copy before writing in place. */
export function lendValues(mem: SparseChunk): void {
  if (mem.values.length > 0) borrowed.add(mem.values);
  keepValues(mem.values);
}

/** A chunk with nothing defined. */
export function emptyChunk(): SparseChunk {
  return { selection: selectNone(), values: new Uint8Array(0), runs: new Float64Array(0) };
}

/** Number of defined elements. */
export function chunkCount(mem: SparseChunk): number {
  return definedCount(mem.runs);
}

/** The selection of defined runs (canonical blocks). */
export function runsSelection(runs: Float64Array, dims: readonly number[]): BlockSelection | NoneSelection {
  const sel = blocksFromCanonical(runsToBoxes(runs, DEF, dims), dims.length);
  trustSelection(sel, dims); // built inside the chunk: encoding it needs no bounds check
  return sel;
}

/** Fills elements with the fill value (zeros when none). */
export class FillWriter {
  private pattern: Uint8Array | null = null;

  constructor(
    private readonly fillValue: Uint8Array | null,
    private readonly es: number,
  ) {
    if (fillValue && fillValue.length !== es) {
      throw new ValueError(`fill value has ${fillValue.length} bytes, the datatype ${es}`);
    }
    if (fillValue && fillValue.every((b) => b === 0)) this.fillValue = null;
  }

  /** Writes `count` fill elements into `out` from byte `at`. */
  fill(out: Uint8Array, at: number, count: number): void {
    const n = count * this.es;
    if (!this.fillValue) {
      out.fill(0, at, at + n);
      return;
    }
    if (!this.pattern) {
      const p = new Uint8Array(this.es * 1024);
      for (let i = 0; i < p.length; i += this.es) p.set(this.fillValue, i);
      this.pattern = p;
    }
    const p = this.pattern;
    for (let done = 0; done < n; done += p.length) out.set(n - done >= p.length ? p : p.subarray(0, n - done), at + done);
  }
}

/**
 * Copies the requested elements into `out`: values of defined elements, the fill value elsewhere
 * (docs/architecture.md §3 `mem_read`). Sorted requests walk both run lists once; unsorted ones (points) search.
 */
export function readChunk(mem: SparseChunk, req: ChunkRequest, out: Uint8Array, es: number, filler: FillWriter): void {
  const D = mem.runs;
  const nD = D.length;
  const vals = mem.values;
  const r = req.runs;
  let j = 0; // first defined run ending after the previous request run's start
  let prev = -1;
  for (let i = 0; i < r.length; i += 3) {
    const c = r[i]!;
    const n = r[i + 2]!;
    j = c >= prev ? seekRun(D, j, c) : 3 * findRun(D, c);
    prev = c;
    const end = c + n;
    let pos = c;
    let bo = r[i + 1]! * es;
    let k = j;
    while (pos < end) {
      if (k < nD && D[k]! <= pos) {
        const runEnd = D[k]! + D[k + 1]!;
        const e = runEnd < end ? runEnd : end;
        const vi = (D[k + 2]! + pos - D[k]!) * es;
        const len = (e - pos) * es;
        copyBytes(out, bo, vals, vi, len);
        bo += len;
        pos = e;
        if (pos === runEnd) k += 3;
      } else {
        const e = k < nD && D[k]! < end ? D[k]! : end;
        filler.fill(out, bo, e - pos);
        bo += (e - pos) * es;
        pos = e;
      }
    }
  }
}

/**
 * Writes the requested elements from `src` (docs/architecture.md §3 `mem_write`): they become defined (union with
 * the defined set) with the new values; the value array is rebuilt by merging runs, O(defined +
 * written). Later runs of a request win over earlier ones for the same element (point duplicates).
 */
export function writeChunk(mem: SparseChunk, req: ChunkRequest, src: Uint8Array, es: number, dims: readonly number[], owned = false, plan?: EncodePlan): void {
  const r = req.runs;
  if (r.length === 0) return;
  if (mem.runs.length === 0) {
    // Nothing defined yet: the written set is the defined set (no union, no value merge); `owned`:
    // large values in a kept buffer (./owned-values.ts); `plan`: the same request as the last
    // fresh chunk's (a region of every frame) reuses its runs and selection (./encode-plan.ts)
    const last = plan?.fresh;
    const hit = last && sameNumbers(last.req, r) ? last : undefined;
    const sorted = definedFromSorted(r, src, es, owned, hit?.runs);
    const fresh = sorted ?? definedFromPoints(r, src, es);
    if (fresh) {
      mem.runs = fresh.runs;
      mem.values = fresh.values;
      mem.selection = hit ? hit.selection : runsSelection(fresh.runs, dims);
      if (sorted && plan && !hit) plan.fresh = { req: r.slice(), runs: fresh.runs, selection: mem.selection };
      return;
    }
  }
  if (appendsAfter(mem.runs, r)) appendWrite(mem, r, src, es, dims);
  else mergeWrite(mem, req, src, es, dims);
}

/**
 * The runs, values and selection boxes that appends made for a chunk (arrays with spare room that
 * only this chunk views; `boxes` null while the selection is derived from the runs on demand).
 */
const grown = new WeakMap<SparseChunk, { runs: Float64Array; values: Uint8Array; boxes: Float64Array | null }>();

/**
 * A write of elements that all come after the chunk's last defined element (./slabs.ts): runs and
 * values extended in place when this chunk grew them before and nothing else shares them. The
 * canonical boxes grow by those of the new elements when they start a later index of dimension 0
 * (a new frame); otherwise the selection is derived from the runs when next asked for.
 */
function appendWrite(mem: SparseChunk, req: Float64Array, src: Uint8Array, es: number, dims: readonly number[]): void {
  const own = grown.get(mem);
  const oldRuns = mem.runs;
  const inPlace = own !== undefined && own.runs === oldRuns && own.values === mem.values && !borrowed.has(mem.values);
  // the current selection's boxes, when known without deriving them
  const cur = own ? (own.runs === oldRuns ? own.boxes : null) : derivedSelection.has(mem) ? null : mem.selection.kind === 'blocks' ? mem.selection.boxes : null;
  const lastLength = oldRuns[oldRuns.length - DEF + 1]!;
  const next = appendDefined(oldRuns, mem.values, req, src, es, inPlace);
  mem.runs = next.runs;
  mem.values = next.values;
  // a first new run that extended the last old one leaves the boxes to a rebuild
  const extended = next.runs[oldRuns.length - DEF + 1] !== lastLength;
  const boxes = cur && !extended ? appendBoxes(cur, next.runs, oldRuns.length, dims, inPlace && own?.boxes === cur) : null;
  grown.set(mem, { ...next, boxes });
  if (boxes) {
    const sel = blocksFromCanonical(boxes, dims.length);
    trustSelection(sel, dims);
    mem.selection = sel;
  } else deriveSelection(mem, dims);
}

/** Chunks whose selection {@link deriveSelection} derives from their runs. */
const derivedSelection = new WeakSet<SparseChunk>();

/** Makes `mem.selection` the canonical boxes of `mem.runs`, computed on first use after the runs change (a writer may still set it). */
function deriveSelection(mem: SparseChunk, dims: readonly number[]): void {
  if (derivedSelection.has(mem)) return;
  derivedSelection.add(mem);
  let sel: BlockSelection | NoneSelection | undefined;
  let of: Float64Array | undefined;
  Object.defineProperty(mem, 'selection', {
    configurable: true,
    enumerable: true,
    get(): BlockSelection | NoneSelection {
      if (of !== mem.runs) ((sel = runsSelection(mem.runs, dims)), (of = mem.runs));
      return sel!;
    },
    set(s: BlockSelection | NoneSelection) {
      sel = s;
      of = mem.runs;
    },
  });
}

/** The general write of {@link writeChunk}: union of run lists and a value merge (any chunk, any request). */
export function mergeWrite(mem: SparseChunk, req: ChunkRequest, src: Uint8Array, es: number, dims: readonly number[]): void {
  const r = req.runs;
  if (r.length === 0) return;
  const oldRuns = mem.runs;
  let runs = oldRuns;
  let values = mem.values;
  const written = requestSet(r);
  const merged = oldRuns.length === 0 ? pairsToDefined(written) : unionDefined(oldRuns, written);
  if (definedCount(merged) !== definedCount(oldRuns)) {
    runs = merged;
    values = allocValues(definedCount(runs) * es);
    if (oldRuns.length > 0) moveValues(oldRuns, mem.values, runs, values, es, false);
  } else if (borrowed.has(values)) {
    values = values.slice(); // never write into the caller's buffer
  }
  const nR = runs.length;
  let k = 0;
  let prev = -1;
  for (let i = 0; i < r.length; i += 3) {
    const c = r[i]!;
    k = c >= prev ? seekRun(runs, k, c) : 3 * findRun(runs, c);
    prev = c;
    const b = r[i + 1]! * es;
    copyBytes(values, (runs[k + 2]! + c - runs[k]!) * es, src, b, r[i + 2]! * es);
  }
  if (runs !== oldRuns) {
    mem.runs = runs;
    mem.selection = runsSelection(runs, dims);
  }
  mem.values = values;
}

/**
 * A chunk built from one request only (a full-chunk write). When the request's buffer holds the
 * elements in chunk order (every hyperslab request), the value array is a view of `src`: no copy.
 */
export function chunkFromRequest(req: ChunkRequest, src: Uint8Array, es: number, dims: readonly number[]): SparseChunk {
  const r = req.runs;
  if (requestSorted(r)) {
    let contiguous = true;
    for (let i = 3; i < r.length && contiguous; i += 3) contiguous = r[i + 1]! === r[i - 2]! + r[i - 1]!;
    if (contiguous && r.length > 0) {
      const runs = pairsToDefined(requestSet(r));
      const b = r[1]! * es;
      const values = src.subarray(b, b + definedCount(runs) * es);
      borrowed.add(values);
      return { selection: runsSelection(runs, dims), values, runs };
    }
  }
  const mem = emptyChunk();
  writeChunk(mem, req, src, es, dims);
  return mem;
}

/** The defined elements within `sel` (chunk-relative; docs/architecture.md §3 `defined`). */
export function definedWithin(mem: SparseChunk, sel: Selection, dims: readonly number[]): Selection {
  if (mem.selection.kind === 'none') return selectNone();
  return intersect(mem.selection, sel, dims);
}

/**
 * The defined elements within `sel` (chunk-relative) and their values in C order of them: the
 * chunk's own values (not copied) when `sel` holds every defined element, else read along the runs
 * of the part.
 */
export function definedValuesWithin(mem: SparseChunk, sel: Selection, es: number, dims: readonly number[]): { selection: Selection; values: Uint8Array } {
  keepValues(mem.values); // the caller may hold a view of them while the chunk is written out
  const range = offsetRange(sel, dims);
  const all = mem.selection;
  if (range && all.kind === 'blocks') {
    // a slab of dimension 0 (e.g. one frame of a chunk of several): whole groups of the canonical
    // boxes (the outer ones cut to the slab), and all elements of the frames before it come first
    // in C order: one piece of the values
    const inner = range[2];
    const a = range[0] / inner;
    const b = range[1] / inner;
    const s = boxesInSlab(all.boxes, all.rank, a, b);
    if (s.from === 0 && s.to === all.boxCount && !s.clip) return { selection: all, values: mem.values };
    const values = mem.values.subarray(s.first * es, (s.first + s.count) * es);
    if (s.count === 0) return { selection: selectNone(), values };
    const w = 2 * all.rank;
    let boxes = all.boxes.subarray(s.from * w, s.to * w);
    if (s.clip) {
      boxes = boxes.slice();
      for (let i = 0; i < boxes.length; i += w) {
        if (boxes[i]! < a) boxes[i] = a;
        if (boxes[i + 1]! > b) boxes[i + 1] = b;
      }
    }
    return { selection: blocksFromCanonical(boxes, all.rank), values };
  }
  const part = definedWithin(mem, sel, dims);
  if (part === mem.selection) return { selection: part, values: mem.values };
  // every run of the part lies inside one (maximal) defined run: the values move like an erase's
  const runs = pairsToDefined(selectionRuns(part, dims));
  const values = new Uint8Array(definedCount(runs) * es);
  moveValues(mem.runs, mem.values, runs, values, es, true);
  return { selection: part, values };
}

/**
 * Makes the elements of `sel` (chunk-relative) undefined and drops their values (docs/architecture.md §3 `erase`,
 * docs/structured-chunk-format.md §8.4: the surviving values are compacted in their new selection order).
 */
export function eraseChunk(mem: SparseChunk, sel: Selection, es: number, dims: readonly number[]): void {
  if (mem.runs.length === 0) return;
  const blocks = toBlocks(sel, dims);
  if (blocks.kind === 'none') return;
  const erased = selectionRuns(blocks, dims);
  const runs = subtractDefined(mem.runs, erased);
  const count = definedCount(runs);
  if (count === definedCount(mem.runs)) return;
  const values = allocValues(count * es);
  moveValues(mem.runs, mem.values, runs, values, es, true);
  mem.runs = runs;
  mem.values = values;
  mem.selection = runsSelection(runs, dims);
}

/**
 * The C-order offsets `[lo, hi)` of `sel` (chunk-relative) when it is one box spanning the chunk in
 * every dimension but the first (a slab of dimension 0: one contiguous range), and the elements per
 * index of dimension 0; null otherwise.
 */
function offsetRange(sel: Selection, dims: readonly number[]): [number, number, number] | null {
  if (dims.length < 2 || sel.kind === 'points' || sel.kind === 'none') return null;
  if (sel.kind === 'blocks' && sel.boxCount !== 1) return null;
  const bb = boundingBox(sel, dims);
  if (!bb) return null;
  let inner = 1;
  for (let d = 1; d < dims.length; d++) {
    if (bb.start[d] !== 0 || bb.end[d] !== dims[d]) return null;
    inner *= dims[d]!;
  }
  const lo = bb.start[0]! * inner;
  const hi = bb.end[0]! * inner;
  return selectionCount(sel, dims) === hi - lo ? [lo, hi, inner] : null;
}
