/**
 * The commander definition of `chunkform stat` (its logic, imported when the command runs, in ./stat.ts and ./collect.ts).
 * @module
 */
import type { Command } from 'commander';
import type { CommandContext } from '../common/command.js';

/** Adds `stat` to `program`. */
export function registerStat(program: Command, ctx: CommandContext): void {
  program
    .command('stat')
    .description('file statistics, with sparse storage breakdown (like h5stat)')
    .argument('<file>', 'HDF5 file')
    .option('-f, --file', 'file information')
    .option('-F, --filemetadata', 'file metadata sizes (superblock, chunk indexes)')
    .option('-g, --group', 'group information')
    .option('-d, --dset', 'dataset information (dimensions, storage, layout, filters)')
    .option('-T, --dtype', 'dataset datatype information')
    .option('-A, --attribute', 'attribute information')
    .option('-S, --summary', 'summary of file space')
    .option('--sparse', 'sparse storage breakdown (index and section bytes, defined elements)')
    .option('--json', 'one JSON document')
    .action(async (file: string, o: Record<string, boolean | undefined>) => {
      await ctx.prepare?.();
      await (await import('./stat.js')).stat(file, o, ctx.io);
      ctx.setCode(0);
    });
}
