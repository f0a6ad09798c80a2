/**
 * Small read-only views of objects shared by `ls` and `dump`: a dataset's layout summary, filter
 * descriptions, and the object header address used to recognise a second hard link to an object.
 * @module
 */
import type { Dataset, DataLayout } from '@chunkform/core';

/** Receives output one line at a time (without the newline). */
export type LineSink = (line: string) => void;

/** The fields of a filter pipeline entry the CLI shows. */
export interface FilterInfo {
  id: number;
  name?: string | undefined;
  clientData: ArrayLike<number>;
}

/** What the CLI tells about a dataset's storage. */
export interface LayoutSummary {
  /** 'compact', 'contiguous', 'chunked', 'virtual' or 'structured'. */
  class: string;
  /** Chunk dimensions (chunked and structured layouts). */
  chunks?: number[];
  /** Chunk index type, e.g. 'btree1', 'single', 'implicit', 'fixed-array', 'extensible-array', 'btree2'. */
  index?: string;
  /** Structured chunks only: 'sparse', 'vlen' or the stored number. */
  chunkType?: string;
}

/** Summarises a data layout message for display. */
export function layoutSummary(layout: DataLayout): LayoutSummary {
  const out: LayoutSummary = { class: layout.class };
  if (layout.class === 'chunked' || layout.class === 'structured') {
    out.chunks = [...layout.chunkDims];
    out.index = layout.index.type === 'external' ? `${layout.index.name} (code ${layout.index.code})` : layout.index.type;
  }
  if (layout.class === 'structured') {
    out.chunkType = layout.chunkType === 0 ? 'sparse' : layout.chunkType === 1 ? 'vlen' : String(layout.chunkType);
  }
  return out;
}

/** One line of text for a layout: `contiguous`, `chunked {5, 20}, index btree1`, `structured sparse {4}, index single`. */
export function layoutText(s: LayoutSummary): string {
  let t = s.class;
  if (s.chunkType !== undefined) t += ` ${s.chunkType}`;
  if (s.chunks) t += ` {${s.chunks.join(', ')}}`;
  if (s.index !== undefined) t += `, index ${s.index}`;
  return t;
}

/** The filters of a dataset's pipeline. */
export function datasetFilters(ds: Dataset): readonly FilterInfo[] {
  return ds.filters as readonly FilterInfo[];
}

/** Object header address of a group, dataset or committed datatype, when the object layer exposes it. */
export function objectAddress(obj: unknown): number | undefined {
  if (typeof obj !== 'object' || obj === null) return undefined;
  const model = (obj as { headerModel?: { address?: unknown } }).headerModel;
  return model && typeof model.address === 'number' ? model.address : undefined;
}
