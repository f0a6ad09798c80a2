/**
 * Section filter options of structured-chunk datasets: h5py-style shorthands and `filters` lists
 * apply to every section; `filters: { <section>: [...] | '<preset>' }` gives sections their own
 * filters. The result is one pipeline per section and the order in which sections were given
 * filters, which the filter pipeline message v3 / STC message records (docs/structured-chunk-format.md §4.1 (RFC tables 17/18)).
 * @module
 */
import { ValueError } from '../errors.js';
import type { FilterPipeline } from '../format/messages/filter-pipeline.js';
import { pipelineFromOptions, type FilterOptions, type FilterSpec } from '../objects/filter-options.js';

/** Presets a format offers per section: section name → preset name → filters. */
export type SectionPresets = Readonly<Record<string, Readonly<Record<string, readonly FilterSpec[]>>>>;

/** The per-section pipelines of a new structured-chunk dataset. */
export interface SectionPipelineChoice {
  /** One pipeline per section (index = section number; empty = unfiltered). */
  pipelines: FilterPipeline[];
  /** Sections in the order they were given filters (only sections with filters). */
  order: number[];
  /**
   * Sections given a preset: section number → the preset's name and the position in that
   * section's pipeline where the preset's filters start (after the shorthand filters).
   */
  presets: Map<number, { name: string; at: number }>;
}

/**
 * The per-section pipelines `o` describes for sections named `sectionNames` (in section order):
 * the shorthands on every section, then each section's own filters (or preset). The order lists
 * every filtered section when shorthands are given, else the key order of `filters`.
 * @throws ValueError for an unknown section name or preset, or a bad filter.
 */
export function sectionPipelinesFromOptions(o: FilterOptions, sectionNames: readonly string[], path: string, presets: SectionPresets = {}): SectionPipelineChoice {
  const n = sectionNames.length;
  const perSection: (readonly FilterSpec[] | undefined)[] = new Array(n).fill(undefined);
  const keyOrder: number[] = [];
  const chosen = new Map<number, { name: string; at: number }>();
  if (Array.isArray(o.filters)) {
    perSection.fill(o.filters as readonly FilterSpec[]);
  } else if (o.filters !== undefined) {
    const shorthandCount = pipelineFromOptions({ ...o, filters: [] }, path).filters.length;
    for (const [key, value] of Object.entries(o.filters)) {
      const s = sectionNames.indexOf(key);
      if (s < 0) {
        throw new ValueError(`unknown section ${JSON.stringify(key)} in filters; this format's sections are ${sectionNames.map((x) => `'${x}'`).join(', ')}`, { path });
      }
      if (value === undefined) continue;
      if (typeof value === 'string') {
        const offered = presets[key] ?? {};
        if (!Object.prototype.hasOwnProperty.call(offered, value)) {
          const known = Object.keys(offered).map((k) => `'${k}'`);
          throw new ValueError(
            `unknown ${key} filter preset ${JSON.stringify(value)}; use ${known.length ? `${known.join(' or ')} or ` : ''}a filter list`,
            { path },
          );
        }
        perSection[s] = offered[value]!;
        chosen.set(s, { name: value, at: shorthandCount });
      } else if (Array.isArray(value)) {
        perSection[s] = value as readonly FilterSpec[];
      } else {
        throw new ValueError(`filters.${key} must be a filter list${presets[key] ? ' or a preset name' : ''}`, { path });
      }
      if (perSection[s]!.length > 0 && !keyOrder.includes(s)) keyOrder.push(s);
    }
  }
  const pipelines = perSection.map((extra) => pipelineFromOptions({ ...o, filters: extra ?? [] }, path));
  const shorthand = o.shuffle || o.fletcher32 || o.compression !== undefined || Array.isArray(o.filters);
  const order = shorthand ? sectionNames.map((_, i) => i) : keyOrder;
  return { pipelines, order: order.filter((s) => pipelines[s]!.filters.length > 0), presets: chosen };
}
