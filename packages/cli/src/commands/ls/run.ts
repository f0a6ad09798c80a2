/**
 * Runs `chunkform ls` on one file.
 * @module
 */
import type { Group } from '@chunkform/core';
import { withFile } from '../../cli/with-file.js';
import { LineWriter } from '../../cli/sink.js';
import type { CliContext } from '../../cli/io.js';
import type { LsCommandOptions } from './command.js';
import { listObjects } from './list.js';

/** Lists `path` of `file` on stdout; resolves to the number of objects that could not be read. */
export async function runLs(ctx: CliContext, file: string, path: string, opts: LsCommandOptions): Promise<number> {
  const w = new LineWriter(ctx.io.stdout);
  try {
    const { errors } = await withFile(file, (f: Group) =>
      listObjects(f, path, { recursive: opts.recursive === true, verbose: opts.verbose === true }, (l) => w.line(l)),
    );
    return errors;
  } finally {
    await w.flush();
  }
}
