/**
 * Chunk mapping (docs/architecture.md §4, HDF5's `H5D__chunk_io_init`): splits a file selection into the
 * chunks it touches. For each chunk it gives runs of elements that are contiguous both inside
 * the chunk and in the flat read/write buffer, so a chunk format copies data with a few
 * `TypedArray.set`/`copyWithin` calls per chunk.
 *
 * - `all`, a regular hyperslab and a single box are products of per-dimension interval lists:
 *   each dimension is split at chunk boundaries once, and every touched chunk gets its runs by
 *   a nested loop over the outer dimensions (work ∝ runs, no maps, pieces come out sorted);
 * - unions of blocks walk the canonical box structure and cut rows at chunk boundaries;
 * - points are grouped by chunk, keeping their buffer positions.
 * @module
 */
import { ValueError } from '../errors.js';
import { productIntervals } from '../selection/hyperslab.js';
import { validateSelection, type BlockSelection, type Selection } from '../selection/selection.js';
import { insideCount, makeGrid, type ChunkPiece, type Grid } from './chunk-grid.js';
import { finish, RunSlab, TripleBuilder } from './run-builder.js';
import { mapPoints } from './map-points.js';

export type { ChunkPiece } from './chunk-grid.js';

/** One dimension of a product selection, cut at chunk boundaries. */
export interface DimSplit {
  /** Chunk indices touched, ascending. */
  q: number[];
  /**
   * Group g's triples `[localStart, length, rank]` are `t[3*first[g] .. 3*first[g+1])`. Float64Arrays: a
   * `number[]` grown with push holds small integers or doubles depending on which code pushed, and the row
   * patterns read from arrays of both kinds were deoptimised in a process's second write.
   */
  first: Float64Array;
  t: Float64Array;
  /** Selected elements per group. */
  sum: number[];
  /** Group is one interval covering the whole chunk and the whole selection in this dimension. */
  bothFull: boolean[];
  /** Elements selected in this dimension. */
  size: number;
}

function splitDim(list: Float64Array, cd: number): DimSplit {
  const s = { q: [] as number[], first: [] as number[], t: [] as number[], sum: [] as number[], bothFull: [] as boolean[] };
  let rank = 0;
  for (let i = 0; i < list.length; i += 2) {
    const e = list[i + 1]!;
    for (let x = list[i]!; x < e; ) {
      const q = Math.floor(x / cd);
      const qe = Math.min(e, (q + 1) * cd);
      if (s.q.length === 0 || s.q[s.q.length - 1] !== q) {
        s.q.push(q);
        s.first.push(s.t.length / 3);
        s.sum.push(0);
      }
      s.t.push(x - q * cd, qe - x, rank);
      s.sum[s.sum.length - 1] += qe - x;
      rank += qe - x;
      x = qe;
    }
  }
  s.first.push(s.t.length / 3);
  for (let g = 0; g < s.q.length; g++) {
    const one = s.first[g + 1]! - s.first[g]! === 1;
    s.bothFull.push(one && s.t[3 * s.first[g]!] === 0 && s.sum[g] === cd && s.sum[g] === rank);
  }
  return dimSplit(s.q, s.first, s.t, s.sum, s.bothFull, rank);
}

/** A {@link DimSplit} (made in one place: one object shape). */
function dimSplit(q: number[], first: number[], t: number[], sum: number[], bothFull: boolean[], size: number): DimSplit {
  return { q, first: Float64Array.from(first), t: Float64Array.from(t), sum, bothFull, size };
}

/**
 * The split of one dimension's interval list restricted to chunk `q` (one group), with ranks and
 * `size` of the whole list, so the runs keep their buffer positions in the whole selection.
 * `prefix[i]` = elements of the list before interval i. Null when the chunk holds none of the list.
 */
function splitDimAt(list: Float64Array, prefix: Float64Array, cd: number, q: number): DimSplit | null {
  const lo = q * cd;
  const hi = lo + cd;
  // first interval ending after lo (intervals are sorted and disjoint)
  let a = 0;
  let b = list.length / 2;
  while (a < b) {
    const m = (a + b) >> 1;
    if (list[2 * m + 1]! <= lo) a = m + 1;
    else b = m;
  }
  const s = { q: [q], first: [0], t: [] as number[], sum: [0], bothFull: [] as boolean[], size: prefix[list.length / 2]! };
  for (let i = a; i < list.length / 2 && list[2 * i]! < hi; i++) {
    const x = Math.max(lo, list[2 * i]!);
    const e = Math.min(hi, list[2 * i + 1]!);
    s.t.push(x - lo, e - x, prefix[i]! + (x - list[2 * i]!));
    s.sum[0] += e - x;
  }
  if (s.t.length === 0) return null;
  s.first.push(s.t.length / 3);
  s.bothFull.push(s.t.length === 3 && s.t[0] === 0 && s.sum[0] === cd && s.sum[0] === s.size);
  return dimSplit(s.q, s.first, s.t, s.sum, s.bothFull, s.size);
}

