/**
 * Copying elements between a dense chunk buffer and a request buffer by runs (whole subarray
 * copies, never per element).
 * @module
 */
import type { ChunkRequest, RowRuns } from '@chunkform/core';
import { copyChunkRuns } from '@chunkform/core/plugin';

/** A chunk's runs: the triples, or (when the engine mapped them so) one row pattern whose triples are then never built. */
export type ChunkRuns = Pick<ChunkRequest, 'runs' | 'rows'>;

/** Byte offsets up to this fit V8's small integers (`| 0` is exact). */
const SMALL_INT = 0x3fffffff;

/** Copies the requested runs from `chunk` into `out`. */
export function copyRunsOut(chunk: Uint8Array, req: ChunkRequest, out: Uint8Array, es: number): void {
  copyChunkRuns(chunk, req.runs, out, es);
}

/** Copies the requested runs from `src` into `chunk`. */
export function copyRunsIn(chunk: Uint8Array, req: ChunkRequest, src: Uint8Array, es: number): void {
  const r = req.runs;
  if (src.length <= SMALL_INT && chunk.length <= SMALL_INT) {
    for (let i = 0; i < r.length; i += 3) {
      const b = (r[i + 1]! * es) | 0;
      chunk.set(src.subarray(b, (b + r[i + 2]! * es) | 0), (r[i]! * es) | 0);
    }
    return;
  }
  for (let i = 0; i < r.length; i += 3) {
    const b = r[i + 1]! * es;
    chunk.set(src.subarray(b, b + r[i + 2]! * es), r[i]! * es);
  }
}

/** Byte range [start, end) of the chunk that the runs touch. */
export function runsByteRange(req: ChunkRequest, es: number): [number, number] {
  const r = req.runs;
  let lo = Infinity;
  let hi = 0;
  for (let i = 0; i < r.length; i += 3) {
    lo = Math.min(lo, r[i]!);
    hi = Math.max(hi, r[i]! + r[i + 2]!);
  }
  return [lo * es, hi * es];
}

/** Sets every element of `target` to `value` (`target.length` a multiple of its length). */
export function fillBuffer(target: Uint8Array, value: Uint8Array): void {
  const es = value.length;
  if (!value.some((b) => b !== 0)) {
    target.fill(0);
    return;
  }
  target.set(value, 0);
  for (let filled = es; filled < target.length; filled *= 2) target.copyWithin(filled, 0, Math.min(filled, target.length - filled));
}

/** A buffer of `count` elements, each `value` (zeros when `value` is null or all zero). */
export function filledBuffer(count: number, value: Uint8Array | null): Uint8Array {
  const es = value?.length ?? 0;
  const out = new Uint8Array(count * (es || 1));
  if (!value || !value.some((b) => b !== 0)) return out;
  out.set(value, 0);
  for (let filled = es; filled < out.length; filled *= 2) out.copyWithin(filled, 0, Math.min(filled, out.length - filled));
  return out;
}

/** Most chunks whose runs {@link copyRunsMerged} interleaves (it scans every chunk's next run per run). */
export const MAX_MERGE = 16;

/**
 * Copies the runs of several chunks between their bytes and the request buffer in increasing order
 * of buffer offset, so the (large) request buffer is walked front to back rather than once per chunk
 * (2.4× faster for the 512-byte rows of 256×256 tiles in a 1024-wide frame). `chunks[q]` holds
 * chunk q's element 0 at byte `bases[q]`; `toBuffer`: chunk → buffer, else buffer → chunk. The runs
 * of one chunk are disjoint from every other's, so the order changes speed, never the result.
 * `views` (chunk → buffer only): `views[q]` hands out chunk q's rows (its bytes are `chunks[q]`).
 */
