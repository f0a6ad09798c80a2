/**
 * The commander definition of `chunkform repack` (its logic, imported when the command runs, in ./repack.ts).
 * @module
 */
import type { Command } from 'commander';
import { collect, quietOf, type CommandContext } from '../common/command.js';

/** Adds `repack` to `program`. */
export function registerRepack(program: Command, ctx: CommandContext): void {
  program
    .command('repack')
    .description('copy a file with new dataset layouts and filters, to and from sparse storage (like h5repack)')
    .argument('<input>', 'HDF5 file to read')
    .argument('<output>', 'HDF5 file to write (replaced only when the repack succeeds)')
    .option('-l, --layout <spec>', '[OBJ,…:]CHUNK=AxB | SPARSECHUNK=AxB | CONTI | COMPA (repeatable)', collect)
    .option('-f, --filter <spec>', '[OBJ,…:][SECTIONn:]GZIP=n | SHUF | FLET | NBIT | SOFF=n,IN|DS | LZ4 | ZSTD=n | BSHUF[=LZ4|ZSTD] | UD=… | NONE (repeatable)', collect)
    .option('--exclude <value>', 'sparse outputs: elements equal to VALUE become undefined')
    .option('--defined-elements <ddl>', 'sparse outputs: [OBJ:]"BLOCK (a,b)-(c,d), … POINT (a,b), …" or @FILE (repeatable)', collect)
    .option('-m, --minimum <bytes>', 'do not apply the -f filters to datasets smaller than BYTES')
    .option('-q, --quiet', 'no progress bar')
    .option('-v, --verbose', 'print what is done with each dataset')
    .action(async (input: string, output: string, o: { layout?: string[]; filter?: string[]; exclude?: string; definedElements?: string[]; minimum?: string; verbose?: boolean }, cmd: Command) => {
      await ctx.prepare?.();
      await (await import('./repack.js')).repack(input, output, { ...o, quiet: quietOf(cmd) }, ctx.io);
      ctx.setCode(0);
    });
}
