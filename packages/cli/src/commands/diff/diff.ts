/**
 * `chunkform diff` (h5diff 1.10): compares two files, or two objects, and exits 0 (no
 * differences), 1 (differences, objects only on one side or not comparable) or 2 (error). Values
 * are read block by block (bounded memory); undefined elements of sparse datasets compare as the
 * fill value (docs/cli.md, sparse RFC §4.5 "diff"), and `--defined` also compares which elements
 * are defined. Output follows h5diff's default, `-r`, `-v`, `-q` and `-c` modes.
 * @module
 */
import { Dataset, Group, openFile, selectionRuns, offsetSelection, type Attributes, type H5File, type Selection } from '@chunkform/core';
import { blockDims, blocksOf, type Block } from '../common/blocks.js';
import type { CommandIO } from '../common/io.js';
import { compareAt, coordsOf, definedLine, DBL_EPSILON, FLT_EPSILON, type Column, type CompareRules } from './compare.js';
import { left, position, sizeLine, tableHeader } from './format.js';
import { compareRecords, compoundLeaves } from './compound.js';

/** Options of {@link diff}. */
export interface DiffOptions {
  /** -r: print every difference. */
  report?: boolean;
  /** -v: list the objects and print every difference. */
  verbose?: boolean;
  /** -q: print nothing (exit code only). */
  quiet?: boolean;
  /** -c: list objects that are not comparable. */
  compareList?: boolean;
  /** -d: values differ when |a − b| > delta. */
  delta?: number;
  /** -p: values differ when |a − b| / |a| > relative. */
  relative?: number;
  /** --use-system-epsilon: floats differ when |a − b| > FLT_EPSILON / DBL_EPSILON. */
  useSystemEpsilon?: boolean;
  /** --defined: elements defined on one side only count as differences. */
  defined?: boolean;
}

/** Exit codes of h5diff. */
export const DIFF_SAME = 0;
export const DIFF_DIFFERENT = 1;
export const DIFF_ERROR = 2;

const BLOCK_BYTES = 8 << 20;

type Node = { kind: 'group'; obj: Group } | { kind: 'dataset'; obj: Dataset } | { kind: 'link'; target: string } | { kind: 'other' };

class Differ {
  differences = 0;
  notComparable = 0;
  onlyOne = 0;
  private readonly rules: CompareRules;

  constructor(
    private readonly opts: DiffOptions,
    private readonly io: CommandIO,
  ) {
    this.rules = { delta: opts.delta, relative: opts.relative };
  }

  /** Printing mode: every difference line (-r, -v). */
  private get detailed(): boolean {
    return (this.opts.report === true || this.opts.verbose === true) && !this.opts.quiet;
  }

  out(line: string): void {
    if (!this.opts.quiet) this.io.stdout.write(`${line}\n`);
  }

  /** Compares two objects found at `p1`, `p2`. */
  async objects(n1: Node, n2: Node, p1: string, p2: string): Promise<void> {
    if (n1.kind !== n2.kind) {
      this.notComparable++;
      if ((this.opts.compareList || this.opts.verbose) && !this.opts.quiet) {
        this.out(`Not comparable: <${p1}> is of type ${typeName(n1)} and <${p2}> is of type ${typeName(n2)}`);
      }
      return;
    }
    if (n1.kind === 'group' && n2.kind === 'group') {
      if (this.opts.verbose) this.out(`group  : <${p1}> and <${p2}>\n0 differences found`);
      await this.attributes(n1.obj.attrs, n2.obj.attrs, p1, p2);
    } else if (n1.kind === 'dataset' && n2.kind === 'dataset') {
      await this.datasets(n1.obj, n2.obj, p1, p2);
      await this.attributes(n1.obj.attrs, n2.obj.attrs, p1, p2);
    } else if (n1.kind === 'link' && n2.kind === 'link') {
      const n = n1.target === n2.target ? 0 : 1;
      this.differences += n;
      if (this.opts.verbose || (n > 0 && !this.opts.quiet)) this.out(`link   : <${p1}> and <${p2}>\n${n} differences found`);
    }
  }

