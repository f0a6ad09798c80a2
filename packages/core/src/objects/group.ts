/**
 * `Group`: an HDF5 group (h5py's `Group`): everything {@link ReadGroup} reads (link listing, path
 * lookup), plus creating groups, datasets and links, moving and deleting links.
 * @module
 */
import { H5Error, NotFoundError, UnsupportedError, ValueError } from '../errors.js';
import type { LinkMessage } from '../format/messages/link.js';
import { storeLink, unstoreLink } from './group-links.js';
import { insertLink } from './link-list.js';
import type { DtypeSpec } from '../values/dtype.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import type { Attributes } from './attributes.js';
import { Dataset } from './dataset.js';
import { ChunkedStorage } from '../storage/chunked-storage.js';
import { selectAll } from '../selection/selection.js';
import { newDatasetHeader, type CreateLayout, type NewDatasetHeader } from './dataset-create.js';
import { linkStorageOf, type LinkStorage } from './links.js';
import { valuesToBytes } from './values-io.js';
import type { FilterOptions } from './filter-options.js';
import { groupMessages } from './group-create.js';
import type { ChunkCacheOptions } from '../chunk/cache.js';
import type { ChunkIndexOption } from '../chunk/index-option.js';
import { ExternalLink, joinPath, ReadCommittedDatatype, ReadGroup } from './read-group.js';

export { ExternalLink, joinPath, openObject, ReadCommittedDatatype, ReadGroup, type LinkInfo, type ReadNode } from './read-group.js';

/** A committed (named) datatype stored as an object of its own. */
export class CommittedDatatype extends ReadCommittedDatatype {
  /** The datatype's attributes. */
  declare readonly attrs: Attributes;
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

/**
 * An HDF5 group. Reading calls (`keys`, `links`, `get`, attribute reads) run alongside each other;
 * creating groups, datasets and links and changing attributes run alone in the file. All take
 * their turn with the other calls on the file in the order they were made (see {@link Dataset}).
 */
export class Group extends ReadGroup {
  /** The group's attributes. */
  declare readonly attrs: Attributes;

  /**
   * The object at `path` (absolute, or relative to this group). Soft links are followed; an external
   * link at the end of the path is returned as an {@link ExternalLink}.
   */
  override async get(path: string): Promise<H5Node> {
    return (await super.get(path)) as H5Node;
  }

  /** @internal */
  protected override async resolve(path: string, hops: number): Promise<H5Node> {
    return (await super.resolve(path, hops)) as H5Node;
  }

  /** @internal */
  protected override async root(): Promise<Group> {
    return (await super.root()) as Group;
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
      insertLink(list, stored.link);
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
  }}
