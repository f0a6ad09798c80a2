/**
 * The write side of an open file: file-space allocation, rewriting object headers chunkform
 * manages, the open global heap collections for variable-length data, and the flush that puts it
 * all on disk.
 *
 * Copy-on-write: the file's last flushed state is never written over. Raw writes go only to fresh
 * space (allocated since the last flush, see {@link Allocator}); changed chunks, index structures,
 * heap collections and continuation blocks go to new space, and the space they replace is reused only
 * after the next successful flush. The only in-place writes are the *commit writes* of a flush: the
 * superblock (end-of-file address) and chunk 0 of object headers that existed before, each one write.
 * @module
 */
import { InvalidStateError, UnsupportedError, ValueError } from '../errors.js';
import type { SizeContext } from '../format/bytes.js';
import { encodeGlobalHeapCollection } from '../format/heaps/global-heap.js';
import {
  encodeContinuationBlock,
  encodeObjectHeaderV2,
  layoutObjectHeaderV2,
  messageAreaSizeV2,
  objectHeaderV2Size,
} from '../format/object-header-v2.js';
import { encodeContinuation } from '../format/messages/continuation.js';
import { CONTINUATION } from '../format/messages/message-types.js';
import { encodeSuperblock } from '../format/superblock.js';
import type { ByteStore } from '../io/byte-store.js';
import type { GlobalHeapWriter } from '../values/encode.js';
import { WriteBatch } from '../io/write-runs.js';
import { Allocator } from './allocator.js';
import type { FileContext } from './file-context.js';
import { HeaderModel, type HeaderMessage } from './header-model.js';
import { planMoves, type ObjectGraph } from './relocate.js';

/** Smallest chunk-0 message area we allocate for a new object header (room for later attributes). */
const MIN_CHUNK0 = 256;
/** Writes of a flush up to this size are held back and written together, one I/O per run of adjacent blocks. */
const BATCH_BLOCK_MAX = 64 << 10;
/** Held-back writes are written out once they reach this many bytes. */
const BATCH_BYTES = 1 << 20;
/** Space for the global heap collection header and its free-space object. */
const GLOBAL_HEAP_COLLECTION_SIZE = 4096;

/** Options of `H5File.flush` and `H5File.close`. */
export interface FlushOptions {
  /**
   * Make the flush durable: the store syncs (fsync) the new data and metadata before the commit
   * writes, and again after them, so that once the flush resolves the new state survives a power
   * loss. Default false: the bytes are handed to the operating system (like HDF5's `H5Fflush`).
   */
  durable?: boolean;
}

/** One global heap collection being filled since the last flush (flushed collections are sealed). */
interface OpenCollection {
  address: number;
  size: number;
  objects: Uint8Array[];
  used: number;
  dirty: boolean;
}

/** What {@link FileWriter.markHeap} records. */
export interface HeapMark {
  count: number;
  state: { objects: number; used: number; dirty: boolean }[];
}

/** Writes a file. */
export class FileWriter implements GlobalHeapWriter {
  readonly allocator: Allocator;
  private collections: OpenCollection[] = [];
  private byAddress = new Map<number, OpenCollection>();
  /** Called at the start of every flush (chunked datasets write cached chunks and their index). */
  readonly flushHooks = new Set<() => Promise<void>>();
  /** The flush running or last run (settled without error), so flushes never overlap. */
  private flushing: Promise<void> = Promise.resolve();
  /**
   * The file's group structure, which lets a flush move changed headers copy-on-write (set by the
   * object layer; without it, changed headers that existed before are rewritten in place).
   */
  graph: ObjectGraph | null = null;

  constructor(
    readonly store: ByteStore,
    readonly ctx: FileContext,
    eof: number,
    readonly superblockVersion: 2 | 3,
  ) {
    this.allocator = new Allocator(eof);
  }

  get sizes(): SizeContext {
    return this.ctx.sizes;
  }

