/**
 * The `-v` detail lines and `-d` data lines of `chunkform ls`, as h5ls 1.10 prints them:
 * attributes (shape, type, data), Location, Links, Chunks, Storage with utilization, Filter-i,
 * Type — and for sparse datasets `Sparse Chunks` with one block per section (docs/cli.md).
 * @module
 */
import { KNOWN_FILTER_PACKAGES, type CommittedDatatype, type Dataset, type Datatype, type FilterPipeline, type Group } from '@chunkform/core';
import type { LineWriter } from '../../cli/sink.js';
import { DataPrinter } from '../dump/data-printer.js';
import { elementFormatter } from '../dump/ddl-values.js';
import { parseFloatFormat } from '../dump/printf.js';
import { sectionSizes, structuredNames } from '../dump/properties.js';
import { fullSubset, maxSlabElements, slabReader, slabs } from '../dump/slabs.js';
import { h5lsType } from './h5ls-types.js';

const FILTER_NAMES: Record<number, string> = { 1: 'deflate', 2: 'shuffle', 3: 'fletcher32', 4: 'szip', 5: 'nbit', 6: 'scaleoffset' };
const FLOAT = parseFloatFormat('%g');
const DOUBLE = parseFloatFormat('%.15g');
/** Bytes per slab of `-d` output. */
const SLAB_BYTES = 1 << 20;

/** `label:` padded to h5ls's column, then `text`. */
export function detail(label: string, text: string): string {
  const l = `${label}:`;
  return `    ${l.length >= 11 ? `${l} ` : l.padEnd(11)}${text}`;
}

/** `Filter-i:  name-id OPT {cd}` lines of a pipeline at `pad`. */
export function filterLines(filters: FilterPipeline['filters'], pad = '    '): string[] {
  return filters.map((f, i) => {
    const name = f.name || FILTER_NAMES[f.id] || KNOWN_FILTER_PACKAGES[f.id]?.name || 'unknown';
    return `${pad}${`Filter-${i}:`.padEnd(11)}${name}-${f.id} ${(f.flags & 1) !== 0 ? 'OPT' : ''} {${Array.from(f.clientData).join(', ')}}`;
  });
}

function utilization(logical: number, allocated: number): string {
  return `${logical} logical bytes, ${allocated} allocated bytes${allocated > 0 ? `, ${((100 * logical) / allocated).toFixed(2)}% utilization` : ''}`;
}

/** h5ls -S: strings unescaped except control characters and spaces as `%XX`; compound members separated by spaces. */
function simpleFormatter(t: Datatype): (v: unknown, i: number) => string {
  const float = t.class === 'float' && t.size === 4 ? FLOAT : DOUBLE;
  const hex = (c: number): string => `%${c.toString(16).padStart(2, '0')}`;
  const escape = (s: string): string =>
    s.replace(/\\000/g, '%00').replace(/[\u0000-\u0020\u007f]/g, (ch) => hex(ch.charCodeAt(0)));
  const esc = (type: Datatype, text: string): string => (type.class === 'string' ? escape(text) : text);
  if (t.class === 'compound') {
    const members = t.members.map((m) => ({ name: m.name, type: m.type, f: elementFormatter(m.type, float, false) }));
    return (v, i) => {
      const rec = (v as ArrayLike<Record<string, unknown>>)[i]!;
      return members.map((m) => esc(m.type, m.f([rec[m.name]], 0))).join(' ');
    };
  }
  const f = elementFormatter(t, float, false);
  return (v, i) => esc(t, f(v, i));
}

/** Logical bytes per element as h5ls counts them: the memory size (a pointer for variable-length strings). */
function memoryElementSize(ds: Dataset): number {
  const t = ds.dtype;
  if (t.class === 'string' && t.length === 'variable') return 8;
  if (t.class === 'vlen') return 16;
  return ds.elementSize;
}

/** Prints `values` (n elements of `t`) the way `h5ls -d` does, lines at `pad`; `simple` (-S): one per line. */
export async function dataLines(w: LineWriter, values: AsyncIterable<{ values: unknown; n: number }>, total: number, t: Datatype, pad: string, simple: boolean): Promise<void> {
  const fmt = simple ? simpleFormatter(t) : elementFormatter(t, t.class === 'float' && t.size === 4 ? FLOAT : DOUBLE);
  if (simple) {
    let p = 0;
    for await (const b of values) {
      for (let i = 0; i < b.n; i++, p++) w.line(`${pad.slice(1)}${fmt(b.values, i)}${p < total - 1 ? ' ' : ''}`);
      await w.maybeFlush();
    }
    return;
  }
  const printer = new DataPrinter(w, pad.slice(3), 80, true, fullSubset([total]));
  for await (const b of values) await printer.block(b.values, b.n, fmt, t.class === 'integer');
  printer.finish();
}

