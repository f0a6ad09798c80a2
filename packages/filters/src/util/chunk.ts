/**
 * Sizes derived from a filter context.
 * @module
 */
import type { FilterContext } from '@chunkform/core/plugin';

/** Bytes of the dataset's whole chunk (element size × chunk dimensions), or 0 if the context does not say. */
export function chunkBytes(ctx: Pick<FilterContext, 'chunkDims' | 'elementSize'>): number {
  if (!ctx.chunkDims || ctx.chunkDims.length === 0 || !(ctx.elementSize > 0)) return 0;
  let n = ctx.elementSize;
  for (const d of ctx.chunkDims) n *= d;
  return Number.isSafeInteger(n) ? n : 0;
}