  /** Creates a managed object header with `messages` (not yet written: see {@link flush}). */
  createHeader(messages: HeaderMessage[], address?: number): HeaderModel {
    const need = messageAreaSizeV2(messages);
    let capacity = Math.max(MIN_CHUNK0, need + (need >> 1));
    // A whole number of 8-byte units (the allocation alignment): headers created one after another
    // then lie back to back and a flush writes them with one I/O.
    capacity += (8 - (objectHeaderV2Size({}, capacity) % 8)) % 8;
    const total = objectHeaderV2Size({}, capacity);
    let addr: number;
    if (address === undefined) addr = this.allocator.alloc(total);
    else {
      addr = address;
      this.allocator.claim(address, total);
    }
    const model = new HeaderModel(addr, messages, null);
    model.managed = true;
    model.chunk0Capacity = capacity;
    model.chunk0Bytes = total;
    model.dirty = true;
    this.ctx.addHeader(model);
    return model;
  }

  /**
   * Forgets a header created in this session that nothing links to (a create that failed): it is
   * never written and its space (and a continuation block, if a flush gave it one) is released.
   */
  discardHeader(model: HeaderModel): void {
    if (model.source) throw new ValueError('internal error: only headers created in this session can be discarded', { address: model.address });
    this.ctx.forgetHeader(model);
    model.dirty = false;
    this.allocator.release(model.address, model.chunk0Bytes);
    if (model.continuation) this.allocator.release(model.continuation.address, model.continuation.size);
    model.continuation = null;
  }

  /**
   * The state of the global heap collections, to return to with {@link rollbackHeap} when an
   * encoding that adds objects fails part way (within the same synchronous step).
   */
  markHeap(): HeapMark {
    return { count: this.collections.length, state: this.collections.map((c) => ({ objects: c.objects.length, used: c.used, dirty: c.dirty })) };
  }

  /** Removes the heap objects (and collections) added since `mark`. */
  rollbackHeap(mark: HeapMark): void {
    for (const c of this.collections.splice(mark.count)) {
      this.byAddress.delete(c.address);
      this.allocator.release(c.address, c.size);
    }
    mark.state.forEach((s, i) => {
      const c = this.collections[i]!;
      c.objects.length = s.objects;
      c.used = s.used;
      c.dirty = s.dirty;
    });
  }

  /**
   * Makes an existing header rewritable (object header version 2 only). The header is rewritten at
   * the next flush (its continuation blocks other than the first are released then).
   */
  adopt(model: HeaderModel, path: string): void {
    if (model.managed) return;
    const src = model.source;
    if (!src || src.version !== 2 || src.chunks === undefined || src.chunks.length === 0) {
      throw new UnsupportedError(
        'changing objects whose header is version 1 (files written with libver="earliest") is not supported; ' +
          'copy the file with h5repack --latest or write it with chunkform',
        { path, structure: 'object header', address: model.address },
      );
    }
    const [chunk0, ...rest] = src.chunks;
    model.chunk0Capacity = chunk0!.messagesSize;
    model.chunk0Bytes = chunk0!.size;
    model.encodeOptions = {
      ...(src.times ? { storeTimes: src.times } : {}),
      trackAttributeCreationOrder: (src.flags & 0x04) !== 0,
      indexAttributeCreationOrder: (src.flags & 0x08) !== 0,
      ...(src.maxCompactAttributes !== undefined && src.minDenseAttributes !== undefined
        ? { attributePhaseChange: { maxCompact: src.maxCompactAttributes, minDense: src.minDenseAttributes } }
        : {}),
    };
    model.managed = true;
    // The flushed continuation blocks stay until the flush that rewrites this header without them
    // (the header is rewritten at the next flush even if nothing else changes, so their deferred
    // release is always matched by a header that no longer points at them).
    const [first] = rest;
    model.continuation = first ? { address: first.address, size: first.size } : null;
    for (const c of rest.slice(1)) this.allocator.release(c.address, c.size);
    model.messages = model.messages.filter((m) => m.type !== CONTINUATION);
    model.dirty = true;
  }

