/**
 * `chunkform import` (h5import): one input file — raw binary, `.npy`, a text/CSV table, COO
 * triplets or the text of `chunkform dump --sparse` — into a dataset of a new file, dense or sparse
 * (docs/cli.md "import"). Raw and `.npy` inputs are read block by block; the output is written
 * all or nothing.
 * @module
 */
import { extname } from 'node:path';
import { guessChunks, parseDtype, selectHyperslab, selectPoints, type CreateDatasetOptions, type Datatype, type FilterSpec, type Group, type Values } from '@chunkform/core';
import { blockDims, blocksOf } from '../common/blocks.js';
import { excludeMatcher, layoutOptions, writeBlockMasked, type LayoutSpec, type TargetFilters } from '../common/dataset-copy.js';
import type { CommandIO } from '../common/io.js';
import { withOutputFile } from '../common/output-file.js';
import { createProgress, type Progress } from '../../cli/progress.js';
import { parseFilterRule, parseLayoutRule, RepackSpecError } from '../repack/spec.js';
import { cooInput, ImportError, npyInput, rawInput, sparseTextInput, textInput, type DenseInput, type ImportInput, type SparseInput } from './readers.js';

/** Input formats. */
export type ImportFormat = 'raw' | 'npy' | 'text' | 'coo' | 'sparse-text';

/** Options of {@link importFile}. */
export interface ImportOptions {
  /** Dataset path in the output (default: the dump's dataset name, else `data`). */
  dataset?: string;
  /** Input format (default from the extension: .npy, .csv/.txt/.tsv text, .coo, .ddl/.dump sparse-text, else raw). */
  format?: ImportFormat;
  /** Element type of raw, text and COO inputs (default float64). */
  dtype?: string;
  /** Shape `AxB` (raw: default 1-D; text: rows × columns; COO: one past the largest index). */
  shape?: string;
  /** Byte offset of the data in a raw file. */
  offset?: number;
  /** Layout: `CHUNK=AxB`, `SPARSECHUNK=AxB`, `CONTI`, `COMPA` (default: contiguous for dense inputs, sparse for sparse ones). */
  layout?: string;
  /** Filters (as repack's `-f`, without object names). */
  filter?: string[];
  /** Dense inputs into a sparse layout: elements equal to VALUE stay undefined. */
  exclude?: string;
  /** Fill value of the new dataset. */
  fill?: string;
  quiet?: boolean;
}

const EXTENSIONS: Record<string, ImportFormat> = {
  '.npy': 'npy',
  '.csv': 'text',
  '.txt': 'text',
  '.tsv': 'text',
  '.coo': 'coo',
  '.ddl': 'sparse-text',
  '.dump': 'sparse-text',
};

function parseShape(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(/[xX,]/).map((t) => t.trim());
  const dims = parts.map(Number);
  if (parts.some((t) => !/^\d+$/.test(t)) || dims.some((d) => !Number.isSafeInteger(d))) throw new ImportError(`--shape ${text}: expected dimensions like 100x200`);
  return dims;
}

async function openInput(path: string, o: ImportOptions): Promise<ImportInput> {
  const format = o.format ?? EXTENSIONS[extname(path).toLowerCase()] ?? 'raw';
  const dtype = (): Datatype => parseDtype(o.dtype ?? 'float64');
  const shape = parseShape(o.shape);
  switch (format) {
    case 'raw':
      if (!o.dtype) throw new ImportError('raw input needs --dtype (e.g. --dtype "<u2")');
      return rawInput(path, dtype(), shape, o.offset ?? 0);
    case 'npy':
      return npyInput(path);
    case 'text':
      return textInput(path, dtype(), shape);
    case 'coo':
      return cooInput(path, dtype(), shape);
    case 'sparse-text':
      return sparseTextInput(path, o.dataset);
    default:
      throw new ImportError(`unknown --format ${String(format)} (raw, npy, text, coo or sparse-text)`);
  }
}

