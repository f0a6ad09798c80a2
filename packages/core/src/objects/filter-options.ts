/**
 * h5py-style filter options (`compression`, `shuffle`, `fletcher32`, explicit `filters`) → the
 * filter pipeline of a new dataset, in h5py's order (scale-offset, shuffle, compression,
 * fletcher32) and with HDF5's optional/mandatory flags.
 * @module
 */
import { ValueError } from '../errors.js';
import type { FilterDescription, FilterPipeline } from '../format/messages/filter-pipeline.js';

/** A filter given explicitly. */
export interface FilterSpec {
  /** HDF5 filter id. */
  id: number;
  /** Client data values (cd_values); filters complete them at creation (e.g. shuffle's element size). */
  clientData?: number[];
  /** Optional filters that fail on a chunk are skipped for that chunk (default false). */
  optional?: boolean;
  /** Name stored for ids ≥ 256. */
  name?: string;
}

/**
 * Per-section filters of a structured-chunk dataset (`format: 'sparse'`, `'vl'` …): section name →
 * filters in pipeline order, or the name of a preset the format defines. The format names its
 * sections (sparse: `selection`, `values`).
 */
export type SectionFilterMap = Readonly<Record<string, readonly FilterSpec[] | string | undefined>>;

/**
 * Filter options of `createDataset`.
 *
 * Structured-chunk formats (e.g. `format: 'sparse'`) filter each section of a chunk with its own
 * pipeline: the shorthands `compression`, `shuffle` and `fletcher32` (and a `filters` list) apply
 * to every section; `filters: { <section>: [...] }` filters sections differently (see the format's
 * documentation for its section names and presets).
 */
export interface FilterOptions {
  /** 'gzip' (deflate, id 1) or another filter id. Structured-chunk formats: every section. */
  compression?: 'gzip' | number;
  /** gzip level 0–9 (default 4, as h5py), or client data for another compression filter. */
  compressionOpts?: number | number[];
  /** Byte shuffle before compression (id 2). Structured-chunk formats: every section. */
  shuffle?: boolean;
  /** Fletcher-32 checksum of each chunk (id 3). Structured-chunk formats: of each section. */
  fletcher32?: boolean;
  /**
   * Filters in pipeline order, after the shorthands above. Structured-chunk formats also take one
   * list per section ({@link SectionFilterMap}; the shorthands then apply to every section).
   */
  filters?: readonly FilterSpec[] | SectionFilterMap;
}

const OPTIONAL = 0x0001;

/** The pipeline the options describe (empty when none). */
export function pipelineFromOptions(o: FilterOptions, path: string): FilterPipeline {
  if (o.filters !== undefined && !Array.isArray(o.filters)) {
    throw new ValueError("per-section filters ({ <section>: [...] }) need a structured-chunk format (e.g. format: 'sparse')", { path });
  }
  const filters: FilterDescription[] = [];
  if (o.shuffle) filters.push({ id: 2, flags: OPTIONAL, clientData: [] });
  if (o.compression !== undefined) {
    if (o.compression === 'gzip' || o.compression === 1) {
      const level = o.compressionOpts === undefined ? 4 : Array.isArray(o.compressionOpts) ? o.compressionOpts[0] : o.compressionOpts;
      if (!Number.isInteger(level) || level! < 0 || level! > 9) throw new ValueError(`gzip level must be 0–9, got ${String(level)}`, { path });
      filters.push({ id: 1, flags: OPTIONAL, clientData: [level!] });
    } else if (typeof o.compression === 'number' && Number.isInteger(o.compression) && o.compression > 0 && o.compression <= 0xffff) {
      const cd = o.compressionOpts === undefined ? [] : Array.isArray(o.compressionOpts) ? o.compressionOpts : [o.compressionOpts];
      filters.push({ id: o.compression, flags: OPTIONAL, clientData: cd.slice() });
    } else {
      throw new ValueError(`unknown compression ${JSON.stringify(o.compression)}; use 'gzip' or a filter id`, { path });
    }
  }
  if (o.fletcher32) filters.push({ id: 3, flags: 0, clientData: [] });
  for (const f of (o.filters as readonly FilterSpec[] | undefined) ?? []) {
    if (!Number.isInteger(f.id) || f.id < 0 || f.id > 0xffff) throw new ValueError(`invalid filter id ${f.id}`, { path });
    filters.push({ id: f.id, flags: f.optional ? OPTIONAL : 0, clientData: (f.clientData ?? []).slice(), ...(f.name ? { name: f.name } : {}) });
  }
  return { filters };
}
