/**
 * Dense link storage of a group being written (HDF5 spec IV.A.2.c, Link Info message): the link
 * messages live in a fractal heap, indexed by a v2 B-tree of link names (type 5: lookup3 hash of
 * the name, heap ID) and — when the group indexes creation order — one of creation order (type 6).
 * The store keeps its heap and trees in memory between flushes; a flush hook writes them
 * copy-on-write and points the group's Link Info message at the new heap header and B-tree headers.
 *
 * Also: finding one link of a dense group by name in O(log N) without loading the others.
 * @module
 */
import { UnsupportedError } from '../errors.js';
import { isDefinedAddress, UNDEFINED_ADDRESS } from '../format/bytes.js';
import { lookup3 } from '../format/checksum/lookup3.js';
import { findV2BTreeRecord, iterateV2BTree, openV2BTree } from '../format/btree/v2.js';
import { decodeLinkNameRecord, LINK_HEAP_ID_LENGTH } from '../format/btree/v2-records.js';
import { openFractalHeap } from '../format/heaps/fractal-heap.js';
import { decodeLink, encodeLink, type LinkMessage } from '../format/messages/link.js';
import { decodeLinkInfo, encodeLinkInfo, type LinkInfoMessage } from '../format/messages/link-info.js';
import { LINK_INFO } from '../format/messages/message-types.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import { V2Tree } from '../btree2/tree.js';
import { FractalHeapWriter, LINK_HEAP_PARAMS } from './fractal-heap-writer.js';
import { DENSE_BTREE_PARAMS, heapIdKey, linkNameClass, linkOrderClass, type NameRecord, type OrderRecord } from './index-records.js';
import { fileIndexStorage } from './storage.js';

const enc = new TextEncoder();

interface Entry {
  link: LinkMessage;
  heapId: Uint8Array;
  key: NameRecord;
}

const stores = new WeakMap<HeaderModel, DenseLinkStore>();

/** The dense link store of a group header open for writing in this session, if any. */
export function denseLinkStoreOf(model: HeaderModel): DenseLinkStore | undefined {
  return stores.get(model);
}

/** A dense group's links, heap and indexes, open for writing. */
export class DenseLinkStore {
  private readonly entries = new Map<string, Entry>();
  private readonly hook = () => this.flush();

  private constructor(
    private readonly ctx: FileContext,
    private readonly model: HeaderModel,
    private readonly heap: FractalHeapWriter,
    private readonly names: V2Tree<NameRecord>,
    private readonly order: V2Tree<OrderRecord> | undefined,
    private readonly nameBytes: Map<string, Uint8Array>,
    private info: LinkInfoMessage,
  ) {}

  /**
   * Converts the compact group `model` to dense storage holding `links`; the caller removes the
   * Link messages from the header. Nothing is written before the next flush.
   */
  static async create(ctx: FileContext, model: HeaderModel, links: readonly LinkMessage[]): Promise<DenseLinkStore> {
    const writer = ctx.requireWriter('convert a group to dense link storage');
    const info = decodeLinkInfo(model.find(LINK_INFO)!.body, ctx.sizes, model.address);
    const map = new Map<string, Uint8Array>();
    const heap = FractalHeapWriter.create(ctx.reader, ctx.sizes, LINK_HEAP_PARAMS);
    const names = V2Tree.create(linkNameClass(map), ctx.reader, ctx.sizes, DENSE_BTREE_PARAMS);
    const order = info.indexCreationOrder ? V2Tree.create(linkOrderClass, ctx.reader, ctx.sizes, DENSE_BTREE_PARAMS) : undefined;
    const store = new DenseLinkStore(ctx, model, heap, names, order, map, info);
    for (const l of links) await store.insert(l);
    stores.set(model, store);
    writer.flushHooks.add(store.hook);
    return store;
  }

  /** Opens the dense storage of `model` (Link Info with a heap) for writing: every link is read. */
  static async open(ctx: FileContext, model: HeaderModel): Promise<DenseLinkStore> {
    const have = stores.get(model);
    if (have) return have;
    const writer = ctx.requireWriter('change a group with dense link storage');
    const info = decodeLinkInfo(model.find(LINK_INFO)!.body, ctx.sizes, model.address);
    const heap = await FractalHeapWriter.open(ctx.reader, info.fractalHeapAddress);
    const map = new Map<string, Uint8Array>();
    const entries: Entry[] = [];
    const raw = await openV2BTree(ctx.reader, info.nameIndexAddress);
    for await (const rec of iterateV2BTree(ctx.reader, raw)) {
      const { hash, heapId } = decodeLinkNameRecord(rec, LINK_HEAP_ID_LENGTH);
      const id = heapId.slice();
      const link = decodeLink(await heap.get(id), ctx.sizes);
      const name = enc.encode(link.name);
      map.set(heapIdKey(id), name);
      entries.push({ link, heapId: id, key: { hash, heapId: id, name } });
    }
    const names = await V2Tree.open(linkNameClass(map), ctx.reader, info.nameIndexAddress);
    let order: V2Tree<OrderRecord> | undefined;
    if (info.indexCreationOrder && info.creationOrderIndexAddress !== undefined && isDefinedAddress(info.creationOrderIndexAddress)) {
      order = await V2Tree.open(linkOrderClass, ctx.reader, info.creationOrderIndexAddress);
    } else if (info.indexCreationOrder) {
      order = V2Tree.create(linkOrderClass, ctx.reader, ctx.sizes, DENSE_BTREE_PARAMS);
      for (const e of entries) if (e.link.creationOrder !== undefined) await order.insert({ creationOrder: e.link.creationOrder, heapId: e.heapId });
    }
    const store = new DenseLinkStore(ctx, model, heap, names, order, map, info);
    for (const e of entries) store.entries.set(e.link.name, e);
    stores.set(model, store);
    writer.flushHooks.add(store.hook);
    return store;
  }

