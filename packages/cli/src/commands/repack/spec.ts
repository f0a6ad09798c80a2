/**
 * The `-l` (layout) and `-f` (filter) arguments of `chunkform repack`, in h5repack's syntax
 * `[OBJ[,OBJ…]:]SPEC` plus the sparse additions of docs/cli.md ("repack"): `SPARSECHUNK=AxB` and a
 * `SECTIONn:` qualifier that puts a filter on one section of a sparse dataset's chunks.
 * @module
 */
import { ValueError, type FilterSpec } from '@chunkform/core';
import type { LayoutSpec } from '../common/dataset-copy.js';

/** A bad `-l` or `-f` argument. */
export class RepackSpecError extends ValueError {}


/** One `-l` argument. */
export interface LayoutRule {
  /** Object paths without the leading '/'; empty = every dataset. */
  objects: string[];
  layout: LayoutSpec;
}

/** One `-f` argument. */
export interface FilterRule {
  objects: string[];
  /** Sparse datasets: the section the filter goes on (0 selection, 1 values); undefined = every section. */
  section?: number;
  /** `null` is NONE (remove every filter). */
  filter: FilterSpec | null;
}

/** Object list before the first ':' (when the part before it is not itself a spec). */
function splitObjects(arg: string): { objects: string[]; rest: string } {
  const i = arg.indexOf(':');
  if (i < 0) return { objects: [], rest: arg };
  const objects = arg
    .slice(0, i)
    .split(',')
    .map((o) => normalizeObject(o.trim()))
    .filter((o) => o !== '');
  return { objects, rest: arg.slice(i + 1) };
}

/** Object names match with or without the leading '/' (h5repack accepts both). */
export function normalizeObject(name: string): string {
  return name.replace(/^\/+/, '').replace(/\/+$/, '');
}

function parseDims(text: string, arg: string): number[] {
  const parts = text.split(/[xX]/);
  const dims = parts.map((p) => (/^\s*\d+\s*$/.test(p) ? Number(p) : NaN));
  if (dims.some((d) => !Number.isSafeInteger(d) || d <= 0)) {
    throw new RepackSpecError(`-l ${arg}: chunk dimensions must be positive integers separated by 'x' (e.g. CHUNK=10x20)`);
  }
  return dims;
}

/** Parses one `-l` argument: `[OBJ,…:]CHUNK=AxB | CONTI | COMPA | SPARSECHUNK=AxB`. */
export function parseLayoutRule(arg: string): LayoutRule {
  const { objects, rest } = splitObjects(arg);
  const [name, value] = rest.split('=', 2) as [string, string | undefined];
  const kind = name.trim().toUpperCase();
  const needsValue = (): string => {
    if (value === undefined || value.trim() === '') throw new RepackSpecError(`-l ${arg}: ${kind} needs dimensions, e.g. ${kind}=10x20`);
    return value;
  };
  switch (kind) {
    case 'CHUNK':
      return { objects, layout: { kind: 'chunked', chunks: parseDims(needsValue(), arg) } };
    case 'SPARSECHUNK':
      return { objects, layout: { kind: 'sparse', chunks: parseDims(needsValue(), arg) } };
    case 'CONTI':
      return { objects, layout: { kind: 'contiguous' } };
    case 'COMPA':
      return { objects, layout: { kind: 'compact' } };
    default:
      throw new RepackSpecError(`-l ${arg}: unknown layout "${name}" (use CHUNK=AxB, SPARSECHUNK=AxB, CONTI or COMPA)`);
  }
}

const OPTIONAL = true;

function numbers(text: string | undefined, arg: string, what: string): number[] {
  if (text === undefined || text.trim() === '') return [];
  return text.split(',').map((t) => {
    const v = Number(t.trim());
    if (!/^\s*\d+\s*$/.test(t) || !Number.isSafeInteger(v) || v > 0xffffffff) {
      throw new RepackSpecError(`-f ${arg}: ${what} must be non-negative integers, got "${t.trim()}"`);
    }
    return v;
  });
}

