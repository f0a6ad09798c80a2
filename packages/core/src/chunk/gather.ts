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

/**
 * Full chunks of a fixed-size format are gathered into buffers of about this size and written together
 * (one write per buffer when the chunks are adjacent in the file). 4 MiB rather than 1 MiB: a quarter of
 * the thread-pool hand-offs, each of which wakes a thread on another core and the main thread again
 * (105 MB of 256² tiles: 30–36 ms per write vs 40–58 ms in a warm loop on 2 cores).
 */
export const GATHER_BYTES = 4 << 20;

/** Dirty chunk images up to this size are written together with their neighbours in the file by `flush`. */
export const GATHER_IMAGE_MAX = 64 << 10;

/**
 * Gather buffers (the images of a group and room for the format's staging) are kept for reuse by all
 * engines, this many (a write holds one while it fills it and one while it is written)...
 */
const POOLED = 2;
/** ...each of at least this size (a group of tiles and its 512 KiB staging area fit)... */
const POOL_MIN = GATHER_BYTES + (1 << 20);
/** ...and at most this size (larger buffers are left to the garbage collector). */
const POOL_MAX = 2 * POOL_MIN;
const gatherPool: Uint8Array[] = [];

/** A gather buffer of at least `need` bytes: a pooled one when one is large enough. */
function takeGather(need: number): Uint8Array {
  if (need > POOL_MAX) return new Uint8Array(need);
  const k = gatherPool.findIndex((b) => b.length >= need);
  if (k >= 0) return gatherPool.splice(k, 1)[0]!;
  return new Uint8Array(Math.max(need, POOL_MIN));
}

/** Gives a buffer from {@link takeGather} back to the pool (once no write reads it any more). */
function giveGather(b: Uint8Array): void {
  if (b.length <= POOL_MAX && gatherPool.length < POOLED) gatherPool.push(b);
}

