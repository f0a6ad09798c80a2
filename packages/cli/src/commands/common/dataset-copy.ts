/**
 * Copying one dataset into another file with a new (or the same) layout and filters, block by
 * block so memory stays bounded: chunks copied raw (never decoded) when layout and filters do not
 * change, otherwise values read and written one block of whole target chunks at a time. Going to
 * a sparse layout, the defined elements of each block are those defined in the source, restricted
 * to a `--defined-elements` selection and without the elements equal to an `--exclude` value.
 * Used by `repack` and `copy`.
 * @module
 */
import {
  intersect,
  offsetSelection,
  selectionRuns,
  UnsupportedError,
  ValueError,
  type BlockSelection,
  type Datatype,
  type CreateDatasetOptions,
  type Dataset,
  type FilterSpec,
  type Group,
  type Selection,
  type Values,
} from '@chunkform/core';
import { runsToBoxes } from '@chunkform/format-sparse';
import { alignBlock, blockDims, blocksOf, BLOCK_BYTES, type Block } from './blocks.js';
import { userClientData } from './filter-registry.js';
import type { Progress } from '../../cli/progress.js';

/** Target layout of a dataset. */
export type LayoutSpec =
  | { kind: 'contiguous' }
  | { kind: 'compact' }
  | { kind: 'chunked'; chunks: number[] }
  | { kind: 'sparse'; chunks: number[] };

/** Filters of a target: one pipeline (dense) or one per section (sparse: selection, values). */
export type TargetFilters = { kind: 'dense'; filters: FilterSpec[] } | { kind: 'sparse'; selection: FilterSpec[]; values: FilterSpec[] };

/** How a dataset is to be written. */
export interface DatasetTarget {
  layout: LayoutSpec;
  filters: TargetFilters;
  /** Copy stored chunks verbatim (layout and filters unchanged). */
  raw: boolean;
  /** Sparse targets: only elements in this selection (dataset coordinates) are defined. */
  defined?: Selection | undefined;
  /** Sparse targets: elements equal to this value (as typed on the command line) are left undefined. */
  exclude?: string | undefined;
}

/** The layout a dataset has now, as a repack target. */
export function sourceLayout(src: Dataset): LayoutSpec {
  const l = src.layout;
  switch (l.class) {
    case 'compact':
      return { kind: 'compact' };
    case 'contiguous':
      return { kind: 'contiguous' };
    case 'chunked':
      return { kind: 'chunked', chunks: [...l.chunkDims] };
    case 'structured':
      return { kind: 'sparse', chunks: [...l.chunkDims] };
    default:
      throw new UnsupportedError(`copying ${l.class} datasets is not supported`, { path: src.path });
  }
}

function specsOf(filters: readonly { id: number; flags: number; clientData: readonly number[]; name?: string | undefined }[]): FilterSpec[] {
  return filters.map((f) => ({
    id: f.id,
    clientData: userClientData(f.id, f.clientData),
    optional: (f.flags & 1) === 1,
    ...(f.id >= 256 && f.name ? { name: f.name } : {}),
  }));
}

/** The filters a dataset has now, as user-level specs (client data before "set local"). */
export function sourceFilters(src: Dataset): TargetFilters {
  if (src.layout.class === 'structured') {
    const s = src.sectionFilters ?? [];
    return { kind: 'sparse', selection: specsOf(s[0]?.filters ?? []), values: specsOf(s[1]?.filters ?? []) };
  }
  return { kind: 'dense', filters: specsOf(src.filters) };
}

/** True when two targets' layouts are the same (kind and chunk dims). */
export function sameLayout(a: LayoutSpec, b: LayoutSpec): boolean {
  if (a.kind !== b.kind) return false;
  if ((a.kind === 'chunked' || a.kind === 'sparse') && (b.kind === 'chunked' || b.kind === 'sparse')) {
    return a.chunks.length === b.chunks.length && a.chunks.every((c, i) => c === b.chunks[i]);
  }
  return true;
}