  private async datasets(d1: Dataset, d2: Dataset, p1: string, p2: string): Promise<void> {
    const header = `dataset: <${p1}> and <${p2}>`;
    const s1 = d1.shape;
    const s2 = d2.shape;
    const c1 = valueClass(d1.dtype.class);
    const c2 = valueClass(d2.dtype.class);
    let why: string | null = null;
    const leaves = d1.dtype.class === 'compound' || d2.dtype.class === 'compound' ? compoundLeaves(d1.dtype, d2.dtype) : undefined;
    if (s1.length !== s2.length || s1.some((n, i) => n !== s2[i])) {
      const desc = (d: Dataset, p: string): string =>
        `<${p}> has rank ${d.shape.length}, dimensions [${d.shape.join(',')}], max dimensions [${(d.maxShape ?? d.shape).map((m) => (m === null ? 'H5S_UNLIMITED' : m)).join(',')}]`;
      why = `Not comparable: ${desc(d1, p1)}\nand ${desc(d2, p2)}`;
    } else if (leaves === null || (leaves === undefined && (c1 === null || c2 === null || c1 !== c2))) {
      why = `Not comparable: <${p1}> is of class ${classLabel(d1.dtype.class)} and <${p2}> is of class ${classLabel(d2.dtype.class)}`;
    }
    if (why !== null) {
      this.notComparable++;
      if (this.opts.verbose) this.out(`${header}\n${why}\n0 differences found`);
      else if (this.opts.compareList) this.out(why);
      else if (this.opts.report) this.out(`${header}\n0 differences found`);
      return;
    }
    const name1 = p1.slice(p1.lastIndexOf('/') + 1) || '/';
    const name2 = p2.slice(p2.lastIndexOf('/') + 1) || '/';
    const isFloat = d1.dtype.class === 'float' || d2.dtype.class === 'float';
    const rules: CompareRules = { ...this.rules };
    if (this.opts.useSystemEpsilon && isFloat) rules.epsilon = Math.max(d1.elementSize, d2.elementSize) <= 4 ? FLT_EPSILON : DBL_EPSILON;
    let count = 0;
    let headed = false;
    const line = (text: string): void => {
      if (!this.detailed) return;
      if (!headed) {
        this.out(header);
        this.out(sizeLine(s1, s2));
        // h5diff prints the plain header over compound values, -p or not
        for (const h of tableHeader(name1, name2, this.rules.relative !== undefined && !leaves)) this.out(h);
        headed = true;
      }
      this.out(text);
    };
    const sparse = d1.layout.class === 'structured' || d2.layout.class === 'structured';
    const checkDefined = this.opts.defined === true && sparse;
    const es = Math.max(d1.elementSize, d2.elementSize);
    const bd = s1.length === 0 ? [] : blockDims(s1, es, BLOCK_BYTES, d1.chunks ?? undefined);
    const blocks: Iterable<Block | null> = s1.length === 0 ? [null] : blocksOf(s1, bd);
    for (const b of blocks) {
      const sel = b?.selection;
      const [v1, v2] = (await Promise.all([d1.read(sel), d2.read(sel)])) as unknown as [Column, Column];
      const start = b?.start ?? [];
      const dims = b?.dims ?? [];
      if (leaves) {
        const recs = (v: unknown): ArrayLike<unknown> => (s1.length === 0 ? [v] : (v as ArrayLike<unknown>));
        count += compareRecords(recs(v1), recs(v2), leaves, rules, this.opts.useSystemEpsilon === true, (i, t) => line(`${position(coordsOf(i, start, dims))}${t}`));
        continue;
      }
      if (checkDefined && b) {
        const [m1, m2] = await Promise.all([definedMask(d1, b), definedMask(d2, b)]);
        for (let i = 0; i < b.count; i++) {
          if (m1[i] !== m2[i]) {
            count++;
            line(definedLine(coordsOf(i, start, dims), m1[i] ? String(v1[i]) : 'undefined', m2[i] ? String(v2[i]) : 'undefined'));
          } else if (m1[i]) {
            const t = compareAt(v1, v2, i, isFloat, rules);
            if (t !== null) {
              count++;
              line(`${position(coordsOf(i, start, dims))}${t}`);
            }
          }
        }
        continue;
      }
      const n = v1.length;
      for (let i = 0; i < n; i++) {
        // equal values are equal under every rule: skip them without a call
        if (v1[i] === v2[i]) continue;
        const t = compareAt(v1, v2, i, isFloat, rules);
        if (t === null) continue;
        count++;
        line(`${position(coordsOf(i, start, dims))}${t}`);
      }
    }
    this.differences += count;
    if (this.detailed) {
      if (!headed) this.out(header);
      this.out(`${count} differences found`);
    } else if (count > 0 && !this.opts.quiet) this.out(`${header}\n${count} differences found`);
  }

