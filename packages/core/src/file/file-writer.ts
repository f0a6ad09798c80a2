/**
 * The write side of an open file: file-space allocation, rewriting object headers chunkform
 * manages, the open global heap collection for variable-length data, and the flush that puts it all
 * on disk (raw data and heaps first, object headers next, the superblock last, so a failure leaves
 * the previously flushed state readable).
 * @module
 */
import { UnsupportedError, ValueError } from '../errors.js';
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
import { Allocator, type Extent } from './allocator.js';
import type { FileContext } from './file-context.js';
import { HeaderModel, type HeaderMessage } from './header-model.js';

/** Smallest chunk-0 message area we allocate for a new object header (room for later attributes). */
const MIN_CHUNK0 = 256;
/** Space for the global heap collection header and its free-space object. */
const GLOBAL_HEAP_COLLECTION_SIZE = 4096;

/** One global heap collection being filled in this session. */
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
  /** Space to release after the next successful flush. */
  private retired: Extent[] = [];

  constructor(
    readonly store: ByteStore,
    readonly ctx: FileContext,
    eof: number,
    readonly superblockVersion: 2 | 3,
    readonly rootAddress: number,
  ) {
    this.allocator = new Allocator(eof);
  }

  get sizes(): SizeContext {
    return this.ctx.sizes;
  }

  /** Creates a managed object header with `messages` (not yet written: see {@link flush}). */
  createHeader(messages: HeaderMessage[], address?: number): HeaderModel {
    const need = messageAreaSizeV2(messages);
    const capacity = Math.max(MIN_CHUNK0, need + (need >> 1));
    const total = objectHeaderV2Size({}, capacity);
    const addr = address ?? this.allocator.alloc(total);
    if (address !== undefined && address + total > this.allocator.eof) this.allocator.eof = address + total;
    const model = new HeaderModel(addr, messages, null);
    model.managed = true;
    model.chunk0Capacity = capacity;
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
    this.allocator.release(model.address, objectHeaderV2Size({}, model.chunk0Capacity));
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

  /** Makes an existing header rewritable (object header version 2 only). */
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
    model.encodeOptions = {
      ...(src.times ? { storeTimes: src.times } : {}),
      trackAttributeCreationOrder: (src.flags & 0x04) !== 0,
      indexAttributeCreationOrder: (src.flags & 0x08) !== 0,
      ...(src.maxCompactAttributes !== undefined && src.minDenseAttributes !== undefined
        ? { attributePhaseChange: { maxCompact: src.maxCompactAttributes, minDense: src.minDenseAttributes } }
        : {}),
    };
    model.managed = true;
    // The original continuation blocks are released once the rewritten header no longer needs them.
    const [first] = rest;
    model.continuation = first ? { address: first.address, size: first.size } : null;
    for (const c of rest.slice(1)) this.retired.push({ address: c.address, size: c.size });
    model.messages = model.messages.filter((m) => m.type !== CONTINUATION);
  }

  /** Stores `data` in the open global heap collection and returns its heap ID parts. */
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

  /** Writes raw bytes at `address`. */
  async writeRaw(address: number, bytes: Uint8Array): Promise<void> {
    await this.store.write(this.ctx.superblock.baseAddress + address, bytes);
    // What was written can be read back before the next flush.
    const end = address + bytes.length;
    if (end > this.ctx.reader.eof) this.ctx.reader.eof = end;
  }

  /**
   * Writes everything dirty. Order keeps the previous state readable if a write fails: raw data,
   * heaps and new continuation blocks go to fresh space first, then the superblock with the new
   * end of file, then each header's chunk 0 in place (one small write each); replaced continuation
   * blocks are released only afterwards.
   */
  async flush(): Promise<void> {
    for (const hook of this.flushHooks) await hook();
    for (const c of this.collections) {
      if (!c.dirty) continue;
      await this.writeRaw(c.address, encodeGlobalHeapCollection(c.objects, this.sizes, c.size));
      c.dirty = false;
    }
    const pending: { h: HeaderModel; chunk0: Uint8Array; old: Extent | null }[] = [];
    for (const h of this.ctx.allHeaders()) {
      if (h.managed && h.dirty) pending.push(await this.prepareHeader(h));
    }
    const eof = this.allocator.eof;
    await this.writeRaw(
      0,
      encodeSuperblock({
        version: this.superblockVersion,
        sizes: this.sizes,
        eofAddress: eof,
        rootObjectHeaderAddress: this.rootAddress,
      }),
    );
    for (const p of pending) {
      await this.writeRaw(p.h.address, p.chunk0);
      p.h.dirty = false;
    }
    // The file ends at the end-of-file address: shorter when space at the end was released, longer
    // when space allocated last was never written (HDF5 reports a file shorter than it as truncated).
    if ((await this.store.size()) !== eof) await this.store.truncate(eof);
    await this.store.flush();
    for (const p of pending) if (p.old) this.allocator.release(p.old.address, p.old.size);
    for (const e of this.retired.splice(0)) this.allocator.release(e.address, e.size);
    this.ctx.reader.eof = eof;
    this.ctx.invalidateCaches();
  }

  /**
   * Encodes a managed header: chunk 0 (returned, written later in place) and, when the messages do
   * not fit, a continuation block written now to newly allocated space.
   */
  private async prepareHeader(h: HeaderModel): Promise<{ h: HeaderModel; chunk0: Uint8Array; old: Extent | null }> {
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
    const old = h.continuation;
    h.continuation = null;
    if (plan.continuationIndex >= 0) {
      const need = plan.continuationBlockSize;
      const size = need + (need >> 1);
      h.continuation = { address: this.allocator.alloc(size), size };
      plan.chunk0[plan.continuationIndex]!.body = encodeContinuation(h.continuation, this.sizes);
      await this.writeRaw(h.continuation.address, encodeContinuationBlock(plan.overflow, size, opts));
    }
    return { h, chunk0: encodeObjectHeaderV2(plan.chunk0, { ...opts, chunk0Size: h.chunk0Capacity }), old };
  }
}
