/**
 * Filter Pipeline message (HDF5 spec IV.A.2.l, type 0x000B): the filters applied to each chunk of
 * a dataset. Versions 1 and 2 are decoded; version 2 (what HDF5 1.8+ writes) and version 1 encoded.
 * Version 3 (per-section pipelines of structured chunks, docs/structured-chunk-format.md §4.1) is delegated to
 * `filter-pipeline-v3.ts`.
 * @module
 */
import { ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, DEFAULT_SIZES, UNDEFINED_ADDRESS, type SizeContext } from '../bytes.js';
import { decodeFilterDescription, decodeFilterPipelineV3, encodeFilterDescription, encodeFilterPipelineV3 } from './filter-pipeline-v3.js';

/** One filter of a pipeline. */
export interface FilterDescription {
  /** Filter identifier (1 deflate, 2 shuffle, 3 fletcher32, 4 szip, 5 nbit, 6 scale-offset, ≥ 256 third party). */
  id: number;
  /** Filter name, when stored (always for version 1 if the writer knew it; version 2 only for ids ≥ 256). */
  name?: string;
  /** Flags: bit 0 = optional (failure to apply it is not an error). */
  flags: number;
  /** Client data values (UINT32 each). */
  clientData: number[];
}

/** A decoded filter pipeline. */
export interface FilterPipeline {
  filters: FilterDescription[];
  /**
   * Version 3 messages only (structured chunks): the pipeline of each section, indexed by section
   * number; `filters` is then empty.
   */
  sections?: FilterPipeline[];
  /** Version 3 messages only: the order of the sections in the message (see `SectionPipelines.order`). */
  sectionOrder?: number[];
}

/** Filter flag bit 0: the filter is optional. */
export const FILTER_FLAG_OPTIONAL = 0x0001;
/** Most filters a pipeline may hold (H5Z_MAX_NFILTERS). */
export const MAX_FILTERS = 32;
const STRUCTURE = 'filter pipeline message';

/**
 * Decodes a filter pipeline message body (spec IV.A.2.l, versions 1 and 2; version 3 — per-section
 * pipelines, docs/structured-chunk-format.md §4.1 — comes back as `{ filters: [], sections, sectionOrder }`).
 * `sizesOrAddress`: the size context (unused here) or, as a shorthand, the body's file address.
 */
export function decodeFilterPipeline(body: Uint8Array, sizesOrAddress: SizeContext | number = DEFAULT_SIZES, address = UNDEFINED_ADDRESS): FilterPipeline {
  const at = typeof sizesOrAddress === 'number' ? sizesOrAddress : address;
  const r = new ByteReader(body, { structure: STRUCTURE, base: at });
  const version = r.u8();
  if (version === 3) {
    const p = decodeFilterPipelineV3(body, { address: at });
    return { filters: [], sections: p.sections, sectionOrder: p.order ?? [] };
  }
  if (version !== 1 && version !== 2) throw r.error(`unsupported version ${version}`);
  const n = r.u8();
  if (n > MAX_FILTERS) throw r.error(`${n} filters exceed the maximum of ${MAX_FILTERS}`);
  if (version === 1) r.skip(6);
  const filters: FilterDescription[] = [];
  for (let i = 0; i < n; i++) filters.push(decodeFilterDescription(r, version));
  return { filters };
}

/**
 * Encodes a filter pipeline message body (spec IV.A.2.l). Version 2 (default) omits the name of
 * filters with ids < 256, as HDF5 does; version 1 pads names to 8 bytes and odd client-data counts.
 * Version 3 encodes `pipeline.sections` (in `pipeline.sectionOrder`) as per-section pipelines
 * (docs/structured-chunk-format.md §4.1).
 */
export function encodeFilterPipeline(pipeline: FilterPipeline, version: 1 | 2 | 3 = 2): Uint8Array {
  if (version === 3) {
    if (!pipeline.sections) throw new ValueError('a version 3 filter pipeline message needs per-section pipelines', { structure: STRUCTURE });
    return encodeFilterPipelineV3({ sections: pipeline.sections, ...(pipeline.sectionOrder ? { order: pipeline.sectionOrder } : {}) });
  }
  const { filters } = pipeline;
  if (filters.length > MAX_FILTERS) throw new ValueError(`${filters.length} filters exceed the maximum of ${MAX_FILTERS}`, { structure: STRUCTURE });
  const w = new ByteWriter(undefined, 64);
  w.u8(version).u8(filters.length);
  if (version === 1) w.zeros(6);
  for (const f of filters) encodeFilterDescription(w, f, STRUCTURE, version, false);
  return w.finishExact();
}
