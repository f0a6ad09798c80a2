/**
 * Dense storage being written, as groups keep links (spec IV.A.2.c, Link Info message) and objects
 * keep attributes (IV.A.2.v, Attribute Info message): the messages live in a fractal heap, indexed
 * by a v2 B-tree of names (lookup3 hash of the name, heap ID) and — when the object indexes creation
 * order — a v2 B-tree of creation order. A store keeps its heap and trees in memory between
 * flushes; a flush hook writes them copy-on-write and points the info message at the new heap and
 * B-tree headers. {@link DenseKind} says which of the two storages a store is.
 * @module
 */
import { UnsupportedError } from '../errors.js';
import { isDefinedAddress, sameNumbers, UNDEFINED_ADDRESS, utf8Encode, type SizeContext } from '../format/bytes.js';
import { lookup3 } from '../format/checksum/lookup3.js';
import { iterateV2BTree, openV2BTree } from '../format/btree/v2.js';
import type { DenseStorageInfo } from '../format/messages/dense-storage-info.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import type { V2RecordClass } from '../btree2/node-store.js';
import { V2Tree } from '../btree2/tree.js';
import { FractalHeapWriter, type HeapParams } from './fractal-heap-writer.js';
import { DENSE_BTREE_PARAMS, heapIdKey, type NameRecord, type OrderRecord } from './index-records.js';
import { fileIndexStorage } from './storage.js';


/** What differs between dense link and dense attribute storage. */
export interface DenseKind<M> {
  /** Header message type of the info message (Link Info 0x0002 / Attribute Info 0x0015). */
  infoType: number;
  decodeInfo(body: Uint8Array, sizes: SizeContext, address: number): DenseStorageInfo;
  encodeInfo(info: DenseStorageInfo, sizes: SizeContext): Uint8Array;
  heap: HeapParams;
  nameClass(names: Map<string, Uint8Array>): V2RecordClass<NameRecord>;
  orderClass: V2RecordClass<OrderRecord>;
  encode(m: M, sizes: SizeContext): Uint8Array;
  decode(bytes: Uint8Array, sizes: SizeContext): M;
  nameOf(m: M): string;
  /** The creation order a message carries itself (links), when the index records do not. */
  orderOf?(m: M): number | undefined;
  /** The stores open in this session, by header. */
  stores: WeakMap<HeaderModel, DenseStore<M>>;
}

/** One stored message with its heap ID and index records. */
export interface DenseEntry<M> {
  message: M;
  heapId: Uint8Array;
  key: NameRecord;
  creationOrder?: number;
}

/** The dense storage of one object header, open for writing. */
export class DenseStore<M> {
  private readonly entries = new Map<string, DenseEntry<M>>();
  private readonly hook = () => this.flush();

  private constructor(
    private readonly ctx: FileContext,
    private readonly model: HeaderModel,
    private readonly kind: DenseKind<M>,
    private readonly heap: FractalHeapWriter,
    private readonly names: V2Tree<NameRecord>,
    private readonly order: V2Tree<OrderRecord> | undefined,
    private readonly nameBytes: Map<string, Uint8Array>,
    private info: DenseStorageInfo,
  ) {}

  private static register<M>(ctx: FileContext, store: DenseStore<M>): DenseStore<M> {
    store.kind.stores.set(store.model, store);
    ctx.requireWriter('change dense storage').flushHooks.add(store.hook);
    return store;
  }

  /**
   * New dense storage for `model` (whose info message exists) holding `messages` (with their creation
   * orders when tracked); the caller removes the compact messages. Nothing is written before the next flush.
   */
  static async create<M>(ctx: FileContext, model: HeaderModel, kind: DenseKind<M>, messages: readonly { message: M; creationOrder?: number }[]): Promise<DenseStore<M>> {
    ctx.requireWriter('convert to dense storage');
    const info = kind.decodeInfo(model.find(kind.infoType)!.body, ctx.sizes, model.address);
    const map = new Map<string, Uint8Array>();
    const heap = FractalHeapWriter.create(ctx.reader, ctx.sizes, kind.heap);
    const names = V2Tree.create(kind.nameClass(map), ctx.reader, ctx.sizes, DENSE_BTREE_PARAMS);
    const order = info.indexCreationOrder ? V2Tree.create(kind.orderClass, ctx.reader, ctx.sizes, DENSE_BTREE_PARAMS) : undefined;
    const store = new DenseStore(ctx, model, kind, heap, names, order, map, info);
    for (const m of messages) await store.insert(m.message, m.creationOrder);
    return DenseStore.register(ctx, store);
  }

