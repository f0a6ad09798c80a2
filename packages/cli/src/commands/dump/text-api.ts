/**
 * `dumpText`: the DDL of one object (h5dump's text, without the `HDF5 "file" { }` wrapper) for
 * programs, one line per call of a {@link LineSink}.
 * @module
 */
import type { Group } from '@chunkform/core';
import { lineSinkWriter } from '../../cli/sink.js';
import type { LineSink } from '../../inspect.js';
import { DdlDumper } from './ddl.js';
import { parseDumpOptions } from './options.js';

/** Options of {@link dumpText}. */
export interface DumpTextOptions {
  /** Leave out dataset and attribute values (h5dump -H). */
  noValues?: boolean;
  /** Print storage layout, filters, fill value and allocation time (h5dump -p). */
  properties?: boolean;
}

/**
 * Writes the DDL of `path` (a group with everything below it, or a dataset) to `out`, line by line.
 * Resolves to the number of objects that could not be read completely.
 */
export async function dumpText(root: Group, path = '/', opts: DumpTextOptions = {}, out: LineSink): Promise<number> {
  const { writer: w, end } = lineSinkWriter(out);
  const plan = parseDumpOptions(path, { header: opts.noValues === true, properties: opts.properties === true });
  const d = new DdlDumper(w, plan);
  await d.objects(root);
  await w.flush();
  end();
  return d.errors;
}
