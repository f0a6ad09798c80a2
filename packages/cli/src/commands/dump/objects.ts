/**
 * The entry tree of `chunkform dump --json` (docs/cli.md): every object below a path with its
 * metadata (and, for the library API {@link dumpObjects}, its values). An object that cannot be read
 * is reported in its own entry (`error`) and the rest of the file is still dumped. The command streams
 * dataset values itself (json.ts) and uses this tree without values.
 * @module
 */
import { CommittedDatatype, Dataset, Group, dtypeToString } from '@chunkform/core';
import { toJson, type JsonValue } from '../../format-value.js';
import { errorMessage } from '../../error-message.js';
import { datasetFilters, layoutSummary, objectAddress, type LayoutSummary } from '../../inspect.js';

/** Fields every dump entry has. */
interface EntryBase {
  /** Full path of the object in the file. */
  path: string;
  /** Why (part of) this object could not be read; the other fields hold what could be. */
  error?: string;
}

/** A group: its attributes and members by link name. */
export interface DumpGroup extends EntryBase {
  kind: 'group';
  attrs: Record<string, JsonValue>;
  members: Record<string, DumpEntry>;
}

/** A dataset: metadata and all values, flattened in C order. */
export interface DumpDataset extends EntryBase {
  kind: 'dataset';
  shape: number[];
  /** Present (true) for a dataset with a null dataspace (no elements at all; shape []). */
  nullDataspace?: boolean;
  /** Maximum dimensions (`null` entries are unlimited); equal to `shape` when the file stores none. */
  maxShape: (number | null)[];
  /** numpy-like datatype (`dtypeToString`). */
  dtype: string;
  /** Storage: class, and for chunked layouts the chunk dimensions and index type. */
  layout: LayoutSummary;
  filters: { id: number; name?: string; clientData: number[] }[];
  fillValue: JsonValue;
  attrs: Record<string, JsonValue>;
  /** Values (64-bit integers as strings, NaN/±Inf as "NaN"/"Infinity"/"-Infinity"); null if unreadable. */
  values: JsonValue;
}

/** A committed (named) datatype. */
export interface DumpDatatype extends EntryBase {
  kind: 'datatype';
  dtype: string;
  attrs: Record<string, JsonValue>;
}

/** A user-defined link (neither hard, soft nor external; not followed). */
export interface DumpUserLink extends EntryBase {
  kind: 'user';
}

/** A second hard link to an object already dumped at `hardlink`. */
export interface DumpHardLink extends EntryBase {
  kind: 'group' | 'dataset' | 'datatype';
  hardlink: string;
}

/** A soft link (not followed). */
export interface DumpSoftLink extends EntryBase {
  kind: 'soft';
  target: string;
}

/** An external link (not followed): `target` is the path inside `file`. */
export interface DumpExternalLink extends EntryBase {
  kind: 'external';
  file: string;
  target: string;
}

/** An object that could not be opened at all. */
export interface DumpUnreadable extends EntryBase {
  kind: 'unknown';
  error: string;
}

/** One entry of a dump document. */
export type DumpEntry =
  | DumpGroup
  | DumpDataset
  | DumpDatatype
  | DumpHardLink
  | DumpSoftLink
  | DumpExternalLink
  | DumpUserLink
  | DumpUnreadable;

/** Options of {@link dumpObjects}. */
export interface DumpOptions {
  /** Leave out dataset values (`values: null`). */
  noValues?: boolean;
}

/** A dump document and the number of objects that had errors. */
export interface DumpResult {
  entry: DumpEntry;
  errors: number;
}

/** Groups nested deeper than this are not descended into. */
const MAX_DEPTH = 256;

function joinPath(parent: string, name: string): string {
  return parent.endsWith('/') ? `${parent}${name}` : `${parent}/${name}`;
}

function normalisePath(path: string): string {
  return `/${path.split('/').filter((p) => p !== '' && p !== '.').join('/')}`;
}

class Dumper {
  errors = 0;
  private readonly seen = new Map<number, string>();

  constructor(private readonly opts: DumpOptions) {}

  /** Records that the object at header `address` is dumped at `path` (later hard links refer to it). */
  remember(address: number | undefined, path: string): void {
    if (address !== undefined && !this.seen.has(address)) this.seen.set(address, path);
  }

  private addError(entry: EntryBase, message: string): void {
    if (entry.error === undefined) this.errors++;
    entry.error = entry.error === undefined ? message : `${entry.error}; ${message}`;
  }

  private async attrs(obj: Group | Dataset | CommittedDatatype, entry: EntryBase): Promise<Record<string, JsonValue>> {
    const out: Record<string, JsonValue> = {};
    let names: string[];
    try {
      names = await obj.attrs.keys();
    } catch (e) {
      this.addError(entry, `attributes: ${errorMessage(e)}`);
      return out;
    }
    for (const name of names) {
      try {
        const v = await obj.attrs.get(name);
        out[name] = toJson(v);
      } catch (e) {
        out[name] = null;
        this.addError(entry, `attribute "${name}": ${errorMessage(e)}`);
      }
    }
    return out;
  }

