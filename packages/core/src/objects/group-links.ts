/**
 * Changing the links stored in a group's object header, in whichever new-style storage it uses:
 * compact Link messages, or dense storage (fractal heap + v2 B-tree name index) once the group has
 * more links than its Group Info message's maximum for compact storage (HDF5's default 8), and
 * back to compact when deletions leave fewer than its minimum for dense storage (6), as HDF5 does.
 * The caller holds the file's turn and has adopted the header.
 * @module
 */
import { NotFoundError, UnsupportedError } from '../errors.js';
import { UNDEFINED_ADDRESS } from '../format/bytes.js';
import { decodeGroupInfo } from '../format/messages/group-info.js';
import { decodeLink, encodeLink, type LinkMessage } from '../format/messages/link.js';
import { encodeLinkInfo } from '../format/messages/link-info.js';
import { GROUP_INFO, LINK, LINK_INFO } from '../format/messages/message-types.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import { DENSE_LINKS } from '../dense/dense-links.js';
import { DenseStore } from '../dense/dense-store.js';
import { replaceLink, type LinkList } from './link-list.js';
import { linkInfoOf, linkStorageOf, type LinkStorage } from './links.js';

/** The Group Info message's phase-change values (HDF5's defaults when absent: 8 and 6). */
export function linkPhaseChange(model: HeaderModel): { maxCompact: number; minDense: number } {
  const gi = model.find(GROUP_INFO);
  const msg = gi ? decodeGroupInfo(gi.body) : {};
  return { maxCompact: msg.maxCompact ?? 8, minDense: msg.minDense ?? 6 };
}

/**
 * Stores `link` (whose name is new: the caller checks) in the group header `model` that holds
 * `count` links in `storage`, giving it the next creation order when the group tracks it. Returns
 * the link as stored and the storage the group now uses.
 */
export async function storeLink(
  ctx: FileContext,
  model: HeaderModel,
  storage: LinkStorage,
  list: LinkList,
  link: LinkMessage,
): Promise<{ link: LinkMessage; storage: LinkStorage }> {
  if (storage === 'symbol-table') throw new UnsupportedError('adding links to a group with symbol-table link storage is not supported yet', { address: model.address });
  const info = linkInfoOf(model, ctx);
  let l = link;
  // HDF5 stores the next creation order to hand out ("maximum creation index" = links created);
  // it is counted once the link is stored, so a failure leaves the message as it was.
  const order = info?.trackCreationOrder ? (info.maxCreationIndex ?? 0) : undefined;
  if (order !== undefined) l = { ...link, creationOrder: order };
  const counted = (): void => {
    if (order === undefined) return;
    model.find(LINK_INFO)!.body = encodeLinkInfo({ ...info!, maxCreationIndex: order + 1 }, ctx.sizes);
    model.dirty = true;
  };
  if (storage === 'dense') {
    await (await DenseStore.open(ctx, model, DENSE_LINKS)).insert(l, l.creationOrder);
    counted();
    return { link: l, storage };
  }
  if (info && list.size + 1 > linkPhaseChange(model).maxCompact) {
    await DenseStore.create(ctx, model, DENSE_LINKS, [...list.links, l].map((m) => ({ message: m, ...(m.creationOrder !== undefined ? { creationOrder: m.creationOrder } : {}) })));
    model.messages = model.messages.filter((m) => m.type !== LINK);
    counted();
    model.touch();
    return { link: l, storage: 'dense' };
  }
  model.messages.push({ type: LINK, flags: 0, body: encodeLink(l, ctx.sizes) });
  counted();
  model.touch();
  return { link: l, storage };
}

/** Removes the link `name` from the group header `model` (`path` names the group in errors). */
export async function unstoreLink(ctx: FileContext, model: HeaderModel, path: string, name: string): Promise<void> {
  const storage = linkStorageOf(model, ctx);
  const missing = () => new NotFoundError(`"${name}": no such link`, { path });
  if (storage === 'symbol-table') throw new UnsupportedError('removing links from a group with symbol-table link storage is not supported yet', { path });
  if (storage === 'compact') {
    const i = model.messages.findIndex((m) => m.type === LINK && decodeLink(m.body, ctx.sizes).name === name);
    if (i < 0) throw missing();
    model.messages.splice(i, 1);
    model.touch();
    return;
  }
  const store = await DenseStore.open(ctx, model, DENSE_LINKS);
  if (!(await store.remove(name))) throw missing();
  if (store.size < linkPhaseChange(model).minDense) {
    const links = store.close().map((e) => e.message);
    links.sort((a, b) => (a.creationOrder ?? 0) - (b.creationOrder ?? 0));
    const msg = model.find(LINK_INFO)!;
    const info = linkInfoOf(model, ctx)!;
    msg.body = encodeLinkInfo(
      {
        ...info,
        fractalHeapAddress: UNDEFINED_ADDRESS,
        nameIndexAddress: UNDEFINED_ADDRESS,
        ...(info.indexCreationOrder ? { creationOrderIndexAddress: UNDEFINED_ADDRESS } : {}),
      },
      ctx.sizes,
    );
    for (const l of links) model.messages.push({ type: LINK, flags: 0, body: encodeLink(l, ctx.sizes) });
  }
  model.touch();
}

/**
 * Points the hard link `name` of the group whose header is `model` at the object header at
 * `address`, copy-on-write: in dense storage the link message is rewritten in its heap block, which
 * (with the heap's indirect block and header) goes to fresh space at the next flush, where the
 * Link Info message is updated; in compact storage the Link message is replaced in the header. The
 * name index does not change (heap IDs stay valid). The caller holds the file's turn. Called from
 * within a flush after the flush hooks ran, follow it with `denseLinkStoreOf(model)?.flush()` (the
 * dense store's hook) so the changed heap block is written in that flush.
 * @throws NotFoundError no link `name`; UnsupportedError a soft, external or symbol-table link.
 */
export async function setLinkAddress(ctx: FileContext, model: HeaderModel, path: string, name: string, address: number): Promise<void> {
  const writer = ctx.requireWriter(`relink "${name}"`);
  const storage = linkStorageOf(model, ctx);
  if (storage === 'symbol-table') throw new UnsupportedError('relinking in a group with symbol-table link storage is not supported', { path });
  writer.adopt(model, path);
  let updated: LinkMessage | undefined;
  if (storage === 'dense') {
    const store = await DenseStore.open(ctx, model, DENSE_LINKS);
    const l = store.get(name);
    if (l && l.kind !== 'hard') throw new UnsupportedError(`link "${name}" is not a hard link`, { path });
    if (l) {
      updated = { ...l, address };
      store.replace(name, updated);
    }
  } else {
    const m = model.messages.find((x) => x.type === LINK && decodeLink(x.body, ctx.sizes).name === name);
    if (m) {
      const l = decodeLink(m.body, ctx.sizes);
      if (l.kind !== 'hard') throw new UnsupportedError(`link "${name}" is not a hard link`, { path });
      updated = { ...l, address };
      m.body = encodeLink(updated, ctx.sizes);
      model.dirty = true;
    }
  }
  if (!updated) throw new NotFoundError(`"${name}": no such link`, { path });
  const list = model.derived.get('links') as LinkList | undefined;
  if (list) replaceLink(list, updated);
}