  private async attributes(a1: Attributes, a2: Attributes, p1: string, p2: string): Promise<void> {
    const names2 = new Set(await a2.keys());
    for (const name of await a1.keys()) {
      if (!names2.has(name)) continue;
      const [s1, s2] = await Promise.all([a1.shape(name), a2.shape(name)]);
      if (s1 === null || s2 === null) continue;
      const [t1, t2] = await Promise.all([a1.dtype(name), a2.dtype(name)]);
      const c1 = valueClass(t1.class);
      const leaves = t1.class === 'compound' || t2.class === 'compound' ? compoundLeaves(t1, t2) : undefined;
      if (leaves === null || (leaves === undefined && (c1 === null || c1 !== valueClass(t2.class))) || s1.length !== s2.length || s1.some((n, i) => n !== s2[i])) {
        this.notComparable++;
        continue;
      }
      const wrap = (v: unknown): Column => (s1.length === 0 ? ([v] as Column) : (v as Column));
      const [v1, v2] = [wrap(await a1.get(name)), wrap(await a2.get(name))];
      const isFloat = t1.class === 'float' || t2.class === 'float';
      const header = `attribute: <${name} of <${p1}>> and <${name} of <${p2}>>`;
      const label1 = `${name} of <${p1}>`;
      const label2 = `${name} of <${p2}>`;
      let count = 0;
      const lines: string[] = [];
      const pos = (i: number): string => position(s1.length === 0 ? [] : coordsOf(i, s1.map(() => 0), s1));
      if (leaves) {
        count = compareRecords(v1 as ArrayLike<unknown>, v2 as ArrayLike<unknown>, leaves, this.rules, this.opts.useSystemEpsilon === true, (i, t) => {
          if (this.detailed) lines.push(`${pos(i)}${t}`);
        });
      }
      for (let i = 0; i < (leaves ? 0 : v1.length); i++) {
        const t = compareAt(v1, v2, i, isFloat, this.rules);
        if (t === null) continue;
        count++;
        if (this.detailed) lines.push(`${pos(i)}${t}`);
      }
      this.differences += count;
      if (count === 0) {
        if (this.opts.verbose) this.out(`${header}\n0 differences found`);
        continue;
      }
      if (this.opts.quiet) continue;
      this.out(header);
      if (this.detailed) {
        this.out(sizeLine(s1, s2));
        for (const h of tableHeader(label1, label2, this.rules.relative !== undefined && !leaves)) this.out(h);
        for (const l of lines) this.out(l);
      }
      this.out(`${count} differences found`);
    }
  }
}

/** 1 where the element of block `b` is defined (every element of a dense dataset). */
async function definedMask(d: Dataset, b: Block): Promise<Uint8Array> {
  const mask = new Uint8Array(b.count);
  if (d.layout.class !== 'structured') return mask.fill(1);
  const def: Selection = await d.getDefined(b.selection);
  if (def.kind === 'none') return mask;
  const runs = selectionRuns(offsetSelection(def, b.start.map((s) => -s)), b.dims);
  for (let i = 0; i < runs.length; i += 2) mask.fill(1, runs[i]!, runs[i]! + runs[i + 1]!);
  return mask;
}

function valueClass(c: string): 'number' | 'string' | null {
  if (c === 'integer' || c === 'float' || c === 'enum' || c === 'bitfield') return 'number';
  if (c === 'string') return 'string';
  return null;
}

function classLabel(c: string): string {
  return `H5T_${c === 'float' ? 'FLOAT' : c.toUpperCase()}`;
}

function typeName(n: Node): string {
  return n.kind === 'group' ? 'H5G_GROUP' : n.kind === 'dataset' ? 'H5G_DATASET' : n.kind === 'link' ? 'H5G_LINK' : 'H5G_TYPE';
}