function mapProduct(lists: Float64Array[], g: Grid, hook?: PieceHook): ChunkPiece[] {
  return mapSplits(lists.map((l, d) => splitDim(l, g.chunk[d]!)), g, new RunSlab(), hook);
}

/**
 * Makes the piece of the current chunk of a product mapping itself (e.g. ./row-pieces.ts), or returns
 * null to have its runs built: `splits` per dimension, `gi` the chunk's group in each, `m` the first
 * dimension (from the end) whose runs are not whole chunk rows, `bStride` the buffer strides.
 */
export type PieceHook = (
  splits: readonly DimSplit[],
  gi: readonly number[],
  m: number,
  g: Grid,
  bStride: readonly number[],
  coords: number[],
  count: number,
) => ChunkPiece | null;

/**
 * The pieces of the product of `splits`; runs are carved from `slab` (shared by calls of one mapping).
 * `hook` may make a chunk's piece itself ({@link PieceHook}).
 */
function mapSplits(splits: DimSplit[], g: Grid, slab = new RunSlab(), hook?: PieceHook): ChunkPiece[] {
  const r = g.r;
  if (splits.some((s) => s.q.length === 0)) return [];
  const bStride = new Array<number>(r);
  for (let d = r - 1, acc = 1; d >= 0; d--) {
    bStride[d] = acc;
    acc *= splits[d]!.size;
  }
  const pieces: ChunkPiece[] = [];
  const gi = new Array<number>(r).fill(0);
  let m = 0;
  let out: TripleBuilder = new TripleBuilder(1);
  const emit = (d: number, cBase: number, bBase: number): void => {
    const s = splits[d]!;
    const grp = gi[d]!;
    const t = s.t;
    const cs = g.cStride[d]!;
    const bs = bStride[d]!;
    if (d === m) {
      for (let k = 3 * s.first[grp]!; k < 3 * s.first[grp + 1]!; k += 3) out.push(cBase + t[k]! * cs, bBase + t[k + 2]! * bs, t[k + 1]! * cs);
      return;
    }
    const kEnd = 3 * s.first[grp + 1]!;
    if (d + 1 === m) {
      // innermost loop without recursion: rows of dimension d, runs of dimension m
      const sm = splits[m]!;
      const tm = sm.t;
      const km0 = 3 * sm.first[gi[m]!]!;
      const km1 = 3 * sm.first[gi[m]! + 1]!;
      const csm = g.cStride[m]!;
      const bsm = bStride[m]!;
      if (km1 - km0 === 3) {
        // one run per row: rows that cannot merge go straight into the (pre-sized) buffer
        const c0 = tm[km0]! * csm;
        const b0 = tm[km0 + 2]! * bsm;
        const len = tm[km0 + 1]! * csm;
        for (let k = 3 * s.first[grp]!; k < kEnd; k += 3) out.pushRows(t[k + 1]!, cBase + t[k]! * cs + c0, cs, bBase + t[k + 2]! * bs + b0, bs, len);
        return;
      }
      for (let k = 3 * s.first[grp]!; k < kEnd; k += 3) {
        const n = t[k + 1]!;
        let c = cBase + t[k]! * cs;
        let b = bBase + t[k + 2]! * bs;
        for (let u = 0; u < n; u++, c += cs, b += bs) {
          for (let km = km0; km < km1; km += 3) out.push(c + tm[km]! * csm, b + tm[km + 2]! * bsm, tm[km + 1]! * csm);
        }
      }
      return;
    }
    for (let k = 3 * s.first[grp]!; k < kEnd; k += 3) {
      const ls = t[k]!;
      const rk = t[k + 2]!;
      for (let u = 0; u < t[k + 1]!; u++) emit(d + 1, cBase + (ls + u) * cs, bBase + (rk + u) * bs);
    }
  };
  for (;;) {
    // Grown with push, not `gi.map`: optimised code makes `map`'s result a holey array, the builtin a packed
    // one, and chunk coordinates of both kinds deoptimise every index lookup that saw only one.
    const coords: number[] = [];
    for (let d = 0; d < r; d++) coords.push(splits[d]!.q[gi[d]!]!);
    let count = 1;
    for (let d = 0; d < r; d++) count *= splits[d]!.sum[gi[d]!]!;
    m = r - 1;
    while (m > 0 && splits[m]!.bothFull[gi[m]!]) m--;
    const made = hook?.(splits, gi, m, g, bStride, coords, count);
    if (made) pieces.push(made);
    else {
      let bound = splits[m]!.first[gi[m]! + 1]! - splits[m]!.first[gi[m]!]!;
      for (let d = 0; d < m; d++) bound *= splits[d]!.sum[gi[d]!]!;
      out = slab.builder(bound);
      emit(0, 0, 0);
      slab.commit(out);
      pieces.push({ coords, runs: out.result(), count, full: count === insideCount(g, coords) });
    }
    let d = r - 1;
    for (; d >= 0; d--) {
      if (++gi[d]! < splits[d]!.q.length) break;
      gi[d] = 0;
    }
    if (d < 0) break;
  }
  return pieces;
}

