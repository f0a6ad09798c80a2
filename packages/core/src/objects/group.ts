/**
 * `Group`: an HDF5 group (h5py's `Group`): link listing, path lookup (hard, soft and external
 * links), and creating groups and datasets.
 * @module
 */
import { FormatError, H5Error, NotFoundError, UnsupportedError, ValueError } from '../errors.js';
import type { Datatype } from '../format/messages/datatype.js';
import type { LinkMessage } from '../format/messages/link.js';
import { isDefinedAddress } from '../format/bytes.js';
import { DATASPACE, DATATYPE, GROUP_INFO, LAYOUT, LINK, LINK_INFO, SYMBOL_TABLE } from '../format/messages/message-types.js';
import { denseLinkStoreOf, findDenseLink } from '../dense/dense-links.js';
import { storeLink, unstoreLink } from './group-links.js';
import type { DtypeSpec } from '../values/dtype.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import { Attributes } from './attributes.js';
import { Dataset } from './dataset.js';
import { ChunkedStorage } from '../storage/chunked-storage.js';
import { selectAll } from '../selection/selection.js';
import { newDatasetHeader, type CreateLayout, type NewDatasetHeader } from './dataset-create.js';
import { isGroupHeader, linkInfoOf, linkStorageOf, readLinks, type LinkStorage } from './links.js';
import type { LinkList } from './link-list.js';
import { resolveDatatypeMessage } from './shared-datatype.js';
import { valuesToBytes } from './values-io.js';
import type { FilterOptions } from './filter-options.js';
import { groupMessages } from './group-create.js';
import type { ChunkCacheOptions } from '../chunk/cache.js';
import type { ChunkIndexOption } from '../chunk/index-option.js';

/** A link to an object in another file (reported, not followed). */
export class ExternalLink {
  readonly kind = 'external' as const;
  constructor(
    /** Name of the target file, as stored. */
    readonly file: string,
    /** Path of the target object inside that file. */
    readonly path: string,
  ) {}
}

/** A committed (named) datatype stored as an object of its own. */
export class CommittedDatatype {
  readonly kind = 'datatype' as const;
  readonly attrs: Attributes;
  constructor(ctx: FileContext, model: HeaderModel, readonly path: string, readonly dtype: Datatype) {
    this.attrs = new Attributes(ctx, async () => model, path);
  }
}

/** What a link describes. */
export interface LinkInfo {
  name: string;
  kind: 'hard' | 'soft' | 'external' | 'user';
  /** Object header address of a hard link's target. */
  address?: number;
  /** Target path of a soft link. */
  target?: string;
  /** External link: target file and path. */
  file?: string;
  path?: string;
  /** Creation order index, when the group tracks it. */
  creationOrder?: number;
}

/** Anything a path can lead to. */
export type H5Node = Group | Dataset | CommittedDatatype | ExternalLink;

/** Options of {@link Group.createGroup}. */
export interface CreateGroupOptions {
  /** Track (and list in) link creation order, like h5py's `track_order=True`. */
  trackOrder?: boolean;
}