/** True when two filter lists are equal (ids, optional flags and user client data). */
export function sameFilters(a: TargetFilters, b: TargetFilters): boolean {
  const eq = (x: FilterSpec[], y: FilterSpec[]): boolean =>
    x.length === y.length &&
    x.every((f, i) => {
      const g = y[i]!;
      const cx = f.clientData ?? [];
      const cy = g.clientData ?? [];
      return f.id === g.id && !!f.optional === !!g.optional && cx.length === cy.length && cx.every((v, j) => v === cy[j]);
    });
  if (a.kind === 'dense' && b.kind === 'dense') return eq(a.filters, b.filters);
  if (a.kind === 'sparse' && b.kind === 'sparse') return eq(a.selection, b.selection) && eq(a.values, b.values);
  return false;
}

/** The layout and filter options of a new dataset written as `layout` with `f`. */
export function layoutOptions(layout: LayoutSpec, f: TargetFilters, path: string): Partial<CreateDatasetOptions> {
  switch (layout.kind) {
    case 'compact':
    case 'contiguous':
      if ((f.kind === 'dense' ? f.filters.length : f.selection.length + f.values.length) > 0) {
        throw new ValueError(`filters need a chunked layout, not ${layout.kind === 'compact' ? 'COMPA' : 'CONTI'}`, { path });
      }
      return { layout: layout.kind };
    case 'chunked':
      if (f.kind !== 'dense') throw new ValueError('per-section filters need a sparse (SPARSECHUNK) layout', { path });
      return { chunks: layout.chunks, layout: 'chunked', filters: f.filters };
    case 'sparse': {
      const sections = f.kind === 'sparse' ? { selection: f.selection, values: f.values } : { selection: f.filters, values: f.filters };
      return { chunks: layout.chunks, layout: 'sparse', filters: sections };
    }
  }
}

/** Options of the new dataset for `target`. */
async function createOptions(src: Dataset, t: DatasetTarget): Promise<CreateDatasetOptions> {
  const fill = await src.fillValue();
  const chunked = t.layout.kind === 'chunked' || t.layout.kind === 'sparse';
  const maxShape = chunked ? src.maxShape : null;
  return {
    dtype: src.dtype,
    shape: src.shape,
    ...(fill !== undefined ? { fillValue: fill } : {}),
    ...(maxShape ? { maxShape } : {}),
    ...layoutOptions(t.layout, t.filters, src.path),
  };
}

/** Clears in `mask` the elements of `values` equal to the `--exclude` value. */
export type Matcher = (values: Values, mask: Uint8Array) => void;

/** The `--exclude VALUE` test for values of `dtype` (integers, floats; `nan` matches NaN). */
export function excludeMatcher(dtype: Datatype, text: string, path: string): Matcher {
  const c = dtype.class;
  if (c !== 'integer' && c !== 'float') throw new ValueError(`--exclude needs an integer or float dataset, not ${c}`, { path });
  const t = text.trim();
  if (c === 'float' && /^nan$/i.test(t)) {
    return (values, mask) => {
      const v = values as Float64Array;
      for (let i = 0; i < mask.length; i++) if (v[i] !== v[i]) mask[i] = 0;
    };
  }
  const n = Number(t);
  if (t === '' || Number.isNaN(n)) throw new ValueError(`--exclude ${JSON.stringify(text)} is not a number`, { path });
  if (c === 'integer' && dtype.size === 8) {
    if (!/^[+-]?\d+$/.test(t)) throw new ValueError(`--exclude ${JSON.stringify(text)} is not an integer`, { path });
    const b = BigInt(t);
    return (values, mask) => {
      const v = values as BigInt64Array;
      for (let i = 0; i < mask.length; i++) if (v[i] === b) mask[i] = 0;
    };
  }
  return (values, mask) => {
    const v = values as Float64Array;
    for (let i = 0; i < mask.length; i++) if (v[i] === n) mask[i] = 0;
  };
}

