/**
 * Reading an HDF5 group ({@link ReadGroup}): link listing and path lookup (hard, soft and external
 * links). Nothing here reaches the write path; `Group` (objects/group.ts) adds creating groups,
 * datasets and links.
 * @module
 */
import { FormatError, H5Error, NotFoundError, UnsupportedError } from '../errors.js';
import type { Datatype } from '../format/messages/datatype.js';
import type { LinkMessage } from '../format/messages/link.js';
import { isDefinedAddress } from '../format/bytes.js';
import { DATASPACE, DATATYPE, LAYOUT } from '../format/messages/message-types.js';
import { denseLinkStoreOf, findDenseLink } from '../dense/dense-links.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import type { ReadAttributes } from './read-attributes.js';
import type { ReadDataset } from './read-dataset.js';
import { isGroupHeader, linkInfoOf, readLinks } from './links.js';
import type { LinkList } from './link-list.js';
import { resolveDatatypeMessage } from './shared-datatype.js';

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

/** A committed (named) datatype stored as an object of its own (read-only attributes). */
export class ReadCommittedDatatype {
  readonly kind = 'datatype' as const;
  readonly attrs: ReadAttributes;
  constructor(ctx: FileContext, model: HeaderModel, readonly path: string, readonly dtype: Datatype) {
    this.attrs = new ctx.objects.Attributes(ctx, async () => model, path);
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

/** Anything a path can lead to, read-only (`@chunkform/core/read`). */
export type ReadNode = ReadGroup | ReadDataset | ReadCommittedDatatype | ExternalLink;

const MAX_SOFT_LINK_HOPS = 32;

/**
 * An HDF5 group, read-only: what `@chunkform/core/read` gives; `Group` of `@chunkform/core` adds
 * creating groups, datasets and links. Reading calls (`keys`, `links`, `get`, attribute reads) run
 * alongside each other; creating groups, datasets and links and changing attributes run alone in the
 * file. All take their turn with the other calls on the file in the order they were made (see
 * {@link ReadDataset}).
 */
export class ReadGroup {
  /** The group's attributes. */
  readonly attrs: ReadAttributes;

  /** @internal */
  constructor(
    protected readonly ctx: FileContext,
    protected readonly model: HeaderModel,
    /** Full path ('/' for the root group). */
    readonly path: string,
  ) {
    this.attrs = new ctx.objects.Attributes(ctx, async () => this.model, path);
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
  async get(path: string): Promise<ReadNode> {
    return this.ctx.lock.file('read', () => {
      this.ctx.ensureOpen();
      return this.resolve(path, 0);
    });
  }

  /** @internal */
  protected async resolve(path: string, hops: number): Promise<ReadNode> {
    const absolute = path.startsWith('/');
    let node: ReadGroup = absolute ? await this.root() : this;
    const parts = path.split('/').filter((p) => p.length > 0 && p !== '.');
    if (parts.length === 0) return node;
    for (let i = 0; i < parts.length; i++) {
      const name = parts[i]!;
      const l = await node.findLink(name);
      const here = joinPath(node.path, name);
      if (!l) throw new NotFoundError(`"${here}" does not exist`, { path: here });
      let target: ReadNode;
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
      if (!(target instanceof ReadGroup)) {
        const what = target instanceof ExternalLink ? `an external link to ${target.file}:${target.path}` : 'not a group';
        throw new NotFoundError(`"${here}" is ${what}`, { path: here });
      }
      node = target;
    }
    return node;
  }

  /** The root group of this file. */
  /** @internal */
  protected async root(): Promise<ReadGroup> {
    const addr = this.ctx.rootAddress;
    return new this.ctx.objects.Group(this.ctx, await this.ctx.header(addr), '/');
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

  /** The decoded link messages (cached on the header model until it changes). @internal */
  protected async linkMessages(): Promise<LinkList> {
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
  }}

/** Opens the object whose header is at `address` as a group, dataset or committed datatype. @internal */
export async function openObject(ctx: FileContext, address: number, path: string): Promise<ReadGroup | ReadDataset | ReadCommittedDatatype> {
  let model: HeaderModel;
  try {
    model = await ctx.header(address);
  } catch (e) {
    throw e instanceof H5Error ? e.withPath(path) : e;
  }
  if (model.find(LAYOUT) || (model.find(DATASPACE) && model.find(DATATYPE))) return ctx.objects.Dataset.open(ctx, model, path);
  if (isGroupHeader(model)) return new ctx.objects.Group(ctx, model, path);
  const dt = model.find(DATATYPE);
  if (dt) return new ctx.objects.CommittedDatatype(ctx, model, path, await resolveDatatypeMessage(ctx, dt, path));
  // HDF5 treats an object header without group or dataset messages as an (empty) group only for the root.
  if (path === '/') return new ctx.objects.Group(ctx, model, path);
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