/** Options of {@link Group.createDataset}. */
export interface CreateDatasetOptions extends FilterOptions {
  /** Element type: a {@link Datatype} or a name such as 'uint16', '<f4', 'string', 'S10', 'bool'. */
  dtype: DtypeSpec;
  /** Shape; `[]` makes a scalar dataset. */
  shape: number[];
  /** Initial values (flat in C order, nested arrays, or a TypedArray). */
  data?: unknown;
  /** Maximum shape (`null` = unlimited). Only equal to `shape` for contiguous/compact storage. */
  maxShape?: (number | null)[];
  /** Fill value for elements never written. */
  fillValue?: unknown;
  /**
   * Storage layout: 'contiguous' (default) or 'compact', stored by core; 'chunked' (default when
   * `chunks`, filters, a `chunkIndex` or a larger `maxShape` are given) stores chunks in the dense
   * format. Any other value names a chunk format, as `format` does (`layout: 'sparse'` = `format: 'sparse'`).
   */
  layout?: CreateLayout | 'chunked' | 'sparse' | (string & {});
  /**
   * Chunk format of the new dataset, by the name its package registers it under: 'dense' (the
   * default for chunked storage; `@chunkform/format-dense`), 'sparse' (`@chunkform/format-sparse`),
   * 'vl', or a third-party format. The format's creator checks its own options (e.g. sparse's
   * `filters: { selection, values }`, `pipelineMessage`, `selectionEncoding`), given here too.
   */
  format?: string;
  /**
   * Chunk index instead of HDF5's choice: 'single', 'implicit', 'fixed-array', 'extensible-array',
   * 'btree2' or 'btree1' (structured-chunk formats: no 'implicit' or 'btree1'). A choice the dataset
   * cannot use (e.g. 'fixed-array' with an unlimited dimension) is a {@link ValueError}.
   */
  chunkIndex?: ChunkIndexOption;
  /** Chunk shape (`true`: guess one as h5py does). */
  chunks?: number[] | true;
  /**
   * When file space is allocated: 'early' (at creation, fill written), 'incremental' (per chunk;
   * default), 'late'. Sparse datasets store a chunk when it first holds a defined element: only
   * 'incremental' applies to them, 'early' and 'late' are a {@link ValueError}.
   */
  allocTime?: 'early' | 'late' | 'incremental';
  /** Store partial edge chunks unfiltered (layout flag; default false). */
  dontFilterPartialChunks?: boolean;
  /** Chunk cache settings for the new dataset. */
  chunkCache?: ChunkCacheOptions;
  /** Options of the chunk format (see its package, e.g. `SparseCreateOptions`). */
  readonly [formatOption: string]: unknown;
}

const MAX_SOFT_LINK_HOPS = 32;


/**
 * An HDF5 group. Reading calls (`keys`, `links`, `get`, attribute reads) run alongside each other;
 * creating groups, datasets and links and changing attributes run alone in the file. All take
 * their turn with the other calls on the file in the order they were made (see {@link Dataset}).
 */
export class Group {
  /** The group's attributes. */
  readonly attrs: Attributes;

  /** @internal */
  constructor(
    protected readonly ctx: FileContext,
    protected readonly model: HeaderModel,
    /** Full path ('/' for the root group). */
    readonly path: string,
  ) {
    this.attrs = new Attributes(ctx, async () => this.model, path);
  }

  /** Last path component ('/' for the root group). */
  get name(): string {
    return this.path === '/' ? '/' : this.path.slice(this.path.lastIndexOf('/') + 1);
  }

  /** Link names: creation order when the group tracks it, else name order (as h5py lists them). */
  async keys(): Promise<string[]> {
    return (await this.links()).map((l) => l.name);
  }

  /** All links of this group, described. */
  async links(): Promise<LinkInfo[]> {
    return this.ctx.lock.file('read', async () => (await this.linkMessages()).links.map(describeLink));
  }

  /** The link called `name` in this group. */
  async getLink(name: string): Promise<LinkInfo> {
    return this.ctx.lock.file('read', async () => {
      const l = (await this.linkMessages()).get(name);
      if (!l) throw new NotFoundError(`no link "${name}"`, { path: this.path });
      return describeLink(l);
    });
  }

  /** True when `path` leads to an object (dangling soft links → false). */
  async has(path: string): Promise<boolean> {
    try {
      await this.get(path);
      return true;
    } catch (e) {
      if (e instanceof NotFoundError) return false;
      throw e;
    }
  }

  /**
   * The object at `path` (absolute, or relative to this group). Soft links are followed; an external
   * link at the end of the path is returned as an {@link ExternalLink}.
   */
  async get(path: string): Promise<H5Node> {
    return this.ctx.lock.file('read', () => {
      this.ctx.ensureOpen();
      return this.resolve(path, 0);
    });
  }

