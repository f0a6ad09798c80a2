/**
 * h5dump's `-p` blocks of a dataset: STORAGE_LAYOUT, FILTERS, FILLVALUE and ALLOCATION_TIME, and
 * for sparse (structured-chunk) datasets the SPARSE CHUNK layout with one SECTION line per section
 * and `FILTERS SECTION i` blocks (docs/cli.md, sparse RFC §4.1).
 * @module
 */
import type { Dataset, FilterPipeline } from '@chunkform/core';
import type { FloatFormat } from './printf.js';
import { valueFormatter } from './ddl-values.js';

type FilterEntry = FilterPipeline['filters'][number];

/** Names of the sections of a sparse chunk (section 0: the encoded selection, 1: the values). */
export const SECTION_NAMES = ['SELECTION', 'VALUES'];

/**
 * How the tools name a structured-chunk layout and its sections: sparse (type 0) as the sparse RFC's
 * tools do; variable-length chunks (type 1, docs/format-vl.md) by their sections; other types by number.
 */
export function structuredNames(layout: { chunkType: number; sectionCount: number }): { kind: string; label: string; sections: string[] } {
  if (layout.chunkType === 0) return { kind: 'SPARSE CHUNK', label: 'Sparse Chunks', sections: SECTION_NAMES };
  const n = layout.sectionCount;
  if (layout.chunkType === 1) {
    return { kind: 'VL CHUNK', label: 'VL Chunks', sections: n === 3 ? ['SELECTION', 'ENTRIES', 'HEAP'] : ['ENTRIES', 'HEAP'] };
  }
  return { kind: `STRUCTURED CHUNK TYPE ${layout.chunkType}`, label: 'Structured Chunks', sections: Array.from({ length: n }, (_, i) => `SECTION${i}`) };
}

/** DDL lines of one filter (h5dump `h5tools_dump_dcpl` naming), at `pad`. */
export function filterLines(f: FilterEntry, pad: string): string[] {
  const cd = Array.from(f.clientData);
  switch (f.id) {
    case 1:
      return [`${pad}COMPRESSION DEFLATE { LEVEL ${cd[0] ?? 0} }`];
    case 2:
      return [`${pad}PREPROCESSING SHUFFLE`];
    case 3:
      return [`${pad}CHECKSUM FLETCHER32`];
    case 4:
      return [`${pad}COMPRESSION SZIP {`, `${pad}   PIXELS_PER_BLOCK ${cd[1] ?? 0}`, `${pad}}`];
    case 5:
      return [`${pad}COMPRESSION NBIT`];
    case 6:
      return [`${pad}COMPRESSION SCALEOFFSET { MIN BITS ${cd[1] ?? 0} }`];
    default:
      return [
        `${pad}USER_DEFINED_FILTER {`,
        `${pad}   FILTER_ID ${f.id}`,
        ...(f.name ? [`${pad}   COMMENT ${f.name}`] : []),
        ...(cd.length > 0 ? [`${pad}   PARAMS { ${cd.join(' ')} }`] : []),
        `${pad}}`,
      ];
  }
}

function filtersBlock(title: string, filters: readonly FilterEntry[], pad: string): string[] {
  const out = [`${pad}${title} {`];
  if (filters.length === 0) out.push(`${pad}   NONE`);
  for (const f of filters) out.push(...filterLines(f, `${pad}   `));
  out.push(`${pad}}`);
  return out;
}

function ratio(logical: number, stored: number): string {
  return stored > 0 ? ` (${(logical / stored).toFixed(3)}:1 COMPRESSION)` : '';
}

/** Stored bytes of each section over all stored sparse chunks, and their unfiltered sizes. */
export async function sectionSizes(ds: Dataset): Promise<{ stored: number[]; logical: number[]; chunks: number }> {
  const stored: number[] = [];
  const logical: number[] = [];
  let chunks = 0;
  await ds.iterateStructChunks((c) => {
    chunks++;
    c.sectionSizes.forEach((s, i) => (stored[i] = (stored[i] ?? 0) + s));
    c.unfilteredSizes.forEach((s, i) => (logical[i] = (logical[i] ?? 0) + s));
  });
  return { stored, logical, chunks };
}

/** The `-p` lines of `ds` at `pad`. */
export async function propertyLines(ds: Dataset, pad: string, float: FloatFormat, escape = false): Promise<string[]> {
  const inner = `${pad}   `;
  const out: string[] = [`${pad}STORAGE_LAYOUT {`];
  const layout = ds.layout;
  const logicalBytes = ds.size * ds.elementSize;
  let filters: string[];
  if (layout.class === 'structured') {
    const names = structuredNames(layout);
    out.push(`${inner}${names.kind} ( ${layout.chunkDims.join(', ')} )`);
    const { stored, logical } = await sectionSizes(ds);
    const n = layout.sectionCount;
    for (let i = 0; i < n; i++) {
      const s = stored[i] ?? 0;
      const pipeline = ds.sectionFilters?.[i]?.filters ?? [];
      out.push(`${inner}SECTION ${i} ${names.sections[i] ?? `SECTION${i}`} SIZE ${s}${pipeline.length > 0 ? ratio(logical[i] ?? 0, s) : ''}`);
    }
    filters = [];
    for (let i = 0; i < n; i++) filters.push(...filtersBlock(`FILTERS SECTION ${i}`, ds.sectionFilters?.[i]?.filters ?? [], pad));
  } else {
    if (layout.class === 'chunked') {
      let size = 0;
      await ds.iterateChunks((c) => {
        size += c.size;
      });
      out.push(`${inner}CHUNKED ( ${layout.chunkDims.join(', ')} )`);
      out.push(`${inner}SIZE ${size}${ds.filters.length > 0 ? ratio(logicalBytes, size) : ''}`);
    } else if (layout.class === 'contiguous') {
      const allocated = layout.address >= 0;
      out.push(`${inner}CONTIGUOUS`, `${inner}SIZE ${allocated ? logicalBytes : 0}`);
      out.push(`${inner}OFFSET ${allocated ? layout.address : '18446744073709551615'}`);
    } else if (layout.class === 'compact') {
      out.push(`${inner}COMPACT`, `${inner}SIZE ${logicalBytes}`);
    } else {
      out.push(`${inner}VIRTUAL`);
    }
    filters = filtersBlock('FILTERS', ds.filters, pad);
  }
  out.push(`${pad}}`, ...filters);
  const fill = ds.fill;
  out.push(`${pad}FILLVALUE {`, `${inner}FILL_TIME H5D_FILL_TIME_${fill.fillTime.toUpperCase()}`);
  const value = fill.defined && fill.value ? await ds.fillValue() : undefined;
  out.push(`${inner}VALUE  ${value === undefined ? 'H5D_FILL_VALUE_DEFAULT' : valueFormatter(ds.dtype, float, escape)(value)}`);
  out.push(`${pad}}`);
  const alloc = fill.allocTime === 'incremental' ? 'INCR' : fill.allocTime.toUpperCase();
  out.push(`${pad}ALLOCATION_TIME {`, `${inner}H5D_ALLOC_TIME_${alloc}`, `${pad}}`);
  return out;
}