function mapBlocks(sel: BlockSelection, g: Grid): ChunkPiece[] {
  const r = g.r;
  const w = 2 * r;
  const b = sel.boxes;
  const map = new Map<number, TripleBuilder>();
  let lastKey = -1;
  let last: TripleBuilder | undefined;
  const builder = (key: number): TripleBuilder => {
    if (key === lastKey) return last!;
    let t = map.get(key);
    if (!t) map.set(key, (t = new TripleBuilder(8)));
    lastKey = key;
    last = t;
    return t;
  };
  // Elements of the cross-section (dims > d) of the group of boxes [i, j) — memoised by (i, d).
  const memo = new Float64Array(sel.boxCount * r).fill(-1);
  const last1 = r - 1;
  const crossCount = (i: number, j: number, d: number): number => {
    let v = memo[i * r + d]!;
    if (v >= 0) return v;
    v = 0;
    for (let k = i; k < j; k++) {
      let p = 1;
      for (let e = d + 1; e < r; e++) p *= b[k * w + 2 * e + 1]! - b[k * w + 2 * e]!;
      v += p;
    }
    memo[i * r + d] = v;
    return v;
  };
  // A group that is a single box from dimension d on: cut each dimension at chunk boundaries once
  // and fill each touched chunk row by row (one map lookup per chunk, not per row).
  const segs: number[][] = Array.from({ length: r }, () => []);
  const bs = new Array<number>(r).fill(0);
  const cur = new Array<number>(r).fill(0);
  let tb: TripleBuilder;
  const rows = (k: number, c: number, bb: number): void => {
    const sg = segs[k]!;
    const len = sg[cur[k]! + 2]!;
    if (k === r - 1) {
      tb.push(c, bb, len);
      return;
    }
    const cs = g.cStride[k]!;
    const bsk = bs[k]!;
    for (let u = 0; u < len; u++) rows(k + 1, c + u * cs, bb + u * bsk);
  };
  // A box whose dimensions d… lie in one chunk (a point group inside a frame): its rows go to one
  // builder, counted in place — no segment lists.
  const ctr = new Float64Array(r);
  const boxInOneChunk = (i: number, d: number, keyBase: number, offBase: number, pos: number): boolean => {
    let key = keyBase;
    let c = offBase;
    for (let k = d; k < r; k++) {
      const s0 = b[i * w + 2 * k]!;
      const cd = g.chunk[k]!;
      const q = Math.floor(s0 / cd);
      if ((q + 1) * cd < b[i * w + 2 * k + 1]!) return false;
      key += q * g.gStride[k]!;
      c += (s0 - q * cd) * g.cStride[k]!;
    }
    const t = builder(key);
    const lenL = b[i * w + 2 * last1 + 1]! - b[i * w + 2 * last1]!;
    let rowsLeft = 1;
    for (let k = d; k < last1; k++) {
      rowsLeft *= b[i * w + 2 * k + 1]! - b[i * w + 2 * k]!;
      ctr[k] = 0;
    }
    for (let bb = pos; rowsLeft > 0; rowsLeft--, bb += lenL) {
      t.push(c, bb, lenL);
      for (let k = last1 - 1; k >= d; k--) {
        const cs = g.cStride[k]!;
        c += cs;
        if (++ctr[k]! < b[i * w + 2 * k + 1]! - b[i * w + 2 * k]!) break;
        c -= ctr[k]! * cs;
        ctr[k] = 0;
      }
    }
    return true;
  };
  const boxTail = (i: number, d: number, keyBase: number, offBase: number, pos: number): void => {
    if (boxInOneChunk(i, d, keyBase, offBase, pos)) return;
    let acc = 1;
    for (let k = r - 1; k >= d; k--) {
      const s0 = b[i * w + 2 * k]!;
      const e0 = b[i * w + 2 * k + 1]!;
      const cd = g.chunk[k]!;
      const sg = (segs[k] = [] as number[]);
      for (let x = s0; x < e0; ) {
        const q = Math.floor(x / cd);
        const qe = Math.min(e0, (q + 1) * cd);
        sg.push(q, x - q * cd, qe - x, x - s0);
        x = qe;
      }
      bs[k] = acc;
      acc *= e0 - s0;
      cur[k] = 0;
    }
    for (;;) {
      let key = keyBase;
      let c = offBase;
      let bb = pos;
      for (let k = d; k < r; k++) {
        const sg = segs[k]!;
        const o = cur[k]!;
        key += sg[o]! * g.gStride[k]!;
        c += sg[o + 1]! * g.cStride[k]!;
        bb += sg[o + 3]! * bs[k]!;
      }
      tb = builder(key);
      rows(d, c, bb);
      let k = r - 1;
      for (; k >= d; k--) {
        cur[k] = cur[k]! + 4;
        if (cur[k]! < segs[k]!.length) break;
        cur[k] = 0;
      }
      if (k < d) break;
    }
  };
  const cdL = g.chunk[last1]!;
  const walk = (from: number, to: number, d: number, keyBase: number, offBase: number, bufBase: number): number => {
    let pos = bufBase;
    let i = from;
    while (i < to) {
      const s = b[i * w + 2 * d]!;
      const e = b[i * w + 2 * d + 1]!;
      let j = i + 1;
      while (j < to && b[j * w + 2 * d] === s && b[j * w + 2 * d + 1] === e) j++;
      if (d === last1) {
        for (let x = s; x < e; ) {
          const q = Math.floor(x / cdL);
          const qe = Math.min(e, (q + 1) * cdL);
          builder(keyBase + q).push(offBase + (x - q * cdL), pos, qe - x);
          pos += qe - x;
          x = qe;
        }
      } else if (j - i === 1) {
        boxTail(i, d, keyBase, offBase, pos);
        pos += crossCount(i, j, d) * (e - s);
      } else {
        const cd = g.chunk[d]!;
        const gs = g.gStride[d]!;
        const cs = g.cStride[d]!;
        const cross = crossCount(i, j, d);
        for (let x = s; x < e; x++) {
          const q = Math.floor(x / cd);
          walk(i, j, d + 1, keyBase + q * gs, offBase + (x - q * cd) * cs, pos);
          pos += cross;
        }
      }
      i = j;
    }
    return pos;
  };
  walk(0, sel.boxCount, 0, 0, 0, 0);
  return finish(map, g, false);
}