  private async resolve(path: string, hops: number): Promise<H5Node> {
    const absolute = path.startsWith('/');
    let node: Group = absolute ? await this.root() : this;
    const parts = path.split('/').filter((p) => p.length > 0 && p !== '.');
    if (parts.length === 0) return node;
    for (let i = 0; i < parts.length; i++) {
      const name = parts[i]!;
      const l = await node.findLink(name);
      const here = joinPath(node.path, name);
      if (!l) throw new NotFoundError(`"${here}" does not exist`, { path: here });
      let target: H5Node;
      if (l.kind === 'hard') {
        target = await openObject(this.ctx, l.address!, here);
      } else if (l.kind === 'soft') {
        if (hops >= MAX_SOFT_LINK_HOPS) throw new FormatError(`too many soft links (${hops}) resolving "${path}"`, { path: here });
        try {
          target = await node.resolve(l.target!, hops + 1);
        } catch (e) {
          if (e instanceof NotFoundError) throw new NotFoundError(`soft link "${here}" → "${l.target}" is dangling`, { path: here });
          throw e;
        }
      } else if (l.kind === 'external') {
        target = new ExternalLink(l.externalFile ?? '', l.externalPath ?? '');
      } else {
        throw new UnsupportedError(`user-defined link type at "${here}" is not supported`, { path: here });
      }
      if (i === parts.length - 1) return target;
      if (!(target instanceof Group)) {
        const what = target instanceof ExternalLink ? `an external link to ${target.file}:${target.path}` : 'not a group';
        throw new NotFoundError(`"${here}" is ${what}`, { path: here });
      }
      node = target;
    }
    return node;
  }

  /**
   * Creates a group (and missing intermediate groups). A failure (the name exists, a path
   * component is not a group ...) leaves the file as it was.
   */
  async createGroup(path: string, opts: CreateGroupOptions = {}): Promise<Group> {
    return this.ctx.lock.file('write', () => this.createGroupNow(path, opts));
  }

  private async createGroupNow(path: string, opts: CreateGroupOptions): Promise<Group> {
    const { full } = await this.planPath(path, 'create group');
    const writer = this.ctx.requireWriter(`create group "${full}"`);
    const model = writer.createHeader(groupMessages(this.ctx, opts.trackOrder === true));
    try {
      await this.linkNew(path, { kind: 'hard', address: model.address, charset: 'utf-8' }, 'create group');
    } catch (e) {
      writer.discardHeader(model);
      throw e;
    }
    return new Group(this.ctx, model, full);
  }

  /**
   * Creates a dataset. Everything is checked before the file changes, and a failure (bad dtype,
   * shape, chunks or filters, data that does not fit, a name that exists) leaves the file as it
   * was: no object header, no link, no intermediate group, no allocated space.
   */
  async createDataset(path: string, opts: CreateDatasetOptions): Promise<Dataset> {
    return this.ctx.lock.file('write', () => this.createDatasetNow(path, opts));
  }

  private async createDatasetNow(path: string, opts: CreateDatasetOptions): Promise<Dataset> {
    const { full } = await this.planPath(path, 'create dataset');
    const writer = this.ctx.requireWriter(`create dataset "${full}"`);
    try {
      // Synchronous up to the new header: heap objects stored by variable-length values (data,
      // fill value) are taken back if anything in it fails.
      const mark = writer.markHeap();
      let made: NewDatasetHeader;
      try {
        made = newDatasetHeader(this.ctx, writer, full, opts);
      } catch (e) {
        writer.rollbackHeap(mark);
        throw e;
      }
      const { model, data, address } = made;
      let storage: ChunkedStorage | undefined;
      try {
        if (address !== undefined) await writer.writeRaw(address, data!);
        const dset = await Dataset.open(this.ctx, model, full);
        if (made.chunked) {
          dset.setAccess({ ...made.access, ...(opts.chunkCache ? { chunkCache: opts.chunkCache } : {}) });
          storage = (await dset.storage(true)) as ChunkedStorage;
          if (made.allocateEarly) await storage.allocateAll();
          if (storage.objectValues) {
            // values kept in the chunks themselves (chunk/object-lane.ts)
            if (opts.data !== undefined) await dset.writeValues(opts.data, selectAll());
          } else {
            const bytes = data ?? (opts.data !== undefined ? valuesToBytes(this.ctx, opts.data, dset.dtype, made.count, `create dataset "${full}"`) : undefined);
            if (bytes && made.count > 0) await storage.write(selectAll(), bytes);
          }
        }
        await this.linkNew(path, { kind: 'hard', address: model.address, charset: 'utf-8' }, 'create dataset');
        return dset;
      } catch (e) {
        await storage?.discard();
        writer.discardHeader(model);
        if (address !== undefined) writer.allocator.release(address, data!.length);
        throw e;
      }
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(full) : e;
    }
  }

