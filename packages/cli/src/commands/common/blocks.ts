/**
 * Walking a dataset in blocks of a bounded size, so tools copy or compare any dataset chunk by
 * chunk with memory independent of the dataset size.
 * @module
 */
import { selectHyperslab, type HyperslabSelection } from '@chunkform/core';

/** Default byte budget of one block. */
export const BLOCK_BYTES = 32 << 20;

/**
 * Block dimensions for walking `shape` in C order within `budget` bytes: whole trailing dimensions
 * while they fit, then as many rows of the next one as fit (at least one element per dimension).
 * With `align` (chunk dims), each block dimension is a multiple of it where the budget allows.
 */
export function blockDims(shape: readonly number[], elementSize: number, budget = BLOCK_BYTES, align?: readonly number[]): number[] {
  const rank = shape.length;
  const out = new Array<number>(rank).fill(1);
  let elems = Math.max(1, Math.floor(budget / Math.max(1, elementSize)));
  for (let d = rank - 1; d >= 0; d--) {
    const n = Math.max(1, shape[d]!);
    if (n <= elems) {
      out[d] = n;
      elems = Math.floor(elems / n);
      continue;
    }
    let take = Math.max(1, elems);
    const a = align?.[d];
    if (a && take >= a) take -= take % a;
    out[d] = take;
    break;
  }
  return out;
}

/** Grows `block` so each dimension is a multiple of `chunk` (whole chunks of a source read once). */
export function alignBlock(block: readonly number[], chunk: readonly number[] | null, shape: readonly number[]): number[] {
  if (!chunk) return block.slice();
  return block.map((b, d) => Math.min(Math.max(1, shape[d]!), Math.ceil(b / chunk[d]!) * chunk[d]!));
}

/** One block: its first element, its extent, and the hyperslab selecting it. */
export interface Block {
  start: number[];
  dims: number[];
  count: number;
  selection: HyperslabSelection;
}

/** The blocks of `block` dims tiling `shape`, in C order (clipped at the edges). */
export function* blocksOf(shape: readonly number[], block: readonly number[]): Generator<Block> {
  const rank = shape.length;
  if (shape.some((n) => n === 0)) return;
  const start = new Array<number>(rank).fill(0);
  for (;;) {
    const dims = start.map((s, d) => Math.min(block[d]!, shape[d]! - s));
    const count = dims.reduce((a, b) => a * b, 1);
    yield { start: start.slice(), dims, count, selection: selectHyperslab({ start: start.slice(), block: dims }) };
    let d = rank - 1;
    for (; d >= 0; d--) {
      start[d]! += block[d]!;
      if (start[d]! < shape[d]!) break;
      start[d] = 0;
    }
    if (d < 0) return;
  }
}

/** Number of blocks {@link blocksOf} yields. */
export function blockCount(shape: readonly number[], block: readonly number[]): number {
  return shape.reduce((a, n, d) => a * Math.ceil(n / block[d]!), 1);
}
