/**
 * The defined runs and selection of the last empty chunk a dataset's writes defined, kept for the
 * next one: a stream writing the same region of every frame (one chunk per frame) defines the same
 * chunk-relative elements in each chunk, so the request's runs equal the last one's and the merged
 * runs and canonical boxes (docs/structured-chunk-format.md §6) are the same arrays — shared between
 * the chunks, which never change them in place (./sparse-chunk.ts).
 * @module
 */
import type { BlockSelection, NoneSelection } from '@chunkform/core';
import { sameNumbers } from './encode-plan.js';

/** Largest request (numbers in its runs) whose layout is kept. */
const KEEP_MAX_RUNS = 3 << 14;

/** One dataset's last fresh-chunk layout. */
export class FreshLayout {
  private last: { req: Float64Array; runs: Float64Array; count: number; selection: BlockSelection | NoneSelection } | null = null;

  /** The runs, element count and selection the last kept request defined, when `req` is that request again. */
  match(req: Float64Array): { runs: Float64Array; count: number; selection: BlockSelection | NoneSelection } | null {
    const last = this.last;
    return last && sameNumbers(last.req, req) ? last : null;
  }

  /** Keeps what request `req` defined in an empty chunk (runs and selection are not changed in place afterwards). */
  keep(req: Float64Array, runs: Float64Array, count: number, selection: BlockSelection | NoneSelection): void {
    this.last = req.length <= KEEP_MAX_RUNS ? { req: req.slice(), runs, count, selection } : null;
  }
}
