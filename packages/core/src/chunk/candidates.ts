/**
 * The chunks that may hold data within a selection (docs/architecture.md §4, the walks of `defined`, `erase`
 * and sparse reads): stored ones, found in the chunk index, and cached ones. Each comes with the
 * index record the search found, so that the walk loads the chunk without a second lookup.
 * @module
 */
import type { Selection } from '../selection/selection.js';
import { boundingBox } from '../selection/algebra.js';
import type { ChunkIndex, ChunkRecord } from './chunk-index.js';
import type { ChunkCache } from './cache.js';

/** A chunk that may hold data, with its index record (null: not stored, only cached). */
export interface Candidate {
  coords: number[];
  rec: ChunkRecord | null;
}

/** Up to this many chunks in a selection's bounding box are looked up one by one instead of walking the index. */
export const MAX_LOOKUPS = 4096;

/** The dataset services the search needs. */
export interface CandidateSource<Mem> {
  index: ChunkIndex;
  cache: ChunkCache<Mem>;
  chunkDims: readonly number[];
  /** Runs an index step, adding the dataset path and chunk coordinates to its errors. */
  guard(coords: readonly number[], fn: () => Promise<void>): Promise<void>;
}

/**
 * Stored or cached chunks that the bounding box of `sel` reaches, in no particular order. A small
 * selection looks its chunks up one by one; a large one walks the whole index once.
 */
export async function findCandidates<Mem>(src: CandidateSource<Mem>, sel: Selection, dims: readonly number[]): Promise<Candidate[]> {
  const { chunkDims, index, cache } = src;
  const bb = boundingBox(sel, dims);
  if (!bb) return [];
  const lo = bb.start.map((s, i) => Math.floor(s / chunkDims[i]!));
  const hi = bb.end.map((e, i) => Math.ceil(e / chunkDims[i]!));
  const inRange = hi.reduce((n, h, i) => n * (h - lo[i]!), 1);
  const out: Candidate[] = [];
  if (inRange <= MAX_LOOKUPS) {
    // each coordinate visited once: no de-duplication needed
    const c = lo.slice();
    for (let k = 0; k < inRange; k++) {
      const coords = c.slice();
      let rec: ChunkRecord | null = null;
      await src.guard(coords, async () => {
        rec = await index.lookup(coords);
      });
      if (rec || cache.get(coords.join(','))) out.push({ coords, rec });
      for (let d = c.length - 1; d >= 0; d--) {
        if (++c[d]! < hi[d]!) break;
        c[d] = lo[d]!;
      }
    }
    return out;
  }
  const seen = new Map<string, Candidate>();
  for await (const rec of index.iterate()) seen.set(rec.coords.join(','), { coords: rec.coords, rec });
  for (const e of cache.all()) if (!seen.has(e.key)) seen.set(e.key, { coords: e.coords, rec: null });
  return [...seen.values()];
}
