/**
 * Chunk mapping (seed 004 §6.3, HDF5's `H5D__chunk_io_init`): splits a file selection into the
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
import { validateSelection, type BlockSelection, type PointSelection, type Selection } from '../selection/selection.js';

/** The part of a selection that falls in one chunk. */
export interface ChunkPiece {
  /** Scaled chunk coordinates (element offset of the chunk / chunk dims). */
  coords: number[];
  /**
   * Flat triples `[chunkElementOffset, bufferElementOffset, length, ...]`: `chunkElementOffset` is
   * the C-order offset inside a *whole* chunk (dims = chunk dims, also for edge chunks),
   * `bufferElementOffset` the position in the selection's iteration order. Runs are maximal
   * (both sides contiguous) and in buffer order for hyperslab-like selections.
   */
  runs: Float64Array;
  /** Number of selected elements in this chunk (point duplicates counted). */
  count: number;
  /** True when every element of the chunk that lies inside the dataset is selected. */
  full: boolean;
}

/** Growable triple list; merges a run into the previous one when both sides touch. */
class TripleBuilder {
  buf: Float64Array;
  n = 0;
  count = 0;
  /** `buf`: room for the triples (e.g. a region of a {@link RunSlab}); else `capacity` triples. */
  constructor(capacity: number, buf?: Float64Array) {
    this.buf = buf ?? new Float64Array(3 * Math.max(1, capacity));
  }
  push(c: number, b: number, len: number): void {
    this.count += len;
    const n = this.n;
    const buf = this.buf;
    if (n > 0) {
      const l = buf[n - 1]!;
      if (buf[n - 3]! + l === c && buf[n - 2]! + l === b) {
        buf[n - 1] = l + len;
        return;
      }
    }
    if (n + 3 > buf.length) {
      const next = new Float64Array(buf.length * 2);
      next.set(buf);
      this.buf = next;
    }
    this.buf[n] = c;
    this.buf[n + 1] = b;
    this.buf[n + 2] = len;
    this.n = n + 3;
  }
  result(): Float64Array {
    // A view, not a copy: pieces live for one read or write.
    return this.n === this.buf.length ? this.buf : this.buf.subarray(0, this.n);
  }
}

/**
 * Run storage shared by the pieces of one mapping: builders used one after another take their
 * region from a large block, so a read of many small chunks allocates a few blocks instead of
 * one array per chunk (1,600 per 100 frames of 256×256 tiles).
 */
class RunSlab {
  private block = new Float64Array(0);
  private pos = 0;
  /** A builder with room for `capacity` triples at the free end of the current block. */
  builder(capacity: number): TripleBuilder {
    const need = 3 * Math.max(1, capacity);
    if (need > SLAB_MAX) return new TripleBuilder(capacity);
    if (this.pos + need > this.block.length) {
      this.block = new Float64Array(SLAB_MAX);
      this.pos = 0;
    }
    return new TripleBuilder(capacity, this.block.subarray(this.pos, this.pos + need));
  }
  /** Keeps the triples `b` holds (call before taking the next builder). */
  commit(b: TripleBuilder): void {
    if (b.buf.buffer === this.block.buffer) this.pos += b.n;
  }
}

/** Numbers per slab block (3 MB). */
const SLAB_MAX = 3 * 131072;

interface Grid {
  r: number;
  dims: readonly number[];
  chunk: readonly number[];
  /** Chunks per dimension. */
  n: number[];
  /** C-order strides of the chunk grid. */
  gStride: number[];
  /** C-order element strides inside a whole chunk. */
  cStride: number[];
}

function makeGrid(dims: readonly number[], chunkDims: readonly number[]): Grid {
  const r = dims.length;
  if (chunkDims.length !== r) {
    throw new ValueError(`chunk dims [${chunkDims.join(', ')}] do not match the rank of the dataspace [${dims.join(', ')}]`);
  }
  for (let d = 0; d < r; d++) {
    const c = chunkDims[d]!;
    if (!Number.isSafeInteger(c) || c < 1) throw new ValueError(`chunk dimension ${d} has invalid size ${c}`);
  }
  const n = dims.map((x, d) => Math.ceil(x / chunkDims[d]!));
  const gStride = new Array<number>(r);
  const cStride = new Array<number>(r);
  let g = 1;
  let c = 1;
  for (let d = r - 1; d >= 0; d--) {
    gStride[d] = g;
    cStride[d] = c;
    g *= Math.max(1, n[d]!);
    c *= chunkDims[d]!;
  }
  if (!Number.isSafeInteger(g) || !Number.isSafeInteger(c)) {
    throw new ValueError(`chunk grid of [${dims.join(', ')}] by [${chunkDims.join(', ')}] is too large`);
  }
  return { r, dims, chunk: chunkDims, n, gStride, cStride };
}

