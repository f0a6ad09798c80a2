/**
 * The commander definition of `chunkform ls` (h5ls); the listing itself is in `list.ts`, imported
 * when the command runs.
 * @module
 */
import type { Command } from 'commander';
import { EXIT_ERROR, type CliContext } from '../../cli/io.js';
import type { LsOptions } from './list.js';

/** Options of `chunkform ls` as commander parses them: the listing's own options, one flag each. */
export type LsCommandOptions = LsOptions;

/** Adds `ls` to `program`. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('ls')
    .description('list the members of a group (or one dataset), like h5ls')
    .argument('<file>', 'HDF5 file')
    .argument('[path]', 'group or dataset inside the file', '/')
    .option('-r, --recursive', 'list everything below PATH, naming objects by full path')
    .option('-v, --verbose', 'show attributes, location, links, chunks, storage (sparse: per section), filters and type')
    .option('-d, --data', 'print the values of datasets (and, with -v, of attributes)')
    .option('-S, --simple', 'with -d: one value per line')
    .option('-f, --full', 'name members by their path, /name (with -r: full paths)')
    .option('-g, --group', 'show the group itself (with -v: its details), not its members')
    .action(async (file: string, path: string, opts: LsCommandOptions) => {
      await ctx.prepare();
      const { runLs } = await import('./run.js');
      const errors = await runLs(ctx, file, path, opts);
      if (errors > 0 && !ctx.globals().quiet) ctx.io.stderr.write(`chunkform: ${errors} object${errors === 1 ? '' : 's'} could not be read\n`);
      ctx.setCode(errors > 0 ? EXIT_ERROR : 0);
    });
}
