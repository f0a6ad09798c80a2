/**
 * Value arrays of chunks written by a stream (a region of each frame) in reused buffers: the values
 * a write defines in an empty chunk are copied with core's `ownedCopy` — into a kept buffer, in
 * shared memory while filter threads run, so the values section goes to a worker as it is (no
 * second copy, no fresh buffer: page faults and garbage collections on the calling thread). The
 * buffer is given back once the chunk is encoded for the last time (`memToFile` of a chunk the
 * engine drops), unless the values were shared meanwhile (a chunk image or a reader views them).
 * @module
 */
import { ownedCopy, type Holder } from '@chunkform/core/plugin';

/** Smallest value array worth a kept buffer (smaller ones are cheap to allocate). */
export const OWNED_MIN_BYTES = 64 << 10;

/** Value arrays in kept buffers, and what gives each buffer back. */
const holders = new WeakMap<Uint8Array, Holder>();

/** A copy of `src` in a kept buffer (contents of the chunk's own; given back by {@link releaseValues}). */
export function ownedValues(src: Uint8Array): Uint8Array {
  const { bytes, holder } = ownedCopy(src);
  holders.set(bytes, holder);
  return bytes;
}

/** The chunk holding `values` is encoded for the last time and dropped: its buffer is reused. */
export function releaseValues(values: Uint8Array): void {
  const h = holders.get(values);
  if (!h) return;
  holders.delete(values);
  h.drop();
}

/** `values` are viewed by something else from now on: their buffer is never given back. */
export function keepValues(values: Uint8Array): void {
  holders.delete(values);
}
