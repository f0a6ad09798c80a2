/**
 * `Group`: an HDF5 group (h5py's `Group`): link listing, path lookup (hard, soft and external
 * links), and creating groups and datasets.
 * @module
 */
import { FormatError, H5Error, NotFoundError, UnsupportedError, ValueError } from '../errors.js';
import { UNDEFINED_ADDRESS } from '../format/bytes.js';
import type { Datatype } from '../format/messages/datatype.js';
import { encodeGroupInfo } from '../format/messages/group-info.js';
import { encodeLink, type LinkMessage } from '../format/messages/link.js';
import { encodeLinkInfo } from '../format/messages/link-info.js';
import { DATASPACE, DATATYPE, GROUP_INFO, LAYOUT, LINK, LINK_INFO, SYMBOL_TABLE } from '../format/messages/message-types.js';
import { parseDtype, type DtypeSpec } from '../values/dtype.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderMessage, HeaderModel } from '../file/header-model.js';
import { Attributes } from './attributes.js';
import { Dataset } from './dataset.js';
import { ChunkedStorage } from '../storage/chunked-storage.js';
import { datasetMessages, planDataspace, type CreateLayout } from './dataset-create.js';
import { linkInfoOf, linkStorageOf, readLinks, type LinkStorage } from './links.js';
import type { LinkList } from './link-list.js';
import { resolveDatatypeMessage } from './shared-datatype.js';
import { elementCount, inferShape } from './shape.js';
import { valuesToBytes } from './values-io.js';
import { pipelineFromOptions, sectionPipelinesFromOptions, type FilterOptions } from './filter-options.js';
import { sparseDatasetMessages } from './sparse-create.js';
import { chunkedDatasetMessages } from './chunked-create.js';
import type { ChunkCacheOptions } from '../chunk/cache.js';
import { datatypeSize } from '../format/messages/datatype.js';

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
  /** Storage layout (default 'contiguous', or 'chunked' when `chunks`, filters or a larger `maxShape` are given). */
  layout?: CreateLayout | 'chunked' | 'sparse';
  /** Sparse datasets: write the per-section pipelines as filter pipeline message v3 (default) or the STC message 0x0019. */
  pipelineMessage?: 'v3' | 'stc';
  /** Sparse datasets: 'smallest' (default) or 'prototype' encoding of each chunk's defined elements. */
  selectionEncoding?: 'smallest' | 'prototype';
  /** Chunk shape (`true`: guess one as h5py does). */
  chunks?: number[] | true;
  /** When file space is allocated: 'early' (at creation, fill written), 'incremental' (per chunk; default), 'late'. */
  allocTime?: 'early' | 'late' | 'incremental';
  /** Store partial edge chunks unfiltered (layout flag; default false). */
  dontFilterPartialChunks?: boolean;
  /** Chunk cache settings for the new dataset. */
  chunkCache?: ChunkCacheOptions;
}

const MAX_SOFT_LINK_HOPS = 32;