/** Elements of chunk `q` (scaled coords) that lie inside the dataset. */
function insideCount(g: Grid, q: readonly number[]): number {
  let v = 1;
  for (let d = 0; d < g.r; d++) v *= Math.min(g.chunk[d]!, g.dims[d]! - q[d]! * g.chunk[d]!);
  return v;
}

/** One dimension of a product selection, cut at chunk boundaries. */
interface DimSplit {
  /** Chunk indices touched, ascending. */
  q: number[];
  /** Group g's triples `[localStart, length, rank]` are `t[3*first[g] .. 3*first[g+1])`. */
  first: number[];
  t: number[];
  /** Selected elements per group. */
  sum: number[];
  /** Group is one interval covering the whole chunk and the whole selection in this dimension. */
  bothFull: boolean[];
  /** Elements selected in this dimension. */
  size: number;
}

function splitDim(list: Float64Array, cd: number): DimSplit {
  const s: DimSplit = { q: [], first: [], t: [], sum: [], bothFull: [], size: 0 };
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
  s.size = rank;
  for (let g = 0; g < s.q.length; g++) {
    const one = s.first[g + 1]! - s.first[g]! === 1;
    s.bothFull.push(one && s.t[3 * s.first[g]!] === 0 && s.sum[g] === cd && s.sum[g] === rank);
  }
  return s;
}

function mapProduct(lists: Float64Array[], g: Grid): ChunkPiece[] {
  const r = g.r;
  const splits = lists.map((l, d) => splitDim(l, g.chunk[d]!));
  if (splits.some((s) => s.q.length === 0)) return [];
  const bStride = new Array<number>(r);
  for (let d = r - 1, acc = 1; d >= 0; d--) {
    bStride[d] = acc;
    acc *= splits[d]!.size;
  }
  const pieces: ChunkPiece[] = [];
  const gi = new Array<number>(r).fill(0);
  let m = 0;
  const slab = new RunSlab();
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
        // one run per row: write the triples straight into the (pre-sized) buffer
        const c0 = tm[km0]! * csm;
        const b0 = tm[km0 + 2]! * bsm;
        const len = tm[km0 + 1]! * csm;
        for (let k = 3 * s.first[grp]!; k < kEnd; k += 3) {
          const n = t[k + 1]!;
          let c = cBase + t[k]! * cs + c0;
          let b = bBase + t[k + 2]! * bs + b0;
          for (let u = 0; u < n; u++, c += cs, b += bs) out.push(c, b, len);
        }
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
    const coords = gi.map((x, d) => splits[d]!.q[x]!);
    let count = 1;
    for (let d = 0; d < r; d++) count *= splits[d]!.sum[gi[d]!]!;
    m = r - 1;
    while (m > 0 && splits[m]!.bothFull[gi[m]!]) m--;
    let bound = (splits[m]!.first[gi[m]! + 1]! - splits[m]!.first[gi[m]!]!);
    for (let d = 0; d < m; d++) bound *= splits[d]!.sum[gi[d]!]!;
    out = slab.builder(bound);
    emit(0, 0, 0);
    slab.commit(out);
    pieces.push({ coords, runs: out.result(), count, full: count === insideCount(g, coords) });
    let d = r - 1;
    for (; d >= 0; d--) {
      if (++gi[d]! < splits[d]!.q.length) break;
      gi[d] = 0;
    }
    if (d < 0) break;
  }
  return pieces;
}

/** Turns per-chunk builders keyed by linear chunk index into sorted pieces. */
function finish(map: Map<number, TripleBuilder>, g: Grid, checkDuplicates: boolean): ChunkPiece[] {
  const keys = Float64Array.from(map.keys()).sort();
  const pieces: ChunkPiece[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const b = map.get(key)!;
    const coords = g.gStride.map((s, d) => Math.floor(key / s) % Math.max(1, g.n[d]!));
    const inside = insideCount(g, coords);
    const runs = b.result();
    // points may repeat: a chunk is full when its *distinct* offsets cover it
    const full = checkDuplicates ? b.count >= inside && distinctOffsets(runs) === inside : b.count === inside;
    pieces[i] = { coords, runs, count: b.count, full };
  }
  return pieces;
}

