/**
 * Runs `chunkform ls` on one file.
 * @module
 */
import type { Group } from '@chunkform/core';
import { withFile } from '../../cli/with-file.js';
import { LineWriter } from '../../cli/sink.js';
import type { CliContext } from '../../cli/io.js';
import type { LsCommandOptions } from './command.js';
import { listTo } from './list.js';

/** Lists `path` of `file` on stdout; resolves to the number of objects that could not be read. */
export async function runLs(ctx: CliContext, file: string, path: string, opts: LsCommandOptions): Promise<number> {
  const w = new LineWriter(ctx.io.stdout);
  try {
    const { errors } = await withFile(file, (f: Group) => {
      if (opts.verbose) w.line(`Opened "${file}" with sec2 driver.`);
      return listTo(f, path, { recursive: opts.recursive === true, verbose: opts.verbose === true, data: opts.data === true, simple: opts.simple === true, full: opts.full === true, group: opts.group === true }, w);
    });
    return errors;
  } finally {
    await w.flush();
  }
}
