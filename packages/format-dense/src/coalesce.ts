/**
 * Batched reads of unfiltered dense chunks (docs/architecture.md §3 `file_read` over many chunks): the parts of
 * the chunks that a request needs are sorted by file address, parts adjacent in the file are read
 * with one I/O, straight into the caller's buffer when the file bytes and the buffer agree
 * (e.g. whole chunks of frames that follow each other in both). Otherwise the parts are read into a
 * pooled scratch buffer from which the runs are copied with whole-subarray copies. Into a new
 * result array (`freshOutput`), parts whose runs fill one range of it exactly (whole tiles across a
 * frame) are read into that range first and copied to scratch from there, and other long runs are
 * read straight into their places with scatter reads (`RawIO.readScatter`, `preadv` under Node),
 * so that the array's first-touch page faults happen in the read, on the source's threads.
 * Into a new result array, where the source reads on threads (Node), up to {@link READS_IN_FLIGHT}
 * reads run at once: the pool reads while this thread copies, and touches the array's pages on
 * several threads (256×256 tiles of 1024×1024 uint16 frames: 1.25 → 1.5 GB/s; reading whole bands
 * into the array beat scatter reads by 15–20 % in A/B runs). Into memory already touched (`readInto`)
 * the reads are made one at a time on this thread: reads in flight there gained at most 15 % of
 * wall time on an idle machine but cost 1.5–1.9× the CPU time (thread hand-offs), which decides on a
 * busy one (h5py's CPU time ÷ ours 0.44–0.49 with reads in flight, 0.79 without, same runs).
 * @module
 */
import type { ChunkRecord, ChunkRequest, RawIO, RowRuns } from '@chunkform/core';
import { copyRowsInTurn, copyRunsMerged, emptySpan, MAX_MERGE, RowViews, widenSpan } from './runs.js';

/** One stored chunk and the part of a request that falls into it. */
export interface ReadItem {
  rec: ChunkRecord;
  req: ChunkRequest;
}

/** Parts of chunks whose file ranges are at most this far apart are read together (the gap is read and dropped). */
const MAX_GAP = 8 << 10;

/** Largest single read straight into the caller's buffer. */
const MAX_DIRECT = 64 << 20;

/**
 * Size of the scratch buffers that adjacent parts are read into before their runs are copied out:
 * with {@link READS_IN_FLIGHT} of them in use, they still fit in L2 (1 MiB ones measured slower).
 */
const SCATTER_BYTES = 512 << 10;

/** Byte offsets up to this fit V8's small integers (`| 0` is exact). */
const SMALL_INT = 0x3fffffff;

/** Scratch buffers kept for reuse (per reader, or shared for the default size). */
const MAX_POOLED = 4;

/**
 * Scratch buffers of the default size ({@link SCATTER_BYTES}) with their row views, shared by all
 * readers: a dataset opened for one read (a reader per open) then takes warm buffers and views made
 * before instead of allocating 2 MiB and thousands of views, whose garbage cost a major collection
 * per read of 256×256 tiles.
 */
const sharedPool: RowViews[] = [];

/**
 * Reads of one batch in flight at once into a new array when the source reads on threads
 * (`RawIO.parallel`; Node's pool has 4): the thread pool reads the next parts while this thread
 * copies runs out of the last.
 */
export const READS_IN_FLIGHT = 4;

/** Most targets of one scatter read (Linux IOV_MAX); longer lists become several reads. */
const SCATTER_MAX_TARGETS = 1024;

/** Scatter reads are used when the runs average at least this many bytes... */
const SCATTER_MIN_RUN_BYTES = 256;

/** ...and a hole between runs of at most this many bytes is read into a discarded buffer (a larger one starts a new read). */
const SCATTER_MAX_HOLE = 64 << 10;

/** Discarded bytes of scatter reads (shared: nobody reads them). */
let holeBuffer: Uint8Array | null = null;

/** A part to read: absolute file byte range [lo, hi) of one chunk's item. */
interface Span {
  item: ReadItem;
  lo: number;
  hi: number;
}

