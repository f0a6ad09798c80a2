/**
 * The commander definition of `chunkform dump` (h5dump): option names follow h5dump 1.10 so
 * habits and scripts carry over. The work is in `run.ts`, imported when the command runs.
 * @module
 */
import type { Command } from 'commander';
import { EXIT_ERROR, type CliContext } from '../../cli/io.js';

/** Options of `chunkform dump` as commander parses them. */
export interface DumpCommandOptions {
  dataset?: string[];
  group?: string[];
  attribute?: string[];
  datatype?: string[];
  softLink?: string[];
  contents?: string | boolean;
  header?: boolean;
  onlyattr?: boolean;
  properties?: boolean;
  start?: string;
  stride?: string;
  count?: string;
  block?: string;
  binary?: string | boolean;
  output?: string;
  noindex?: boolean;
  escape?: boolean;
  width?: Sequenced;
  format?: Sequenced;
  json?: boolean;
  values?: boolean;
  sparse?: boolean;
  sparseLocations?: boolean;
}

/** An option value with the position it was given at (h5dump: `-m` resets the width unless `-w` follows). */
export interface Sequenced {
  value: string;
  seq: number;
}

let sequence = 0;
function sequenced(value: string): Sequenced {
  return { value, seq: ++sequence };
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Adds `dump` to `program`. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('dump')
    .description('print objects with their attributes and values in h5dump\'s DDL (or JSON)')
    .argument('<file>', 'HDF5 file')
    .argument('[path]', 'group or dataset to dump (default: the whole file)')
    .option('-d, --dataset <path>', 'print the specified dataset (repeatable)', collect)
    .option('-g, --group <path>', 'print the specified group and all members (repeatable)', collect)
    .option('-a, --attribute <path>', 'print the specified attribute (repeatable)', collect)
    .option('-t, --datatype <path>', 'print the specified named datatype (repeatable)', collect)
    .option('-l, --soft-link <path>', 'print the specified soft (or external) link (repeatable)', collect)
    .option('-n, --contents', 'print a list of the file contents and exit; `-n 1 FILE` also lists attributes')
    .option('-H, --header', 'print the header only; no data')
    .option('-A, --onlyattr', 'print the header and the values of attributes; no dataset data')
    .option('-p, --properties', 'print storage layout, filters, fill value and allocation time')
    .option('-s, --start <list>', 'offset of the start of the subsetting selection (with -d)')
    .option('-S, --stride <list>', 'hyperslab stride')
    .option('-c, --count <list>', 'number of blocks in the hyperslab')
    .option('-k, --block <list>', 'size of a block in the hyperslab')
    .option('-b, --binary [order]', 'write raw data to the -o file: NATIVE (default), LE, BE or FILE')
    .option('-o, --output <file>', 'write data (text, or binary with -b) to FILE')
    .option('-y, --noindex', 'do not print array indices with the data')
    .option('-e, --escape', 'escape quotes, backslashes and non-printing characters in strings')
    .option('-w, --width <n>', 'number of columns of output (default 80; 0: 65535)', sequenced)
    .option('-m, --format <fmt>', 'printf format of floating-point values, e.g. %.3f (one value per line unless -w follows, as in h5dump)', sequenced)
    .option('--json', 'write one JSON document (schema in docs/cli.md)')
    .option('--no-values', 'leave out dataset values (like -H)')
    .option('--sparse', 'sparse datasets: print the defined elements with their values, by region')
    .option('--sparse-locations', 'sparse datasets: print where the defined elements are (REGION_TYPE BLOCK lines)')
    .action(async (fileArg: string, pathArg: string | undefined, opts: DumpCommandOptions) => {
      let file = fileArg;
      let path = pathArg;
      // h5dump's `-n 1 FILE`: the 1 arrives as the first argument
      if (opts.contents === true && (file === '0' || file === '1') && path !== undefined) {
        opts.contents = file;
        [file, path] = [path, undefined];
      }
      const { parseDumpOptions } = await import('./options.js');
      const parsed = parseDumpOptions(path, opts);
      await ctx.prepare();
      const { runDump } = await import('./run.js');
      const errors = await runDump(ctx, file, parsed);
      if (errors > 0 && !ctx.globals().quiet) {
        ctx.io.stderr.write(`chunkform: ${errors} object${errors === 1 ? '' : 's'} could not be read completely\n`);
      }
      ctx.setCode(errors > 0 ? EXIT_ERROR : 0);
    });
}