/** C-order runs `[start, length, …]` of the 1s of `mask`. */
function maskRuns(mask: Uint8Array): Float64Array {
  const out: number[] = [];
  let i = 0;
  const n = mask.length;
  while (i < n) {
    const s = mask.indexOf(1, i);
    if (s < 0) break;
    let e = mask.indexOf(0, s);
    if (e < 0) e = n;
    out.push(s, e - s);
    i = e;
  }
  return Float64Array.from(out);
}

/** The values of `runs` (block-relative C-order runs), concatenated. */
function gather(values: Values, runs: Float64Array): Values {
  let n = 0;
  for (let i = 1; i < runs.length; i += 2) n += runs[i]!;
  if (ArrayBuffer.isView(values)) {
    const ta = values as unknown as { subarray(a: number, b: number): ArrayLike<unknown>; constructor: new (n: number) => Values };
    const out = new ta.constructor(n) as unknown as { set(a: ArrayLike<unknown>, at: number): void };
    let k = 0;
    for (let i = 0; i < runs.length; i += 2) {
      out.set(ta.subarray(runs[i]!, runs[i]! + runs[i + 1]!), k);
      k += runs[i + 1]!;
    }
    return out as unknown as Values;
  }
  const arr = values as unknown as unknown[];
  const out: unknown[] = [];
  for (let i = 0; i < runs.length; i += 2) for (let j = 0; j < runs[i + 1]!; j++) out.push(arr[runs[i]! + j]);
  return out as Values;
}

/** Marks in `mask` (block-relative) the elements of `sel` (dataset coordinates) within `b`. */
function markSelection(mask: Uint8Array, sel: Selection, b: Block): void {
  if (sel.kind === 'none') return;
  const rel = offsetSelection(sel, b.start.map((s) => -s));
  const runs = selectionRuns(rel, b.dims);
  for (let i = 0; i < runs.length; i += 2) mask.fill(1, runs[i]!, runs[i]! + runs[i + 1]!);
}

/** Writes one block to a sparse target with a computed defined set. */
async function writeMasked(src: Dataset, dst: Dataset, b: Block, t: DatasetTarget, exclude: Matcher | undefined, loaded?: Promise<Values>): Promise<void> {
  const shape = src.shape;
  const sparseSrc = src.layout.class === 'structured';
  const mask = new Uint8Array(b.count);
  if (sparseSrc) markSelection(mask, await src.getDefined(b.selection), b);
  else mask.fill(1);
  if (t.defined) {
    const keep = new Uint8Array(b.count);
    markSelection(keep, intersect(t.defined, b.selection, shape), b);
    for (let i = 0; i < mask.length; i++) mask[i]! &= keep[i]!;
  }
  if (mask.indexOf(1) < 0) return;
  const values = await (loaded ?? src.read(b.selection));
  if (exclude) exclude(values, mask);
  await writeBlockMasked(dst, values, b, mask);
}

/**
 * Writes the elements of block `b` whose `mask` entry is 1 (`values`: the whole block, C order):
 * as one hyperslab when all are, as the union of the runs' boxes otherwise, nothing when none are.
 */
export async function writeBlockMasked(dst: Dataset, values: Values, b: Block, mask: Uint8Array): Promise<void> {
  const runs = maskRuns(mask);
  if (runs.length === 0) return;
  if (runs.length === 2 && runs[1] === b.count) {
    await dst.write(values, b.selection);
    return;
  }
  const boxes = runsToBoxes(runs, 2, b.dims);
  const rank = b.dims.length;
  const rel: BlockSelection = { kind: 'blocks', rank, boxCount: boxes.length / (2 * rank), boxes };
  await dst.write(gather(values, runs), offsetSelection(rel, b.start));
}