function distinctOffsets(runs: Float64Array): number {
  const offs: number[] = [];
  for (let k = 0; k < runs.length; k += 3) for (let u = 0; u < runs[k + 2]!; u++) offs.push(runs[k]! + u);
  const a = Float64Array.from(offs).sort();
  let n = 0;
  for (let i = 0; i < a.length; i++) if (i === 0 || a[i] !== a[i - 1]) n++;
  return n;
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
  const boxTail = (i: number, d: number, keyBase: number, offBase: number, pos: number): void => {
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
  const last1 = r - 1;
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

/** Scratch of {@link mapPoints}: chunk key and in-chunk offset per point, grown on demand. */
let pointCap = 0;
let pointKeys = new Float64Array(0);
let pointOffs = new Float64Array(0);

function mapPoints(sel: PointSelection, g: Grid): ChunkPiece[] {
  const r = g.r;
  const c = sel.coords;
  const n = sel.pointCount;
  // Pass 1: chunk key and in-chunk offset of every point (scratch arrays: no allocation per call).
  if (n > pointCap) {
    pointCap = Math.max(n, 2 * pointCap, 1024);
    pointKeys = new Float64Array(pointCap);
    pointOffs = new Float64Array(pointCap);
  }
  const keys = pointKeys;
  const offs = pointOffs;
  // Per dimension: 0 = one chunk along it (key part 0, offset = x), 1 = chunks of one element
  // (key part x, offset part 0), 2 = divide. No division for frame-per-chunk layouts.
  const mode = new Int8Array(r);
  for (let d = 0; d < r; d++) mode[d] = g.n[d]! <= 1 ? 0 : g.chunk[d] === 1 ? 1 : 2;
  let oneChunk = true;
  if (r === 3 && mode[0] === 1 && mode[1] === 0 && mode[2] === 0) {
    // [frame, y, x] in chunks of 1 × Y × X (one chunk per frame)
    const gs = g.gStride[0]!;
    const cs = g.cStride[1]!;
    const key0 = c[0]! * gs;
    for (let i = 0, p = 0; i < n; i++, p += 3) {
      const key = c[p]! * gs;
      keys[i] = key;
      offs[i] = c[p + 1]! * cs + c[p + 2]!;
      if (key !== key0) oneChunk = false;
    }
  } else {
    const chunk = Float64Array.from(g.chunk);
    const gStride = Float64Array.from(g.gStride);
    const cStride = Float64Array.from(g.cStride);
    for (let i = 0, p = 0; i < n; i++) {
      let key = 0;
      let off = 0;
      for (let d = 0; d < r; d++, p++) {
        const x = c[p]!;
        const m = mode[d]!;
        if (m === 0) off += x * cStride[d]!;
        else if (m === 1) key += x * gStride[d]!;
        else {
          const cd = chunk[d]!;
          const q = Math.floor(x / cd);
          key += q * gStride[d]!;
          off += (x - q * cd) * cStride[d]!;
        }
      }
      keys[i] = key;
      offs[i] = off;
      if (key !== keys[0]) oneChunk = false;
    }
  }
  const map = new Map<number, TripleBuilder>();
  if (oneChunk) {
    // Every point in one chunk (e.g. a frame of a frame-per-chunk dataset): one exact-size builder.
    const b = new TripleBuilder(n);
    for (let i = 0; i < n; i++) b.push(offs[i]!, i, 1);
    map.set(keys[0]!, b);
    return finish(map, g, true);
  }
  let lastKey = -1;
  let last: TripleBuilder | undefined;
  for (let i = 0; i < n; i++) {
    const key = keys[i]!;
    if (key !== lastKey) {
      last = map.get(key);
      if (!last) map.set(key, (last = new TripleBuilder(4)));
      lastKey = key;
    }
    last!.push(offs[i]!, i, 1);
  }
  return finish(map, g, true);
}

/**
 * Maps a selection of a dataset of shape `dims`, stored in chunks of `chunkDims`, onto the chunks
 * it touches: one {@link ChunkPiece} per touched chunk, sorted by chunk coordinates (C order).
 * Validates the selection first ({@link SelectionError}); bad chunk dims give a {@link ValueError}.
 */
export function mapToChunks(sel: Selection, dims: readonly number[], chunkDims: readonly number[]): ChunkPiece[] {
  validateSelection(sel, dims);
  const g = makeGrid(dims, chunkDims);
  if (sel.kind === 'none') return [];
  if (g.r === 0) return [{ coords: [], runs: Float64Array.of(0, 0, 1), count: 1, full: true }];
  if (sel.kind === 'points') return sel.pointCount === 0 ? [] : mapPoints(sel, g);
  const lists = productIntervals(sel, dims);
  if (lists) return mapProduct(lists, g);
  return mapBlocks(sel as BlockSelection, g);
}