/** Reads dense chunk parts with coalesced I/O; one instance per chunk format. */
export class CoalescingReader {
  /** Scratch buffers, each with the views of its rows (see `RowViews`). */
  private readonly pool: RowViews[];
  private readonly scratchBytes: number;

  /**
   * @param es element size in bytes
   * @param chunkBytes bytes of one whole chunk
   * @param check throws the format's error when a chunk's stored size cannot hold the bytes `[0, hi)`
   */
  constructor(
    private readonly es: number,
    chunkBytes: number,
    private readonly check: (rec: ChunkRecord, hi: number) => void,
  ) {
    this.scratchBytes = Math.max(SCATTER_BYTES, chunkBytes);
    this.pool = this.scratchBytes === SCATTER_BYTES ? sharedPool : [];
  }

  /**
   * Reads the requested runs of every item into `out` (chunks fill disjoint parts of it).
   * `freshOutput`: `out` is newly allocated (its pages not yet touched): parts are then read into
   * `out` itself (whole bands, or scatter reads where the source has them), so that the pages are
   * first touched on the source's threads. Into memory already touched, reading into an L2-sized
   * scratch buffer and copying the runs measured faster (the per-target cost of a scatter read is
   * higher than a subarray copy).
   */
  async read(items: readonly ReadItem[], out: Uint8Array, io: RawIO, freshOutput = false): Promise<void> {
    const es = this.es;
    const spans: Span[] = new Array(items.length);
    let sorted = true;
    for (let k = 0; k < items.length; k++) {
      const item = items[k]!;
      const p = item.req.rows;
      let lo = Infinity;
      let hi = 0;
      if (p) {
        // a row pattern (whole tiles mapped with `rowPieces`): its range without building its runs
        lo = p.c;
        hi = p.c + (p.n - 1) * p.cs + p.len;
      } else {
        const r = item.req.runs;
        for (let i = 0; i < r.length; i += 3) {
          if (r[i]! < lo) lo = r[i]!;
          if (r[i]! + r[i + 2]! > hi) hi = r[i]! + r[i + 2]!;
        }
      }
      if (hi * es > item.rec.size) this.check(item.rec, hi * es);
      const s = { item, lo: item.rec.address + lo * es, hi: item.rec.address + hi * es };
      if (k > 0 && s.lo < spans[k - 1]!.lo) sorted = false;
      spans[k] = s;
    }
    if (!sorted) spans.sort((a, b) => a.lo - b.lo);
    const threaded = io.parallel === true && freshOutput;
    const tasks = this.tasks(spans, out, io, freshOutput, threaded);
    if (!threaded) {
      // Sources that read on the calling thread (browsers, memory) gain nothing from reads in flight,
      // nor do reads into memory already touched (see the module comment).
      for (const t of tasks) await t();
      return;
    }
    // On a failure no new read starts, and the error is thrown only once every read in flight has
    // settled (nothing writes into `out` after this returns or throws).
    let failure: { error: unknown } | null = null;
    const worker = async (): Promise<void> => {
      while (!failure) {
        const t = tasks.next();
        if (t.done) return;
        try {
          await t.value();
        } catch (error) {
          failure ??= { error };
        }
      }
    };
    await Promise.all(Array.from({ length: READS_IN_FLIGHT }, worker));
    if (failure) throw (failure as { error: unknown }).error;
  }

