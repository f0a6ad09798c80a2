/**
 * The `defined` and `erase` walks of the chunk engine (docs/architecture.md §4, docs/architecture.md §6 `H5Dget_defined`
 * / `H5Derase`): visit every chunk that can hold defined elements within a selection and ask the
 * chunk format. Formats without `defined` (dense) have every element defined.
 * @module
 */
import { boundingBox, intersect, offsetSelection, selectionCount, toBlocks, union } from '../selection/algebra.js';
import { boxesBounds } from '../selection/boxes.js';
import { concatSlabs } from '../selection/concat.js';
import type { ChunkRecord } from './chunk-index.js';
import { compareCoords } from './chunk-grid.js';
import { setDefinedWalks } from './defined-walks.js';
import type { Candidate } from './candidates.js';
import { blocksFromCanonical, selectBlocks, selectNone, type Selection } from '../selection/selection.js';

const isCandidate = (c: readonly number[] | Candidate): c is Candidate => !Array.isArray(c);

/** A chunk's box in dataset coordinates (clipped to the dataset) and its chunk-relative part of `sel`. */
export interface ChunkPart {
  coords: number[];
  /**
   * The chunk's index record when the search for candidates looked it up (null: not stored), so
   * that loading the chunk needs no second lookup; undefined when unknown.
   */
  rec?: ChunkRecord | null;
  start: number[];
  /** The part of the selection inside the chunk, in chunk-relative coordinates. */
  chunkSel: Selection;
}

/** The chunks (from `candidates`) that `sel` touches, with the chunk-relative selection of each. */
export function chunkParts(
  sel: Selection,
  dims: readonly number[],
  chunkDims: readonly number[],
  candidates: Iterable<readonly number[] | Candidate>,
): ChunkPart[] {
  const bb = boundingBox(sel, dims);
  if (!bb) return [];
  const out: ChunkPart[] = [];
  for (const c of candidates) {
    const coords = isCandidate(c) ? c.coords : c;
    const start = coords.map((c, i) => c * chunkDims[i]!);
    const end = start.map((s, i) => Math.min(s + chunkDims[i]!, dims[i]!));
    if (start.some((s, i) => s >= bb.end[i]! || end[i]! <= bb.start[i]! || s >= end[i]!)) continue;
    const part = intersect(sel, selectBlocks([{ start, end }]), dims);
    if (selectionCount(part, dims) === 0) continue;
    out.push({ coords: [...coords], start, chunkSel: offsetSelection(part, start.map((s) => -s)), ...(isCandidate(c) ? { rec: c.rec } : {}) });
  }
  return out.sort((a, b) => compareCoords(a.coords, b.coords));
}

/**
 * Union of the per-chunk selections `parts`. Parts are split into slabs of dimension 0 that no other
 * part reaches into (the chunk rows of parts in different rows of chunks never overlap); slabs holding
 * one part are concatenated as they are ({@link concatSlabs}), and only parts sharing a slab are merged,
 * by pairwise reduction (keeps each union small).
 */
export function unionAll(parts: Selection[], dims: readonly number[]): Selection {
  const rank = dims.length;
  const blocks: Float64Array[] = [];
  const lo: number[] = [];
  const hi: number[] = [];
  for (const p of parts) {
    if (p.kind === 'none') continue;
    const b = rank === 0 || p.kind === 'all' ? undefined : toBlocks(p, dims);
    if (!b) return pairwise(parts, dims);
    if (b.kind === 'none') continue;
    blocks.push(b.boxes);
    const bb = boxesBounds(b.boxes, rank);
    lo.push(bb.start[0]!);
    hi.push(bb.end[0]!);
  }
  if (blocks.length === 0) return selectNone();
  const order = blocks.map((_, i) => i).sort((i, j) => lo[i]! - lo[j]! || i - j);
  const slabs: Float64Array[] = [];
  for (let k = 0; k < order.length; ) {
    // a slab: parts whose dimension-0 extents chain-overlap
    let end = hi[order[k]!]!;
    let m = k + 1;
    while (m < order.length && lo[order[m]!]! < end) end = Math.max(end, hi[order[m++]!]!);
    if (m === k + 1) slabs.push(blocks[order[k]!]!);
    else {
      const merged = pairwise(order.slice(k, m).map((i) => blocksFromCanonical(blocks[i]!, rank)), dims);
      if (merged.kind === 'blocks') slabs.push(merged.boxes);
    }
    k = m;
  }
  return concatSlabs(slabs, rank);
}

/** Union of many selections by pairwise reduction. */
function pairwise(parts: Selection[], dims: readonly number[]): Selection {
  if (parts.length === 0) return selectNone();
  let level = parts;
  while (level.length > 1) {
    const next: Selection[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? union(level[i]!, level[i + 1]!, dims) : level[i]!);
    level = next;
  }
  return level[0]!;
}

