/**
 * Gathered chunk writes of the chunk engine: many chunk images placed in the file first, then
 * written with one I/O per run of adjacent addresses, then recorded in the index. Used for full
 * chunks of fixed-size formats (`ChunkFormat.fullImages`) and for small dirty chunks at flush.
 * @module
 */
import { ValueError } from '../errors.js';
import { joinRuns } from '../io/write-runs.js';
import type { ChunkIndex, ChunkRecord } from './chunk-index.js';
import type { ChunkFormat, ChunkImage, ChunkRequest, ChunkStore } from './chunk-format.js';

/** Full chunks of a fixed-size format are gathered into buffers of about this size and written together. */
export const GATHER_BYTES = 1 << 20;

/** Dirty chunk images up to this size are written together with their neighbours in the file by `flush`. */
export const GATHER_IMAGE_MAX = 64 << 10;

/** Gather buffers kept for reuse by all engines (a write holds one while it fills and writes it). */
const gatherPool: Uint8Array[] = [];

/** The engine's steps that gathered writes use. */
export interface WriteSteps {
  /** Runs `fn`, adding the dataset path and chunk coordinates to errors that lack them. */
  guard(coords: readonly number[], fn: () => Promise<void>): Promise<void>;
  /** {@link guard} for a step with a result. */
  guardValue<T>(coords: readonly number[], fn: () => T | Promise<T>): Promise<T>;
  /** Records a written chunk image in the index. */
  record(coords: readonly number[], address: number, image: ChunkImage, old: ChunkRecord | null): Promise<void>;
  /**
   * The record of a chunk about to be rewritten (null when never written); its space may be reused
   * in place only when the store reports it fresh. Throws when the chunk cannot be rewritten.
   */
  forRewrite(coords: readonly number[]): Promise<ChunkRecord | null>;
}

/** A chunk image placed in the file but not written yet. */
export interface Placed {
  coords: readonly number[];
  image: ChunkImage;
  address: number;
  old: ChunkRecord | null;
  /** Called once the image is written and recorded. */
  written(): void;
}

/**
 * Stores full chunks of a fixed-size format (`size` bytes each): new space for all chunks that
 * need it in one allocation, images built by the format (views of `src` where `src` holds a chunk
 * in stored order), one write per run of chunks adjacent in both the file and memory, then the
 * index updates.
 */
export async function putFullChunks<Mem>(
  o: { format: ChunkFormat<Mem>; index: ChunkIndex; store: ChunkStore },
  steps: WriteSteps,
  group: readonly ChunkRequest[],
  src: Uint8Array,
  size: number,
): Promise<void> {
  const { format, store } = o;
  const items: { req: ChunkRequest; old: ChunkRecord | null; address: number; image: Uint8Array }[] = [];
  let fresh = 0;
  for (const req of group) {
    const old = await steps.guardValue(req.coords, () => steps.forRewrite(req.coords));
    // Same size and fresh space (written since the last flush): rewritten in place. Otherwise the
    // old space goes (reused after the next flush when flushed) and the chunk gets new space.
    const inPlace = old !== null && old.size === size && store.isFresh(old.address, old.size);
    if (old && !inPlace) store.release(old.address, old.size);
    if (!inPlace) fresh++;
    items.push({ req, old, address: inPlace ? old.address : -1, image: src });
  }
  if (fresh > 0) {
    let next = await steps.guardValue(group[0]!.coords, () => store.alloc(fresh * size));
    for (const it of items) if (it.address < 0) (it.address = next), (next += size);
  }
  items.sort((a, b) => a.address - b.address);
  const gather = size * items.length <= GATHER_BYTES ? (gatherPool.pop() ?? new Uint8Array(GATHER_BYTES)) : null;
  try {
    const images = format.fullImages!(
      items.map((it) => it.req),
      src,
      (i) => (gather ? gather.subarray(i * size, (i + 1) * size) : new Uint8Array(size)),
    );
    items.forEach((it, i) => {
      it.image = images[i]!;
      if (it.image?.length !== size) throw new ValueError(`chunk format "${format.name}" built a ${it.image?.length}-byte image, ${size} expected`);
    });
    for (let i = 0; i < items.length; ) {
      const first = items[i]!;
      let j = i + 1;
      while (
        j < items.length &&
        items[j]!.address === items[j - 1]!.address + size &&
        items[j]!.image.buffer === first.image.buffer &&
        items[j]!.image.byteOffset === items[j - 1]!.image.byteOffset + size
      ) j++;
      const bytes = new Uint8Array(first.image.buffer, first.image.byteOffset, (j - i) * size);
      await steps.guard(first.req.coords, () => store.write(first.address, bytes));
      i = j;
    }
  } finally {
    if (gather && gatherPool.length < 2) gatherPool.push(gather);
  }
  for (const it of items) await steps.guard(it.req.coords, () => steps.record(it.req.coords, it.address, { bytes: it.image, filterMask: 0 }, it.old));
}

/** Writes placed chunk images (one I/O per run of adjacent addresses, copied together), then records them in the index. */
export async function writePlaced(store: ChunkStore, steps: WriteSteps, batch: readonly Placed[]): Promise<void> {
  for (const run of joinRuns(batch.map((p) => ({ address: p.address, bytes: p.image.bytes })))) {
    await steps.guard(batch[run.first]!.coords, () => store.write(run.address, run.bytes));
  }
  for (const p of batch) {
    await steps.guard(p.coords, () => steps.record(p.coords, p.address, p.image, p.old));
    p.written();
  }
}