  async object(obj: unknown, path: string, depth: number): Promise<DumpEntry> {
    if (obj instanceof Dataset) return this.dataset(obj, path);
    if (obj instanceof Group) {
      const entry: DumpGroup = { path, kind: 'group', attrs: {}, members: {} };
      entry.attrs = await this.attrs(obj, entry);
      if (depth > MAX_DEPTH) {
        this.addError(entry, `groups nested deeper than ${MAX_DEPTH} levels; members not dumped`);
        return entry;
      }
      let names: string[] = [];
      try {
        names = await obj.keys();
      } catch (e) {
        this.addError(entry, `members: ${errorMessage(e)}`);
      }
      for (const name of names) entry.members[name] = await this.member(obj, joinPath(path, name), name, depth + 1);
      return entry;
    }
    if (obj instanceof CommittedDatatype) {
      const entry: DumpDatatype = { path, kind: 'datatype', dtype: '', attrs: {} };
      try {
        entry.dtype = dtypeToString(obj.dtype);
      } catch (e) {
        this.addError(entry, `datatype: ${errorMessage(e)}`);
      }
      entry.attrs = await this.attrs(obj, entry);
      return entry;
    }
    const ext = obj as { kind?: unknown; file?: unknown; path?: unknown } | null;
    if (ext && ext.kind === 'external') return { path, kind: 'external', file: String(ext.file), target: String(ext.path) };
    this.errors++;
    return { path, kind: 'unknown', error: 'not a group, dataset or link' };
  }

  private async member(group: Group, path: string, name: string, depth: number): Promise<DumpEntry> {
    let obj: unknown;
    try {
      const link = await group.getLink(name);
      if (link.kind === 'soft') return { path, kind: 'soft', target: link.target ?? '' };
      if (link.kind === 'external') return { path, kind: 'external', file: link.file ?? '', target: link.path ?? '' };
      if (link.kind !== 'hard') return { path, kind: 'user' };
      obj = await group.get(name);
      if (typeof link.address === 'number') {
        const first = this.seen.get(link.address);
        if (first !== undefined) {
          const kind = obj instanceof Group ? 'group' : obj instanceof Dataset ? 'dataset' : 'datatype';
          return { path, kind, hardlink: first };
        }
        this.seen.set(link.address, path);
      }
    } catch (e) {
      this.errors++;
      return { path, kind: 'unknown', error: errorMessage(e) };
    }
    return this.object(obj, path, depth);
  }

  private async dataset(ds: Dataset, path: string): Promise<DumpDataset> {
    const entry: DumpDataset = {
      path,
      kind: 'dataset',
      shape: [...ds.shape],
      ...(ds.dataspace.kind === 'null' ? { nullDataspace: true } : {}),
      maxShape: ds.maxShape ? [...ds.maxShape] : [...ds.shape],
      dtype: '',
      layout: layoutSummary(ds.layout),
      filters: datasetFilters(ds).map((f) => ({
        id: f.id,
        ...(f.name !== undefined ? { name: f.name } : {}),
        clientData: Array.from(f.clientData),
      })),
      fillValue: null,
      attrs: {},
      values: null,
    };
    try {
      entry.fillValue = toJson(await ds.fillValue());
    } catch (e) {
      this.addError(entry, `fill value: ${errorMessage(e)}`);
    }
    try {
      entry.dtype = dtypeToString(ds.dtype);
    } catch (e) {
      this.addError(entry, `datatype: ${errorMessage(e)}`);
    }
    entry.attrs = await this.attrs(ds, entry);
    if (!this.opts.noValues) {
      try {
        entry.values = toJson(await ds.read());
      } catch (e) {
        this.addError(entry, errorMessage(e));
      }
    }
    return entry;
  }
}

async function collect(root: Group, path: string, opts: DumpOptions): Promise<{ d: Dumper; entry: DumpEntry; full: string }> {
  const d = new Dumper(opts);
  const full = normalisePath(path);
  const obj = full === '/' ? root : await root.get(full);
  d.remember(objectAddress(root), '/');
  d.remember(objectAddress(obj), full);
  return { d, entry: await d.object(obj, full, 0), full };
}

/**
 * Reads everything at and below `path` (default the root) into a dump document. Objects that fail
 * to read are reported in their entries and counted in `errors`; only an unopenable `path` throws.
 */
export async function dumpObjects(root: Group, path = '/', opts: DumpOptions = {}): Promise<DumpResult> {
  const { d, entry } = await collect(root, path, opts);
  return { entry, errors: d.errors };
}