  /** Adds a link to this group (compact or dense link storage). @internal */
  async addLink(link: LinkMessage): Promise<void> {
    return this.ctx.lock.file('write', () => this.addLinkNow(link));
  }

  private async addLinkNow(link: LinkMessage): Promise<void> {
    const writer = this.ctx.requireWriter(`add link "${link.name}"`);
    // (cached with the link list: finding it scans every message, one per link in compact storage)
    const storage = (this.model.derived.get('linkStorage') as LinkStorage | undefined) ?? linkStorageOf(this.model, this.ctx);
    if (storage === 'symbol-table') {
      throw new UnsupportedError('adding links to a group with symbol-table link storage is not supported yet', { path: this.path });
    }
    // The list checked must be current when the link is stored: another call may add a link while
    // this one waits (a change clears the cached list, so wait again until it is the current one).
    let list = await this.linkMessages();
    while (this.model.derived.get('links') !== list) list = await this.linkMessages();
    if (list.has(link.name)) {
      throw new ValueError(`"${joinPath(this.path, link.name)}" already exists`, { path: this.path });
    }
    writer.adopt(this.model, this.path);
    try {
      const stored = await storeLink(this.ctx, this.model, storage, list, link);
      // the sorted list stays valid with the new link in its place (a header change dropped it)
      list.insert(stored.link);
      this.model.derived.set('links', list);
      this.model.derived.set('linkStorage', stored.storage);
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(this.path) : e;
    }
  }

  /**
   * Creates a soft link at `path` (intermediate groups are created): looking `path` up then resolves
   * `target`, an absolute or relative path that need not exist yet — h5py's
   * `group[path] = h5py.SoftLink(target)`.
   */
  async createSoftLink(path: string, target: string): Promise<void> {
    if (target.length === 0) throw new ValueError(`cannot create soft link "${path}": empty target`, { path: this.path });
    return this.ctx.lock.file('write', () => this.linkNew(path, { kind: 'soft', target, charset: 'utf-8' }, 'create soft link'));
  }

  /**
   * Creates an external link at `path` to the object `objectPath` in the file `file` (h5py's
   * `group[path] = h5py.ExternalLink(file, objectPath)`). chunkform reports external links on lookup
   * ({@link ExternalLink}) and does not open the other file.
   */
  async createExternalLink(path: string, file: string, objectPath: string): Promise<void> {
    if (file.length === 0 || objectPath.length === 0) {
      throw new ValueError(`cannot create external link "${path}": empty file name or object path`, { path: this.path });
    }
    const link = { kind: 'external' as const, externalFile: file, externalPath: objectPath, charset: 'utf-8' as const };
    return this.ctx.lock.file('write', () => this.linkNew(path, link, 'create external link'));
  }

  /**
   * Removes the link at `path` (h5py's `del group[path]`). The object it led to stays in the file,
   * unreachable through this link; its space is not reclaimed (copy the file with `h5repack` for that).
   */
  async delete(path: string): Promise<void> {
    return this.ctx.lock.file('write', async () => {
      const { parent, name } = await this.existingLink(path, 'delete');
      await parent.removeLink(name);
    });
  }

