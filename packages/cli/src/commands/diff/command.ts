/**
 * The commander definition of `chunkform diff` (its logic, imported when the command runs, in ./diff.ts).
 * @module
 */
import { InvalidArgumentError, type Command } from 'commander';
import { quietOf, type CommandContext } from '../common/command.js';

function nonNegative(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a non-negative number');
  return n;
}

/** Adds `diff` to `program`. */
export function registerDiff(program: Command, ctx: CommandContext): void {
  program
    .command('diff')
    .description('compare two files or two objects; exit 0 same, 1 different, 2 error (like h5diff)')
    .argument('<file1>', 'first HDF5 file')
    .argument('<file2>', 'second HDF5 file')
    .argument('[obj1]', 'object in file1 (default: the root group)')
    .argument('[obj2]', 'object in file2 (default: obj1)')
    .option('-r, --report', 'print every difference')
    .option('-v, --verbose', 'list the objects and print every difference')
    .option('-q, --quiet', 'print nothing; the exit code tells')
    .option('-c, --compare', 'list objects that are not comparable')
    .option('-d, --delta <delta>', 'values differ when |a-b| > DELTA', nonNegative)
    .option('-p, --relative <relative>', 'values differ when |a-b|/|a| > RELATIVE', nonNegative)
    .option('--use-system-epsilon', 'floats differ when |a-b| > FLT_EPSILON or DBL_EPSILON')
    .option('--defined', 'sparse datasets: elements defined on one side only are differences too')
    .action(async (file1: string, file2: string, obj1: string | undefined, obj2: string | undefined, o: Record<string, unknown>, cmd: Command) => {
      await ctx.prepare?.();
      const code = await (await import('./diff.js')).diff(file1, file2, obj1, obj2, {
        report: o['report'] === true,
        verbose: o['verbose'] === true,
        quiet: quietOf(cmd),
        compareList: o['compare'] === true,
        ...(o['delta'] !== undefined ? { delta: o['delta'] as number } : {}),
        ...(o['relative'] !== undefined ? { relative: o['relative'] as number } : {}),
        useSystemEpsilon: o['useSystemEpsilon'] === true,
        defined: o['defined'] === true,
      }, ctx.io);
      ctx.setCode(code);
    });
}