/** True when chunks span the dataset in every dimension but the first (each chunk is one slab of dimension 0). */
export function chunksAreSlabs(dims: readonly number[], chunkDims: readonly number[]): boolean {
  if (dims.length === 0) return false;
  for (let d = 1; d < dims.length; d++) if (chunkDims[d]! < dims[d]!) return false;
  return true;
}

/**
 * The part of `sel` when it is one box inside one chunk (a frame of a chunk of several frames);
 * null otherwise. Computed from the box alone (a hyperslab is one box when each dimension has one
 * block or blocks that touch): no selection algebra, no index lookup (`rec` unknown).
 */
export function oneChunkPart(sel: Selection, dims: readonly number[], chunkDims: readonly number[]): ChunkPart | null {
  if (sel.kind === 'points' || sel.kind === 'none' || (sel.kind === 'blocks' && sel.boxCount !== 1)) return null;
  const rank = dims.length;
  const coords = new Array<number>(rank);
  const start = new Array<number>(rank);
  const box = new Float64Array(2 * rank);
  for (let d = 0; d < rank; d++) {
    let s = 0;
    let e = dims[d]!;
    if (sel.kind === 'blocks') ((s = sel.boxes[2 * d]!), (e = sel.boxes[2 * d + 1]!));
    else if (sel.kind === 'hyperslab') {
      const n = sel.count[d]!;
      if (n > 1 && sel.stride[d] !== sel.block[d]) return null; // strided: more than one box
      s = sel.start[d]!;
      e = s + n * sel.block[d]!;
    }
    const c = chunkDims[d]!;
    if (!(e > s) || e > dims[d]! || Math.floor(s / c) !== Math.floor((e - 1) / c)) return null;
    coords[d] = Math.floor(s / c);
    start[d] = coords[d] * c;
    box[2 * d] = s - start[d];
    box[2 * d + 1] = e - start[d];
  }
  return { coords, start, chunkSel: blocksFromCanonical(box, rank) };
}

/** Chunk reads of `concatDefinedValues` in flight at once (one chunk's I/O and inflating overlap the decoding of another). */
const AHEAD = 4;

/**
 * The defined elements of `parts` (in chunk order, chunks that are slabs of dimension 0: see
 * {@link chunksAreSlabs}) and their values: `read` gives each part's chunk-relative defined selection
 * and values; the union is the concatenation of the parts and the values follow in the same order.
 * Up to {@link AHEAD} parts are read at once; the result is built in one pass over them.
 */
export async function concatDefinedValues(
  parts: readonly ChunkPart[],
  dims: readonly number[],
  chunkDims: readonly number[],
  read: (part: ChunkPart) => Promise<{ selection: Selection; values: Uint8Array }>,
): Promise<{ selection: Selection; bytes: Uint8Array }> {
  const pending: Promise<{ selection: Selection; values: Uint8Array }>[] = [];
  const start = (i: number): void => {
    const p = read(parts[i]!);
    p.catch(() => undefined); // awaited in order below; a later failure after an earlier one is not reported
    pending.push(p);
  };
  for (let i = 0; i < Math.min(AHEAD, parts.length); i++) start(i);
  const boxes: Float64Array[] = [];
  const shifts: number[][] = [];
  const values: Uint8Array[] = [];
  let total = 0;
  try {
    for (let i = 0; i < parts.length; i++) {
      const r = await pending[i]!;
      if (i + AHEAD < parts.length) start(i + AHEAD);
      const b = toBlocks(r.selection, chunkDims);
      if (b.kind === 'none') continue;
      boxes.push(b.boxes);
      shifts.push(parts[i]!.start);
      // `r.values` may be the chunk's own storage: copied once below, into the result (the caller
      // holds the dataset's read lock, so no write changes it meanwhile)
      values.push(r.values);
      total += r.values.length;
    }
  } catch (e) {
    // nothing of this call runs after it returns (a read may write out a chunk the cache gives up)
    await Promise.allSettled(pending);
    throw e;
  }
  const bytes = new Uint8Array(total);
  let o = 0;
  for (const v of values) (bytes.set(v, o), (o += v.length));
  return { selection: concatSlabs(boxes, dims.length, shifts), bytes };
}

/**
 * Installs the reads of defined elements (./defined-walks.ts) for every dataset whose chunk format
 * has `defined` / `definedValues`: formats that track defined elements call it when they register.
 * Calling it again does nothing new.
 */
export function installDefinedReads(): void {
  setDefinedWalks({ chunkParts, chunksAreSlabs, concatDefinedValues, oneChunkPart, unionAll, concatSlabs });
}
