/**
 * `chunkform ls`: an h5ls-like listing of a group's members (or of one dataset), optionally
 * recursive (`-r`, full paths), verbose (`-v`: attributes, location, links, chunks, storage,
 * filters, type — h5ls 1.10's lines, plus the sparse sections of docs/cli.md) and with data (`-d`, `-S`).
 * @module
 */
import { CommittedDatatype, Dataset, Group } from '@chunkform/core';
import { formatDims } from '../../format-value.js';
import { errorMessage } from '../../error-message.js';
import { objectAddress, type LineSink } from '../../inspect.js';
import { lineSinkWriter, type LineWriter } from '../../cli/sink.js';
import { UsageError } from '../../cli/io.js';
import { attributeLines, datasetData, detail, storageLines } from './details.js';
import { h5lsType } from './h5ls-types.js';

/** Options of {@link listObjects}. */
export interface LsOptions {
  /** List the members of subgroups too, naming every object by its full path (h5ls -r). */
  recursive?: boolean;
  /** Print details under each object (h5ls -v). */
  verbose?: boolean;
  /** Print dataset (and with -v attribute) values (h5ls -d). */
  data?: boolean;
  /** With `data`: one value per line (h5ls -S). */
  simple?: boolean;
  /** Name members by their path below the listed group, `/name` (h5ls -f). */
  full?: boolean;
  /** A group's own line (and with -v its details), not its members (h5ls -g); not with `recursive`. */
  group?: boolean;
}

/** What {@link listObjects} found besides the lines it wrote. */
export interface LsResult {
  /** Number of objects that could not be read (each reported on its own line). */
  errors: number;
}

/** Width of the name column, as h5ls pads it. */
const NAME_WIDTH = 24;
/** Groups nested deeper than this are not descended into (a guard against pathological files). */
const MAX_DEPTH = 256;

function joinPath(parent: string, name: string): string {
  return parent.endsWith('/') ? `${parent}${name}` : `${parent}/${name}`;
}

function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '') return '/';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

function normalisePath(path: string): string {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  return `/${parts.join('/')}`;
}

function line(name: string, desc: string): string {
  return `${name.padEnd(NAME_WIDTH)} ${desc}`;
}

/** Hard-link count of an object (its header's reference count). */
function linkCount(obj: unknown): number {
  const src = (obj as { headerModel?: { source?: { referenceCount?: unknown } | null } }).headerModel?.source;
  return typeof src?.referenceCount === 'number' ? src.referenceCount : 1;
}

/** One line per member of a group as h5ls writes it: "Group", "Dataset {dims}", "Soft Link {...}" ... */
class Lister {
  errors = 0;
  /** Full path of the first place each object address was seen (hard links to one object, cycles). */
  private readonly seen = new Map<number, { path: string; word: string }>();

  constructor(private readonly opts: LsOptions, private readonly w: LineWriter) {}

  private out(l: string): void {
    this.w.line(l);
  }

  /** Records that the object at header `address` was listed as `path` (later hard links say "same as"). */
  remember(address: number | undefined, path: string, obj: unknown): void {
    if (address === undefined || this.seen.has(address)) return;
    const word = obj instanceof Group ? 'Group' : obj instanceof Dataset ? 'Dataset' : obj instanceof CommittedDatatype ? 'Type' : '';
    if (word) this.seen.set(address, { path, word });
  }

  private label(path: string, name: string): string {
    return this.opts.recursive ? path : this.opts.full ? `/${name}` : name;
  }

  /** Writes the member `name` of `group` (whose full path is `groupPath`) and, with -r, its subtree. */
  async member(group: Group, groupPath: string, name: string, depth: number): Promise<void> {
    const path = joinPath(groupPath, name);
    const label = this.label(path, name);
    let obj: unknown;
    try {
      const link = await group.getLink(name);
      if (link.kind === 'soft') {
        this.out(line(label, `Soft Link {${link.target ?? ''}}`));
        return;
      }
      if (link.kind === 'external') {
        this.out(line(label, `External Link {${link.file ?? ''}/${link.path ?? ''}}`));
        return;
      }
      if (link.kind !== 'hard') {
        this.out(line(label, 'User-defined Link'));
        return;
      }
      const first = link.address !== undefined ? this.seen.get(link.address) : undefined;
      if (first !== undefined) {
        this.out(line(label, `${first.word}, same as ${first.path}`));
        return;
      }
      obj = await group.get(name);
      if (link.address !== undefined) this.remember(link.address, path, obj);
    } catch (e) {
      this.fail(label, e);
      return;
    }
    await this.object(obj, path, label, depth, (await group.getLink(name)).address);
  }