  /** Opens the dense storage of `model` for writing (every message is read), or the one already open. */
  static async open<M>(ctx: FileContext, model: HeaderModel, kind: DenseKind<M>): Promise<DenseStore<M>> {
    const have = kind.stores.get(model);
    if (have) return have;
    ctx.requireWriter('change dense storage');
    const info = kind.decodeInfo(model.find(kind.infoType)!.body, ctx.sizes, model.address);
    const heap = await FractalHeapWriter.open(ctx.reader, info.fractalHeapAddress);
    const map = new Map<string, Uint8Array>();
    const cls = kind.nameClass(map);
    const entries: DenseEntry<M>[] = [];
    const raw = await openV2BTree(ctx.reader, info.nameIndexAddress);
    for await (const bytes of iterateV2BTree(ctx.reader, raw)) {
      const key = cls.decode(bytes, raw.address);
      const message = kind.decode(await heap.get(key.heapId), ctx.sizes);
      key.name = utf8Encode(kind.nameOf(message));
      map.set(heapIdKey(key.heapId), key.name);
      const creationOrder = kind.orderOf ? kind.orderOf(message) : key.creationOrder;
      entries.push({ message, heapId: key.heapId, key, ...(creationOrder !== undefined ? { creationOrder } : {}) });
    }
    const names = await V2Tree.open(cls, ctx.reader, info.nameIndexAddress);
    let order: V2Tree<OrderRecord> | undefined;
    if (info.indexCreationOrder && info.creationOrderIndexAddress !== undefined && isDefinedAddress(info.creationOrderIndexAddress)) {
      order = await V2Tree.open(kind.orderClass, ctx.reader, info.creationOrderIndexAddress);
    }
    const store = new DenseStore(ctx, model, kind, heap, names, order, map, info);
    for (const e of entries) store.entries.set(kind.nameOf(e.message), e);
    return DenseStore.register(ctx, store);
  }

  /** Number of messages. */
  get size(): number {
    return this.entries.size;
  }

  /** Every entry (in no particular order). */
  all(): DenseEntry<M>[] {
    return [...this.entries.values()];
  }

  /** The message called `name`, if any. */
  get(name: string): M | undefined {
    return this.entries.get(name)?.message;
  }

  /** Adds a message whose name is new (the caller checks); `creationOrder` when the object tracks it. */
  async insert(message: M, creationOrder?: number): Promise<void> {
    const name = this.kind.nameOf(message);
    if (this.order && creationOrder === undefined) {
      throw new UnsupportedError(`"${name}" has no creation order in storage that indexes it`, { address: this.model.address });
    }
    const heapId = this.heap.insert(this.kind.encode(message, this.ctx.sizes));
    const bytes = utf8Encode(name);
    this.nameBytes.set(heapIdKey(heapId), bytes);
    const key: NameRecord = { hash: lookup3(bytes), heapId, name: bytes, messageFlags: 0, creationOrder: creationOrder ?? 0 };
    await this.names.insert(key);
    if (this.order) await this.order.insert({ creationOrder: creationOrder!, heapId, messageFlags: 0 });
    this.entries.set(name, { message, heapId, key, ...(creationOrder !== undefined ? { creationOrder } : {}) });
  }

  /** Removes the message called `name` (its heap space is not reused). Returns false when absent. */
  async remove(name: string): Promise<boolean> {
    const e = this.entries.get(name);
    if (!e) return false;
    await this.names.remove(e.key);
    if (this.order && e.creationOrder !== undefined) await this.order.remove({ creationOrder: e.creationOrder, heapId: e.heapId });
    this.heap.remove(e.heapId);
    this.nameBytes.delete(heapIdKey(e.heapId));
    this.entries.delete(name);
    return true;
  }

  /**
   * Replaces the message called `name` by `message` of the same encoded size and name, in its heap
   * block (same heap ID: the indexes do not change). Returns false when absent.
   */
  replace(name: string, message: M): boolean {
    const e = this.entries.get(name);
    if (!e) return false;
    this.heap.replace(e.heapId, this.kind.encode(message, this.ctx.sizes));
    e.message = message;
    return true;
  }

  /**
   * Leaves dense storage (the caller moves the messages back into the header): the flush hook is
   * removed and the heap's space given back after the next flush (the B-tree nodes are left).
   */
  close(): DenseEntry<M>[] {
    const writer = this.ctx.requireWriter('leave dense storage');
    writer.flushHooks.delete(this.hook);
    this.kind.stores.delete(this.model);
    for (const e of this.heap.extents()) writer.allocator.release(e.address, e.size);
    return this.all();
  }

  /** Writes the heap and indexes (copy-on-write) and points the info message at them. */
  async flush(): Promise<void> {
    const storage = fileIndexStorage(this.ctx, this.model.address);
    const next: DenseStorageInfo = {
      ...this.info,
      fractalHeapAddress: await this.heap.flush(storage),
      nameIndexAddress: await this.names.flush(storage),
    };
    if (this.order) next.creationOrderIndexAddress = await this.order.flush(storage);
    else if (next.indexCreationOrder) next.creationOrderIndexAddress = UNDEFINED_ADDRESS;
    const msg = this.model.find(this.kind.infoType);
    if (!msg) return;
    // the creation index is kept by the caller in the message itself
    const current = this.kind.decodeInfo(msg.body, this.ctx.sizes, this.model.address);
    if (current.maxCreationIndex !== undefined) next.maxCreationIndex = current.maxCreationIndex;
    const body = this.kind.encodeInfo(next, this.ctx.sizes);
    if (!sameNumbers(body, msg.body)) {
      msg.body = body;
      this.model.dirty = true;
    }
    this.info = next;
  }
}