/** Every object below `g` by path relative to it ('' for `g` itself), in path order. */
async function tree(g: Group): Promise<Map<string, Node>> {
  const out = new Map<string, Node>([['', { kind: 'group', obj: g }]]);
  const seen = new Set<number>();
  const walk = async (grp: Group, prefix: string, depth: number): Promise<void> => {
    if (depth > 256) return;
    for (const link of await grp.links()) {
      const p = `${prefix}/${link.name}`;
      if (link.kind === 'soft') {
        out.set(p, { kind: 'link', target: link.target! });
        continue;
      }
      if (link.kind !== 'hard') {
        out.set(p, { kind: 'other' });
        continue;
      }
      const obj = await grp.get(link.name);
      if (obj instanceof Dataset) out.set(p, { kind: 'dataset', obj });
      else if (obj instanceof Group) {
        out.set(p, { kind: 'group', obj });
        if (link.address !== undefined && seen.has(link.address)) continue;
        if (link.address !== undefined) seen.add(link.address);
        await walk(obj, p, depth + 1);
      } else out.set(p, { kind: 'other' });
    }
  };
  await walk(g, '', 0);
  return out;
}

async function nodeOf(f: H5File, path: string): Promise<Node> {
  const obj = await f.get(path);
  if (obj instanceof Dataset) return { kind: 'dataset', obj };
  if (obj instanceof Group) return { kind: 'group', obj };
  return { kind: 'other' };
}

class DiffError extends Error {}

async function open(file: string): Promise<H5File> {
  try {
    return await openFile(file, { mode: 'r' });
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new DiffError(`<${file}>: unable to open file (${why})`);
  }
}

function joinPath(base: string, rel: string): string {
  if (rel === '') return base;
  return base === '/' ? rel : `${base}${rel}`;
}

/**
 * Compares `file1` and `file2` (or the objects `obj1`, `obj2` in them) and resolves to h5diff's
 * exit code; errors are reported on stderr as one line and give 2.
 */
export async function diff(file1: string, file2: string, obj1: string | undefined, obj2: string | undefined, opts: DiffOptions, io: CommandIO): Promise<number> {
  const files: H5File[] = [];
  try {
    if (opts.delta !== undefined && opts.relative !== undefined) throw new DiffError('-d and -p cannot be used together');
    for (const [flag, v] of [['-d', opts.delta], ['-p', opts.relative]] as const) {
      if (v !== undefined && !(Number.isFinite(v) && v >= 0)) throw new DiffError(`${flag} needs a non-negative number`);
    }
    const f1 = await open(file1);
    files.push(f1);
    const f2 = await open(file2);
    files.push(f2);
    const d = new Differ(opts, io);
    const start1 = obj1 ?? '/';
    const start2 = obj2 ?? start1;
    for (const [f, p, name] of [[f1, start1, file1], [f2, start2, file2]] as const) {
      if (!(await f.has(p)) && p !== '/') throw new DiffError(`Object <${p}> could not be found in <${name}>`);
    }
    const n1 = await nodeOf(f1, start1);
    const n2 = await nodeOf(f2, start2);
    if (n1.kind === 'group' && n2.kind === 'group') {
      const [t1, t2] = await Promise.all([tree(n1.obj), tree(n2.obj)]);
      const all = [...new Set([...t1.keys(), ...t2.keys()])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      if (opts.verbose && !opts.quiet) {
        d.out('\nfile1     file2\n---------------------------------------');
        for (const p of all) d.out(`${t1.has(p) ? '    x' : '     '} ${t2.has(p) ? '     x' : '      '}    ${left(joinPath(start1, p) || '/', 15)}`);
        d.out('');
      }
      for (const p of all) {
        const a = t1.get(p);
        const b = t2.get(p);
        if (!a || !b) {
          d.onlyOne++;
          continue;
        }
        await d.objects(a, b, joinPath(start1, p) || '/', joinPath(start2, p) || '/');
      }
    } else await d.objects(n1, n2, start1, start2);
    if (d.notComparable > 0 && !opts.quiet && !opts.compareList) {
      d.out('--------------------------------\nSome objects are not comparable\n--------------------------------');
      d.out(opts.verbose ? 'Use -c for a list of objects without details of differences.' : 'Use -c for a list of objects.');
    }
    return d.differences > 0 || d.notComparable > 0 || d.onlyOne > 0 ? DIFF_DIFFERENT : DIFF_SAME;
  } catch (e) {
    const msg = e instanceof DiffError ? e.message : e instanceof Error ? e.message : String(e);
    io.stderr.write(`chunkform diff: ${msg}\n`);
    return DIFF_ERROR;
  } finally {
    for (const f of files) await f.close().catch(() => undefined);
  }
}
