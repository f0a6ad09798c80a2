/**
 * Reading the links of a group from whichever of HDF5's three storages it uses: a symbol table
 * (v1 B-tree + local heap), compact link messages in the object header, or dense storage (fractal
 * heap + v2 B-tree name index).
 * @module
 */
import { isDefinedAddress } from '../format/bytes.js';
import { iterateV2BTree, openV2BTree } from '../format/btree/v2.js';
import { decodeLinkNameRecord } from '../format/btree/v2-records.js';
import { openFractalHeap } from '../format/heaps/fractal-heap.js';
import { readLocalHeap } from '../format/heaps/local-heap.js';
import { decodeLink, type LinkMessage } from '../format/messages/link.js';
import { decodeLinkInfo, type LinkInfoMessage } from '../format/messages/link-info.js';
import { GROUP_INFO, LINK, LINK_INFO, SYMBOL_TABLE } from '../format/messages/message-types.js';
import { decodeSymbolTableMessage } from '../format/messages/symbol-table-message.js';
import { readSymbolTableGroup } from '../format/symbol-table.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import { LinkList } from './link-list.js';
import { denseLinkStoreOf } from '../dense/dense-links.js';

/** Which storage a group's links live in. */
export type LinkStorage = 'symbol-table' | 'compact' | 'dense';

/** True when the header describes a group (it has link, link info, group info or symbol table messages). */
export function isGroupHeader(h: HeaderModel): boolean {
  return h.find(LINK_INFO) !== undefined || h.find(SYMBOL_TABLE) !== undefined || h.find(GROUP_INFO) !== undefined || h.find(LINK) !== undefined;
}

/** The link storage kind of a group header. */
export function linkStorageOf(h: HeaderModel, ctx: FileContext): LinkStorage {
  if (h.find(SYMBOL_TABLE)) return 'symbol-table';
  if (denseLinkStoreOf(h)) return 'dense';
  const info = h.find(LINK_INFO);
  if (info && isDefinedAddress(decodeLinkInfo(info.body, ctx.sizes).fractalHeapAddress)) return 'dense';
  return 'compact';
}

/** The link info message of a (new-style) group, if any. */
export function linkInfoOf(h: HeaderModel, ctx: FileContext): LinkInfoMessage | undefined {
  const info = h.find(LINK_INFO);
  return info ? decodeLinkInfo(info.body, ctx.sizes) : undefined;
}

/**
 * All links of the group whose header is `h`, ordered as h5py lists them: by creation order when
 * the group tracks it, else by name (byte order).
 */
export async function readLinks(ctx: FileContext, h: HeaderModel): Promise<LinkList> {
  let links: LinkMessage[];
  const stab = h.find(SYMBOL_TABLE);
  const info = linkInfoOf(h, ctx);
  const pending = denseLinkStoreOf(h);
  if (pending) {
    // dense storage changed in this session: the store holds the current links
    links = pending.all().map((e) => e.message);
  } else if (stab) {
    const { btreeAddress, heapAddress } = decodeSymbolTableMessage(stab.body, ctx.sizes);
    const entries = await readSymbolTableGroup(ctx.reader, btreeAddress, heapAddress);
    let heap: Awaited<ReturnType<typeof readLocalHeap>> | undefined;
    links = [];
    for (const { name, entry } of entries) {
      if (entry.cacheType === 2 && entry.scratch && 'softLinkOffset' in entry.scratch) {
        heap ??= await readLocalHeap(ctx.reader, heapAddress);
        links.push({ name, kind: 'soft', target: heap.getString(entry.scratch.softLinkOffset), charset: 'ascii' });
      } else {
        links.push({ name, kind: 'hard', address: entry.objectHeaderAddress, charset: 'ascii' });
      }
    }
  } else if (info && isDefinedAddress(info.fractalHeapAddress)) {
    const heap = await openFractalHeap(ctx.reader, info.fractalHeapAddress);
    const tree = await openV2BTree(ctx.reader, info.nameIndexAddress);
    links = [];
    for await (const rec of iterateV2BTree(ctx.reader, tree)) {
      const { heapId } = decodeLinkNameRecord(rec, heap.header.heapIdLength);
      const bytes = await heap.getObject(heapId);
      links.push(decodeLink(bytes, ctx.sizes));
    }
  } else {
    links = h.findAll(LINK).map((m) => decodeLink(m.body, ctx.sizes));
  }
  return new LinkList(links, info?.trackCreationOrder === true, h.address);
}