  /** The reads of sorted `spans`, made one at a time as they are taken (scatter lists hold many views). */
  private *tasks(spans: readonly Span[], out: Uint8Array, io: RawIO, fresh: boolean, threaded: boolean): Generator<() => Promise<void>> {
    for (let i = 0; i < spans.length; ) {
      // A group: spans that follow each other in the file with small gaps.
      let j = i + 1;
      let hi = spans[i]!.hi;
      while (j < spans.length && spans[j]!.lo >= hi && spans[j]!.lo - hi <= MAX_GAP && spans[j]!.hi - spans[i]!.lo <= MAX_DIRECT) {
        hi = spans[j]!.hi;
        j++;
      }
      const delta = this.directDelta(spans, i, j, hi);
      const lo = spans[i]!.lo;
      if (delta !== null) {
        yield () => io.readInto(lo, out.subarray(lo + delta, hi + delta));
        i = j;
        continue;
      }
      // Parts of at most one scratch buffer, each its own read.
      for (let a = i; a < j; ) {
        const start = spans[a]!.lo;
        let b = a + 1;
        while (b < j && spans[b]!.hi - start <= this.scratchBytes) b++;
        // (only where the source reads on other threads: elsewhere the extra copy would gain nothing)
        const region = threaded ? this.outRegion(spans, a, b) : -1;
        const [pa, pb] = [a, b];
        if (region >= 0) yield () => this.scatterPart(spans, pa, pb, out, io, region, threaded);
        else if (fresh && io.readScatter && this.scatterable(spans, pa, pb)) yield* this.scatterLists(spans, pa, pb, out, io.readScatter);
        else yield () => this.scatterPart(spans, pa, pb, out, io, -1, threaded);
        a = b;
      }
      i = j;
    }
  }

  /** True when the runs of spans [i, j) are long enough for scatter reads and in file order without overlap. */
  private scatterable(spans: readonly Span[], i: number, j: number): boolean {
    const es = this.es;
    let runs = 0;
    let bytes = 0;
    let end = -1;
    for (let k = i; k < j; k++) {
      const { item } = spans[k]!;
      const r = item.req.runs;
      const base = item.rec.address;
      runs += r.length / 3;
      for (let t = 0; t < r.length; t += 3) {
        const at = base + r[t]! * es;
        if (at < end) return false;
        end = at + r[t + 2]! * es;
        bytes += r[t + 2]! * es;
      }
    }
    return bytes >= runs * SCATTER_MIN_RUN_BYTES;
  }

  /**
   * Scatter reads of spans [i, j) straight into `out`: one read per list of at most
   * {@link SCATTER_MAX_TARGETS} targets (views of `out` for the runs, of a discarded buffer for
   * holes between them).
   */
  private *scatterLists(
    spans: readonly Span[],
    i: number,
    j: number,
    out: Uint8Array,
    readScatter: NonNullable<RawIO['readScatter']>,
  ): Generator<() => Promise<void>> {
    const es = this.es;
    let targets: Uint8Array[] = [];
    let start = 0;
    let end = -1; // file position after the last target of `targets`
    for (let k = i; k < j; k++) {
      const { item } = spans[k]!;
      const r = item.req.runs;
      const base = item.rec.address;
      for (let t = 0; t < r.length; t += 3) {
        const at = base + r[t]! * es;
        const len = r[t + 2]! * es;
        if (targets.length > 0 && (at - end > SCATTER_MAX_HOLE || targets.length >= SCATTER_MAX_TARGETS - 1)) {
          const [list, from] = [targets, start];
          yield () => readScatter(from, list);
          targets = [];
        }
        if (targets.length === 0) start = at;
        else if (at > end) {
          holeBuffer ??= new Uint8Array(SCATTER_MAX_HOLE);
          targets.push(holeBuffer.subarray(0, at - end));
        }
        targets.push(out.subarray(r[t + 1]! * es, r[t + 1]! * es + len));
        end = at + len;
      }
    }
    if (targets.length > 0) {
      const [list, from] = [targets, start];
      yield () => readScatter(from, list);
    }
  }

  /**
   * When the group's file bytes land in `out` in the same order with no gap or hole (every run at
   * the same buffer − file offset, the runs tiling the range), that offset; otherwise null.
   */
  private directDelta(spans: readonly Span[], i: number, j: number, hi: number): number | null {
    const es = this.es;
    let delta: number | null = null;
    let covered = 0;
    for (let k = i; k < j; k++) {
      const { item } = spans[k]!;
      const r = item.req.runs;
      const base = item.rec.address;
      for (let t = 0; t < r.length; t += 3) {
        const d = r[t + 1]! * es - (base + r[t]! * es);
        if (delta === null) delta = d;
        else if (d !== delta) return null;
        covered += r[t + 2]! * es;
      }
    }
    return covered === hi - spans[i]!.lo ? delta : null;
  }

