/**
 * Dense link storage (HDF5 spec IV.A.2.c, Link Info message): the {@link DenseKind} of groups'
 * link messages for {@link DenseStore}, and finding one link of a dense group by name in O(log N)
 * reads without loading the others.
 * @module
 */
import type { HeaderModel } from '../file/header-model.js';
import type { FileContext } from '../file/file-context.js';
import { lookup3 } from '../format/checksum/lookup3.js';
import { utf8Encode } from '../format/bytes.js';
import { findV2BTreeRecord, openV2BTree, type V2BTreeHeader } from '../format/btree/v2.js';
import { decodeLinkNameRecord, LINK_HEAP_ID_LENGTH } from '../format/btree/v2-records.js';
import { openFractalHeap, type FractalHeap } from '../format/heaps/fractal-heap.js';
import { decodeLink, encodeLink, type LinkMessage } from '../format/messages/link.js';
import { decodeLinkInfo, encodeLinkInfo, type LinkInfoMessage } from '../format/messages/link-info.js';
import { LINK_INFO } from '../format/messages/message-types.js';
import { LINK_HEAP_PARAMS } from './fractal-heap-writer.js';
import { linkNameClass, linkOrderClass } from './index-records.js';
import type { DenseKind, DenseStore } from './dense-store.js';


/**
 * The stores open in this session, by header: a constant of its own, so that reading (which only asks
 * for a store) does not reach the encoders of the kind below.
 */
const LINK_STORES = new WeakMap<HeaderModel, DenseStore<LinkMessage>>();

/** Groups' link messages in dense storage. */
export const DENSE_LINKS: DenseKind<LinkMessage> = {
  infoType: LINK_INFO,
  decodeInfo: decodeLinkInfo,
  encodeInfo: encodeLinkInfo,
  heap: LINK_HEAP_PARAMS,
  nameClass: linkNameClass,
  orderClass: linkOrderClass,
  encode: encodeLink,
  decode: decodeLink,
  nameOf: (l) => l.name,
  orderOf: (l) => l.creationOrder,
  stores: LINK_STORES,
};

/** The dense link store of a group header changed in this session, if any. */
export function denseLinkStoreOf(model: HeaderModel): DenseStore<LinkMessage> | undefined {
  return LINK_STORES.get(model);
}

/**
 * The link called `name` of the dense group described by `info`, found through the name index in
 * O(log N) reads; `undefined` when there is none, `null` on a hash collision with another name
 * (the caller then lists the group). `cache` (the header model's derived values) keeps the opened
 * heap and index (with the heap's decoded blocks) for the next lookup: flushed structures never
 * change, and new ones have new addresses.
 */
export async function findDenseLink(ctx: FileContext, info: LinkInfoMessage, name: string, cache?: Map<string, unknown>): Promise<LinkMessage | undefined | null> {
  const hash = lookup3(utf8Encode(name));
  const key = `dense-links:${info.fractalHeapAddress}:${info.nameIndexAddress}`;
  let open = cache?.get(key) as { tree: V2BTreeHeader; heap: FractalHeap } | undefined;
  if (!open) {
    open = { tree: await openV2BTree(ctx.reader, info.nameIndexAddress), heap: await openFractalHeap(ctx.reader, info.fractalHeapAddress) };
    cache?.set(key, open);
  }
  const rec = await findV2BTreeRecord(ctx.reader, open.tree, (raw) => {
    const h = decodeLinkNameRecord(raw, LINK_HEAP_ID_LENGTH).hash;
    return hash < h ? -1 : hash > h ? 1 : 0;
  });
  if (!rec) return undefined;
  const link = decodeLink(await open.heap.getObject(decodeLinkNameRecord(rec, open.heap.header.heapIdLength).heapId), ctx.sizes);
  return link.name === name ? link : null;
}
