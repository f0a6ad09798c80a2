/**
 * The file's group structure as the copy-on-write flush needs it ({@link ObjectGraph}): which
 * group links to each object, whether the file stores object references (which pin every address),
 * and the one step that points a group's link at a moved object ({@link relinkChild}).
 * @module
 */
import { UnsupportedError } from '../errors.js';
import type { Datatype } from '../format/messages/datatype.js';
import { ATTRIBUTE, ATTRIBUTE_INFO, DATASPACE, DATATYPE, LAYOUT } from '../format/messages/message-types.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import type { ObjectGraph, ParentLink } from '../file/relocate.js';
import { readAttributeMessages } from './attributes.js';
import { setLinkAddress } from './group-links.js';
import { denseLinkStoreOf } from '../dense/dense-links.js';
import { isGroupHeader, linkStorageOf, readLinks, type LinkStorage } from './links.js';
import type { LinkList } from './link-list.js';
import { loadCommittedDatatype, MESSAGE_FLAG_SHARED, resolveDatatypeMessage } from './shared-datatype.js';

/**
 * Link storages whose links {@link relinkChild} can point at a new address copy-on-write. A group
 * with another storage keeps its children's addresses (they are rewritten in place).
 */
export const RELINKABLE_STORAGES: ReadonlySet<LinkStorage> = new Set<LinkStorage>(['compact', 'dense']);

/**
 * Points the hard link `name` of the group whose header is `group` at `address`, copy-on-write
 * (through `setLinkAddress`): the group's header changes (it is rewritten, and moved, by the flush);
 * for dense storage the changed heap blocks are written to fresh space now. Nothing flushed is
 * overwritten. The group's header must be rewritable (version 2, or created by chunkform).
 * @throws UnsupportedError the group's link storage is not in {@link RELINKABLE_STORAGES}
 *   (checked before anything changes).
 */
export async function relinkChild(ctx: FileContext, group: HeaderModel, name: string, address: number): Promise<void> {
  const storage = linkStorageOf(group, ctx);
  if (!RELINKABLE_STORAGES.has(storage)) {
    throw new UnsupportedError(`pointing the link "${name}" at a moved object is not supported for groups with ${storage} link storage`, {
      structure: 'group',
      address: group.address,
    });
  }
  // Dense storage: the link message is rewritten in its heap block; flushing the group's dense store
  // now puts the changed blocks (and the heap header, name index header) in fresh space and updates
  // the group's Link Info message, before the group itself moves (parents move after their children).
  await setLinkAddress(ctx, group, name, name, address);
  await denseLinkStoreOf(group)?.flush();
}

/**
 * Datatype classes (spec IV.A.2.d, the low 4 bits of a datatype message's first byte) that can
 * neither be nor contain a reference: fixed-point, floating-point, time, string, bitfield, opaque
 * and enumeration (whose base is an integer).
 */
const NO_REFERENCE_CLASSES = new Set([0, 1, 2, 3, 4, 5, 8]);

/** True when a datatype is, or contains, a reference type. */
function holdsReferences(t: Datatype): boolean {
  switch (t.class) {
    case 'reference':
      return true;
    case 'compound':
      return t.members.some((m) => holdsReferences(m.type));
    case 'array':
    case 'vlen':
      return holdsReferences(t.base);
    default:
      return false;
  }
}

/** A hard link of a walked group: its name and the object it leads to. */
interface HardLink {
  name: string;
  child: HeaderModel;
}

/** True when `list` holds exactly the hard links `hard` (same names, same objects at their current addresses). */
function sameHardLinks(list: LinkList | undefined, hard: readonly HardLink[]): boolean {
  if (!list) return false;
  let i = 0;
  for (const l of list.links) {
    if (l.kind !== 'hard') continue;
    const h = hard[i++];
    if (!h || h.name !== l.name || h.child.address !== l.address) return false;
  }
  return i === hard.length;
}

/** The {@link ObjectGraph} of one open file. */
export class LinkGraph implements ObjectGraph {
  /** True once every object of the file was checked for reference datatypes (then only changed headers are). */
  private scanned: boolean;
  /** Sticky: the file stores object references. */
  private references = false;
  /** Every object walked so far. */
  private readonly known = new Set<HeaderModel>();
  /** The hard links of every group walked, with the link list they were read from. */
  private readonly groups = new Map<HeaderModel, { hard: HardLink[] }>();
  /** The hard links to each object (kept up to date from {@link groups}). */
  private readonly parents = new Map<HeaderModel, ParentLink[]>();

  /** @param created the file was created in this session (it holds nothing not checked at flush). */
  constructor(
    private readonly ctx: FileContext,
    created: boolean,
  ) {
    this.scanned = created;
  }