  /**
   * When the runs of spans [a, b) fill one range of `out` exactly as large as the file range they
   * are read from (e.g. a band of whole tiles spanning a frame's width), the byte offset of that
   * range in `out`; else -1.
   */
  private outRegion(spans: readonly Span[], a: number, b: number): number {
    const s = emptySpan();
    for (let k = a; k < b; k++) widenSpan(s, spans[k]!.item.req.runs, this.es);
    return s.bytes === s.hi - s.lo && s.bytes === spans[b - 1]!.hi - spans[a]!.lo ? s.lo : -1;
  }

  /**
   * The row patterns of spans [a, b) when each is `n` separate rows, the same `n` for all (whole tiles
   * of a band); else null (rows that touch on both sides are one run, copied as one by the other paths).
   */
  private rowsOf(spans: readonly Span[], a: number, b: number): RowRuns[] | null {
    const rows: RowRuns[] = [];
    for (let k = a; k < b; k++) {
      const p = spans[k]!.item.req.rows;
      if (!p || (k > a && p.n !== rows[0]!.n) || (p.cs === p.len && p.bs === p.len)) return null;
      rows.push(p);
    }
    return rows;
  }

  /**
   * Reads spans [a, b) (at most one scratch buffer) and copies their runs out. `region` ≥ 0 (see
   * {@link outRegion}): the bytes are first read into that range of `out` itself — on the source's
   * threads, which then take a new array's first-touch page faults — and copied to scratch from
   * there (a copy within the L2 cache), so this thread's row copies go to pages already mapped.
   */
  private async scatterPart(spans: readonly Span[], a: number, b: number, out: Uint8Array, io: RawIO, region: number, threaded: boolean): Promise<void> {
    const es = this.es;
    const views = this.pool.pop() ?? new RowViews(new Uint8Array(this.scratchBytes));
    const scratch = views.bytes;
    const small = out.length <= SMALL_INT && scratch.length <= SMALL_INT;
    try {
      const lo = spans[a]!.lo;
      const bytes = scratch.subarray(0, spans[b - 1]!.hi - lo);
      const target = region >= 0 ? out.subarray(region, region + bytes.length) : bytes;
      // On threads when the source has them and the output is new: other parts are read meanwhile.
      if (threaded && io.readScatter) await io.readScatter(lo, [target]);
      else await io.readInto(lo, target);
      if (region >= 0) bytes.set(target);
      const rows = small ? this.rowsOf(spans, a, b) : null;
      if (rows) {
        // whole tiles: rows in turn from their patterns, no run list read or built
        const bases: number[] = [];
        for (let k = a; k < b; k++) bases.push(spans[k]!.item.rec.address - lo);
        copyRowsInTurn(rows, bases, views, out, es);
        return;
      }
      if (b - a > 1 && b - a <= MAX_MERGE) {
        // Rows of neighbouring tiles interleave in `out`: copy them in `out` order.
        const runs: Float64Array[] = [];
        const bases: number[] = [];
        const chunks: Uint8Array[] = [];
        const rows: RowViews[] = [];
        for (let k = a; k < b; k++) {
          runs.push(spans[k]!.item.req.runs);
          bases.push(spans[k]!.item.rec.address - lo);
          chunks.push(bytes);
          rows.push(views);
        }
        copyRunsMerged(runs, chunks, bases, out, es, true, rows);
        return;
      }
      for (let k = a; k < b; k++) {
        const { item } = spans[k]!;
        const r = item.req.runs;
        const base = item.rec.address - lo;
        if (small) {
          // Small-integer offsets keep V8 on its fast subarray/set paths (measured 1.4× faster).
          for (let t = 0; t < r.length; t += 3) out.set(views.row((base + r[t]! * es) | 0, (r[t + 2]! * es) | 0), (r[t + 1]! * es) | 0);
        } else {
          for (let t = 0; t < r.length; t += 3) {
            const c = base + r[t]! * es;
            out.set(bytes.subarray(c, c + r[t + 2]! * es), r[t + 1]! * es);
          }
        }
      }
    } finally {
      if (this.pool.length < MAX_POOLED) this.pool.push(views);
    }
  }
}
