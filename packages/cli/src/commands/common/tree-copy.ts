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

function childPath(parent: string, name: string): string {
  return parent === '/' ? `/${name}` : `${parent}/${name}`;
}

/** Copies the members (and, recursively, their members) of `from` into the existing group `to`. */
export async function copyMembers(from: Group, to: Group, writeDataset: DatasetWriter, copied: CopiedObjects = new Map()): Promise<void> {
  for (const link of await from.links()) {
    if (link.kind === 'soft') {
      await to.addLink({ name: link.name, kind: 'soft', target: link.target!, charset: 'utf-8' });
      continue;
    }
    if (link.kind === 'external') {
      await to.addLink({ name: link.name, kind: 'external', externalFile: link.file!, externalPath: link.path!, charset: 'utf-8' });
      continue;
    }
    if (link.kind !== 'hard') throw new UnsupportedError(`user-defined link "${link.name}" cannot be copied`, { path: from.path });
    const seen = link.address !== undefined ? copied.get(link.address) : undefined;
    if (seen !== undefined) {
      await to.addLink({ name: link.name, kind: 'hard', address: seen, charset: 'utf-8' });
      continue;
    }
    const obj = await from.get(link.name);
    const made = await copyObject(obj, to, link.name, writeDataset, copied);
    const a = objectAddress(made);
    if (link.address !== undefined && a !== undefined) copied.set(link.address, a);
  }
}

/** Copies one object (group tree, dataset) as `name` in `to`. */
export async function copyObject(
  obj: Group | Dataset | CommittedDatatype | ExternalLink,
  to: Group,
  name: string,
  writeDataset: DatasetWriter,
  copied: CopiedObjects = new Map(),
): Promise<Group | Dataset> {
  if (obj instanceof Dataset) {
    const d = await writeDataset(obj, to, name);
    await copyAttributes(obj.attrs, d.attrs);
    return d;
  }
  if (obj instanceof Group) {
    const g = await to.createGroup(name);
    await copyAttributes(obj.attrs, g.attrs);
    await copyMembers(obj, g, writeDataset, copied);
    return g;
  }
  if (obj instanceof CommittedDatatype) {
    throw new UnsupportedError('copying committed (named) datatypes is not supported', { path: childPath(to.path, name) });
  }
  throw new UnsupportedError('an external link target cannot be copied as an object', { path: childPath(to.path, name) });
}