  /** Location and Links lines (h5ls -v). */
  private where(obj: unknown, address?: number): void {
    const addr = objectAddress(obj) ?? address;
    if (addr !== undefined) this.out(detail('Location', `1:${addr}`));
    this.out(detail('Links', String(linkCount(obj))));
  }

  /** Writes one object already opened at `path`, then (groups, -r) its members. */
  async object(obj: unknown, path: string, label: string, depth: number, address?: number): Promise<void> {
    try {
      if (obj instanceof Dataset) {
        const dims = obj.dataspace.kind === 'null' ? '{NULL}' : formatDims(obj.shape, obj.maxShape, this.opts.verbose);
        this.out(line(label, `Dataset ${dims}`));
        if (this.opts.verbose) {
          await attributeLines(this.w, obj, this.opts.data === true, this.opts.simple === true);
          this.where(obj);
          await storageLines(this.w, obj, this.opts.simple === true);
        }
        if (this.opts.data) await datasetData(this.w, obj, this.opts.simple === true);
        await this.w.maybeFlush();
        return;
      }
      if (obj instanceof Group) {
        this.out(line(label, 'Group'));
        if (this.opts.verbose) {
          await attributeLines(this.w, obj, this.opts.data === true, this.opts.simple === true);
          this.where(obj);
        }
        if (this.opts.recursive) await this.members(obj, path, depth + 1);
        return;
      }
      if (obj instanceof CommittedDatatype) {
        this.out(line(label, 'Type'));
        if (this.opts.verbose) {
          await attributeLines(this.w, obj, this.opts.data === true, this.opts.simple === true);
          // a committed datatype's header address comes from its link (h5ls: "shared-1:ADDR struct {")
          const addr = objectAddress(obj) ?? address;
          this.where(obj, addr);
          this.out(detail('Type', `${addr !== undefined ? `shared-1:${addr} ` : ''}${h5lsType(obj.dtype, undefined, this.opts.simple === true)}`));
        }
        return;
      }
    } catch (e) {
      this.errors++;
      this.out(`    **ERROR** ${errorMessage(e)}`);
      return;
    }
    const ext = obj as { kind?: unknown; file?: unknown; path?: unknown };
    if (ext && ext.kind === 'external') {
      this.out(line(label, `External Link {${String(ext.file)}/${String(ext.path)}}`));
      return;
    }
    this.out(line(label, 'Unknown object'));
  }

  /** Writes every member of `group`, in name order (as h5ls sorts them). */
  async members(group: Group, path: string, depth: number): Promise<void> {
    if (depth > MAX_DEPTH) {
      this.fail(path, new Error(`groups nested deeper than ${MAX_DEPTH} levels; not descending`));
      return;
    }
    let names: string[];
    try {
      names = (await group.keys()).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    } catch (e) {
      this.fail(this.label(path, baseName(path)), e);
      return;
    }
    for (const name of names) await this.member(group, path, name, depth);
  }

  fail(label: string, e: unknown): void {
    this.errors++;
    this.out(line(label, `**ERROR** ${errorMessage(e)}`));
  }
}

/** Lists `path` to a {@link LineWriter} (the command's streaming form of {@link listObjects}). */
export async function listTo(root: Group, path: string, opts: LsOptions, w: LineWriter): Promise<LsResult> {
  if (opts.group && opts.recursive) throw new UsageError("the recursive option (-r) cannot be combined with group info (-g)");
  const lister = new Lister(opts, w);
  const full = normalisePath(path);
  const obj = full === '/' ? root : await root.get(full);
  lister.remember(objectAddress(root), '/', root);
  lister.remember(objectAddress(obj), full, obj);
  // h5ls -g names the root group "" (or "/" with -f), any other object by its base name
  if (opts.group) await lister.object(obj, full, full === '/' ? (opts.full ? '/' : '') : baseName(full), 0);
  else if (obj instanceof Group && !opts.recursive) await lister.members(obj, full, 0);
  else await lister.object(obj, full, opts.recursive ? full : baseName(full), 0);
  await w.flush();
  return { errors: lister.errors };
}

/**
 * Lists `path` in the file whose root group is `root`, like h5ls. For a group: its members (names
 * relative to it), or with `recursive` the group itself and everything below it (full paths). For a
 * dataset or an external link: its one line. Soft and external links are shown, not followed.
 * Objects that cannot be read get a `**ERROR** message` line and are counted in the result; a
 * `path` that cannot be opened throws (NotFoundError ...).
 */
export async function listObjects(root: Group, path = '/', opts: LsOptions = {}, out: LineSink): Promise<LsResult> {
  const { writer, end } = lineSinkWriter(out);
  const r = await listTo(root, path, opts, writer);
  end();
  return r;
}
