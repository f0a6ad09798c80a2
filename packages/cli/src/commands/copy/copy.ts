/**
 * `chunkform copy` (h5copy): copies an object (a dataset, or a group with everything below it)
 * from one file into another, new or existing. Chunks are copied raw — never decoded, so
 * datasets with filters chunkform does not have copy too — and the output changes all or nothing:
 * an existing output is copied aside, extended and renamed back only when the copy succeeded.
 * @module
 */
import { copyFile, rm, rename, access } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Dataset, Group, NotFoundError, openFile, ValueError, type H5File } from '@chunkform/core';
import { copyDataset, sourceFilters, sourceLayout } from '../common/dataset-copy.js';
import { outputContainer, unknownFilters } from '../common/filter-registry.js';
import type { CommandIO } from '../common/io.js';
import { withOutputFile } from '../common/output-file.js';
import { createProgress } from '../../cli/progress.js';
import { copyObject, type CopyTreeOptions } from '../common/tree-copy.js';
import { listDatasets } from '../common/walk.js';

/** Options of {@link copy}. */
export interface CopyOptions {
  input: string;
  output: string;
  source: string;
  destination: string;
  /** -p: create missing parent groups of the destination. */
  parents?: boolean;
  /** -f flags: shallow, soft, noattr. */
  flags?: string[];
  verbose?: boolean;
  quiet?: boolean;
}

function treeOptions(flags: readonly string[]): CopyTreeOptions {
  const o: CopyTreeOptions = {};
  for (const f of flags) {
    switch (f) {
      case 'shallow':
        o.shallow = true;
        break;
      case 'soft':
        o.expandSoftLinks = true;
        break;
      case 'noattr':
        o.noAttributes = true;
        break;
      case 'ext':
      case 'ref':
      case 'allflags':
        throw new ValueError(`-f ${f} is not supported by chunkform copy (shallow, soft and noattr are)`);
      default:
        throw new ValueError(`-f ${f}: unknown flag (use shallow, soft or noattr)`);
    }
  }
  return o;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** The group that will hold `path` in `f`, created when `parents` (else it must exist). */
async function parentGroup(f: H5File, path: string, parents: boolean): Promise<{ group: Group; name: string }> {
  const parts = path.split('/').filter((p) => p !== '');
  if (parts.length === 0) throw new ValueError('the destination must name an object, not the root group');
  const name = parts.pop()!;
  let g: Group = f;
  for (const p of parts) {
    if (await g.has(p)) {
      const next = await g.get(p);
      if (!(next instanceof Group)) throw new ValueError(`destination parent "${p}" is not a group`, { path: g.path });
      g = next;
    } else if (parents) g = await g.createGroup(p);
    else throw new NotFoundError(`destination parent group "${g.path === '/' ? '' : g.path}/${p}" does not exist (use -p to create it)`);
  }
  if (await g.has(name)) throw new ValueError(`destination object "${path}" already exists`);
  return { group: g, name };
}

/** Copies `source` of `input` to `destination` of `output`. */
export async function copy(o: CopyOptions, io: CommandIO): Promise<void> {
  const tree = treeOptions(o.flags ?? []);
  const src = await openFile(o.input, { mode: 'r' });
  const progress = createProgress(io.stderr, o.quiet === true, 'copy');
  try {
    if (!(await src.has(o.source))) throw new NotFoundError(`object "${o.source}" does not exist in ${o.input}`);
    const obj = await src.get(o.source);
    if (!(obj instanceof Group) && !(obj instanceof Dataset)) throw new ValueError(`object "${o.source}" is neither a group nor a dataset`);
    const datasets = obj instanceof Dataset ? [obj] : await listDatasets(obj);
    const container = outputContainer(unknownFilters(datasets));
    if (o.verbose) io.stdout.write(`Copying file <${o.input}> and object <${o.source}> to file <${o.output}> and object <${o.destination}>\n`);
    const body = async (dst: H5File): Promise<void> => {
      const { group, name } = await parentGroup(dst, o.destination, o.parents === true);
      await copyObject(obj, group, name, (ds, parent, n) => copyDataset(ds, parent, n, { layout: sourceLayout(ds), filters: sourceFilters(ds), raw: true }, progress), tree);
    };
    const sparse = datasets.some((d) => d.layout.class === 'structured');
    if (!(await exists(o.output))) {
      await withOutputFile(o.output, { superblockVersion: sparse ? 3 : 2, container }, body);
      return;
    }
    const tmp = join(dirname(o.output), `.${basename(o.output)}.${process.pid}.${Date.now().toString(36)}.tmp`);
    await copyFile(o.output, tmp);
    try {
      const dst = await openFile(tmp, { mode: 'r+', container });
      try {
        await body(dst);
      } finally {
        await dst.close();
      }
      await rename(tmp, o.output);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
  } finally {
    progress.stop();
    await src.close();
  }
}
