/**
 * The filter worker's side of ./vl-image-offload.ts: the checksums of chunk images the calling
 * thread built in shared slabs, written in place. The calling thread publishes each section in a
 * shared ring of descriptors (slab, start, end, claim state); one job ({@link sealRing}) takes them
 * in order as they come, claiming each first (the calling thread seals those it claims itself), and
 * waits for more with `Atomics.wait` — no message per chunk — until none came for a while (the cells: ./vl-image-ring.ts). Imported
 * by the worker pool's task jobs only; it imports what the worker has loaded already (core's plugin
 * entry and the ring's constants), so a worker's first job loads almost nothing more.
 * @module
 */
import { lookup3, type OffloadTaskResult } from '@chunkform/core/plugin';
import { CLAIMED, FREE, RING_ACTIVE, RING_CURSOR, RING_HEAD, RING_SIZE, SEALED, descAt } from './vl-image-ring.js';

// Warmed when a worker first imports this module (its first job): lookup3 over 512 KiB of shared
// memory in 64 KiB pieces, long enough for the optimizing compiler (≈ 10 ms of the worker's CPU once),
// so a write's first sections are not checksummed by the interpreter: a cold worker took 8–34 ms over
// its first 200 KB section and 0.18 ms over each next one (on-stack-replaced code), a warmed one
// 0.09–0.14 ms from the first (/tmp measurement, BENCHMARKS.md "vlwrite4").
{
  const warm = new Uint8Array(new SharedArrayBuffer(64 << 10));
  for (let i = 0; i < 8; i++) lookup3(warm);
}

/** What a {@link sealRing} job is sent. */
export interface SealRingArgs {
  /** The ring (shared). */
  ring: Int32Array;
  /** The slabs the descriptors name, by id (views of shared memory). */
  slabs: Map<number, Uint8Array>;
  /** How long to wait for the next descriptor before the job ends (ms). */
  idleMs: number;
}

/**
 * Seals the sections published in the ring from its cursor on, each one it claims (lookup3 of the
 * section's bytes but the last 4, written there little-endian, as `seal` of ./vl-sections.ts does
 * on the calling thread), and waits for more; ends when none came for `idleMs`, or at a slab it was
 * not sent (the calling thread then starts a job that has it). Returns the sections it sealed.
 */
// docs/format-vl.md §2 (dense VL chunk: a checksum per section), §5.2 (on the worker pool).
export function sealRing(args: SealRingArgs): OffloadTaskResult<number> {
  const { ring, slabs, idleMs } = args;
  let count = 0;
  const done = (): OffloadTaskResult<number> => ({ value: count, transfer: [] });
  let d = Atomics.load(ring, RING_CURSOR);
  for (;;) {
    const head = Atomics.load(ring, RING_HEAD);
    if ((head - d) >>> 0 > RING_SIZE) d = (head - RING_SIZE) | 0; // (lapped: those slots hold newer descriptors, or are sealed)
    if (d === head) {
      if (idleMs > 0 && Atomics.wait(ring, RING_HEAD, head, idleMs) !== 'timed-out') continue;
      if (Atomics.load(ring, RING_HEAD) !== head) continue;
      Atomics.store(ring, RING_ACTIVE, 0);
      // (a descriptor published before the calling thread saw 0: this job goes on, unless it started another)
      if (Atomics.load(ring, RING_HEAD) === head || Atomics.compareExchange(ring, RING_ACTIVE, 0, 1) !== 0) return done();
      continue;
    }
    const at = descAt(d);
    if (Atomics.compareExchange(ring, at + 3, FREE, CLAIMED) === FREE) {
      // (claimed: the calling thread writes a descriptor's cells only while it is sealed, so these are its own)
      const images = slabs.get(ring[at]!);
      if (!images) {
        Atomics.store(ring, at + 3, FREE);
        Atomics.store(ring, RING_ACTIVE, 0);
        return done();
      }
      const start = ring[at + 1]!;
      const end = ring[at + 2]!;
      if (!(start >= 0 && end >= start + 4 && end <= images.length)) throw new Error(`format-vl: section [${start}, ${end}) is not within its slab of ${images.length} bytes`);
      new DataView(images.buffer, images.byteOffset + end - 4, 4).setUint32(0, lookup3(images.subarray(start, end - 4)), true);
      Atomics.store(ring, at + 3, SEALED);
      Atomics.notify(ring, at + 3);
      count++;
    }
    d = (d + 1) | 0;
    Atomics.store(ring, RING_CURSOR, d); // (where the next job starts)
  }
}
