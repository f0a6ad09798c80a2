/**
 * Whole dense chunks built when they are encoded, not when they are written (docs/format-vl.md
 * §5.2): `fromRequest` hands the chunk engine an empty chunk that remembers how to build itself from
 * the caller's values, and the build runs at the first use of the chunk — its encoding, which the
 * engine starts inside the same write call (at once, or when its background queue has room: core's
 * chunk/write-queue.ts `add` calls the encoder before it returns), so the caller's values are read
 * only while the call runs, as before. The chunk engine works on up to 64 chunks of a call at once
 * and its queue holds at most a few: building each chunk only when the queue takes it keeps the
 * images of a write to those few, in buffers the file has already taken the previous images from
 * (./vl-image-pool.ts), instead of one new buffer per chunk the engine works on (a million strings in
 * chunks of 8192: 64 × 400 KB of new memory at the start of every write, zeroed, faulted in, and
 * collected by V8 under external-memory pressure).
 * @module
 */
import { VlChunk } from './vl-chunk.js';

/** A chunk not built yet: its builder and the bytes it will hold. */
interface Pending {
  build: (mem: VlChunk) => void;
  bytes: number;
}

const pending = new WeakMap<VlChunk, Pending>();

/**
 * An empty dense chunk of `n` elements that `build` fills in at its first use ({@link built});
 * `bytes`: the values' bytes it will hold (what the engine's queue counts before it is built).
 */
export function deferredChunk(n: number, bytes: number, build: (mem: VlChunk) => void): VlChunk {
  const mem = new VlChunk(n, null);
  pending.set(mem, { build, bytes });
  return mem;
}

/** Builds `mem` when it is a {@link deferredChunk} not built yet (every use of a chunk starts with this). */
export function built(mem: VlChunk): void {
  const p = pending.get(mem);
  if (p === undefined) return;
  pending.delete(mem);
  p.build(mem);
}

/** The values' bytes of a chunk not built yet (undefined once built, or for any other chunk). */
export function pendingBytes(mem: VlChunk): number | undefined {
  return pending.get(mem)?.bytes;
}
