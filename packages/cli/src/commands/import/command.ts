/**
 * The commander definition of `chunkform import` (its logic, imported when the command runs, in ./import.ts, input formats in ./readers.ts).
 * @module
 */
import { Option, type Command } from 'commander';
import { collect, quietOf, type CommandContext } from '../common/command.js';
import type { ImportFormat } from './import.js';

/** Adds `import` to `program`. */
export function registerImport(program: Command, ctx: CommandContext): void {
  program
    .command('import')
    .description('import raw binary, .npy, text/CSV, COO or dump --sparse text into a new file (like h5import)')
    .argument('<input>', 'input file')
    .argument('<output>', 'HDF5 file to write (replaced only when the import succeeds)')
    .option('-d, --dataset <path>', 'dataset path in the output (default: the dump\'s dataset name, else "data")')
    .addOption(new Option('--format <format>', 'input format (default from the extension)').choices(['raw', 'npy', 'text', 'coo', 'sparse-text']))
    .option('--dtype <type>', 'element type of raw, text and COO inputs, e.g. "<u2", int32, float64 (default float64)')
    .option('--shape <dims>', 'shape, e.g. 100x2048x2048')
    .option('--offset <bytes>', 'raw input: byte offset of the data', (v) => Number(v))
    .option('-l, --layout <spec>', 'CHUNK=AxB | SPARSECHUNK=AxB | CONTI | COMPA')
    .option('-f, --filter <spec>', '[SECTIONn:]GZIP=n | SHUF | LZ4 | ZSTD=n | … (repeatable)', collect)
    .option('--exclude <value>', 'dense input into a sparse layout: elements equal to VALUE stay undefined')
    .option('--fill <value>', 'fill value of the new dataset')
    .option('-q, --quiet', 'no progress bar')
    .action(async (input: string, output: string, o: Record<string, unknown>, cmd: Command) => {
      await ctx.prepare?.();
      await (await import('./import.js')).importFile(input, output, { ...o, format: o['format'] as ImportFormat | undefined, quiet: quietOf(cmd) }, ctx.io);
      ctx.setCode(0);
    });
}
