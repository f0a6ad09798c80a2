/**
 * Text rows describing a group or dataset: shape, datatype, layout (chunks, index, sparse sections),
 * filters per pipeline, fill value and attributes.
 * @module
 */
import { KNOWN_FILTER_PACKAGES, type Dataset, dtypeToString, type Attributes, type FilterPipeline } from '@chunkform/core';

export type Row = [label: string, value: string];

/** A short text for any value an attribute or dataset read returns. */
export function formatValue(v: unknown, max = 160): string {
  let s: string;
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    const a = v as unknown as ArrayLike<unknown>;
    const head = Array.from({ length: Math.min(a.length, 32) }, (_, i) => String(a[i]));
    s = `[${head.join(', ')}${a.length > 32 ? `, … (${a.length})` : ''}]`;
  } else if (typeof v === 'string') {
    s = JSON.stringify(v);
  } else {
    s = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : ArrayBuffer.isView(x) ? Array.from(x as unknown as ArrayLike<unknown>) : x)) ?? String(v);
  }
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function filterText(p: FilterPipeline['filters']): string {
  if (p.length === 0) return 'none';
  return p
    .map((f) => {
      const name = f.name ?? KNOWN_FILTER_PACKAGES[f.id]?.name ?? `filter ${f.id}`;
      return f.clientData.length > 0 ? `${name} (${f.clientData.join(', ')})` : name;
    })
    .join(' → ');
}

const SECTION_NAMES = ['selection', 'values'];

/** The rows shown for a dataset. */
export async function datasetRows(ds: Dataset): Promise<Row[]> {
  const rows: Row[] = [];
  const dims = (d: readonly (number | null)[]) => `(${d.map((x) => (x === null ? '∞' : String(x))).join(', ')})`;
  rows.push(['shape', dims(ds.shape)]);
  if (ds.maxShape) rows.push(['max shape', dims(ds.maxShape)]);
  rows.push(['dtype', dtypeToString(ds.dtype)]);
  const l = ds.layout;
  if (l.class === 'chunked' || l.class === 'structured') {
    const kind = l.class === 'structured' ? (l.chunkType === 0 ? 'structured (sparse)' : `structured (type ${l.chunkType})`) : 'chunked';
    rows.push(['layout', `${kind}, chunks ${dims(l.chunkDims)}, index ${l.index.type}`]);
  } else {
    rows.push(['layout', l.class]);
  }
  if (ds.sectionFilters) {
    ds.sectionFilters.forEach((p, i) => rows.push([`filters: ${SECTION_NAMES[i] ?? `section ${i}`}`, filterText(p.filters)]));
  } else if (l.class === 'chunked') {
    rows.push(['filters', filterText(ds.filters)]);
  }
  try {
    rows.push(['fill value', formatValue(await ds.fillValue())]);
  } catch (e) {
    rows.push(['fill value', `(${(e as Error).message})`]);
  }
  return rows;
}

/** Attribute rows (`@name`), read one by one so one unreadable attribute does not hide the others. */
export async function attributeRows(obj: { attrs: Attributes }): Promise<Row[]> {
  const rows: Row[] = [];
  for (const name of await obj.attrs.keys()) {
    try {
      rows.push([`@${name}`, formatValue(await obj.attrs.get(name))]);
    } catch (e) {
      rows.push([`@${name}`, `(${(e as Error).message})`]);
    }
  }
  return rows;
}
