/**
 * `dump -n` (h5dump `--contents`): the `FILE_CONTENTS { … }` list of every link below the root,
 * visited by name, depth first, as h5dump 1.10 prints it (`h5trav_print`): a second hard link to an
 * object names the first path it was seen at, soft and external links show their targets, and
 * `-n 1` adds the attributes after their object.
 * @module
 */
import { Dataset, Group, type CommittedDatatype, type H5File } from '@chunkform/core';
import type { LineWriter } from '../../cli/sink.js';
import { errorMessage } from '../../error-message.js';
import { objectAddress } from '../../inspect.js';
import { byName } from './ddl.js';

/** Groups nested deeper than this are not descended into. */
const MAX_DEPTH = 256;

/** Writes `HDF5 "name" { FILE_CONTENTS { … } }`; resolves to the number of objects that could not be read. */
export async function writeContents(w: LineWriter, name: string, root: H5File, withAttributes: boolean): Promise<number> {
  let errors = 0;
  const seen = new Map<number, string>();
  const entry = (kind: string, path: string, rest = ''): void => w.line(` ${kind.padEnd(10)} ${path}${rest}`);
  const attributes = async (obj: Group | Dataset | CommittedDatatype, path: string): Promise<void> => {
    if (!withAttributes) return;
    for (const a of (await obj.attrs.keys()).sort(byName)) entry('attribute', `${path === '/' ? '' : path}/${a}`);
  };
  const visit = async (g: Group, path: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) return;
    for (const name of (await g.keys()).sort(byName)) {
      const p = `${path === '/' ? '' : path}/${name}`;
      try {
        const link = await g.getLink(name);
        if (link.kind === 'soft') entry('link', p, ` -> ${link.target ?? ''}`);
        else if (link.kind === 'external') entry('ext link', p, ` -> ${link.file ?? ''} ${link.path ?? ''}`);
        else if (link.kind !== 'hard') entry('udlink', p);
        else {
          const obj = await g.get(name);
          const kind = obj instanceof Group ? 'group' : obj instanceof Dataset ? 'dataset' : 'datatype';
          const addr = link.address ?? objectAddress(obj);
          const first = addr !== undefined ? seen.get(addr) : undefined;
          if (first !== undefined) {
            entry(kind, p, ` -> ${first}`);
            continue;
          }
          if (addr !== undefined) seen.set(addr, p);
          entry(kind, p);
          await attributes(obj as Group | Dataset | CommittedDatatype, p);
          if (obj instanceof Group) await visit(obj, p, depth + 1);
        }
      } catch (e) {
        errors++;
        w.line(` ERROR      ${p}: ${errorMessage(e)}`);
      }
      await w.maybeFlush();
    }
  };
  w.line(`HDF5 "${name}" {`);
  w.line('FILE_CONTENTS {');
  const rootAddr = objectAddress(root);
  if (rootAddr !== undefined) seen.set(rootAddr, '/');
  entry('group', '/');
  await attributes(root, '/');
  await visit(root, '/', 0);
  w.line(' }');
  w.line('}');
  await w.flush();
  return errors;
}