/** An HDF5 group. */
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
    return (await this.linkMessages()).links.map(describeLink);
  }

  /** The link called `name` in this group. */
  async getLink(name: string): Promise<LinkInfo> {
    const l = (await this.linkMessages()).get(name);
    if (!l) throw new NotFoundError(`no link "${name}"`, { path: this.path });
    return describeLink(l);
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
    this.ctx.ensureOpen();
    return this.resolve(path, 0);
  }

  private async resolve(path: string, hops: number): Promise<H5Node> {
    const absolute = path.startsWith('/');
    let node: Group = absolute ? await this.root() : this;
    const parts = path.split('/').filter((p) => p.length > 0 && p !== '.');
    if (parts.length === 0) return node;
    for (let i = 0; i < parts.length; i++) {
      const name = parts[i]!;
      const l = (await node.linkMessages()).get(name);
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

  /** Creates a group (and missing intermediate groups). */
  async createGroup(path: string, opts: CreateGroupOptions = {}): Promise<Group> {
    const { parent, name, full } = await this.parentFor(path, 'create group');
    const writer = this.ctx.requireWriter(`create group "${full}"`);
    const messages: HeaderMessage[] = [
      {
        type: LINK_INFO,
        flags: 0,
        body: encodeLinkInfo(
          {
            trackCreationOrder: opts.trackOrder === true,
            indexCreationOrder: opts.trackOrder === true,
            ...(opts.trackOrder ? { maxCreationIndex: 0 } : {}),
            fractalHeapAddress: UNDEFINED_ADDRESS,
            nameIndexAddress: UNDEFINED_ADDRESS,
            ...(opts.trackOrder ? { creationOrderIndexAddress: UNDEFINED_ADDRESS } : {}),
          },
          this.ctx.sizes,
        ),
      },
      { type: GROUP_INFO, flags: 0, body: encodeGroupInfo({}) },
    ];
    const model = writer.createHeader(messages);
    await parent.addLink({ name, kind: 'hard', address: model.address, charset: 'utf-8' });
    return new Group(this.ctx, model, full);
  }

  /** Creates a dataset. */
  async createDataset(path: string, opts: CreateDatasetOptions): Promise<Dataset> {
    const { parent, name, full } = await this.parentFor(path, 'create dataset');
    const writer = this.ctx.requireWriter(`create dataset "${full}"`);
    try {
      const dtype = parseDtype(opts.dtype);
      const shape = opts.shape ?? (opts.data !== undefined ? inferShape(opts.data) : undefined);
      if (!shape) throw new ValueError('createDataset needs a shape');
      const scalar = shape.length === 0;
      if (opts.layout === 'sparse') return await this.createSparse(parent, name, full, dtype, shape, opts);
      const pipeline = pipelineFromOptions(opts, full);
      const growable = (opts.maxShape ?? []).some((m, i) => m !== shape[i]);
      const chunked =
        opts.layout === 'chunked' || opts.chunks !== undefined || pipeline.filters.length > 0 || growable;
      if (chunked) {
        if (scalar) throw new ValueError('scalar datasets cannot be chunked', { path: full });
        if (opts.layout === 'compact' || opts.layout === 'contiguous') {
          throw new ValueError(`layout '${opts.layout}' cannot have chunks, filters or a maxShape larger than the shape`, { path: full });
        }
        const messages = chunkedDatasetMessages(this.ctx, { ...opts, path: full, dtype, shape, pipeline });
        const model = writer.createHeader(messages);
        await parent.addLink({ name, kind: 'hard', address: model.address, charset: 'utf-8' });
        const dset = await Dataset.open(this.ctx, model, full);
        if (opts.chunkCache) dset.setAccess({ chunkCache: opts.chunkCache });
        const storage = (await dset.storage(true)) as ChunkedStorage;
        if (opts.allocTime === 'early') await storage.allocateAll();
        if (opts.data !== undefined) await dset.write(opts.data);
        return dset;
      }
      const dataspace = planDataspace(shape, opts.maxShape, full, scalar);
      const layout = (opts.layout ?? 'contiguous') as CreateLayout;
      const count = scalar ? 1 : elementCount(shape);
      let data: Uint8Array | undefined;
      let address: number | undefined;
      if (opts.data !== undefined) {
        const values = scalar && !Array.isArray(opts.data) && !ArrayBuffer.isView(opts.data) ? [opts.data] : opts.data;
        data = valuesToBytes(this.ctx, values, dtype, count, `create dataset "${full}"`);
        if (layout === 'contiguous' && data.length > 0) {
          address = writer.allocator.alloc(data.length);
          await writer.writeRaw(address, data);
        }
      }
      const messages = datasetMessages(
        this.ctx,
        { path: full, dtype, shape, maxShape: opts.maxShape, fillValue: opts.fillValue, layout, data, address },
        dataspace,
      );
      const model = writer.createHeader(messages);
      await parent.addLink({ name, kind: 'hard', address: model.address, charset: 'utf-8' });
      return await Dataset.open(this.ctx, model, full);
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(full) : e;
    }
  }

  /** Creates a sparse (structured-chunk) dataset. */
  private async createSparse(parent: Group, name: string, full: string, dtype: Datatype, shape: number[], opts: CreateDatasetOptions): Promise<Dataset> {
    const writer = this.ctx.requireWriter(`create dataset "${full}"`);
    const messages = sparseDatasetMessages(this.ctx, {
      path: full,
      dtype,
      shape,
      maxShape: opts.maxShape,
      chunks: opts.chunks,
      fillValue: opts.fillValue,
      dontFilterPartialChunks: opts.dontFilterPartialChunks,
      ...sectionPipelinesFromOptions(opts, full),
      pipelineMessage: opts.pipelineMessage,
    });
    const model = writer.createHeader(messages);
    await parent.addLink({ name, kind: 'hard', address: model.address, charset: 'utf-8' });
    const dset = await Dataset.open(this.ctx, model, full);
    dset.setAccess({
      ...(opts.chunkCache ? { chunkCache: opts.chunkCache } : {}),
      ...(opts.selectionEncoding ? { selectionEncoding: opts.selectionEncoding } : {}),
    });
    await dset.storage(true);
    if (opts.data !== undefined) await dset.write(opts.data);
    return dset;
  }

  /** Adds a link to this group (compact link storage). @internal */
  async addLink(link: LinkMessage): Promise<void> {
    const writer = this.ctx.requireWriter(`add link "${link.name}"`);
    // (cached with the link list: finding it scans every message, one per link in compact storage)
    const storage = (this.model.derived.get('linkStorage') as LinkStorage | undefined) ?? linkStorageOf(this.model, this.ctx);
    if (storage !== 'compact') {
      throw new UnsupportedError(`adding links to a group with ${storage} link storage is not supported yet`, { path: this.path });
    }
    const list = await this.linkMessages();
    if (list.has(link.name)) {
      throw new ValueError(`"${joinPath(this.path, link.name)}" already exists`, { path: this.path });
    }
    writer.adopt(this.model, this.path);
    const info = linkInfoOf(this.model, this.ctx);
    let l = link;
    if (info?.trackCreationOrder) {
      // HDF5 stores the next creation order to hand out ("maximum creation index" = links created).
      const order = info.maxCreationIndex ?? 0;
      l = { ...link, creationOrder: order };
      const infoMsg = this.model.find(LINK_INFO)!;
      infoMsg.body = encodeLinkInfo({ ...info, maxCreationIndex: order + 1 }, this.ctx.sizes);
    }
    this.model.messages.push({ type: LINK, flags: 0, body: encodeLink(l, this.ctx.sizes) });
    this.model.touch();
    // the sorted list stays valid with the new link in its place (touch() dropped it)
    list.insert(l);
    this.model.derived.set('links', list);
    this.model.derived.set('linkStorage', storage);
  }

  /** The group that will hold `path`'s last component, creating intermediate groups. */
  private async parentFor(path: string, what: string): Promise<{ parent: Group; name: string; full: string }> {
    const parts = path.split('/').filter((p) => p.length > 0 && p !== '.');
    if (parts.length === 0) throw new ValueError(`cannot ${what} "${path}": empty name`, { path: this.path });
    const name = parts.pop()!;
    let parent: Group = path.startsWith('/') ? await this.root() : this;
    for (const p of parts) {
      const here = joinPath(parent.path, p);
      const exists = (await parent.linkMessages()).has(p);
      const next = exists ? await parent.get(p) : await parent.createGroup(p);
      if (!(next instanceof Group)) throw new ValueError(`cannot ${what} "${path}": "${here}" is not a group`, { path: here });
      parent = next;
    }
    return { parent, name, full: joinPath(parent.path, name) };
  }

  /** The root group of this file. */
  protected async root(): Promise<Group> {
    const addr = this.ctx.rootAddress;
    return new Group(this.ctx, await this.ctx.header(addr), '/');
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
  if (model.find(LINK_INFO) || model.find(SYMBOL_TABLE) || model.find(GROUP_INFO) || model.find(LINK)) return new Group(ctx, model, path);
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