  /** Number of links. */
  get size(): number {
    return this.entries.size;
  }

  /** Every link (in no particular order). */
  links(): LinkMessage[] {
    return [...this.entries.values()].map((e) => e.link);
  }

  /** The link called `name`, if any. */
  get(name: string): LinkMessage | undefined {
    return this.entries.get(name)?.link;
  }

  /** Adds a link whose name is new (the caller checks). */
  async insert(link: LinkMessage): Promise<void> {
    if (this.order && link.creationOrder === undefined) {
      throw new UnsupportedError(`link "${link.name}" has no creation order in a group that indexes it`, { address: this.model.address });
    }
    const heapId = this.heap.insert(encodeLink(link, this.ctx.sizes));
    const name = enc.encode(link.name);
    this.nameBytes.set(heapIdKey(heapId), name);
    const key: NameRecord = { hash: lookup3(name), heapId, name };
    await this.names.insert(key);
    if (this.order) await this.order.insert({ creationOrder: link.creationOrder!, heapId });
    this.entries.set(link.name, { link, heapId, key });
  }

  /** Removes the link called `name` (its heap space is not reused). Returns false when absent. */
  async remove(name: string): Promise<boolean> {
    const e = this.entries.get(name);
    if (!e) return false;
    await this.names.remove(e.key);
    if (this.order && e.link.creationOrder !== undefined) await this.order.remove({ creationOrder: e.link.creationOrder, heapId: e.heapId });
    this.heap.remove(e.heapId);
    this.nameBytes.delete(heapIdKey(e.heapId));
    this.entries.delete(name);
    return true;
  }

  /**
   * Points the hard link `name` at `address`: the link message is rewritten in its heap block (same
   * size, same heap ID, so the name index does not change); the block, the heap's indirect block and
   * header go to fresh space at the next flush, which updates the Link Info message.
   */
  setAddress(name: string, address: number): LinkMessage | undefined {
    const e = this.entries.get(name);
    if (!e) return undefined;
    if (e.link.kind !== 'hard') throw new UnsupportedError(`link "${name}" is not a hard link`, { address: this.model.address });
    const link = { ...e.link, address };
    this.heap.replace(e.heapId, encodeLink(link, this.ctx.sizes));
    e.link = link;
    return link;
  }

  /**
   * Leaves dense storage (the group goes back to compact links): the flush hook is removed and the
   * heap's and indexes' space is given back after the next flush. Returns the links.
   */
  async close(): Promise<LinkMessage[]> {
    const writer = this.ctx.requireWriter('convert a group to compact link storage');
    writer.flushHooks.delete(this.hook);
    stores.delete(this.model);
    // the heap's own extents are known; the B-tree nodes are left (a few hundred bytes each)
    for (const e of this.heap.extents()) writer.allocator.release(e.address, e.size);
    return this.links();
  }

  /** Writes the heap and indexes (copy-on-write) and points the Link Info message at them. */
  async flush(): Promise<void> {
    const storage = fileIndexStorage(this.ctx, this.model.address);
    const heapAddress = await this.heap.flush(storage);
    const nameIndexAddress = await this.names.flush(storage);
    const next: LinkInfoMessage = { ...this.info, fractalHeapAddress: heapAddress, nameIndexAddress };
    if (this.order) next.creationOrderIndexAddress = await this.order.flush(storage);
    if (next.creationOrderIndexAddress === undefined && next.indexCreationOrder) next.creationOrderIndexAddress = UNDEFINED_ADDRESS;
    const msg = this.model.find(LINK_INFO);
    if (!msg) return;
    // the creation index is kept by the group code in the message itself
    const current = decodeLinkInfo(msg.body, this.ctx.sizes, this.model.address);
    if (current.maxCreationIndex !== undefined) next.maxCreationIndex = current.maxCreationIndex;
    const body = encodeLinkInfo(next, this.ctx.sizes);
    if (!sameBytes(body, msg.body)) {
      msg.body = body;
      this.model.dirty = true;
    }
    this.info = next;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The link called `name` of the dense group described by `info`, found through the name index in
 * O(log N) reads; `undefined` when there is none, `null` on a hash collision with another name
 * (the caller then lists the group).
 */
export async function findDenseLink(ctx: FileContext, info: LinkInfoMessage, name: string): Promise<LinkMessage | undefined | null> {
  const bytes = enc.encode(name);
  const hash = lookup3(bytes);
  const tree = await openV2BTree(ctx.reader, info.nameIndexAddress);
  const rec = await findV2BTreeRecord(ctx.reader, tree, (raw) => {
    const h = decodeLinkNameRecord(raw, LINK_HEAP_ID_LENGTH).hash;
    return hash < h ? -1 : hash > h ? 1 : 0;
  });
  if (!rec) return undefined;
  const heap = await openFractalHeap(ctx.reader, info.fractalHeapAddress);
  const link = decodeLink(await heap.getObject(decodeLinkNameRecord(rec, heap.header.heapIdLength).heapId), ctx.sizes);
  return link.name === name ? link : null;
}
