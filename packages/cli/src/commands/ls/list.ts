/**
 * `chunkform ls`: an h5ls-like listing of a group's members (or of one dataset), optionally
 * recursive (`-r`, full paths) and verbose (`-v`: datatype, layout, filters, fill value, attributes).
 * @module
 */
import { CommittedDatatype, Dataset, Group, dtypeToString, KNOWN_FILTER_PACKAGES } from '@chunkform/core';
import { formatDims, formatList, formatValue } from '../../format-value.js';
import { errorMessage } from '../../error-message.js';
import { datasetFilters, layoutSummary, layoutText, objectAddress, type LineSink } from '../../inspect.js';

/** Options of {@link listObjects}. */
export interface LsOptions {
  /** List the members of subgroups too, naming every object by its full path (h5ls -r). */
  recursive?: boolean;
  /** Print details under each object (h5ls -v). */
  verbose?: boolean;
  /** Longest attribute/fill value text in verbose mode before it is cut with "..." (default 60). */
  maxValueChars?: number;
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

/** One line per member of a group as h5ls writes it: "Group", "Dataset {dims}", "Soft Link {...}" ... */
class Lister {
  errors = 0;
  /** Full path of the first place each object address was seen (hard links to one object, cycles). */
  private readonly seen = new Map<number, { path: string; word: string }>();
  private readonly maxChars: number;

  constructor(private readonly opts: LsOptions, private readonly out: LineSink) {
    this.maxChars = opts.maxValueChars ?? 60;
  }

  /** Records that the object at header `address` was listed as `path` (later hard links say "same as"). */
  remember(address: number | undefined, path: string, obj: unknown): void {
    if (address === undefined || this.seen.has(address)) return;
    const word = obj instanceof Group ? 'Group' : obj instanceof Dataset ? 'Dataset' : obj instanceof CommittedDatatype ? 'Type' : '';
    if (word) this.seen.set(address, { path, word });
  }

  private label(path: string, name: string): string {
    return this.opts.recursive ? path : name;
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
    await this.object(obj, path, label, depth);
  }

  /** Writes one object already opened at `path`, then (groups, -r) its members. */
  async object(obj: unknown, path: string, label: string, depth: number): Promise<void> {
    if (obj instanceof Dataset) {
      const dims = obj.dataspace.kind === 'null' ? '{NULL}' : formatDims(obj.shape, obj.maxShape, this.opts.verbose);
      this.out(line(label, `Dataset ${dims}`));
      if (this.opts.verbose) await this.datasetDetails(obj);
      return;
    }
    if (obj instanceof Group) {
      this.out(line(label, 'Group'));
      if (this.opts.verbose) await this.attributes(obj);
      if (this.opts.recursive) await this.members(obj, path, depth + 1);
      return;
    }
    if (obj instanceof CommittedDatatype) {
      this.out(line(label, 'Type'));
      if (this.opts.verbose) {
        await this.attributes(obj);
        this.detail('Type', dtypeToString(obj.dtype));
      }
      return;
    }
    const ext = obj as { kind?: unknown; file?: unknown; path?: unknown };
    if (ext && ext.kind === 'external') {
      this.out(line(label, `External Link {${String(ext.file)}/${String(ext.path)}}`));
      return;
    }
    this.out(line(label, 'Unknown object'));
  }

  /** Writes every member of `group`, in the order the group returns them. */
  async members(group: Group, path: string, depth: number): Promise<void> {
    if (depth > MAX_DEPTH) {
      this.fail(path, new Error(`groups nested deeper than ${MAX_DEPTH} levels; not descending`));
      return;
    }
    let names: string[];
    try {
      names = await group.keys();
    } catch (e) {
      this.fail(this.label(path, baseName(path)), e);
      return;
    }
    for (const name of names) await this.member(group, path, name, depth);
  }

  private detail(label: string, text: string): void {
    this.out(`    ${`${label}:`.padEnd(11)}${text}`);
  }

  private async attributes(obj: Group | Dataset | CommittedDatatype): Promise<void> {
    let names: string[];
    try {
      names = await obj.attrs.keys();
    } catch (e) {
      this.errors++;
      this.detail('Attribute', `**ERROR** ${errorMessage(e)}`);
      return;
    }
    for (const name of names) {
      try {
        const value = await obj.attrs.get(name);
        this.detail('Attribute', `${name} = ${formatValue(value, this.maxChars)}`);
      } catch (e) {
        this.errors++;
        this.detail('Attribute', `${name} **ERROR** ${errorMessage(e)}`);
      }
    }
  }

  private async datasetDetails(ds: Dataset): Promise<void> {
    await this.attributes(ds);
    this.detail('Type', dtypeToString(ds.dtype));
    this.detail('Layout', layoutText(layoutSummary(ds.layout)));
    const filters = datasetFilters(ds);
    for (let i = 0; i < filters.length; i++) {
      const f = filters[i]!;
      this.detail(`Filter-${i}`, `${f.name ?? KNOWN_FILTER_PACKAGES[f.id]?.name ?? 'filter'}-${f.id} ${formatList(f.clientData)}`);
    }
    let fill: unknown;
    try {
      fill = await ds.fillValue();
    } catch (e) {
      this.errors++;
      this.detail('Fill', `**ERROR** ${errorMessage(e)}`);
      return;
    }
    this.detail('Fill', fill === undefined || fill === null ? 'none' : formatValue(fill, this.maxChars));
  }

  fail(label: string, e: unknown): void {
    this.errors++;
    this.out(line(label, `**ERROR** ${errorMessage(e)}`));
  }
}

/**
 * Lists `path` in the file whose root group is `root`, like h5ls. For a group: its members (names
 * relative to it), or with `recursive` the group itself and everything below it (full paths). For a
 * dataset or an external link: its one line. Soft and external links are shown, not followed.
 * Objects that cannot be read get a `**ERROR** message` line and are counted in the result; a
 * `path` that cannot be opened throws (NotFoundError ...).
 */
export async function listObjects(root: Group, path = '/', opts: LsOptions = {}, out: LineSink): Promise<LsResult> {
  const lister = new Lister(opts, out);
  const full = normalisePath(path);
  const obj = full === '/' ? root : await root.get(full);
  lister.remember(objectAddress(root), '/', root);
  lister.remember(objectAddress(obj), full, obj);
  if (obj instanceof Group && !opts.recursive) await lister.members(obj, full, 0);
  else await lister.object(obj, full, opts.recursive ? full : baseName(full), 0);
  return { errors: lister.errors };
}