/** The engine's steps that gathered writes use. */
export interface WriteSteps {
  /** Runs `fn`, adding the dataset path and chunk coordinates to errors that lack them. */
  guard(coords: readonly number[], fn: () => Promise<void>): Promise<void>;
  /** {@link guard} for a step with a result. */
  guardValue<T>(coords: readonly number[], fn: () => T | Promise<T>): Promise<T>;
  /** The error `e` of a step on chunk `coords`, with the context {@link guard} adds. */
  named(coords: readonly number[], e: unknown): unknown;
  /** Records a written chunk image in the index. */
  record(coords: readonly number[], address: number, image: ChunkImage, old: ChunkRecord | null): Promise<void>;
  /** {@link record} of many chunks; a failure names its chunk. */
  recordMany(items: readonly { coords: readonly number[]; address: number; image: ChunkImage; old: ChunkRecord | null }[]): Promise<void>;
  /**
   * The record of a chunk about to be rewritten (null when never written); its space may be reused
   * in place only when the store reports it fresh. Throws when the chunk cannot be rewritten.
   */
  forRewrite(coords: readonly number[]): Promise<ChunkRecord | null>;
  /** {@link forRewrite} of many chunks (one index call when the index can); a failure names its chunk. */
  forRewriteMany(list: readonly (readonly number[])[]): Promise<(ChunkRecord | null)[]>;
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

/** The engine's parts that gathered full-chunk writes use. */
export interface FullChunkTarget<Mem> {
  format: ChunkFormat<Mem>;
  store: ChunkStore;
}

/**
 * Writes the full chunks among `pieces` (a fixed-size format, `size` bytes each) in groups of about
 * {@link GATHER_BYTES}, see {@link startGroup}; the writes of one group run while the next group is
 * gathered (a store that writes on other threads then overlaps its copy into the file with ours),
 * and the next group's writes start once they have finished.
 * Pieces that are partial or for which `ordinary` says so go through `ordinary.write` (in order).
 * Returns once every write has finished and every chunk is recorded in the index; on a failure,
 * once the writes in flight have settled.
 */
export async function writeFullChunks<Mem>(
  o: FullChunkTarget<Mem>,
  steps: WriteSteps,
  pieces: readonly ChunkRequest[],
  src: Uint8Array,
  size: number,
  ordinary: { wanted(req: ChunkRequest): boolean; write(req: ChunkRequest): Promise<void> },
): Promise<void> {
  const perGroup = Math.max(1, Math.floor(GATHER_BYTES / size));
  let inFlight: GroupInFlight | null = null;
  const next = async (group: readonly ChunkRequest[]): Promise<void> => {
    // Built while the previous group's writes run; its writes start once those have finished (one
    // write in flight: two to the same file only wait for each other in the kernel, spinning on its lock).
    inFlight = await startGroup(o, steps, group, src, size, async () => {
      const prev = inFlight;
      inFlight = null;
      await prev?.finish();
    });
  };
  try {
    // One turn per group or ordinary piece (not per piece: full pieces are collected in the inner loop).
    // Groups start as empty slices of `pieces` (object elements): a fresh `[]` holds small integers until
    // its first push, and optimised code that had seen object elements deoptimised on it in the second write.
    let group = pieces.slice(0, 0);
    for (let i = 0; i < pieces.length; ) {
      for (; i < pieces.length && group.length < perGroup; i++) {
        const req = pieces[i]!;
        if (!req.full || ordinary.wanted(req)) break;
        group.push(req);
      }
      if (group.length === perGroup) {
        await next(group);
        group = pieces.slice(0, 0);
      } else if (i < pieces.length) await ordinary.write(pieces[i++]!);
    }
    if (group.length > 0) await next(group);
  } catch (e) {
    const last = inFlight as GroupInFlight | null;
    inFlight = null;
    await last?.finish().catch(() => undefined); // its writes settle before the failure leaves this call
    throw e;
  }
  await (inFlight as GroupInFlight | null)?.finish();
}

/** A group of full chunks whose writes are under way. */
interface GroupInFlight {
  /** Waits for the writes, gives the gather buffer back and records the chunks in the index (throws the first failure). Call once. */
  finish(): Promise<void>;
}

/** A chunk of a group: its request, old record, file address (-1 until placed) and image. */
interface GroupItem {
  req: ChunkRequest;
  old: ChunkRecord | null;
  address: number;
  image: Uint8Array;
}

/*
 * startGroup runs about 25 times per 100 MB written, so it is left to the interpreter and baseline compiler;
 * its loops are the small helpers below (optimised on their own: compiling startGroup with them inlined
 * took 25–40 ms of a background thread during the first writes of a process, on a 2-core machine the
 * core the thread pool's writes need).
 */

/**
 * The group's items with their old records: same size and fresh space (written since the last flush)
 * keeps its address (rewritten in place); otherwise the old space is released (reused after the next
 * flush when flushed) and the address is -1 (new space). Returns the items and how many need new space.
 */
function placeItems(group: readonly ChunkRequest[], recs: readonly (ChunkRecord | null)[], store: ChunkStore, size: number): { items: GroupItem[]; fresh: number } {
  const items: GroupItem[] = [];
  let fresh = 0;
  for (let i = 0; i < group.length; i++) {
    const old = recs[i]!;
    const inPlace = old !== null && old.size === size && store.isFresh(old.address, old.size);
    if (old && !inPlace) store.release(old.address, old.size);
    if (!inPlace) fresh++;
    items.push({ req: group[i]!, old, address: inPlace ? old.address : -1, image: EMPTY });
  }
  return { items, fresh };
}

const EMPTY = new Uint8Array(0);

/** Gives the items without an address consecutive addresses from `next` on, `size` bytes apart. */
function assignAddresses(items: GroupItem[], next: number, size: number): void {
  for (const it of items) if (it.address < 0) (it.address = next), (next += size);
}

/** The requests of the items, in item order. */
function requestsOf(items: readonly GroupItem[]): ChunkRequest[] {
  const reqs: ChunkRequest[] = [];
  for (const it of items) reqs.push(it.req);
  return reqs;
}

/** Gives item i image i, which must be `size` bytes. */
function attachImages(items: GroupItem[], images: readonly Uint8Array[], size: number, format: string): void {
  for (let i = 0; i < items.length; i++) {
    const image = images[i];
    if (image?.length !== size) throw new ValueError(`chunk format "${format}" built a ${image?.length}-byte image, ${size} expected`);
    items[i]!.image = image;
  }
}

/** The writes of `items` (sorted by address): one per run of items adjacent in both the file and memory. */
function runsOf(items: readonly GroupItem[], size: number): { first: GroupItem; bytes: Uint8Array }[] {
  const runs: { first: GroupItem; bytes: Uint8Array }[] = [];
  for (let i = 0; i < items.length; ) {
    const first = items[i]!;
    let j = i + 1;
    while (
      j < items.length &&
      items[j]!.address === items[j - 1]!.address + size &&
      items[j]!.image.buffer === first.image.buffer &&
      items[j]!.image.byteOffset === items[j - 1]!.image.byteOffset + size
    ) j++;
    runs.push({ first, bytes: new Uint8Array(first.image.buffer, first.image.byteOffset, (j - i) * size) });
    i = j;
  }
  return runs;
}

/** The index records of written items. */
function recordsOf(items: readonly GroupItem[]): { coords: readonly number[]; address: number; image: ChunkImage; old: ChunkRecord | null }[] {
  const out: { coords: readonly number[]; address: number; image: ChunkImage; old: ChunkRecord | null }[] = [];
  for (const it of items) out.push({ coords: it.req.coords, address: it.address, image: { bytes: it.image, filterMask: 0 }, old: it.old });
  return out;
}

/**
 * Starts storing full chunks of a fixed-size format (`size` bytes each): new space for all chunks
 * that need it in one allocation, images built by the format (views of `src` where `src` holds a
 * chunk in stored order), then — once `before` has finished — one write per run of chunks adjacent
 * in both the file and memory. The index updates follow in `finish`, after the writes.
 */
async function startGroup<Mem>(
  o: FullChunkTarget<Mem>,
  steps: WriteSteps,
  group: readonly ChunkRequest[],
  src: Uint8Array,
  size: number,
  before: () => Promise<void>,
): Promise<GroupInFlight> {
  const { format, store } = o;
  const { items, fresh } = placeItems(group, await steps.forRewriteMany(group.map((req) => req.coords)), store, size);
  if (fresh > 0) assignAddresses(items, await steps.guardValue(group[0]!.coords, () => store.alloc(fresh * size)), size);
  items.sort((a, b) => a.address - b.address);
  let gather: Uint8Array | null = null;
  const giveBack = (): void => {
    const g = gather as Uint8Array | null;
    gather = null;
    if (g) giveGather(g);
  };
  const writes: Promise<void>[] = [];
  try {
    const images = format.fullImages!(requestsOf(items), src, (extra) => (gather = takeGather(size * items.length + extra)));
    attachImages(items, images, size, format.name);
    await before();
    for (const { first, bytes } of runsOf(items, size)) {
      const w = steps.guard(first.req.coords, () => store.write(first.address, bytes));
      w.catch(() => undefined); // thrown by finish()
      writes.push(w);
    }
  } catch (e) {
    await Promise.allSettled(writes);
    giveBack();
    throw e;
  }
  return {
    async finish() {
      const results = await Promise.allSettled(writes);
      giveBack();
      for (const r of results) if (r.status === 'rejected') throw r.reason;
      await steps.recordMany(recordsOf(items));
    },
  };
}

/** Writes placed chunk images (one I/O per run of adjacent addresses, copied together), then records them in the index. */
export async function writePlaced(store: ChunkStore, steps: WriteSteps, batch: readonly Placed[]): Promise<void> {
  for (const run of joinRuns(batch.map((p) => ({ address: p.address, bytes: p.image.bytes })))) {
    await steps.guard(batch[run.first]!.coords, () => store.write(run.address, run.bytes));
  }
  for (const p of batch) {
    await steps.guard(p.coords, () => steps.record(p.coords, p.address, p.image, p.old));
    p.written();
    p.image.written?.();
  }
}