/** The filter named by `NAME[=params]` (h5repack's names plus LZ4, ZSTD and BSHUF). */
function parseFilter(name: string, value: string | undefined, arg: string): FilterSpec | null {
  const n = name.trim().toUpperCase();
  switch (n) {
    case 'NONE':
      return null;
    case 'GZIP': {
      const [level] = numbers(value, arg, 'the GZIP level');
      if (level === undefined || level < 1 || level > 9) throw new RepackSpecError(`-f ${arg}: GZIP needs a level 1–9, e.g. GZIP=6`);
      return { id: 1, clientData: [level], optional: OPTIONAL };
    }
    case 'SHUF':
      return { id: 2, optional: OPTIONAL };
    case 'FLET':
      return { id: 3 };
    case 'NBIT':
      return { id: 5, optional: OPTIONAL };
    case 'SOFF': {
      const [factor, type] = (value ?? '').split(',');
      const scale = Number(factor);
      const kind = (type ?? '').trim().toUpperCase();
      if (!Number.isInteger(scale) || (kind !== 'IN' && kind !== 'DS')) {
        throw new RepackSpecError(`-f ${arg}: SOFF needs <scale_factor>,<IN|DS>, e.g. SOFF=3,DS`);
      }
      // H5Z_SO_INT = 2, H5Z_SO_FLOAT_DSCALE = 0
      return { id: 6, clientData: [kind === 'IN' ? 2 : 0, scale], optional: OPTIONAL };
    }
    case 'LZ4':
      return { id: 32004, clientData: numbers(value, arg, 'the LZ4 block size'), optional: OPTIONAL };
    case 'ZSTD': {
      const cd = numbers(value, arg, 'the ZSTD level');
      return { id: 32015, clientData: cd, optional: OPTIONAL };
    }
    case 'BSHUF': {
      // bitshuffle cd_values: [version, block version, element size, block size, compression]; the
      // first three are set at creation. BSHUF=LZ4 / BSHUF=ZSTD[,level] pick the compression.
      const [codec, level] = (value ?? '').split(',').map((t) => t.trim().toUpperCase());
      const comp = codec === undefined || codec === '' || codec === 'NONE' ? 0 : codec === 'LZ4' ? 2 : codec === 'ZSTD' ? 3 : -1;
      if (comp < 0) throw new RepackSpecError(`-f ${arg}: BSHUF takes NONE, LZ4 or ZSTD[,level]`);
      const cd = [0, 0, 0, 0, comp];
      if (comp === 3) cd.push(Number(level ?? 3));
      return { id: 32008, clientData: cd, optional: OPTIONAL };
    }
    case 'UD': {
      const v = numbers(value, arg, 'UD values');
      const [id, flag, count] = v;
      if (id === undefined || flag === undefined || count === undefined || v.length !== 3 + count) {
        throw new RepackSpecError(`-f ${arg}: UD needs <filter_id>,<flag>,<cd_value_count>,<value_1>,… with cd_value_count values`);
      }
      return { id, clientData: v.slice(3), optional: (flag & 1) === 1 };
    }
    case 'SZIP':
      throw new RepackSpecError(`-f ${arg}: SZIP is not available in chunkform (no encoder); use GZIP, LZ4, ZSTD or BSHUF`);
    default:
      throw new RepackSpecError(`-f ${arg}: unknown filter "${name}" (use GZIP=n, SHUF, FLET, NBIT, SOFF=n,IN|DS, LZ4, ZSTD=n, BSHUF, UD=…, NONE)`);
  }
}

/**
 * Parses one `-f` argument: `[OBJ,…:][SECTIONn:]FILTER[=params]`; `SECTION0`/`SELECTION` is the
 * selection section of sparse chunks, `SECTION1`/`VALUES` the values section.
 */
export function parseFilterRule(arg: string): FilterRule {
  const parts = arg.split(':');
  const spec = parts.pop()!;
  let section: number | undefined;
  const last = parts[parts.length - 1]?.trim().toUpperCase();
  const m = last === undefined ? null : /^SECTION(\d+)$/.exec(last);
  if (m || last === 'SELECTION' || last === 'VALUES') {
    parts.pop();
    section = m ? Number(m[1]) : last === 'SELECTION' ? 0 : 1;
    if (section > 1) throw new RepackSpecError(`-f ${arg}: sparse chunks have sections 0 (selection) and 1 (values)`);
  }
  if (parts.length > 1) throw new RepackSpecError(`-f ${arg}: expected [OBJECTS:][SECTIONn:]FILTER`);
  const objects = parts.length ? splitObjects(`${parts[0]}:`).objects : [];
  const eq = spec.indexOf('=');
  const filter = parseFilter(eq < 0 ? spec : spec.slice(0, eq), eq < 0 ? undefined : spec.slice(eq + 1), arg);
  return { objects, ...(section !== undefined ? { section } : {}), filter };
}

/** True when `rule` applies to the dataset at `path` (no object list = every dataset). */
export function ruleApplies(rule: { objects: string[] }, path: string): boolean {
  return rule.objects.length === 0 || rule.objects.includes(normalizeObject(path));
}