  /**
   * Stores `data` in a global heap collection opened since the last flush and returns its heap ID
   * parts. Collections written by a flush are sealed: heap IDs hold the collection's address, so a
   * flushed collection can neither grow in place nor move; new objects go to a new collection.
   */
  add(data: Uint8Array): { collection: number; index: number } {
    const need = 16 + ((data.length + 7) & ~7);
    let c = this.collections.find((k) => k.size - k.used >= need + 16);
    if (!c) {
      const size = Math.max(GLOBAL_HEAP_COLLECTION_SIZE, need + 16 + 16);
      c = { address: this.allocator.alloc(size), size, objects: [], used: 16, dirty: true };
      this.collections.push(c);
      this.byAddress.set(c.address, c);
    }
    c.objects.push(data.slice());
    c.used += need;
    c.dirty = true;
    return { collection: c.address, index: c.objects.length };
  }

  /** Objects of a collection written in this session, by index (used by readers before a flush). */
  pendingHeapCollection(address: number): Map<number, Uint8Array> | undefined {
    const c = this.byAddress.get(address);
    if (!c) return undefined;
    return new Map(c.objects.map((o, i) => [i + 1, o]));
  }

  /** True when `[address, address + size)` was allocated since the last flush (may be written, also again). */
  isFresh(address: number, size: number): boolean {
    return this.allocator.isFresh(address, size);
  }

  /**
   * Writes raw bytes at `address`, which must lie in fresh space: a write that would touch the last
   * flushed state throws {@link InvalidStateError} (nothing is written).
   */
  async writeRaw(address: number, bytes: Uint8Array): Promise<void> {
    if (bytes.length === 0) return;
    this.requireFresh(address, bytes.length);
    await this.put(address, bytes);
  }

  /**
   * {@link writeRaw} of `parts` placed one after the other from `address`: one gather write when the
   * store has one (and no flush holds small writes back), else one write each, in order.
   */
  async writeRawv(address: number, parts: readonly Uint8Array[]): Promise<void> {
    let n = 0;
    for (const p of parts) n += p.length;
    if (n === 0) return;
    this.requireFresh(address, n);
    if (!this.store.writev || this.batching) {
      for (const p of parts) {
        if (p.length > 0) await this.put(address, p);
        address += p.length;
      }
      return;
    }
    // Held-back blocks first: the store sees every write in the order it was made.
    await this.settle();
    await this.store.writev(this.ctx.superblock.baseAddress + address, parts);
    if (address + n > this.ctx.reader.eof) this.ctx.reader.eof = address + n;
  }

  /** Throws {@link InvalidStateError} unless `[address, address + size)` is fresh space (written since the last flush). */
  private requireFresh(address: number, size: number): void {
    if (!this.allocator.isFresh(address, size)) {
      throw new InvalidStateError(
        `refusing to write ${size} bytes at address ${address}: the space holds the last flushed state of the file ` +
          '(changes go to new space and become visible at the next flush)',
        { address },
      );
    }
  }

  /** A commit write of a flush: the superblock or chunk 0 of an object header, in place. */
  private async writeCommit(address: number, bytes: Uint8Array): Promise<void> {
    await this.put(address, bytes);
  }

  private async put(address: number, bytes: Uint8Array): Promise<void> {
    if (this.batching && bytes.length <= BATCH_BLOCK_MAX) {
      this.batch.add(address, bytes);
      if (this.batch.bytes >= BATCH_BYTES) await this.settle();
    } else {
      // Held-back blocks first: the store sees every write in the order it was made.
      await this.settle();
      await this.store.write(this.ctx.superblock.baseAddress + address, bytes);
    }
    // What was written can be read back before the next flush.
    const end = address + bytes.length;
    if (end > this.ctx.reader.eof) this.ctx.reader.eof = end;
  }

  /**
   * Small writes of the running flush (object headers, heap blocks, B-tree nodes) held back to be
   * written together, one I/O per run of adjacent blocks: see {@link settle}.
   */
  private readonly batch = new WriteBatch();
  private batching = false;

  /** True when writes are held back (reads of the file {@link settle} them first). */
  get holdsWrites(): boolean {
    return !this.batch.empty;
  }

