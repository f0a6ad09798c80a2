/**
 * Where chunk images go in the file and how the chunk index learns of them, for one dataset's chunk
 * engine: space for an image (its old space only when that is fresh, else new space), the record of
 * a chunk about to be rewritten (copy-on-write for the last flushed state, docs/data-safety.md), index
 * updates and removal, with the error context of ./guard.ts.
 * @module
 */
import { H5Error, InvalidStateError, UnsupportedError } from '../errors.js';
import { ChunkGuard } from './guard.js';
import type { ChunkIndex, ChunkRecord } from './chunk-index.js';
import type { ChunkImage, ChunkStore } from './chunk-format.js';
import type { WriteSteps } from './gather.js';

/** A chunk image whose file write has started ({@link ChunkPlacement.start}). */
export interface StartedWrite {
  /** Settles once the bytes are in the file; rejects with the write's failure, naming the chunk. */
  readonly done: Promise<void>;
  /**
   * Once {@link done} has resolved: records the chunk in the index, then releases its old space and
   * gives the image's buffers back (`ChunkImage.written`). Call at most once.
   */
  finish(): Promise<void>;
  /**
   * Once {@link done} has settled, for a chunk that is not recorded: gives back the space it was
   * written to (the index still names the old). Does nothing after {@link finish} succeeded.
   */
  abandon(): void;
}

/** An encoded chunk to place and write ({@link ChunkPlacement.startMany}). */
export interface ImageToWrite {
  coords: readonly number[];
  image: ChunkImage;
}

/**
 * What {@link ChunkPlacement.startMany} started: the writes of the first images given, in order, and
 * — when placing the next one failed (its place refused) — that failure, naming its chunk; the
 * images after it were neither placed nor written.
 */
export interface StartedWrites {
  writes: StartedWrite[];
  failure?: { error: unknown };
}

/** Most images one write takes (Linux IOV_MAX is 1024; the write queue holds far fewer). */
const IMAGES_PER_WRITE = 256;
/** Zeros for the alignment padding between images written together (the allocator aligns to 8 bytes). */
const PADDING = new Uint8Array(8);

/**
 * Writes chunk images placed one after the other from `address` (one I/O when the store gathers
 * buffers, else one write each, in order); a failure that is not one of ours becomes an
 * {@link H5Error} saying what was written where (the guard adds the dataset and chunk), the system
 * error its cause.
 */
async function writeImages(store: ChunkStore, address: number, parts: readonly Uint8Array[]): Promise<void> {
  try {
    if (parts.length === 1) await store.write(address, parts[0]!);
    else if (store.writev) await store.writev(address, parts);
    else {
      let at = address;
      for (const p of parts) {
        await store.write(at, p);
        at += p.length;
      }
    }
  } catch (e) {
    if (e instanceof H5Error) throw e;
    let n = 0;
    for (const p of parts) n += p.length;
    const what = parts.length === 1 ? `the ${n}-byte chunk image` : `adjacent chunk images (${n} bytes)`;
    const err = new H5Error(`writing ${what} at address ${address} failed: ${e instanceof Error ? e.message : String(e)}`);
    Object.defineProperty(err, 'cause', { value: e, writable: true, configurable: true });
    throw err;
  }
}

/** An image placed by {@link ChunkPlacement.startMany}. */
interface PlacedImage extends ImageToWrite {
  address: number;
  old: ChunkRecord | null;
  /** Written over its old (fresh) space. */
  same: boolean;
}

/** Places, records and removes the chunks of one dataset. */
export class ChunkPlacement extends ChunkGuard implements WriteSteps {
  constructor(private readonly o: { path: string; index: ChunkIndex; store: ChunkStore }) {
    super(o.path);
  }

  /**
   * Writes a chunk image (to its old space when that is fresh and the size is unchanged) and records
   * it in the index; on a failure the index keeps the chunk's old record (see {@link start}).
   */
  async put(coords: readonly number[], image: ChunkImage): Promise<void> {
    const w = await this.start(coords, image);
    try {
      await w.done;
    } catch (e) {
      w.abandon();
      throw e;
    }
    try {
      await w.finish();
    } catch (e) {
      w.abandon();
      throw e;
    }
  }

  /**
   * Places a chunk image and starts writing it, without waiting for the write ({@link startMany}
   * of one image; a refused place is thrown).
   */
  async start(coords: readonly number[], image: ChunkImage): Promise<StartedWrite> {
    const r = await this.startMany([{ coords, image }]);
    if (r.failure) throw r.failure.error;
    return r.writes[0]!;
  }

