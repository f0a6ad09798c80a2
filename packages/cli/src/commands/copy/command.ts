/**
 * The commander definition of `chunkform copy` (its logic, imported when the command runs, in ./copy.ts).
 * @module
 */
import type { Command } from 'commander';
import { collect, quietOf, type CommandContext } from '../common/command.js';

/** Adds `copy` to `program`. */
export function registerCopy(program: Command, ctx: CommandContext): void {
  program
    .command('copy')
    .description('copy an object between files, chunks copied raw (like h5copy)')
    .requiredOption('-i, --input <file>', 'input file')
    .requiredOption('-o, --output <file>', 'output file (created, or extended)')
    .requiredOption('-s, --source <object>', 'source object')
    .requiredOption('-d, --destination <object>', 'destination object')
    .option('-p, --parents', 'create missing parent groups of the destination')
    .option('-f, --flag <flag>', 'shallow | soft | noattr (repeatable)', collect)
    .option('-v, --verbose', 'print what is copied')
    .option('-q, --quiet', 'no progress bar')
    .action(async (o: { input: string; output: string; source: string; destination: string; parents?: boolean; flag?: string[]; verbose?: boolean }, cmd: Command) => {
      await ctx.prepare?.();
      await (await import('./copy.js')).copy({ ...o, ...(o.flag ? { flags: o.flag } : {}), quiet: quietOf(cmd) }, ctx.io);
      ctx.setCode(0);
    });
}