function targetOf(input: ImportInput, o: ImportOptions, path: string): { layout: LayoutSpec; filters: TargetFilters } {
  let layout: LayoutSpec;
  if (o.layout !== undefined) {
    const rule = parseLayoutRule(o.layout);
    if (rule.objects.length > 0) throw new RepackSpecError(`-l ${o.layout}: import takes a layout without object names`);
    layout = rule.layout;
  } else if (input.kind === 'sparse') {
    layout = { kind: 'sparse', chunks: guessChunks(input.shape, Math.max(1, (input.dtype as { size?: number }).size ?? 8)) };
  } else layout = { kind: 'contiguous' };
  if ((layout.kind === 'chunked' || layout.kind === 'sparse') && layout.chunks.length !== input.shape.length) {
    throw new RepackSpecError(`-l: chunk dims have rank ${layout.chunks.length}, the data rank ${input.shape.length}`, { path });
  }
  const rules = (o.filter ?? []).map(parseFilterRule);
  const sections: FilterSpec[][] = [[], []];
  const dense: FilterSpec[] = [];
  for (const r of rules) {
    if (r.objects.length > 0) throw new RepackSpecError('-f: import takes filters without object names');
    if (r.filter === null) continue;
    if (r.section !== undefined) {
      if (layout.kind !== 'sparse') throw new RepackSpecError('-f SECTIONn: per-section filters need a sparse (SPARSECHUNK) layout');
      sections[r.section]!.push(r.filter);
    } else {
      dense.push(r.filter);
      sections[0]!.push(r.filter);
      sections[1]!.push(r.filter);
    }
  }
  if (dense.length > 0 && (layout.kind === 'contiguous' || layout.kind === 'compact')) {
    if (o.layout !== undefined) throw new RepackSpecError('filters need a chunked layout (CHUNK= or SPARSECHUNK=)');
    layout = { kind: 'chunked', chunks: guessChunks(input.shape, 8) };
  }
  if (input.kind === 'sparse' && layout.kind !== 'sparse' && o.layout === undefined) layout = { kind: 'sparse', chunks: guessChunks(input.shape, 8) };
  const filters: TargetFilters = layout.kind === 'sparse' ? { kind: 'sparse', selection: sections[0]!, values: sections[1]! } : { kind: 'dense', filters: dense };
  return { layout, filters };
}

function fillOf(dtype: Datatype, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  const big = dtype.class === 'integer' && dtype.size === 8;
  if (big ? !/^[+-]?\d+$/.test(text.trim()) : Number.isNaN(Number(text)) && !/^nan$/i.test(text.trim())) throw new ImportError(`--fill ${text} is not a number`);
  return big ? BigInt(text.trim()) : Number(text);
}

/** Imports `input` into a new file `output`; resolves to the dataset path written. */
export async function importFile(input: string, output: string, o: ImportOptions, io: CommandIO): Promise<string> {
  const src = await openInput(input, o);
  const progress = createProgress(io.stderr, o.quiet === true, 'import');
  try {
    const name = o.dataset ?? (src.kind === 'sparse' && src.name ? src.name : 'data');
    const path = name.startsWith('/') ? name : `/${name}`;
    const target = targetOf(src, o, path);
    const fill = fillOf(src.dtype, o.fill);
    const sparse = target.layout.kind === 'sparse';
    await withOutputFile(output, { superblockVersion: sparse ? 3 : 2 }, async (f) => {
      const opts: CreateDatasetOptions = {
        dtype: src.dtype,
        shape: src.shape,
        ...(fill !== undefined ? { fillValue: fill } : {}),
        ...layoutOptions(target.layout, target.filters, path),
      };
      if (src.kind === 'sparse') {
        const d = await f.createDataset(path, opts);
        progress.grow(src.blocks.length + 1);
        for (const b of src.blocks) {
          await d.write(b.values, selectHyperslab({ start: b.start, block: b.last.map((l, k) => l - b.start[k]! + 1) }));
          progress.advance(1);
        }
        if (src.points.coords.length > 0) await d.write(src.points.values, selectPoints(src.points.coords));
        progress.advance(1);
        return;
      }
      await writeDense(src, opts, f, path, target.layout, o.exclude, progress);
    });
    return path;
  } finally {
    progress.stop();
    if (src.kind === 'dense') await src.close();
  }
}

async function writeDense(
  src: DenseInput,
  opts: CreateDatasetOptions,
  f: Group,
  path: string,
  layout: LayoutSpec,
  exclude: string | undefined,
  progress: Progress,
): Promise<void> {
  const es = Math.max(1, (src.dtype as { size?: number }).size ?? 8);
  const total = src.shape.reduce((a, b) => a * b, 1);
  if (layout.kind === 'compact' || src.shape.length === 0) {
    await f.createDataset(path, { ...opts, data: await src.read(0, total) });
    return;
  }
  const d = await f.createDataset(path, opts);
  const match = layout.kind === 'sparse' && exclude !== undefined ? excludeMatcher(src.dtype, exclude, path) : undefined;
  // whole rows (C order) so every block is one contiguous range of the input
  const rowBlock = blockDims(src.shape, es, 32 << 20).map((b, k) => (k === 0 ? b : src.shape[k]!));
  const block = layout.kind === 'chunked' || layout.kind === 'sparse' ? rowBlock.map((b, k) => (k === 0 ? Math.max(1, Math.floor(b / layout.chunks[0]!)) * layout.chunks[0]! : b)) : rowBlock;
  progress.grow(total * es);
  const rowElems = src.shape.slice(1).reduce((a, b) => a * b, 1);
  for (const b of blocksOf(src.shape, block)) {
    const values: Values = await src.read(b.start[0]! * rowElems, b.count);
    if (match) {
      const mask = new Uint8Array(b.count).fill(1);
      match(values, mask);
      await writeBlockMasked(d, values, b, mask);
    } else await d.write(values, b.selection);
    progress.advance(b.count * es);
  }
}