  /**
   * Places chunk images in order and starts writing them, without waiting for the writes: for
   * writes of several chunks in flight at once (./write-queue.ts). Images placed one after the
   * other in the file (new chunks: space allocated in turn at the end of the file) go out as one
   * write of their buffers (`ChunkStore.writev`), so a batch of chunks costs one system call. Each
   * chunk's old space and record stay as they are until its {@link StartedWrite.finish}, so a write
   * that fails leaves what was flushed as it was. The one exception is an image's own fresh space
   * (written since the last flush, same size: rewritten in place, as an index that computes
   * addresses or cannot record new ones needs): a failed write leaves that unflushed chunk's bytes
   * undefined until it is written again. The chunks of one call must differ.
   */
  async startMany(items: readonly ImageToWrite[]): Promise<StartedWrites> {
    const { store } = this.o;
    const placed: PlacedImage[] = [];
    let failure: { error: unknown } | undefined;
    for (const it of items) {
      try {
        const size = it.image.bytes.length;
        const old = await this.forRewrite(it.coords);
        const same = this.inOldSpace(old, size);
        placed.push({ coords: it.coords, image: it.image, old, same, address: old && same ? old.address : store.alloc(size) });
      } catch (e) {
        failure = { error: this.named(it.coords, e) };
        break;
      }
    }
    const writes: StartedWrite[] = [];
    for (let i = 0; i < placed.length; ) {
      // a run of images placed end to end, or apart only by the allocator's alignment padding
      // (fresh space, written as zeros): one write
      const head = placed[i]!;
      const parts: Uint8Array[] = [head.image.bytes];
      let end = head.address + head.image.bytes.length;
      let j = i + 1;
      for (; j < placed.length && j - i < IMAGES_PER_WRITE; j++) {
        const p = placed[j]!;
        const gap = p.address - end;
        if (gap < 0 || gap >= PADDING.length || (gap > 0 && !store.isFresh(end, gap))) break;
        if (gap > 0) parts.push(PADDING.subarray(0, gap));
        parts.push(p.image.bytes);
        end = p.address + p.image.bytes.length;
      }
      const run = writeImages(store, head.address, parts);
      run.catch(() => undefined); // each chunk's `done` carries it
      for (let k = i; k < j; k++) writes.push(this.started(placed[k]!, run));
      i = j;
    }
    return failure ? { writes, failure } : { writes };
  }

  /** The {@link StartedWrite} of a placed image whose bytes `run` writes. */
  private started(p: PlacedImage, run: Promise<void>): StartedWrite {
    const { store } = this.o;
    const { coords, image, address, old, same } = p;
    const done = this.guard(coords, () => run);
    done.catch(() => undefined); // the caller awaits it
    let open = true;
    return {
      done,
      finish: async () => {
        if (!open) throw new InvalidStateError(`chunk [${coords.join(', ')}]: its write was recorded or given up already`, { path: this.o.path });
        await this.guard(coords, () => this.record(coords, address, image, old));
        open = false;
        if (old && !same) store.release(old.address, old.size);
        image.written?.();
      },
      abandon: () => {
        if (!open) return;
        open = false;
        if (!same) store.release(address, image.bytes.length);
      },
    };
  }

  /** Removes a chunk from the index and releases its space (a chunk with no defined element, resize pruning). */
  async remove(coords: readonly number[]): Promise<void> {
    this.changes++;
    const old = await this.o.index.remove(coords);
    if (old) this.o.store.release(old.address, old.size);
  }

  /**
   * File space for a chunk image of `size` bytes: its old space when that is fresh (written since
   * the last flush) and the size is unchanged, else new space (the old released: reused only after
   * the next flush when it holds the last flushed state).
   */
  async place(coords: readonly number[], size: number): Promise<{ address: number; old: ChunkRecord | null }> {
    const { store } = this.o;
    const old = await this.forRewrite(coords);
    if (old && this.inOldSpace(old, size)) return { address: old.address, old };
    if (old) store.release(old.address, old.size);
    return { address: store.alloc(size), old };
  }

  /** True when an image of `size` bytes goes to the space of `old`: fresh (written since the last flush), the same size. */
  private inOldSpace(old: ChunkRecord | null, size: number): boolean {
    return old !== null && old.size === size && this.o.store.isFresh(old.address, old.size);
  }