/** The block shape for copying `src` into a target with `targetChunks` (null: contiguous/compact). */
function copyBlock(src: Dataset, targetChunks: readonly number[] | null): number[] {
  const shape = src.shape;
  const es = src.elementSize;
  const srcChunks = src.chunks;
  if (targetChunks) {
    // whole target chunks, grown to whole source chunks when that stays within budget
    const grown = srcChunks ? alignBlock(srcChunks, targetChunks, shape) : targetChunks.slice();
    const bytes = grown.reduce((a, n) => a * n, es);
    return bytes <= 4 * BLOCK_BYTES ? grown : targetChunks.slice();
  }
  return alignBlock(blockDims(shape, es, BLOCK_BYTES, srcChunks ?? undefined), srcChunks, shape);
}

/**
 * Creates `name` in `parent` as a copy of `src` written as `t` describes, and copies the values.
 * `progress` advances by the bytes of each block or chunk.
 */
export async function copyDataset(src: Dataset, parent: Group, name: string, t: DatasetTarget, progress: Progress): Promise<Dataset> {
  if (src.dataspace.kind === 'null') throw new UnsupportedError('copying a dataset with a null dataspace is not supported', { path: src.path });
  const opts = await createOptions(src, t);
  const es = src.elementSize;
  progress.grow(src.size * es);
  if (t.layout.kind === 'compact' || src.shape.length === 0) {
    const dst = await parent.createDataset(name, { ...opts, data: await src.read() });
    progress.advance(src.size * es);
    return dst;
  }
  const dst = await parent.createDataset(name, opts);
  if (t.raw && (t.layout.kind === 'chunked' || t.layout.kind === 'sparse')) {
    const chunkBytes = t.layout.chunks.reduce((a, n) => a * n, es);
    const chunks: number[][] = [];
    await src.iterateChunks((c) => void chunks.push(c.offset));
    for (const offset of chunks) {
      if (t.layout.kind === 'sparse') {
        const { sections, info } = await src.readStructChunk(offset);
        await dst.writeStructChunk(offset, sections, { unfilteredSizes: info.unfilteredSizes, filterMasks: info.filterMasks });
      } else {
        const img = await src.readChunk(offset);
        await dst.writeChunk(offset, img.bytes, img.filterMask);
      }
      progress.advance(chunkBytes);
    }
    progress.advance(Math.max(0, src.size * es - chunks.length * chunkBytes));
    return dst;
  }
  const sparseTarget = t.layout.kind === 'sparse';
  const sparseSrc = src.layout.class === 'structured';
  const exclude = sparseTarget && t.exclude !== undefined ? excludeMatcher(src.dtype, t.exclude, src.path) : undefined;
  const masked = sparseTarget && (exclude !== undefined || t.defined !== undefined);
  const block = copyBlock(src, t.layout.kind === 'chunked' || t.layout.kind === 'sparse' ? t.layout.chunks : null);
  // Dense sources: the next block is read (and decoded) while the current one is written.
  const readAhead = !sparseSrc && t.defined === undefined;
  const it = blocksOf(src.shape, block);
  const read = (b: Block | undefined): Promise<Values> | undefined => {
    if (!b || !readAhead) return undefined;
    const p = src.read(b.selection);
    p.catch(() => undefined); // awaited below; a failure surfaces there
    return p;
  };
  let b = it.next().value as Block | undefined;
  let pending = read(b);
  while (b) {
    const next = it.next().value as Block | undefined;
    const values = pending;
    pending = read(next);
    if (masked) await writeMasked(src, dst, b, t, exclude, values);
    else if (sparseTarget && sparseSrc) {
      const def = await src.getDefined(b.selection);
      if (def.kind !== 'none') await dst.write(await src.read(def), def);
    } else await dst.write(await (values ?? src.read(b.selection)), b.selection);
    progress.advance(b.count * es);
    b = next;
  }
  return dst;
}