export function copyRunsMerged(
  runs: readonly Float64Array[],
  chunks: readonly Uint8Array[],
  bases: readonly number[],
  buffer: Uint8Array,
  es: number,
  toBuffer: boolean,
  views?: readonly RowViews[],
): void {
  const k = runs.length;
  const pos = new Int32Array(k);
  const small = buffer.length <= SMALL_INT && chunks.every((c) => c.length <= SMALL_INT);
  for (;;) {
    let q = -1;
    let next = Infinity;
    for (let p = 0; p < k; p++) {
      const t = pos[p]!;
      const r = runs[p]!;
      if (t < r.length && r[t + 1]! < next) {
        next = r[t + 1]!;
        q = p;
      }
    }
    if (q < 0) return;
    const r = runs[q]!;
    const t = pos[q]!;
    pos[q] = t + 3;
    let c = bases[q]! + r[t]! * es;
    let b = next * es;
    let n = r[t + 2]! * es;
    if (small) {
      c |= 0;
      b |= 0;
      n |= 0;
    }
    if (!toBuffer) chunks[q]!.set(buffer.subarray(b, b + n), c);
    else if (views) buffer.set(views[q]!.row(c, n), b);
    else buffer.set(chunks[q]!.subarray(c, c + n), b);
  }
}

/**
 * Copies the rows of chunks given as row patterns with as many rows each (whole tiles mapped with
 * `rowPieces`) out of one scratch buffer (`views`, chunk q's element 0 at byte `bases[q]`) into `out`:
 * row t of every chunk, then row t + 1 (for tiles side by side, a band front to back, as
 * {@link copyRunsMerged} orders runs, but without its search for the next run and with no run list
 * read or built: a loop V8 optimises within the first read). The rows of one chunk are disjoint from
 * every other's, so the order changes speed, never the result. Byte offsets must be below 2³⁰.
 */
export function copyRowsInTurn(rows: readonly RowRuns[], bases: readonly number[], views: RowViews, out: Uint8Array, es: number): void {
  const k = rows.length;
  const n = rows[0]!.n;
  for (let t = 0; t < n; t++) {
    for (let q = 0; q < k; q++) {
      const p = rows[q]!;
      out.set(views.row((bases[q]! + (p.c + t * p.cs) * es) | 0, (p.len * es) | 0), ((p.b + t * p.bs) * es) | 0);
    }
  }
}

/** Most views one {@link RowViews} keeps (a buffer of short rows falls back to a view per copy). */
const MAX_ROW_VIEWS = 4096;

/**
 * Views of the rows of one long-lived (pooled) buffer, made once and reused: copying a row out of it
 * with `TypedArray.set` then allocates nothing. A `subarray` per 512-byte row of a 256×256 tile cost
 * about as much as the copy itself, and its garbage collections on top (1.5× the copy time in all).
 * Rows are `n` bytes at multiples of `n`; other ranges get a fresh view.
 */
export class RowViews {
  private n = 0;
  private views: (Uint8Array | undefined)[] = [];

  constructor(readonly bytes: Uint8Array) {}

  /** `bytes[off, off + n)`. */
  row(off: number, n: number): Uint8Array {
    if (n !== this.n) {
      if (n <= 0 || this.bytes.length / n > MAX_ROW_VIEWS) return this.bytes.subarray(off, off + n);
      this.n = n;
      this.views = new Array<Uint8Array | undefined>(Math.floor(this.bytes.length / n));
    }
    const k = off / n;
    if (k !== Math.floor(k) || k >= this.views.length) return this.bytes.subarray(off, off + n);
    return (this.views[k] ??= this.bytes.subarray(off, off + n));
  }
}

/** Where a list of runs lies in the request buffer: bytes [lo, hi), of which `bytes` are copied. */
export interface RunSpan {
  lo: number;
  hi: number;
  bytes: number;
}

/** A span that covers nothing yet (for {@link widenSpan}). */
export function emptySpan(): RunSpan {
  return { lo: Infinity, hi: -Infinity, bytes: 0 };
}

/** Widens `span` to the request-buffer bytes of the runs `r` (returns `span`; with no runs, an empty one stays `lo` = `hi`). */
export function widenSpan(span: RunSpan, r: Float64Array, es: number): RunSpan {
  for (let i = 0; i < r.length; i += 3) {
    const b = r[i + 1]! * es;
    const n = r[i + 2]! * es;
    if (b < span.lo) span.lo = b;
    if (b + n > span.hi) span.hi = b + n;
    span.bytes += n;
  }
  if (span.bytes === 0) span.lo = span.hi = 0;
  return span;
}

/** Chunks [from, to) of a list, built from the stretch `span` of the request buffer. */
export interface StagePiece {
  from: number;
  to: number;
  span: RunSpan;
  /** True when the piece goes through a staging copy ({@link copyRunsStaged}). */
  staged: boolean;
}