/** The `Attribute:` blocks of an object. */
export async function attributeLines(w: LineWriter, obj: Group | Dataset | CommittedDatatype, withData: boolean, simple: boolean): Promise<void> {
  for (const name of await obj.attrs.keys()) {
    const { dtype, dataspace } = await obj.attrs.describe(name);
    const shape = dataspace.kind === 'scalar' ? 'scalar' : dataspace.kind === 'null' ? 'null' : `{${dataspace.dims.join(', ')}}`;
    w.line(detail('Attribute', `${name} ${shape}`));
    w.line(`        ${'Type:'.padEnd(11)}${h5lsType(dtype, '                   ', simple)}`);
    if (withData && dataspace.kind !== 'null') {
      w.line('        Data:');
      const v = await obj.attrs.get(name);
      const values = dataspace.kind === 'scalar' ? [v] : (v as ArrayLike<unknown>);
      await dataLines(w, once(values, values.length), values.length, dtype, '               ', simple);
    }
  }
}

async function* once(values: unknown, n: number): AsyncIterable<{ values: unknown; n: number }> {
  yield { values, n };
}

/** The values of a dataset, slab by slab. */
async function* datasetSlabs(ds: Dataset): AsyncIterable<{ values: unknown; n: number }> {
  if (ds.dataspace.kind === 'scalar') {
    yield { values: await ds.read(), n: 1 };
    return;
  }
  const all = fullSubset(ds.shape);
  const es = Math.max(ds.elementSize, 1);
  const read = slabReader(ds, maxSlabElements(all, es, SLAB_BYTES));
  for (const slab of slabs(all, es, SLAB_BYTES, ds.chunks)) yield { values: await read(slab.selection, slab.elements), n: slab.elements };
}

/** `    Data:` and the values of a dataset (h5ls -d). */
export async function datasetData(w: LineWriter, ds: Dataset, simple: boolean): Promise<void> {
  w.line('    Data:');
  if (ds.dataspace.kind === 'null' || ds.size === 0) {
    w.line('');
    return;
  }
  await dataLines(w, datasetSlabs(ds), ds.size, ds.dtype, '         ', simple);
}

/** Chunks / Sparse Chunks, Storage, Filter-i and Type lines of a dataset. */
export async function storageLines(w: LineWriter, ds: Dataset, simple = false): Promise<void> {
  const layout = ds.layout;
  const logical = ds.size * memoryElementSize(ds);
  const chunkBytes = (dims: readonly number[]): number => dims.reduce((a, b) => a * b, 1) * ds.elementSize;
  if (layout.class === 'structured') {
    const names = structuredNames(layout);
    w.line(detail(names.label, `{${layout.chunkDims.join(', ')}} ${chunkBytes(layout.chunkDims)} bytes`));
    const s = await sectionSizes(ds);
    for (let i = 0; i < layout.sectionCount; i++) {
      w.line(`    Section ${i}: ${names.sections[i] ?? ''}`);
      w.line(`               ${utilization(s.logical[i] ?? 0, s.stored[i] ?? 0)}`);
      for (const l of filterLines(ds.sectionFilters?.[i]?.filters ?? [], '               ')) w.line(l);
    }
    const allocated = s.stored.reduce((a, b) => a + b, 0);
    w.line(detail('Storage', utilization(logical, allocated)));
  } else {
    let allocated = 0;
    if (layout.class === 'chunked') {
      w.line(detail('Chunks', `{${layout.chunkDims.join(', ')}} ${chunkBytes(layout.chunkDims)} bytes`));
      await ds.iterateChunks((c) => {
        allocated += c.size;
      });
    } else if (layout.class === 'contiguous') {
      allocated = layout.address >= 0 ? ds.size * ds.elementSize : 0;
    } else {
      allocated = ds.size * ds.elementSize;
    }
    w.line(detail('Storage', utilization(logical, allocated)));
    for (const l of filterLines(ds.filters)) w.line(l);
  }
  w.line(detail('Type', h5lsType(ds.dtype, undefined, simple)));
}
