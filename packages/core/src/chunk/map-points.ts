/**
 * Chunk mapping of point selections: every point's chunk key and in-chunk offset in one pass
 * (no division where the chunk layout allows), then the points grouped by chunk in buffer order.
 * @module
 */
import type { PointSelection } from '../selection/selection.js';
import type { ChunkPiece, Grid } from './chunk-grid.js';
import { finish, TripleBuilder } from './run-builder.js';

/** Scratch of {@link mapPoints}: chunk key and in-chunk offset per point, grown on demand. */
let pointCap = 0;
let pointKeys = new Float64Array(0);
let pointOffs = new Float64Array(0);

/** Points grouped by chunk, keeping their buffer positions (duplicates allowed). */
export function mapPoints(sel: PointSelection, g: Grid): ChunkPiece[] {
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