  /**
   * Moves (renames) the link at `source` to `dest`, both within this file; intermediate groups of `dest`
   * are created (h5py's `group.move(source, dest)`). The object itself does not move.
   */
  async move(source: string, dest: string): Promise<void> {
    return this.ctx.lock.file('write', async () => {
      const from = await this.existingLink(source, 'move');
      const link = (await from.parent.linkMessages()).get(from.name)!;
      if (this.resolvePath(dest) === from.full) return;
      const { creationOrder: _order, name: _name, ...rest } = link;
      const to = await this.planPath(dest, 'move a link to');
      if (to.full.startsWith(`${from.full}/`)) {
        throw new ValueError(`cannot move "${from.full}" into itself ("${to.full}")`, { path: from.full });
      }
      await this.linkNew(dest, rest, 'move a link to');
      await from.parent.removeLink(from.name);
    });
  }

  /** The full path `path` names from this group (no lookup). */
  private resolvePath(path: string): string {
    let full = path.startsWith('/') ? '/' : this.path;
    for (const p of path.split('/')) if (p.length > 0 && p !== '.') full = joinPath(full, p);
    return full;
  }

  /** The group holding the existing link `path` and the link's name (nothing is created). */
  private async existingLink(path: string, what: string): Promise<{ parent: Group; name: string; full: string }> {
    const parts = path.split('/').filter((p) => p.length > 0 && p !== '.');
    if (parts.length === 0) throw new ValueError(`cannot ${what} "${path}": empty name`, { path: this.path });
    const name = parts.pop()!;
    const start: Group = path.startsWith('/') ? await this.root() : this;
    const parentPath = parts.join('/');
    const parent = parentPath ? await start.resolve(parentPath, 0) : start;
    if (!(parent instanceof Group)) throw new ValueError(`cannot ${what} "${path}": its parent is not a group`, { path: this.path });
    const full = joinPath(parent.path, name);
    if (!(await parent.linkMessages()).has(name)) throw new NotFoundError(`cannot ${what} "${full}": no such link`, { path: full });
    return { parent, name, full };
  }

  /** Removes this group's link `name` (compact or dense link storage). */
  private async removeLink(name: string): Promise<void> {
    const writer = this.ctx.requireWriter(`remove link "${name}"`);
    writer.adopt(this.model, this.path);
    await unstoreLink(this.ctx, this.model, joinPath(this.path, name), name);
  }

  /**
   * Where `path` goes, without changing anything: the deepest existing group on the way, the
   * intermediate groups still to create, and the last component.
   * @throws ValueError an empty name, a path component that is not a group, or a name that exists.
   */
  private async planPath(path: string, what: string): Promise<{ parent: Group; missing: string[]; name: string; full: string }> {
    const parts = path.split('/').filter((p) => p.length > 0 && p !== '.');
    if (parts.length === 0) throw new ValueError(`cannot ${what} "${path}": empty name`, { path: this.path });
    const name = parts.pop()!;
    let parent: Group = path.startsWith('/') ? await this.root() : this;
    let k = 0;
    for (; k < parts.length; k++) {
      const p = parts[k]!;
      const here = joinPath(parent.path, p);
      if (!(await parent.linkMessages()).has(p)) break;
      const next = await parent.resolve(p, 0);
      if (!(next instanceof Group)) throw new ValueError(`cannot ${what} "${path}": "${here}" is not a group`, { path: here });
      parent = next;
    }
    const missing = parts.slice(k);
    let full = parent.path;
    for (const p of missing) full = joinPath(full, p);
    full = joinPath(full, name);
    if (missing.length === 0 && (await parent.linkMessages()).has(name)) {
      throw new ValueError(`"${full}" already exists`, { path: parent.path });
    }
    return { parent, missing, name, full };
  }