  /**
   * The record of a chunk about to be rewritten. A chunk of the last flushed state is never written
   * over: an index that computes addresses (implicit) first moves its chunk block to new space; a
   * read-only index cannot record a new place, so the write is refused before anything changes.
   */
  async forRewrite(coords: readonly number[]): Promise<ChunkRecord | null> {
    const { index, store } = this.o;
    const rec = await index.lookup(coords);
    if (!rec || store.isFresh(rec.address, rec.size)) return rec;
    if (index.relocate) {
      this.changes++;
      await index.relocate(coords);
      return index.lookup(coords);
    }
    if (index.readOnly) {
      throw new UnsupportedError(
        `cannot rewrite chunk [${coords.join(', ')}]: it belongs to the file's flushed state and must go to new space, ` +
          `which a "${index.type}" chunk index cannot record here (${index.readOnlyReason ?? 'h5repack --latest converts the file to a writable index'})`,
        { path: this.o.path },
      );
    }
    return rec;
  }

  /**
   * {@link forRewrite} of many chunks, with one index call for all when the index has `lookupMany`
   * (chunks of the last flushed state then go through {@link forRewrite} one by one).
   */
  async forRewriteMany(list: readonly (readonly number[])[]): Promise<(ChunkRecord | null)[]> {
    const { index, store } = this.o;
    let recs: (ChunkRecord | null)[] | undefined;
    try {
      recs = await index.lookupMany?.(list);
    } catch {
      recs = undefined; // looked up one by one below, which names the chunk that fails
    }
    // Never written, or written since the last flush: as found; else (or unknown) `forRewrite` decides.
    const out: (ChunkRecord | null | undefined)[] = recs ? asFound(recs, store) : list.map(() => undefined);
    for (const i of undecided(out)) out[i] = await this.guardValue(list[i]!, () => this.forRewrite(list[i]!));
    return out as (ChunkRecord | null)[];
  }

  /**
   * {@link record} of many written chunk images (in order), with one index call for all when the
   * index has `insertMany`. On a failure the chunks are recorded one by one, so that the error names
   * the chunk it is about.
   */
  async recordMany(items: readonly { coords: readonly number[]; address: number; image: ChunkImage; old: ChunkRecord | null }[]): Promise<void> {
    const { index } = this.o;
    const recs = changedRecords(items);
    if (recs.length === 0) return;
    if (index.insertMany) {
      try {
        this.changes++;
        await index.insertMany(recs);
        return;
      } catch {
        // nothing was recorded: the loop below finds (and names) the chunk that fails
      }
    }
    for (const r of recs) await this.guard(r.coords, () => this.insertRecord(r));
  }

  /** Records a written chunk image in the index (nothing to do when rewritten in place with the same record). */
  async record(coords: readonly number[], address: number, image: ChunkImage, old: ChunkRecord | null): Promise<void> {
    if (sameRecord(old, address, image)) return;
    await this.insertRecord({
      coords: [...coords],
      address,
      size: image.bytes.length,
      filterMask: image.filterMask,
      ...(image.sections ? { sections: image.sections } : {}),
    });
  }

  private async insertRecord(rec: ChunkRecord): Promise<void> {
    this.changes++;
    await this.o.index.insert(rec);
  }
}

/** Records that a rewrite takes as they are (null: never written; fresh space), others undefined. */
function asFound(recs: readonly (ChunkRecord | null)[], store: ChunkStore): (ChunkRecord | null | undefined)[] {
  const out: (ChunkRecord | null | undefined)[] = [];
  for (const rec of recs) out.push(rec === null || store.isFresh(rec.address, rec.size) ? rec : undefined);
  return out;
}

/** Positions of the undefined entries of `out`. */
function undecided(out: readonly unknown[]): number[] {
  const at: number[] = [];
  for (let i = 0; i < out.length; i++) if (out[i] === undefined) at.push(i);
  return at;
}

/** The index records of written chunk images, leaving out those whose record does not change. */
function changedRecords(items: readonly { coords: readonly number[]; address: number; image: ChunkImage; old: ChunkRecord | null }[]): ChunkRecord[] {
  const recs: ChunkRecord[] = [];
  for (const { coords, address, image, old } of items) {
    if (sameRecord(old, address, image)) continue;
    recs.push({ coords: [...coords], address, size: image.bytes.length, filterMask: image.filterMask, ...(image.sections ? { sections: image.sections } : {}) });
  }
  return recs;
}

/** True when a chunk rewritten at `address` as `image` keeps its record `old` exactly (no index change). */
function sameRecord(old: ChunkRecord | null, address: number, image: ChunkImage): boolean {
  return old !== null && old.address === address && old.size === image.bytes.length && old.filterMask === image.filterMask && !image.sections && !old.sections;
}
