/**
 * Buffers of whole dense chunk images (./vl-image.ts) kept for reuse: a write of many whole chunks
 * builds each image in a buffer the file already took the previous images from, instead of a fresh
 * one per chunk (zeroed pages, page faults and garbage collections on the calling thread). A buffer
 * comes back only through the stored image's `written` (core's `ChunkImage`): the image was handed to
 * the file for the last time (`memToFile(…, last)`: the engine drops the chunk) and the store has
 * written it. Only buffers over 64 KiB are kept: the file writer holds back smaller writes of a
 * flush (to write them together) after the write call resolved — as copies (core's io/write-runs.ts
 * `WriteBatch.add`), so `written` is safe at every size, but small images gain little from reuse.
 * @module
 */

/** Smallest buffer kept (the file writer's held-back writes are at most 64 KiB). */
export const POOLED_MIN_BYTES = (64 << 10) + 1;
/**
 * Most buffers kept, and most bytes in all (as core's `ownedCopy`): the chunk engine writes up to 64
 * chunks at once, so a large write has as many images built and not yet written.
 */
const KEEP = 128;
const KEEP_BYTES = 64 << 20;
/** Kept buffers are dropped when none was given back for this long (no write running). */
const IDLE_MS = 1000;

const free: ArrayBuffer[] = [];
let freeBytes = 0;
/** The timer that drops the kept buffers (one at a time), and when a buffer last came back. */
let idle: ReturnType<typeof setTimeout> | undefined;
let lastBack = 0;

/** Drops the kept buffers when none came back for {@link IDLE_MS}; else looks again when that will be so. */
function dropIdle(): void {
  const wait = lastBack + IDLE_MS - Date.now();
  idle = undefined;
  if (wait > 0) armIdle(wait);
  else {
    free.length = 0;
    freeBytes = 0;
  }
}

function armIdle(ms: number): void {
  idle = setTimeout(dropIdle, ms);
  (idle as { unref?: () => void }).unref?.(); // (Node: the timer keeps no process alive)
}

/**
 * A buffer for an image of `size` bytes, from byte 0 (`reused`: a kept buffer, its bytes not zero).
 * A new one has 1/16 room to spare, so that the next chunk's image, a little larger, fits it too.
 */
export function takeImage(size: number): { image: Uint8Array; reused: boolean } {
  for (let i = free.length - 1; i >= 0; i--) {
    const b = free[i]!;
    if (b.byteLength >= size && b.byteLength <= 2 * size) {
      free.splice(i, 1);
      freeBytes -= b.byteLength;
      return { image: new Uint8Array(b, 0, size), reused: true };
    }
  }
  const cap = size >= POOLED_MIN_BYTES ? size + (size >>> 4) : size;
  return { image: new Uint8Array(new ArrayBuffer(cap), 0, size), reused: false };
}

/** `image` (a whole image built by {@link takeImage}) is written and nothing uses it any more: its buffer is kept. */
export function giveBack(image: Uint8Array): void {
  const b = image.buffer;
  if (!(b instanceof ArrayBuffer) || b.byteLength < POOLED_MIN_BYTES || free.includes(b)) return;
  free.push(b);
  freeBytes += b.byteLength;
  while (free.length > KEEP || freeBytes > KEEP_BYTES) freeBytes -= free.shift()!.byteLength;
  // one timer, not one per buffer (a whole-column write gives back one per chunk)
  lastBack = Date.now();
  if (idle === undefined) armIdle(IDLE_MS);
}