/**
 * Maps a selection of a dataset of shape `dims`, stored in chunks of `chunkDims`, onto the chunks
 * it touches: one {@link ChunkPiece} per touched chunk, sorted by chunk coordinates (C order).
 * Validates the selection first ({@link SelectionError}); bad chunk dims give a {@link ValueError}.
 * `opts.piece`: makes pieces of product selections itself where it can (./row-pieces.ts: whole tiles
 * of a larger box as row patterns, `runs` built only when read).
 */
export function mapToChunks(sel: Selection, dims: readonly number[], chunkDims: readonly number[], opts: { piece?: PieceHook } = {}): ChunkPiece[] {
  validateSelection(sel, dims);
  const g = makeGrid(dims, chunkDims);
  if (sel.kind === 'none') return [];
  if (g.r === 0) return [{ coords: [], runs: Float64Array.of(0, 0, 1), count: 1, full: true }];
  if (sel.kind === 'points') return sel.pointCount === 0 ? [] : mapPoints(sel, g);
  const lists = productIntervals(sel, dims);
  if (lists) return mapProduct(lists, g, opts.piece);
  return mapBlocks(sel as BlockSelection, g);
}

/**
 * {@link mapToChunks} for only the chunks at `coords` (e.g. the stored chunks of a mostly absent
 * extent): the pieces of those chunks, with buffer positions in the whole selection, in the order
 * of `coords`; chunks the selection misses give no piece. Work is proportional to `coords` and their
 * runs, not to the chunks the selection spans. Null for selections that are not products (points,
 * unions of blocks) and for scalars: map those with {@link mapToChunks}.
 */
export function mapChunksAt(sel: Selection, dims: readonly number[], chunkDims: readonly number[], coords: readonly (readonly number[])[]): ChunkPiece[] | null {
  validateSelection(sel, dims);
  const g = makeGrid(dims, chunkDims);
  if (sel.kind === 'none') return [];
  if (g.r === 0) return null;
  const lists = productIntervals(sel, dims);
  if (!lists) return null;
  const prefixes = lists.map((l) => {
    const p = new Float64Array(l.length / 2 + 1);
    for (let i = 0; i < l.length / 2; i++) p[i + 1] = p[i]! + l[2 * i + 1]! - l[2 * i]!;
    return p;
  });
  const out: ChunkPiece[] = [];
  const slab = new RunSlab();
  for (const q of coords) {
    const splits: DimSplit[] = [];
    for (let d = 0; d < g.r; d++) {
      const s = q[d]! < g.n[d]! ? splitDimAt(lists[d]!, prefixes[d]!, g.chunk[d]!, q[d]!) : null;
      if (!s) break;
      splits.push(s);
    }
    if (splits.length === g.r) out.push(...mapSplits(splits, g, slab));
  }
  return out;
}
