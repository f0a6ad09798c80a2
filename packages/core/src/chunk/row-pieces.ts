/**
 * Row patterns for gathered full-chunk writes: a {@link PieceHook} for chunk mapping that gives a chunk
 * whose runs are `n` rows of one length, a fixed stride apart on both sides (every whole tile of a larger
 * box), as {@link ChunkPiece.rows}, building its run list only if some step reads `runs` (a whole-dataset
 * write of 256×256 tiles then allocates no run lists). Used by gathered writes and by batched reads (formats with
 * `fileReadMany`, which copy the rows of whole tiles from the pattern).
 * @module
 */
import { insideCount, type ChunkPiece, type Grid, type RowRuns } from './chunk-grid.js';
import type { DimSplit, PieceHook } from './mapping.js';

/** The `[chunkOffset, bufferOffset, length]` triples of `rows` (rows that touch on both sides merged). */
export function rowTriples(rows: RowRuns): Float64Array {
  const { n, len, c, cs, b, bs } = rows;
  if (n <= 0) return new Float64Array(0);
  if (cs === len && bs === len) return Float64Array.of(c, b, n * len);
  const t = new Float64Array(3 * n);
  for (let k = 0, i = 0; k < n; k++, i += 3) {
    t[i] = c + k * cs;
    t[i + 1] = b + k * bs;
    t[i + 2] = len;
  }
  return t;
}

/** A piece whose runs are one {@link RowRuns} pattern; its `runs` are built when first read. */
class RowPiece implements ChunkPiece {
  private built: Float64Array | undefined;
  constructor(
    readonly coords: number[],
    readonly count: number,
    readonly full: boolean,
    readonly rows: RowRuns,
  ) {}
  get runs(): Float64Array {
    return (this.built ??= rowTriples(this.rows));
  }
}

/**
 * The runs of the current chunk of `mapSplits` as one row pattern, when they are one: dimension `m`
 * (the first whose runs are not whole chunk rows) has one interval, `m − 1` one interval (the rows),
 * and every dimension before one element. Null otherwise (and for `m` = 0: a single run anyway).
 */
function rowPattern(splits: readonly DimSplit[], gi: readonly number[], m: number, g: Grid, bStride: readonly number[]): RowRuns | null {
  if (m === 0) return null;
  let c = 0;
  let b = 0;
  for (let d = 0; d < m; d++) {
    const s = splits[d]!;
    const k = 3 * s.first[gi[d]!]!;
    if (s.first[gi[d]! + 1]! - s.first[gi[d]!]! !== 1 || (d < m - 1 && s.t[k + 1] !== 1)) return null;
    c += s.t[k]! * g.cStride[d]!;
    b += s.t[k + 2]! * bStride[d]!;
  }
  const sm = splits[m]!;
  if (sm.first[gi[m]! + 1]! - sm.first[gi[m]!]! !== 1) return null;
  const km = 3 * sm.first[gi[m]!]!;
  const s1 = splits[m - 1]!;
  const csm = g.cStride[m]!;
  return new Rows(s1.t[3 * s1.first[gi[m - 1]!]! + 1]!, sm.t[km + 1]! * csm, c + sm.t[km]! * csm, g.cStride[m - 1]!, b + sm.t[km + 2]! * bStride[m]!, bStride[m - 1]!);
}

/**
 * A {@link RowRuns} made by a constructor, not an object literal: with the literal, V8 threw the optimised
 * `rowPattern` away in the first write of a process ("code dependencies", most likely the literal's allocation
 * site changing its pretenuring decision for the thousands of patterns a write keeps alive) and compiled it
 * again in the next (16 ms each on a 2-core machine); with the constructor it is compiled once.
 */
class Rows implements RowRuns {
  constructor(
    readonly n: number,
    readonly len: number,
    readonly c: number,
    readonly cs: number,
    readonly b: number,
    readonly bs: number,
  ) {}
}

/** The {@link PieceHook} of row patterns (pass it as `mapToChunks(…, { piece: rowPieces })`). */
export const rowPieces: PieceHook = (splits, gi, m, g, bStride, coords, count) => {
  const p = rowPattern(splits, gi, m, g, bStride);
  return p ? new RowPiece(coords, count, count === insideCount(g, coords), p) : null;
};
