/**
 * Checks one object of an open file against its entry in an h5py_dump.py document; returns every
 * difference found (empty = agrees with h5py). Shared by the read and write interop suites.
 * @module
 */
import { NotFoundError, type H5File } from '../../packages/core/src/index.js';
import { containerOf, deepDiff, digestDiff, dtypeDiff, expectedContainer, norm } from './compare.js';
import type { DumpAttr, DumpObject } from './fixtures.js';

type AnyNode = Record<string, unknown> & {
  path?: string;
  kind?: string;
  attrs?: { keys(): Promise<string[]>; get(n: string): Promise<unknown>; has(n: string): Promise<boolean> };
};

/** 'group' | 'dataset' | 'external' | 'datatype' for anything Group.get returns. */
export function kindOf(node: unknown): string {
  const n = node as AnyNode;
  if (n && n.kind === 'external') return 'external';
  if (n && n.kind === 'datatype') return 'datatype';
  if (n && typeof n.read === 'function' && 'shape' in n) return 'dataset';
  if (n && typeof n.keys === 'function' && typeof n.getLink === 'function') return 'group';
  return `unknown (${containerOf(node)})`;
}

function errText(e: unknown): string {
  return e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e);
}

/** Options of {@link checkObject}. */
export interface CheckOptions {
  /** Read dataset values of chunked datasets too (off until chunked reading lands). */
  readChunked?: boolean;
  /** Check the order of attribute names (h5py's order). */
  attrOrder?: boolean;
}

async function checkAttrs(node: AnyNode, obj: DumpObject, out: string[], opts: CheckOptions): Promise<void> {
  const expected = obj.attrs ?? {};
  const order = obj.attr_order ?? Object.keys(expected);
  const attrs = node.attrs!;
  let names: string[];
  try {
    names = await attrs.keys();
  } catch (e) {
    out.push(`attrs.keys() threw ${errText(e)}`);
    return;
  }
  if (opts.attrOrder !== false) deepDiff(names, order, 'attrs.keys()', out);
  else deepDiff([...names].sort(), [...order].sort(), 'attrs.keys() (as a set)', out);
  for (const name of order) {
    const a: DumpAttr = expected[name]!;
    let v: unknown;
    try {
      v = await attrs.get(name);
    } catch (e) {
      out.push(`attrs.get(${JSON.stringify(name)}) threw ${errText(e)}`);
      continue;
    }
    const where = `attr ${JSON.stringify(name)}`;
    if (a.shape === null) {
      if (v !== null) out.push(`${where}: null dataspace should read as null, got ${containerOf(v)}`);
      continue;
    }
    if (a.shape.length > 0) {
      const want = expectedContainer(a.dtype);
      if (containerOf(v) !== want) out.push(`${where}: expected a ${want}, got ${containerOf(v)}`);
    }
    deepDiff(norm(v), a.value, where, out);
    const shapeFn = (attrs as unknown as { shape?: (n: string) => Promise<number[] | null> }).shape;
    if (typeof shapeFn === 'function') {
      try {
        deepDiff(await shapeFn.call(attrs, name), a.shape, `${where} shape`, out);
      } catch (e) {
        out.push(`${where}: attrs.shape() threw ${errText(e)}`);
      }
    }
  }
}

async function checkGroup(file: H5File, node: AnyNode, obj: DumpObject, byPath: Map<string, DumpObject>, out: string[]): Promise<void> {
  const links = obj.links ?? [];
  const g = node as unknown as {
    keys(): Promise<string[]>;
    getLink(n: string): Promise<Record<string, unknown>>;
    get(p: string): Promise<unknown>;
    has(p: string): Promise<boolean>;
  };
  let keys: string[] = [];
  try {
    keys = await g.keys();
  } catch (e) {
    out.push(`keys() threw ${errText(e)}`);
  }
  deepDiff(keys, links.map((l) => l.name), 'keys()', out, 40);
  for (const l of links) {
    const where = `link ${JSON.stringify(l.name)}`;
    let info: Record<string, unknown>;
    try {
      info = await g.getLink(l.name);
    } catch (e) {
      out.push(`${where}: getLink threw ${errText(e)}`);
      continue;
    }
    if (info.kind !== l.kind) out.push(`${where}: expected kind ${l.kind}, got ${String(info.kind)}`);
    const childPath = (obj.path === '/' ? '/' : obj.path + '/') + l.name;
    if (l.kind === 'hard') {
      const child = byPath.get(childPath);
      if (child && info.address !== child.address) out.push(`${where}: expected address ${child.address}, got ${String(info.address)}`);
      if (!(await g.has(l.name).catch(() => false))) out.push(`${where}: has() is false for a hard link`);
    } else if (l.kind === 'soft') {
      if (info.target !== l.target) out.push(`${where}: expected target ${l.target}, got ${String(info.target)}`);
      if (l.dangling) {
        try {
          const t = await g.get(l.name);
          out.push(`${where}: dangling soft link resolved to ${kindOf(t)}`);
        } catch (e) {
          if (!(e instanceof NotFoundError)) out.push(`${where}: dangling soft link should throw NotFoundError, threw ${errText(e)}`);
        }
      } else {
        try {
          const t = (await g.get(l.name)) as AnyNode;
          if (kindOf(t) !== l.target_kind) out.push(`${where}: resolves to ${kindOf(t)}, expected ${l.target_kind}`);
          const target = [...byPath.values()].find((o) => o.address === l.target_address && !o.alias_of);
          if (target && kindOf(t) === 'dataset' && target.values && !target.chunked) {
            deepDiff(norm(await (t as unknown as { read(): Promise<unknown> }).read()), target.values, `${where} → values`, out);
          }
        } catch (e) {
          out.push(`${where}: get() threw ${errText(e)}`);
        }
      }
    } else {
      if (info.file !== l.file || info.path !== l.path) {
        out.push(`${where}: expected external ${l.file}:${l.path}, got ${String(info.file)}:${String(info.path)}`);
      }
      try {
        const t = (await g.get(l.name)) as AnyNode;
        if (kindOf(t) !== 'external' || t.file !== l.file || t.path !== l.path) {
          out.push(`${where}: get() should return ExternalLink(${l.file}, ${l.path}), got ${kindOf(t)} ${String(t.file)}:${String(t.path)}`);
        }
      } catch (e) {
        out.push(`${where}: get() threw ${errText(e)}`);
      }
    }
  }
  void file;
}

