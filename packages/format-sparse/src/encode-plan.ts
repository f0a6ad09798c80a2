/**
 * What encoding a dataset's sparse chunks repeats for every chunk, worked out once per dataset (its
 * chunk format context): the sections' filter pipelines and their implementations, and section 0 of
 * the last chunk encoded — a stream writing the same region of every frame defines the same elements
 * in each chunk, so its section 0 (the encoded selection and its lookup3 checksum,
 * docs/structured-chunk-format.md §6.1) is the same bytes frame after frame.
 * @module
 */
import type { BlockSelection, ChunkFormatContext, Filter, FilterPipeline } from '@chunkform/core';
import { sectionPipeline } from '@chunkform/core/plugin';

/** The sections' pipelines of a dataset and the implementations of their filters. */
export interface EncodePlan {
  /** `pipelines[s]`: section s's filter pipeline. */
  readonly pipelines: readonly FilterPipeline[];
  /** `impls(s)[i]`: the implementation of filter i of section s (undefined: not registered). */
  impls(s: number): readonly (Filter | undefined)[];
  /** Section 0 of the last chunk encoded and the boxes it encodes (see {@link sectionZeroOf}). */
  last: { boxes: Float64Array; rank: number; maxDims: readonly number[]; bytes: Uint8Array } | null;
}

const plans = new WeakMap<ChunkFormatContext, EncodePlan>();

/** Largest selection (bytes of its boxes) whose section 0 is kept for the next chunk. */
const KEEP_MAX_BOX_BYTES = 64 << 10;

/** The encode plan of the dataset whose chunk format context is `ctx` (made on first use). */
export function encodePlan(ctx: ChunkFormatContext, sections: number): EncodePlan {
  let plan = plans.get(ctx);
  if (plan) return plan;
  const pipelines = Array.from({ length: sections }, (_, s) => sectionPipeline(ctx, s));
  const resolved: (readonly (Filter | undefined)[] | undefined)[] = [];
  plan = {
    pipelines,
    impls(s) {
      const known = resolved[s];
      if (known) return known;
      const impls = pipelines[s]!.filters.map((f) => ctx.resolveFilter(f.id));
      // kept once every filter is registered (one registered later is looked up again until then)
      if (impls.every((f) => f !== undefined)) resolved[s] = impls;
      return impls;
    },
    last: null,
  };
  plans.set(ctx, plan);
  return plan;
}

/** True when `a` and `b` hold the same numbers. */
export function sameNumbers(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Section 0 of a chunk whose defined elements are `sel` within `maxDims` (the extent the selection is
 * encoded with): the last chunk's bytes when it defined the same boxes, else `encode()`, kept for the
 * next chunk. The bytes are shared between chunks: nothing writes into a section 0 once made.
 */
export function sectionZeroOf(plan: EncodePlan, sel: BlockSelection, maxDims: readonly number[], encode: () => Uint8Array): Uint8Array {
  const last = plan.last;
  if (last && last.rank === sel.rank && sameNumbers(last.boxes, sel.boxes) && sameNumbers(last.maxDims, maxDims)) return last.bytes;
  const bytes = encode();
  plan.last = sel.boxes.byteLength <= KEEP_MAX_BOX_BYTES ? { boxes: sel.boxes.slice(), rank: sel.rank, maxDims: [...maxDims], bytes } : null;
  return bytes;
}