/** Staging pieces span at most this many bytes (with the chunks built from them, they stay in the L2 cache)... */
const STAGE_PIECE = 512 << 10;
/** ...unless one chunk's runs span more, up to this. */
const STAGE_MAX = 4 << 20;
/** Runs averaging this many bytes or more are copied one by one (a view per run costs little next to its copy). */
const STAGE_MAX_ROW = 4096;

/** Where a chunk's runs lie in the request buffer (O(1) for a row pattern), and how many runs they are. */
function chunkSpan(q: ChunkRuns, es: number): { span: RunSpan; runs: number } {
  const p = q.rows;
  if (!p) return { span: widenSpan(emptySpan(), q.runs, es), runs: q.runs.length / 3 };
  if (p.n <= 0 || p.len <= 0) return { span: { lo: 0, hi: 0, bytes: 0 }, runs: 0 };
  const last = p.b + (p.n - 1) * p.bs;
  return { span: { lo: Math.min(p.b, last) * es, hi: (Math.max(p.b, last) + p.len) * es, bytes: p.n * p.len * es }, runs: p.n };
}

/**
 * Splits the chunks built from `chunks` (in order) into pieces for {@link copyRunsStaged}: consecutive
 * chunks whose runs together span at most 512 KiB of the request buffer (faster than 1 MiB pieces:
 * 28 vs 51 ms best of 15 for 105 MB of 256×256 tiles; staging and chunks then stay in the L2 cache). A piece is staged when its rows are
 * short and its stretch at most twice the bytes it copies.
 */
export function stagePieces(chunks: readonly ChunkRuns[], es: number): StagePiece[] {
  const pieces: StagePiece[] = [];
  let cur: StagePiece | null = null;
  let runCount = 0;
  const close = (): void => {
    if (!cur) return;
    const { lo, hi, bytes } = cur.span;
    cur.staged = bytes < STAGE_MAX_ROW * runCount && hi - lo <= 2 * bytes && hi - lo <= STAGE_MAX;
    pieces.push(cur);
  };
  for (let q = 0; q < chunks.length; q++) {
    const { span, runs } = chunkSpan(chunks[q]!, es);
    const { lo, hi, bytes } = span;
    if (cur && Math.max(hi, cur.span.hi) - Math.min(lo, cur.span.lo) <= STAGE_PIECE) {
      cur.to = q + 1;
      cur.span = { lo: Math.min(lo, cur.span.lo), hi: Math.max(hi, cur.span.hi), bytes: bytes + cur.span.bytes };
      runCount += runs;
      continue;
    }
    close();
    cur = { from: q, to: q + 1, span, staged: false };
    runCount = runs;
  }
  close();
  return pieces;
}

/**
 * Builds chunks from the request buffer through a staging copy, for rows too short to copy one by
 * one cheaply: the stretch `span` of `src` that the runs cover is copied once into `buf` at byte
 * `stage`, then every run moves within `buf` with `copyWithin` (no view per run: 1.6× faster than a
 * `subarray` + `set` per 512-byte row, staging copy included). Chunk q starts at byte `bases[q]` of
 * `buf`; `buf` must hold the stretch from `stage` on and stay below 2³⁰ bytes. A chunk given as a
 * row pattern is copied from it (its triples are not built).
 */
export function copyRunsStaged(chunks: readonly ChunkRuns[], bases: readonly number[], src: Uint8Array, span: RunSpan, buf: Uint8Array, stage: number, es: number): void {
  buf.set(src.subarray(span.lo, span.hi), stage);
  const shift = stage - span.lo;
  for (let q = 0; q < chunks.length; q++) {
    const base = bases[q]!;
    const p = chunks[q]!.rows;
    if (p) {
      const n = p.len * es;
      const cs = p.cs * es;
      const bs = p.bs * es;
      let to = (base + p.c * es) | 0;
      let from = (p.b * es + shift) | 0;
      for (let k = 0; k < p.n; k++, to += cs, from += bs) buf.copyWithin(to, from, (from + n) | 0);
      continue;
    }
    const r = chunks[q]!.runs;
    for (let i = 0; i < r.length; i += 3) {
      const from = (r[i + 1]! * es + shift) | 0;
      buf.copyWithin((base + r[i]! * es) | 0, from, (from + r[i + 2]! * es) | 0);
    }
  }
}