  /** Writes the held-back writes to the store (reads of the file call this first, so they see them). */
  settle(): Promise<void> {
    if (this.batch.empty) return Promise.resolve();
    const base = this.ctx.superblock.baseAddress;
    return this.batch.drain((address, bytes) => this.store.write(base + address, bytes));
  }

  /**
   * Writes everything changed since the last flush as one atomic commit, so that a failure (or a
   * kill) at any point leaves the file either exactly in its previous flushed state or exactly in
   * the new one:
   *
   * 1. chunked datasets write their cached chunks and index structures (all to fresh space);
   * 2. new global heap collections are written (fresh space too);
   * 3. changed object headers that existed at the last flush move copy-on-write: each is written to
   *    new space, and the link to it in its parent group is updated, so the parent moves too, up to
   *    a new root group header (see {@link planMoves}); headers created since the last flush are
   *    written where they are; the file is extended to the new end of file;
   * 4. when `durable`, the store is synced (without it, the bytes reach the operating system in write
   *    order, which a killed process cannot reorder);
   * 5. the commit write: the superblock, in place, with the new root group address and end of file
   *    (one write); the file is truncated to its end of file and the store flushed (synced when
   *    `durable`) again;
   * 6. space released since the previous flush (the old headers included) becomes reusable.
   *
   * Pinned objects keep their address and their header's chunk 0 is rewritten in place after the
   * superblock, one write each: objects with a reference count above 1 (hard-linked from several
   * groups), objects no link leads to any more (deleted in this session), committed datatypes (shared
   * messages name them by address), objects under a group whose link storage cannot be updated
   * copy-on-write (or under a pinned group), and every object
   * of a file that stores object references (datasets or attributes of reference type, which hold
   * addresses). For them a kill between two header writes leaves each object whole, but objects
   * changed in one flush may be a mix of old and new states.
   *
   * Flushes called while one is running run after it, one at a time.
   */
  flush(opts: FlushOptions = {}): Promise<void> {
    const run = this.flushing.then(() => this.flushOnce(opts.durable === true));
    this.flushing = run.catch(() => undefined);
    return run;
  }

  private async flushOnce(durable: boolean): Promise<void> {
    // Everything up to the commit goes to fresh space, in any order: small blocks are held back and
    // written together before the commit write (steps 1–3).
    this.batching = true;
    let inPlace: { h: HeaderModel; chunk0: Uint8Array }[];
    try {
      inPlace = await this.writeNewState();
    } finally {
      this.batching = false;
    }
    await this.settle();
    await this.commitState(durable, inPlace);
  }

  /**
   * Steps 1–3 of a flush (see {@link flush}): everything but the commit, all to fresh space. Returns
   * the pinned headers' new chunk 0, to be written in place after the superblock.
   */
  private async writeNewState(): Promise<{ h: HeaderModel; chunk0: Uint8Array }[]> {
    for (const hook of this.flushHooks) await hook();
    for (const c of this.collections) {
      if (!c.dirty) continue;
      await this.writeRaw(c.address, encodeGlobalHeapCollection(c.objects, this.sizes, c.size));
      c.dirty = false;
    }
    await this.moveChangedHeaders();
    const inPlace: { h: HeaderModel; chunk0: Uint8Array }[] = [];
    for (const h of this.ctx.allHeaders()) {
      if (!h.managed || !h.dirty) continue;
      const p = await this.prepareHeader(h);
      if (this.allocator.isFresh(h.address, p.chunk0.length)) {
        await this.writeRaw(h.address, p.chunk0);
        h.dirty = false;
      } else inPlace.push({ h, chunk0: p.chunk0 });
    }
    return inPlace;
  }

