/**
 * Copying a group tree into another file: groups with their attributes, datasets (through a
 * caller's function that decides each one's layout and filters), soft and external links, and
 * second hard links to an object already copied (kept as hard links, as h5copy/h5repack do).
 * @module
 */
import { CommittedDatatype, Dataset, ExternalLink, Group, UnsupportedError } from '@chunkform/core';
import { objectAddress } from '../../inspect.js';
import { copyAttributes } from './attributes.js';

/** Writes dataset `src` as `name` in `parent` and returns the new dataset. */
export type DatasetWriter = (src: Dataset, parent: Group, name: string) => Promise<Dataset>;

/** Source object address → the copy's object address (hard links to one object stay one object). */
export type CopiedObjects = Map<number, number>;

/** h5copy's copy flags that chunkform supports. */
export interface CopyTreeOptions {
  /** Leave attributes out (h5copy -f noattr). */
  noAttributes?: boolean;
  /** Copy only the immediate members of a group; subgroups become empty groups (h5copy -f shallow). */
  shallow?: boolean;
  /** Copy the objects soft links point to instead of the links (h5copy -f soft). */
  expandSoftLinks?: boolean;
}

/** What a copy carries through the recursion. */
interface CopyState {
  writeDataset: DatasetWriter;
  copied: CopiedObjects;
  opts: CopyTreeOptions;
}

function childPath(parent: string, name: string): string {
  return parent === '/' ? `/${name}` : `${parent}/${name}`;
}

/** Copies the members (and, recursively, their members) of `from` into the existing group `to`. */
export async function copyMembers(from: Group, to: Group, writeDataset: DatasetWriter, opts: CopyTreeOptions = {}): Promise<void> {
  await members(from, to, { writeDataset, copied: new Map(), opts }, 0);
}

async function members(from: Group, to: Group, st: CopyState, depth: number): Promise<void> {
  if (st.opts.shallow && depth > 1) return;
  for (const link of await from.links()) {
    if (link.kind === 'soft' && st.opts.expandSoftLinks) {
      const target = await from.get(link.name);
      await copyNode(target, to, link.name, st, depth);
      continue;
    }
    if (link.kind === 'soft') {
      await to.addLink({ name: link.name, kind: 'soft', target: link.target!, charset: 'utf-8' });
      continue;
    }
    if (link.kind === 'external') {
      await to.addLink({ name: link.name, kind: 'external', externalFile: link.file!, externalPath: link.path!, charset: 'utf-8' });
      continue;
    }
    if (link.kind !== 'hard') throw new UnsupportedError(`user-defined link "${link.name}" cannot be copied`, { path: from.path });
    const seen = link.address !== undefined ? st.copied.get(link.address) : undefined;
    if (seen !== undefined) {
      await to.addLink({ name: link.name, kind: 'hard', address: seen, charset: 'utf-8' });
      continue;
    }
    await copyNode(await from.get(link.name), to, link.name, st, depth);
  }
}

async function copyNode(obj: Group | Dataset | CommittedDatatype | ExternalLink, to: Group, name: string, st: CopyState, depth: number): Promise<Group | Dataset> {
  const src = objectAddress(obj);
  const seen = src !== undefined ? st.copied.get(src) : undefined;
  if (seen !== undefined) {
    await to.addLink({ name, kind: 'hard', address: seen, charset: 'utf-8' });
    return (await to.get(name)) as Group | Dataset;
  }
  let made: Group | Dataset;
  if (obj instanceof Dataset) {
    made = await st.writeDataset(obj, to, name);
    if (!st.opts.noAttributes) await copyAttributes(obj.attrs, made.attrs);
  } else if (obj instanceof Group) {
    const g = await to.createGroup(name);
    made = g;
    if (src !== undefined) st.copied.set(src, objectAddress(g)!);
    if (!st.opts.noAttributes) await copyAttributes(obj.attrs, g.attrs);
    await members(obj, g, st, depth + 1);
  } else if (obj instanceof CommittedDatatype) {
    throw new UnsupportedError('copying committed (named) datatypes is not supported', { path: childPath(to.path, name) });
  } else throw new UnsupportedError('an external link target cannot be copied as an object', { path: childPath(to.path, name) });
  const a = objectAddress(made);
  if (src !== undefined && a !== undefined) st.copied.set(src, a);
  return made;
}

/** Copies one object (group tree, dataset) as `name` in `to`. */
export async function copyObject(
  obj: Group | Dataset | CommittedDatatype | ExternalLink,
  to: Group,
  name: string,
  writeDataset: DatasetWriter,
  opts: CopyTreeOptions = {},
): Promise<Group | Dataset> {
  return copyNode(obj, to, name, { writeDataset, copied: new Map(), opts }, 0);
}
