/**
 * Visiting every object below a group once (hard links only; a second link to an object is not
 * followed again), depth first in link order — for tools that scan a file before working on it.
 * @module
 */
import { Dataset, Group, type CommittedDatatype } from '@chunkform/core';
import { objectAddress } from '../../inspect.js';

/** Groups nested deeper than this are not descended into. */
const MAX_DEPTH = 256;

/** Calls `visit` for every group (below `root`), dataset and committed datatype reachable through hard links. */
export async function walkObjects(
  root: Group,
  visit: (obj: Group | Dataset | CommittedDatatype) => void | Promise<void>,
): Promise<void> {
  const seen = new Set<number>();
  const rootAddr = objectAddress(root);
  if (rootAddr !== undefined) seen.add(rootAddr);
  const descend = async (g: Group, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) return;
    for (const link of await g.links()) {
      if (link.kind !== 'hard') continue;
      if (link.address !== undefined) {
        if (seen.has(link.address)) continue;
        seen.add(link.address);
      }
      const obj = await g.get(link.name);
      if (obj instanceof Group) {
        await visit(obj);
        await descend(obj, depth + 1);
      } else if (obj instanceof Dataset) await visit(obj);
      else if (obj.kind === 'datatype') await visit(obj);
    }
  };
  await descend(root, 0);
}

/** Every dataset reachable from `root`, once each. */
export async function listDatasets(root: Group): Promise<Dataset[]> {
  const out: Dataset[] = [];
  await walkObjects(root, (o) => {
    if (o instanceof Dataset) out.push(o);
  });
  return out;
}