  /**
   * Adds `link` (a hard link to a new object, a soft or an external link) at `path`: the missing
   * intermediate groups are built bottom-up (each linking the next) and the topmost new link goes into
   * the existing parent last, so the link appears at once or not at all. Intermediate groups of a
   * failed call are forgotten. The caller holds the file's turn.
   */
  private async linkNew(path: string, link: Omit<LinkMessage, 'name'>, what: string): Promise<void> {
    const writer = this.ctx.requireWriter(`${what} "${path}"`);
    for (let attempt = 0; ; attempt++) {
      const { parent, missing, name } = await this.planPath(path, what);
      const made: HeaderModel[] = [];
      try {
        let child = { ...link, name } as LinkMessage;
        for (let i = missing.length - 1; i >= 0; i--) {
          const g = writer.createHeader(groupMessages(this.ctx, false));
          made.push(g);
          let gPath = parent.path;
          for (const p of missing.slice(0, i + 1)) gPath = joinPath(gPath, p);
          await new Group(this.ctx, g, gPath).addLinkNow(child);
          child = { name: missing[i]!, kind: 'hard', address: g.address, charset: 'utf-8' };
        }
        await parent.addLinkNow(child);
        return;
      } catch (e) {
        for (const g of made) writer.discardHeader(g);
        // An intermediate group created meanwhile by another call: plan again and use it.
        if (missing.length > 0 && attempt < 3 && e instanceof ValueError && /already exists/.test(e.detail)) continue;
        throw e;
      }
    }
  }

  /** The root group of this file. */
  protected async root(): Promise<Group> {
    const addr = this.ctx.rootAddress;
    return new Group(this.ctx, await this.ctx.header(addr), '/');
  }

  /**
   * The link called `name`: from the cached list, else — in dense storage not changed in this
   * session — through the name index (O(log N) reads), else from the list.
   */
  private async findLink(name: string): Promise<LinkMessage | undefined> {
    const cached = this.model.derived.get('links') as LinkList | undefined;
    if (cached) return cached.get(name);
    const info = linkInfoOf(this.model, this.ctx);
    if (info && !denseLinkStoreOf(this.model) && isDefinedAddress(info.fractalHeapAddress)) {
      try {
        const found = await findDenseLink(this.ctx, info, name, this.model.derived);
        if (found !== null) return found;
      } catch (e) {
        throw e instanceof H5Error ? e.withPath(this.path) : e;
      }
    }
    return (await this.linkMessages()).get(name);
  }

  /** The decoded link messages (cached on the header model until it changes). */
  private async linkMessages(): Promise<LinkList> {
    const cached = this.model.derived.get('links') as LinkList | undefined;
    if (cached) return cached;
    try {
      const links = await readLinks(this.ctx, this.model);
      this.model.derived.set('links', links);
      return links;
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(this.path) : e;
    }
  }

  /** @internal the header model (for tools and the CLI). */
  get headerModel(): HeaderModel {
    return this.model;
  }
}

/** Opens the object whose header is at `address` as a group, dataset or committed datatype. @internal */
export async function openObject(ctx: FileContext, address: number, path: string): Promise<Group | Dataset | CommittedDatatype> {
  let model: HeaderModel;
  try {
    model = await ctx.header(address);
  } catch (e) {
    throw e instanceof H5Error ? e.withPath(path) : e;
  }
  if (model.find(LAYOUT) || (model.find(DATASPACE) && model.find(DATATYPE))) return Dataset.open(ctx, model, path);
  if (isGroupHeader(model)) return new Group(ctx, model, path);
  const dt = model.find(DATATYPE);
  if (dt) return new CommittedDatatype(ctx, model, path, await resolveDatatypeMessage(ctx, dt, path));
  // HDF5 treats an object header without group or dataset messages as an (empty) group only for the root.
  if (path === '/') return new Group(ctx, model, path);
  throw new FormatError('object header describes neither a group, a dataset nor a datatype', {
    path,
    structure: 'object header',
    address,
  });
}

function describeLink(l: LinkMessage): LinkInfo {
  const out: LinkInfo = { name: l.name, kind: l.kind };
  if (l.kind === 'hard') out.address = l.address!;
  if (l.kind === 'soft') out.target = l.target!;
  if (l.kind === 'external') {
    out.file = l.externalFile ?? '';
    out.path = l.externalPath ?? '';
  }
  if (l.creationOrder !== undefined) out.creationOrder = l.creationOrder;
  return out;
}

/** Joins a group path and a name. */
export function joinPath(parent: string, name: string): string {
  return parent === '/' ? `/${name}` : `${parent}/${name}`;
}
