/**
 * What a dataset's sparse chunks repeat, worked out once per dataset: the sections' filter pipelines
 * and — for a stream writing the same region of every frame — the last
 * chunk's section 0 (the encoded selection and its lookup3 checksum, docs/structured-chunk-format.md
 * §6.1) and the runs and selection the last request defined in an empty chunk (./sparse-chunk.ts).
 * Arrays kept here are shared with chunks, which never change them in place.
 * @module
 */
import type { BlockSelection, ChunkFormatContext, FilterPipeline, NoneSelection } from '@chunkform/core';
import { sectionPipeline } from '@chunkform/core/plugin';

/** One dataset's repeated work. */
export interface EncodePlan {
  /** `pipelines[s]`: section s's filter pipeline. */
  readonly pipelines: readonly FilterPipeline[];
  /** The last section 0 encoded and its selection (extent and rank are the dataset's: the same for every chunk). */
  zero?: { sel: BlockSelection; bytes: Uint8Array };
  /** The last request that defined an empty chunk (a copy) and the runs and selection it defined. */
  fresh?: { req: Float64Array; runs: Float64Array; selection: BlockSelection | NoneSelection };
}

const plans = new WeakMap<ChunkFormatContext, EncodePlan>();

/** The plan of the sparse dataset (two sections) whose chunk format context is `ctx` (made on first use). */
export function encodePlan(ctx: ChunkFormatContext): EncodePlan {
  let plan = plans.get(ctx);
  if (!plan) plans.set(ctx, (plan = { pipelines: [0, 1].map((s) => sectionPipeline(ctx, s)) }));
  return plan;
}
