/**
 * `chunkform repack` (h5repack): writes a copy of a file with new dataset layouts and filters,
 * including to and from sparse storage (docs/cli.md, "repack"). The output is written all or
 * nothing; chunks are copied raw when a dataset's layout and filters do not change.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { openFile, selectBlocks, ValueError, type Box, type Dataset, type H5File, type Selection } from '@chunkform/core';
import {
  copyDataset,
  sameFilters,
  sameLayout,
  sourceFilters,
  sourceLayout,
  type DatasetTarget,
  type LayoutSpec,
  type TargetFilters,
} from '../common/dataset-copy.js';
import { outputContainer, unknownFilters } from '../common/filter-registry.js';
import type { CommandIO } from '../common/io.js';
import { withOutputFile } from '../common/output-file.js';
import { createProgress, type Progress } from '../../cli/progress.js';
import { copyAttributes } from '../common/attributes.js';
import { copyMembers } from '../common/tree-copy.js';
import { parseDefinedElements, type DefinedElements } from './defined-elements.js';
import { normalizeObject, parseFilterRule, parseLayoutRule, ruleApplies, RepackSpecError, type FilterRule, type LayoutRule } from './spec.js';
import { listDatasets } from '../common/walk.js';

/** Options of {@link repack}. */
export interface RepackOptions {
  /** `-l` arguments, in order. */
  layout?: string[];
  /** `-f` arguments, in order. */
  filter?: string[];
  /** `--exclude VALUE`: elements equal to it become undefined in sparse outputs. */
  exclude?: string;
  /**
   * `--defined-elements`: region DDL (`BLOCK (a,b)-(c,d), … POINT (a,b), …`), optionally after
   * `OBJ:`; `@FILE` reads it from a file (e.g. the output of `dump --sparse-locations`).
   */
  definedElements?: string[];
  /** `-m M`: datasets of fewer than M bytes do not get the `-f` filters (h5repack's `--minimum`). */
  minimum?: string;
  /** No progress bar. */
  quiet?: boolean;
  /** List each dataset and what was done with it. */
  verbose?: boolean;
}

/** What a repack did. */
export interface RepackResult {
  datasets: number;
  /** Datasets whose chunks were copied raw. */
  raw: number;
}

interface DefinedRule {
  objects: string[];
  spec: DefinedElements;
}

async function parseDefinedRule(arg: string): Promise<DefinedRule> {
  // `OBJ[,OBJ]:DDL` — the DDL itself never contains ':'
  const m = /^([^:()]*):([\s\S]*)$/.exec(arg);
  const objects = m ? m[1]!.split(',').map((o) => normalizeObject(o.trim())).filter((o) => o !== '') : [];
  let text = m ? m[2]! : arg;
  if (text.trim().startsWith('@')) text = regionLines(await readFile(text.trim().slice(1), 'utf8'));
  return { objects, spec: parseDefinedElements(text) };
}

/**
 * The region lines of a file: the whole output of `dump --sparse-locations` (its `HDF5 "…" {`, `DATASET`,
 * `DATATYPE`, `DATASPACE`, `DATA` and closing lines are skipped) or a plain list.
 */