  /** Steps 4–6 of a flush (see {@link flush}): the commit writes, with the syncs around them. */
  private async commitState(durable: boolean, inPlace: readonly { h: HeaderModel; chunk0: Uint8Array }[]): Promise<void> {
    const eof = this.allocator.eof;
    // Space allocated but not written (e.g. an implicit index's chunk block) still counts: the file
    // must reach its end-of-file address before the superblock says so.
    if ((await this.store.size()) < this.ctx.superblock.baseAddress + eof) await this.store.truncate(this.ctx.superblock.baseAddress + eof);
    // Durable: the new data reaches stable storage before the commit write that references it.
    if (durable) await this.store.flush({ durable });
    // From here on the new state is being committed in place: nothing may be rewritten any more.
    this.allocator.beginCommit();
    this.collections = [];
    this.byAddress.clear();
    await this.writeCommit(
      0,
      encodeSuperblock({
        version: this.superblockVersion,
        sizes: this.sizes,
        eofAddress: eof,
        rootObjectHeaderAddress: this.ctx.rootAddress,
      }),
    );
    if (durable && inPlace.length > 0) await this.store.flush({ durable });
    for (const p of inPlace) {
      await this.writeCommit(p.h.address, p.chunk0);
      p.h.dirty = false;
    }
    if ((await this.store.size()) > this.ctx.superblock.baseAddress + eof) await this.store.truncate(this.ctx.superblock.baseAddress + eof);
    await this.store.flush({ durable });
    this.allocator.commit();
    this.ctx.reader.eof = eof;
    this.ctx.invalidateCaches();
  }

  /**
   * Step 3 of a flush: writes the changed headers that existed at the last flush (and the groups
   * above them) to new space, children first, pointing each parent's link at the new copy. The
   * old chunk 0 is released (reusable after this flush). Pinned headers are left for the in-place
   * commit writes.
   */
  private async moveChangedHeaders(): Promise<void> {
    if (!this.graph) return;
    const changed: HeaderModel[] = [];
    const old: HeaderModel[] = [];
    for (const h of this.ctx.allHeaders()) {
      if (!h.managed || !h.dirty) continue;
      changed.push(h);
      if (!this.allocator.isFresh(h.address, h.chunk0Bytes)) old.push(h);
    }
    const root = await this.ctx.header(this.ctx.rootAddress);
    const isOld = (h: HeaderModel): boolean => !this.allocator.isFresh(h.address, Math.max(h.chunk0Bytes, 1));
    const { moves } = await planMoves(this.graph, root, old, changed, isOld);
    for (const { h, link } of moves) {
      if (!h.managed) this.adopt(h, link ? link.name : '/');
      const p = await this.prepareHeader(h);
      const address = this.allocator.alloc(p.chunk0.length);
      await this.writeRaw(address, p.chunk0);
      this.allocator.release(h.address, h.chunk0Bytes);
      this.ctx.moveHeader(h, address);
      h.chunk0Bytes = p.chunk0.length;
      h.dirty = false;
      if (link) await this.graph.relink(link.parent, link.name, address);
    }
  }

  /**
   * Encodes a managed header: chunk 0 (returned, written by the caller) and, when the messages do
   * not fit, a continuation block written now to newly allocated space.
   */
  private async prepareHeader(h: HeaderModel): Promise<{ chunk0: Uint8Array }> {
    for (const m of h.messages) {
      if (m.body.length > 0xffff) {
        throw new ValueError(`a header message of ${m.body.length} bytes exceeds the 65535-byte limit of object header messages`, {
          structure: 'object header',
          address: h.address,
        });
      }
    }
    const opts = h.encodeOptions;
    const plan = layoutObjectHeaderV2(h.messages, h.chunk0Capacity, this.sizes, opts);
    // The old continuation block is released now: at once if it is fresh (written by a failed
    // flush), else after this flush has succeeded.
    const old = h.continuation;
    h.continuation = null;
    if (old) this.allocator.release(old.address, old.size);
    if (plan.continuationIndex >= 0) {
      const need = plan.continuationBlockSize;
      const size = need + (need >> 1);
      h.continuation = { address: this.allocator.alloc(size), size };
      plan.chunk0[plan.continuationIndex]!.body = encodeContinuation(h.continuation, this.sizes);
      await this.writeRaw(h.continuation.address, encodeContinuationBlock(plan.overflow, size, opts));
    }
    return { chunk0: encodeObjectHeaderV2(plan.chunk0, { ...opts, chunk0Size: h.chunk0Capacity }) };
  }
}