async function checkDataset(node: AnyNode, obj: DumpObject, out: string[], opts: CheckOptions): Promise<void> {
  const ds = node as unknown as {
    shape: number[];
    maxShape: (number | null)[] | null;
    dtype: unknown;
    layout: { class: string };
    fillValue: unknown;
    read(): Promise<unknown>;
  };
  const shape = obj.shape ?? null;
  if (shape === null) {
    if (ds.shape !== null && !(Array.isArray(ds.shape) && ds.shape.length === 0)) {
      out.push(`shape: null dataspace, got ${JSON.stringify(ds.shape)}`);
    }
  } else {
    deepDiff(ds.shape, shape, 'shape', out);
  }
  const maxshape = obj.maxshape ?? null;
  if (ds.maxShape === null) {
    const same = maxshape === null || JSON.stringify(maxshape) === JSON.stringify(shape);
    if (!same) out.push(`maxShape: expected ${JSON.stringify(maxshape)}, got null`);
  } else {
    deepDiff(ds.maxShape, maxshape, 'maxShape', out);
  }
  dtypeDiff(ds.dtype, obj.dtype!, 'dtype', out);
  if (ds.layout?.class !== obj.layout) out.push(`layout: expected ${obj.layout}, got ${String(ds.layout?.class)}`);
  if (obj.fill?.defined === 'user' && obj.fill.value !== null) {
    try {
      const fv = typeof ds.fillValue === 'function' ? await (ds.fillValue as () => Promise<unknown>).call(ds) : ds.fillValue;
      deepDiff(norm(fv), obj.fill.value, 'fillValue', out);
    } catch (e) {
      out.push(`fillValue threw ${errText(e)}`);
    }
  }
  if (obj.chunked && !opts.readChunked) return;
  let values: unknown;
  try {
    values = await ds.read();
  } catch (e) {
    out.push(`read() threw ${errText(e)}`);
    return;
  }
  if (obj.values_digest) {
    digestDiff(values, obj.values_digest, 'values', out);
    return;
  }
  if (obj.values === null || obj.values === undefined) {
    const empty = values === null || (containerOf(values) !== 'object' && (values as ArrayLike<unknown>).length === 0);
    if (!empty) out.push(`values: null dataspace should read as null or empty, got ${containerOf(values)}`);
    return;
  }
  const want = expectedContainer(obj.dtype!);
  if (containerOf(values) !== want) out.push(`values: expected a ${want}, got ${containerOf(values)}`);
  deepDiff(norm(values), obj.values, 'values', out);
}

/** Compares the object at `obj.path` in `file` with the oracle's description of it. */
export async function checkObject(
  file: H5File,
  obj: DumpObject,
  byPath: Map<string, DumpObject>,
  opts: CheckOptions = {},
): Promise<string[]> {
  const out: string[] = [];
  let node: AnyNode;
  try {
    node = (obj.path === '/' ? file : await file.get(obj.path)) as unknown as AnyNode;
  } catch (e) {
    return [`get(${JSON.stringify(obj.path)}) threw ${errText(e)}`];
  }
  const kind = kindOf(node);
  if (kind !== obj.kind) return [`expected a ${obj.kind}, got ${kind}`];
  if (node.path !== obj.path) out.push(`path: expected ${obj.path}, got ${String(node.path)}`);
  if (obj.alias_of) {
    const orig = byPath.get(obj.alias_of);
    if (orig && kind === 'dataset' && orig.values && !orig.chunked) {
      try {
        deepDiff(norm(await (node as unknown as { read(): Promise<unknown> }).read()), orig.values, `values (alias of ${obj.alias_of})`, out);
      } catch (e) {
        out.push(`read() threw ${errText(e)}`);
      }
    }
    return out;
  }
  if (kind === 'group') await checkGroup(file, node, obj, byPath, out);
  else if (kind === 'dataset') await checkDataset(node, obj, out, opts);
  await checkAttrs(node, obj, out, opts);
  return out;
}