function regionLines(text: string): string {
  const lines = text.split('\n');
  if (!lines.some((l) => /^\s*HDF5\s/.test(l))) return text;
  const data = lines.findIndex((l) => /^\s*DATA\s*\{/.test(l)); // values printed after the locations
  return (data < 0 ? lines : lines.slice(0, data)).filter((l) => /^\s*(REGION_TYPE|BLOCK|POINT|\()/.test(l)).join('\n');
}

/** The selection of a parsed `--defined-elements` list in a dataset of shape `shape`. */
function definedSelection(d: DefinedElements, shape: readonly number[], path: string): Selection {
  if (d.rank !== shape.length) {
    throw new ValueError(`--defined-elements has coordinates of rank ${d.rank}, the dataset rank ${shape.length}`, { path });
  }
  const r = d.rank;
  const boxes: Box[] = [];
  for (let i = 0; i < d.boxes.length; i += 2 * r) {
    const start: number[] = [];
    const end: number[] = [];
    for (let k = 0; k < r; k++) {
      const s = d.boxes[i + 2 * k]!;
      const e = d.boxes[i + 2 * k + 1]!;
      if (e > shape[k]!) {
        throw new ValueError(`--defined-elements: coordinate ${e - 1} in dimension ${k} is outside the dataset (size ${shape[k]})`, { path });
      }
      start.push(s);
      end.push(e);
    }
    boxes.push({ start, end });
  }
  return selectBlocks(boxes);
}

/** The plan for one dataset: last matching -l, the -f rules in order. */
class Planner {
  constructor(
    private readonly layouts: LayoutRule[],
    private readonly filters: FilterRule[],
    private readonly defined: DefinedRule[],
    private readonly exclude: string | undefined,
    /** Datasets of fewer bytes do not get the -f filters (-m). */
    private readonly minimum = 0,
  ) {}

  /** Objects named in rules, to report those that do not exist. */
  namedObjects(): Set<string> {
    const s = new Set<string>();
    for (const r of [...this.layouts, ...this.filters, ...this.defined]) for (const o of r.objects) s.add(o);
    return s;
  }

  plan(src: Dataset): DatasetTarget {
    const path = src.path;
    const current = sourceLayout(src);
    const rank = src.shape.length;
    let layout: LayoutSpec = current;
    for (const r of this.layouts) {
      if (!ruleApplies(r, path)) continue;
      const l = r.layout;
      const chunked = l.kind === 'chunked' || l.kind === 'sparse';
      if (chunked && l.chunks.length !== rank) {
        // a rule for every dataset skips the ones of another rank, as h5repack does
        if (r.objects.length === 0) continue;
        throw new RepackSpecError(`-l: chunk dims [${l.chunks.join('x')}] have rank ${l.chunks.length}, the dataset rank ${rank}`, { path });
      }
      layout = l;
    }
    const kept = sourceFilters(src);
    const small = src.size * src.elementSize < this.minimum;
    const rules = small ? [] : this.filters.filter((r) => ruleApplies(r, path));
    let filters: TargetFilters = kept;
    const toSparse = layout.kind === 'sparse';
    // A layout change carries the filters over: dense pipeline ↔ both sections (values section back).
    if (toSparse && kept.kind === 'dense') filters = { kind: 'sparse', selection: kept.filters.slice(), values: kept.filters.slice() };
    if (!toSparse && kept.kind === 'sparse') filters = { kind: 'dense', filters: kept.values.slice() };
    if (layout.kind === 'contiguous' || layout.kind === 'compact') filters = { kind: 'dense', filters: [] };
    if (rules.length > 0) filters = applyFilterRules(filters, rules, path);
    const filterCount = filters.kind === 'dense' ? filters.filters.length : filters.selection.length + filters.values.length;
    if (filterCount > 0 && (layout.kind === 'contiguous' || layout.kind === 'compact')) {
      if (rules.length > 0 && layout === current) {
        // -f on a contiguous/compact dataset without -l: chunk it (h5repack does the same)
        layout = { kind: 'chunked', chunks: defaultChunks(src) };
      } else throw new RepackSpecError(`filters need a chunked layout (CHUNK= or SPARSECHUNK=), not ${layout.kind === 'compact' ? 'COMPA' : 'CONTI'}`, { path });
    }
    const definedRules = this.defined.filter((r) => ruleApplies(r, path));
    const defined = toSparse && definedRules.length > 0 ? definedRules.map((r) => definedSelection(r.spec, src.shape, path)).reduce(unionSel) : undefined;
    const exclude = toSparse ? this.exclude : undefined;
    const raw = (layout.kind === 'chunked' || layout.kind === 'sparse') && sameLayout(layout, current) && sameFilters(filters, kept) && defined === undefined && exclude === undefined;
    return { layout, filters, raw, defined, exclude };
  }
}

function unionSel(a: Selection, b: Selection): Selection {
  if (a.kind !== 'blocks' || b.kind !== 'blocks') return a.kind === 'none' ? b : a;
  const boxes: Box[] = [];
  for (const s of [a, b]) {
    const r = s.rank;
    for (let i = 0; i < s.boxCount; i++) {
      const o = i * 2 * r;
      boxes.push({ start: Array.from({ length: r }, (_, k) => s.boxes[o + 2 * k]!), end: Array.from({ length: r }, (_, k) => s.boxes[o + 2 * k + 1]!) });
    }
  }
  return selectBlocks(boxes);
}

/** Chunk dims for a dataset that gets filters without a -l: h5py's guess. */
function defaultChunks(src: Dataset): number[] {
  const shape = src.shape;
  // about 1 MiB chunks along the trailing dimensions (h5repack uses the whole dataset up to a limit)
  const out = shape.map(() => 1);
  let budget = Math.max(1, Math.floor((1 << 20) / src.elementSize));
  for (let d = shape.length - 1; d >= 0; d--) {
    const n = Math.max(1, shape[d]!);
    out[d] = Math.min(n, budget);
    budget = Math.max(1, Math.floor(budget / n));
  }
  return out;
}

function applyFilterRules(start: TargetFilters, rules: FilterRule[], path: string): TargetFilters {
  // The first -f for a dataset (or section) replaces the filters it had, later ones append (h5repack).
  const sparse = start.kind === 'sparse';
  const lists = sparse ? [start.selection.slice(), start.values.slice()] : [start.filters.slice()];
  const reset = lists.map(() => false);
  for (const r of rules) {
    if (r.section !== undefined && !sparse) throw new RepackSpecError(`-f SECTION${r.section}: per-section filters need a sparse (SPARSECHUNK) layout`, { path });
    const targets = r.section !== undefined ? [r.section] : lists.map((_, i) => i);
    for (const i of targets) {
      if (!reset[i]) {
        lists[i] = [];
        reset[i] = true;
      }
      if (r.filter === null) lists[i] = [];
      else lists[i]!.push(r.filter);
    }
  }
  return sparse ? { kind: 'sparse', selection: lists[0]!, values: lists[1]! } : { kind: 'dense', filters: lists[0]! };
}

/**
 * Repacks `input` into `output`. Throws (leaving no output) on bad arguments, a missing object, or
 * any read/write error.
 */
export async function repack(input: string, output: string, opts: RepackOptions, io: CommandIO): Promise<RepackResult> {
  const layouts = (opts.layout ?? []).map(parseLayoutRule);
  const filters = (opts.filter ?? []).map(parseFilterRule);
  const defined = await Promise.all((opts.definedElements ?? []).map(parseDefinedRule));
  if (opts.exclude !== undefined && opts.exclude.trim() === '') throw new RepackSpecError('--exclude needs a value');
  const minimum = opts.minimum === undefined ? 0 : Number(opts.minimum);
  if (opts.minimum !== undefined && (!/^\d+$/.test(opts.minimum.trim()) || !Number.isSafeInteger(minimum))) throw new RepackSpecError(`-m ${opts.minimum}: expected a size in bytes`);
  const planner = new Planner(layouts, filters, defined, opts.exclude, minimum);
  const src: H5File = await openFile(input, { mode: 'r' });
  const progress: Progress = createProgress(io.stderr, opts.quiet === true, 'repack');
  try {
    const datasets = await listDatasets(src);
    const existing = new Set(datasets.map((d) => normalizeObject(d.path)));
    for (const o of planner.namedObjects()) if (!existing.has(o)) throw new RepackSpecError(`object "${o}" named in -l/-f/--defined-elements is not a dataset in ${input}`);
    const toSparse = layouts.some((l) => l.layout.kind === 'sparse') || datasets.some((d) => d.layout.class === 'structured');
    const container = outputContainer(unknownFilters(datasets));
    const result: RepackResult = { datasets: 0, raw: 0 };
    await withOutputFile(output, { superblockVersion: toSparse ? 3 : 2, container }, async (dst) => {
      await copyAttributes(src.attrs, dst.attrs);
      await copyMembers(src, dst, async (ds, parent, name) => {
        const target = planner.plan(ds);
        const made = await copyDataset(ds, parent, name, target, progress);
        result.datasets++;
        if (target.raw) result.raw++;
        if (opts.verbose) io.stdout.write(`${ds.path}: ${describe(target)}\n`);
        return made;
      });
    });
    return result;
  } finally {
    progress.stop();
    await src.close();
  }
}

function describe(t: DatasetTarget): string {
  const l = t.layout;
  const layout = l.kind === 'chunked' ? `CHUNK=${l.chunks.join('x')}` : l.kind === 'sparse' ? `SPARSECHUNK=${l.chunks.join('x')}` : l.kind === 'compact' ? 'COMPA' : 'CONTI';
  const f = t.filters;
  const names = (x: { id: number }[]): string => (x.length ? x.map((y) => y.id).join('+') : 'none');
  const filters = f.kind === 'dense' ? `filters ${names(f.filters)}` : `filters section 0 ${names(f.selection)}, section 1 ${names(f.values)}`;
  return `${layout}, ${filters}${t.raw ? ', chunks copied raw' : ''}`;
}
