/**
 * Checking `chunkform dump`'s options and turning them into a plan (targets, formatting, subset,
 * binary output). Bad values are usage errors (exit 2) with one line naming the option.
 * @module
 */
import { UsageError } from '../../cli/io.js';
import type { DumpCommandOptions } from './command.js';
import { DEFAULT_FLOAT_FORMAT, parseFloatFormat, type FloatFormat } from './printf.js';
import type { Subset } from './slabs.js';

/** One object to dump: `-d`, `-g`, `-a` or the positional path (kind found when the file is open). */
export interface DumpTarget {
  kind: 'dataset' | 'group' | 'attribute' | 'datatype' | 'softlink' | 'auto';
  path: string;
}

/** Byte order of `-b` output. */
export type BinaryOrder = 'NATIVE' | 'LE' | 'BE' | 'FILE';

/** Everything `dump` needs to know, checked. */
export interface DumpPlan {
  targets: DumpTarget[];
  header: boolean;
  onlyattr: boolean;
  properties: boolean;
  noindex: boolean;
  /** Escape quotes, backslashes and control characters in strings (h5dump -e). */
  escape: boolean;
  width: number;
  float: FloatFormat;
  subset?: Partial<Subset>;
  binary?: BinaryOrder;
  output?: string;
  json: boolean;
  sparse: boolean;
  sparseLocations: boolean;
  /** `-n`: list the file's contents (0), with attributes (1), instead of the DDL. */
  contents?: 0 | 1;
}

function normalise(path: string): string {
  return `/${path.split('/').filter((p) => p !== '' && p !== '.').join('/')}`;
}

function intList(name: string, text: string | undefined, min: number): number[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(/[,x]/).map((s) => s.trim());
  const out = parts.map(Number);
  if (parts.some((p) => !/^\d+$/.test(p)) || out.some((v) => !Number.isSafeInteger(v) || v < min)) {
    throw new UsageError(`--${name} "${text}": expected a comma-separated list of integers ≥ ${min}`);
  }
  return out;
}

/** Validates the options of one `dump` command line. */
export function parseDumpOptions(path: string | undefined, o: DumpCommandOptions): DumpPlan {
  const targets: DumpTarget[] = [
    ...(o.dataset ?? []).map((p) => ({ kind: 'dataset' as const, path: normalise(p) })),
    ...(o.group ?? []).map((p) => ({ kind: 'group' as const, path: normalise(p) })),
    ...(o.attribute ?? []).map((p) => ({ kind: 'attribute' as const, path: normalise(p) })),
    ...(o.datatype ?? []).map((p) => ({ kind: 'datatype' as const, path: normalise(p) })),
    ...(o.softLink ?? []).map((p) => ({ kind: 'softlink' as const, path: normalise(p) })),
  ];
  if (path !== undefined) targets.unshift({ kind: 'auto', path: normalise(path) });
  if (targets.length === 0) targets.push({ kind: 'group', path: '/' });
  let width = Number(o.width?.value ?? '80');
  if (!Number.isSafeInteger(width) || width < 0) throw new UsageError(`--width "${o.width?.value}": expected an integer ≥ 0`);
  if (width === 0) width = 65535;
  // h5dump: -m sets the column count to 0 (one value per line) unless a -w comes after it
  if (o.format && (!o.width || o.width.seq < o.format.seq)) width = 1;
  const subset: Partial<Subset> = {};
  const start = intList('start', o.start, 0);
  const stride = intList('stride', o.stride, 1);
  const count = intList('count', o.count, 0);
  const block = intList('block', o.block, 1);
  if (start) subset.start = start;
  if (stride) subset.stride = stride;
  if (count) subset.count = count;
  if (block) subset.block = block;
  const hasSubset = Object.keys(subset).length > 0;
  if (hasSubset && !targets.some((t) => t.kind === 'dataset' || t.kind === 'auto')) {
    throw new UsageError('subsetting (-s/-S/-c/-k) needs a dataset (-d PATH)');
  }
  let binary: BinaryOrder | undefined;
  if (o.binary !== undefined && o.binary !== false) {
    const b = o.binary === true ? 'NATIVE' : o.binary.toUpperCase();
    if (b !== 'NATIVE' && b !== 'LE' && b !== 'BE' && b !== 'FILE' && b !== 'MEMORY') {
      throw new UsageError(`--binary "${o.binary}": expected NATIVE, LE, BE or FILE`);
    }
    binary = b === 'MEMORY' ? 'NATIVE' : b;
    if (!o.output) throw new UsageError('--binary needs an output file (-o FILE)');
  }
  if (o.json && binary) throw new UsageError('--json and --binary cannot be combined');
  const plan: DumpPlan = {
    targets,
    header: o.header === true || o.values === false,
    onlyattr: o.onlyattr === true,
    properties: o.properties === true,
    noindex: o.noindex === true,
    escape: o.escape === true,
    width,
    float: o.format !== undefined ? parseFloatFormat(o.format.value) : DEFAULT_FLOAT_FORMAT,
    json: o.json === true,
    sparse: o.sparse === true,
    sparseLocations: o.sparseLocations === true,
  };
  if (o.contents !== undefined && o.contents !== false) {
    if (o.json) throw new UsageError('--json and --contents cannot be combined');
    plan.contents = o.contents === '1' ? 1 : 0;
  }
  if (hasSubset) plan.subset = subset;
  if (binary) plan.binary = binary;
  if (o.output) plan.output = o.output;
  return plan;
}
