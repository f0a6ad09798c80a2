/**
 * Run lists of chunk mapping: growable `[chunkOffset, bufferOffset, length]` triple lists that merge
 * touching runs, carved from shared slab blocks, and turned into sorted {@link ChunkPiece}s.
 * @module
 */
import { insideCount, type ChunkPiece, type Grid } from './chunk-grid.js';

/** Growable triple list; merges a run into the previous one when both sides touch. */
export class TripleBuilder {
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
  /**
   * Pushes `rows` runs of `len`, the k-th at `c + k·cs` and `b + k·bs`: where rows cannot touch
   * (`cs` or `bs` ≠ `len`), all but the first go straight into the buffer.
   */
  pushRows(rows: number, c: number, cs: number, b: number, bs: number, len: number): void {
    if (rows <= 0) return;
    if (cs === len && bs === len) {
      this.push(c, b, rows * len);
      return;
    }
    this.push(c, b, len);
    const n0 = this.n;
    const need = n0 + 3 * (rows - 1);
    if (need > this.buf.length) {
      const next = new Float64Array(Math.max(need, this.buf.length * 2));
      next.set(this.buf.subarray(0, n0));
      this.buf = next;
    }
    const buf = this.buf;
    for (let k = 1, n = n0; k < rows; k++, n += 3) {
      buf[n] = c + k * cs;
      buf[n + 1] = b + k * bs;
      buf[n + 2] = len;
    }
    this.n = need;
    this.count += (rows - 1) * len;
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
export class RunSlab {
  private block = new Float64Array(0);
  private pos = 0;
  /** A builder with room for `capacity` triples at the free end of the current block. */
  builder(capacity: number): TripleBuilder {
    const need = 3 * Math.max(1, capacity);
    if (need > SLAB_MAX) return new TripleBuilder(capacity);
    if (this.pos + need > this.block.length) {
      // Blocks double from a small first one: a mapping of a few runs (a 64×64 window: 64 triples)
      // must not allocate (and zero) a 3 MB block; a large one still ends up in 3 MB blocks.
      this.block = new Float64Array(Math.min(SLAB_MAX, Math.max(need, SLAB_MIN, 2 * this.block.length)));
      this.pos = 0;
    }
    return new TripleBuilder(capacity, this.block.subarray(this.pos, this.pos + need));
  }
  /** Keeps the triples `b` holds (call before taking the next builder). */
  commit(b: TripleBuilder): void {
    if (b.buf.buffer === this.block.buffer) this.pos += b.n;
  }
}

/** Numbers per slab block (3 MB), at most. */
const SLAB_MAX = 3 * 131072;
/** Numbers in the first block of a slab (6 KB). */
const SLAB_MIN = 3 * 256;

/** Turns per-chunk builders keyed by linear chunk index into sorted pieces. */
export function finish(map: Map<number, TripleBuilder>, g: Grid, checkDuplicates: boolean): ChunkPiece[] {
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

