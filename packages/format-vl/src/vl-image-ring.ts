/**
 * The shared ring of ./vl-image-offload.ts and its worker side ./vl-image-task.ts: where the calling
 * thread publishes the sections of chunk images built in shared slabs, and where each section is
 * claimed and marked sealed (docs/format-vl.md §5.2). Int32 cells of one `SharedArrayBuffer`.
 * @module
 */

/** Ring cells (Int32): descriptors published so far (a count, wrapping at 2^32)... */
export const RING_HEAD = 0;
/** ...1 while a `sealRing` job runs (the calling thread starts one when it finds 0: ./vl-image-task.ts)... */
export const RING_ACTIVE = 1;
/** ...the next descriptor a job looks at... */
export const RING_CURSOR = 2;
/** ...and the first descriptor, {@link RING_DESC} cells each: slab id, start, end, claim state. */
export const RING_HEADER = 4;
export const RING_DESC = 4;
/** Descriptors in the ring (a power of two). */
export const RING_SIZE = 1024;

/** Claim states: not sealed and no one on it; being sealed; sealed (or never used, or given up). */
export const FREE = 0;
export const CLAIMED = 1;
export const SEALED = 2;

/** The cell index of descriptor `d`'s first cell. */
export function descAt(d: number): number {
  return RING_HEADER + RING_DESC * (d & (RING_SIZE - 1));
}