  /**
   * The first survey walks every object from the root (and, for a file opened from disk, checks it
   * for reference datatypes); later ones compare each walked group's current hard links with those
   * seen last time (in memory) and re-walk only the groups whose links changed, so no header is read
   * again.
   */
  async survey(root: HeaderModel, changed: readonly HeaderModel[]): Promise<{ parents: Map<HeaderModel, ParentLink[]>; references: boolean }> {
    // A survey that failed part way left the maps incomplete: from then on nothing is known.
    if (this.failed) throw this.failed;
    try {
      return await this.surveyNow(root, changed);
    } catch (e) {
      this.failed = e instanceof Error ? e : new Error(String(e));
      throw e;
    }
  }

  /** Set when a survey failed (e.g. a group whose links cannot be read). */
  private failed: Error | null = null;

  private async surveyNow(root: HeaderModel, changed: readonly HeaderModel[]): Promise<{ parents: Map<HeaderModel, ParentLink[]>; references: boolean }> {
    const scan = !this.scanned;
    const queue: HeaderModel[] = [];
    if (!this.known.has(root)) queue.push(root);
    // (a group's cached link list may be a new one, or the same one with links inserted: compare the hard links)
    for (const [g, c] of this.groups) if (!sameHardLinks(g.derived.get('links') as LinkList | undefined, c.hard)) queue.push(g);
    for (let i = 0; i < queue.length; i++) {
      const g = queue[i]!;
      if (!this.known.has(g)) {
        this.known.add(g);
        if (scan && !this.references && this.mayReferByAddress(g)) this.references = await this.refersByAddress(g);
      }
      if (!(g === root || isGroupHeader(g))) continue;
      const list = await this.links(g);
      const old = this.groups.get(g);
      const hard: HardLink[] = [];
      for (const l of list.links) if (l.kind === 'hard') hard.push({ name: l.name, child: this.ctx.loadedHeader(l.address!) ?? (await this.ctx.header(l.address!)) });
      for (const { name, child } of old?.hard ?? []) {
        const links = this.parents.get(child)!.filter((p) => !(p.parent === g && p.name === name));
        if (links.length > 0) this.parents.set(child, links);
        else this.parents.delete(child);
      }
      for (const { name, child } of hard) {
        let links = this.parents.get(child);
        if (!links) this.parents.set(child, (links = []));
        links.push({ parent: g, name });
        if (!this.known.has(child)) queue.push(child);
      }
      this.groups.set(g, { hard });
    }
    this.scanned = true;
    for (const h of changed) if (!this.references && this.mayReferByAddress(h)) this.references = await this.refersByAddress(h);
    return { parents: this.parents, references: this.references };
  }

  canRelink(g: HeaderModel): boolean {
    if (!(g.managed || g.source?.version === 2)) return false;
    return RELINKABLE_STORAGES.has(linkStorageOf(g, this.ctx));
  }

  pinned(h: HeaderModel): boolean {
    // A committed datatype: shared datatype messages elsewhere name it by address.
    return h.find(DATATYPE) !== undefined && h.find(LAYOUT) === undefined && h.find(DATASPACE) === undefined && !isGroupHeader(h);
  }

  relink(g: HeaderModel, name: string, address: number): Promise<void> {
    return relinkChild(this.ctx, g, name, address);
  }

  /** The group's links (cached on the model, as `Group` caches them). */
  private async links(g: HeaderModel): Promise<LinkList> {
    const cached = g.derived.get('links') as LinkList | undefined;
    if (cached) return cached;
    const list = await readLinks(this.ctx, g);
    g.derived.set('links', list);
    return list;
  }

  /**
   * False when the header's messages alone show that the object stores no object references (no
   * attributes, and no datatype or an atomic one not stored elsewhere, known from its class byte):
   * {@link refersByAddress} need not decode anything.
   */
  private mayReferByAddress(h: HeaderModel): boolean {
    for (const m of h.messages) {
      if (m.type === ATTRIBUTE || m.type === ATTRIBUTE_INFO) return true;
      if (m.type === DATATYPE && !((m.flags & MESSAGE_FLAG_SHARED) === 0 && m.body.length > 0 && NO_REFERENCE_CLASSES.has(m.body[0]! & 0x0f))) return true;
    }
    return false;
  }

  /** True when the object stores (or may store) object references: a dataset or attribute of a reference type. */
  private async refersByAddress(h: HeaderModel): Promise<boolean> {
    try {
      const dt = h.find(DATATYPE);
      if (dt && (h.find(LAYOUT) || h.find(DATASPACE)) && holdsReferences(await resolveDatatypeMessage(this.ctx, dt, ''))) return true;
      for (const a of await readAttributeMessages(this.ctx, h)) {
        const t = a.sharedDatatypeRef ? await loadCommittedDatatype(this.ctx, { kind: 'object-header', address: a.sharedDatatypeRef.address }, '') : a.datatype;
        if (holdsReferences(t)) return true;
      }
      return false;
    } catch {
      // A type chunkform cannot decode (e.g. HDF5 1.12 references): assume addresses are held.
      return true;
    }
  }
}
