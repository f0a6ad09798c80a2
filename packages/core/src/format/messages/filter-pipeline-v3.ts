/**
 * Filter Pipeline message (type 0x000B) **version 3**: one filter pipeline per section of a
 * structured chunk (sparse-data prototype, "dialect A"; docs/structured-chunk-format.md §4.1 (RFC tables 17/18) and
 * docs/structured-chunk-format.md §4.1). The body after the version byte — the filtered sections,
 * each with its list of pipeline-v2 filter descriptions — is shared with the later "STC filter
 * pipeline" message 0x0019 (`stc-filter-pipeline.ts`, docs/structured-chunk-format.md §4.2), so its codec lives here.
 * @module
 */
import { ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, UNDEFINED_ADDRESS, utf8Decode, utf8Encode } from '../bytes.js';
import type { FilterDescription, FilterPipeline } from './filter-pipeline.js';

/** Per-section filter pipelines of a structured-chunk dataset. */
export interface SectionPipelines {
  /** The pipeline of each section, indexed by section number (an empty pipeline = unfiltered section). */
  sections: FilterPipeline[];
  /**
   * Order of the sections in the message: the order in which the application first set a filter on
   * each section, not sorted (docs/structured-chunk-format.md §4.1). Default: the filtered sections by ascending number.
   */
  order?: number[];
}

/** Options of the section-pipeline decoders. */
export interface SectionPipelinesDecodeOptions {
  /** File address of the message body, for errors. */
  address?: number;
  /** Sections per chunk (from the layout message): section numbers must be below it, and `sections` gets this length. */
  sectionCount?: number;
}

/** Version byte of the dialect-A message (filter pipeline message 0x000B). */
export const FILTER_PIPELINE_VERSION_3 = 3;
/** Most filters one section's pipeline may hold (H5Z_MAX_NFILTERS). */
const MAX_SECTION_FILTERS = 32;
/** First filter id whose name is stored in a version 2 filter description. */
const FILTER_RESERVED = 256;
const STRUCTURE = 'filter pipeline message (version 3)';

/**
 * Decodes one filter description of a filter pipeline message version 1 or 2 (spec IV.A.2.l; version 3
 * sections use the version 2 format, docs/structured-chunk-format.md §4.3). Version 1 always stores a name length (a multiple of
 * eight) and pads an odd number of client data values to a multiple of 8 bytes; version 2 stores a name
 * only for ids ≥ 256.
 */
export function decodeFilterDescription(r: ByteReader, version: 1 | 2): FilterDescription {
  const id = r.u16();
  let nameLength = 0;
  if (version === 1 || id >= FILTER_RESERVED) {
    nameLength = r.u16();
    if (version === 1 && nameLength % 8) throw r.error(`filter ${id}: name length ${nameLength} is not a multiple of eight`);
  }
  const flags = r.u16();
  const ncd = r.u16();
  const f: FilterDescription = { id, flags, clientData: [] };
  if (nameLength > 0) {
    const raw = r.bytesView(nameLength, 'filter name');
    const end = raw.indexOf(0);
    f.name = utf8Decode(end < 0 ? raw : raw.subarray(0, end));
  }
  r.need(4 * ncd, 'filter client data');
  const cd = new Array<number>(ncd);
  for (let j = 0; j < ncd; j++) cd[j] = r.u32();
  f.clientData = cd;
  if (version === 1 && ncd % 2) r.skip(4);
  return f;
}

/**
 * Encodes one filter description of a filter pipeline message version 1 or 2 (spec IV.A.2.l; notes
 * §4.3): version 2 stores the name only for ids ≥ 256, NUL-terminated and unpadded; version 1 always
 * stores it, padded to 8 bytes, and pads an odd number of client data values. `checkFlags`: reject
 * flags outside 0..65535 (otherwise their low 16 bits are written).
 */
export function encodeFilterDescription(w: ByteWriter, f: FilterDescription, structure: string, version: 1 | 2 = 2, checkFlags = true): void {
  if (!Number.isInteger(f.id) || f.id < 0 || f.id > 0xffff) throw new ValueError(`invalid filter id ${f.id}`, { structure });
  if (checkFlags && (!Number.isInteger(f.flags) || f.flags < 0 || f.flags > 0xffff)) throw new ValueError(`filter ${f.id}: invalid flags ${f.flags}`, { structure });
  if (f.clientData.length > 0xffff) throw new ValueError(`filter ${f.id}: too many client data values`, { structure });
  w.u16(f.id);
  const withName = version === 1 || f.id >= FILTER_RESERVED;
  const name = withName && f.name ? utf8Encode(f.name) : null;
  const nameLength = name ? name.length + 1 : 0;
  const stored = version === 1 ? (nameLength + 7) & ~7 : nameLength;
  if (withName) {
    if (stored > 0xffff) throw new ValueError(`filter ${f.id}: name too long`, { structure });
    w.u16(stored);
  }
  w.u16(f.flags & 0xffff).u16(f.clientData.length);
  if (name) w.bytes(name).zeros(stored - name.length);
  for (const v of f.clientData) {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new ValueError(`filter ${f.id}: invalid client data value ${v}`, { structure });
    w.u32(v);
  }
  if (version === 1 && f.clientData.length % 2) w.u32(0);
}

/** Decodes one filter description in the pipeline-v2 format (spec IV.A.2.l version 2; docs/structured-chunk-format.md §4.3). */
export function decodeFilterDescriptionV2(r: ByteReader): FilterDescription {
  return decodeFilterDescription(r, 2);
}

/** Encodes one filter description in the pipeline-v2 format (spec IV.A.2.l version 2; docs/structured-chunk-format.md §4.3): name only for ids ≥ 256, NUL-terminated, unpadded. */
export function encodeFilterDescriptionV2(w: ByteWriter, f: FilterDescription, structure: string): void {
  encodeFilterDescription(w, f, structure, 2);
}

/**
 * Decodes the part of a per-section pipeline message after its version byte (docs/structured-chunk-format.md (RFC table 17),
 * docs/structured-chunk-format.md §4.1): number of filtered sections, then per section its number, filter count, the byte
 * size of its filter-description list and the list. The list size must match the descriptions.
 */
export function decodeSectionPipelinesBody(r: ByteReader, opts: SectionPipelinesDecodeOptions = {}): SectionPipelines {
  const nsections = r.u8();
  const limit = opts.sectionCount;
  if (limit !== undefined && nsections > limit) throw r.error(`${nsections} filtered sections but chunks have only ${limit} sections`);
  const order: number[] = [];
  const byNumber = new Map<number, FilterPipeline>();
  for (let i = 0; i < nsections; i++) {
    const section = r.u8();
    if (limit !== undefined && section >= limit) throw r.error(`filtered section ${section} out of range (chunks have ${limit} sections)`);
    if (byNumber.has(section)) throw r.error(`section ${section} has two pipelines`);
    const nfilters = r.u8();
    if (nfilters > MAX_SECTION_FILTERS) throw r.error(`section ${section}: ${nfilters} filters exceed the maximum of ${MAX_SECTION_FILTERS}`);
    const listSize = r.u16();
    const start = r.pos;
    const list = r.bytesView(listSize, `filter description list of section ${section}`);
    const sub = new ByteReader(list, { sizes: r.sizes, structure: r.structure, base: r.base });
    const filters: FilterDescription[] = [];
    for (let k = 0; k < nfilters; k++) filters.push(decodeFilterDescriptionV2(sub));
    if (sub.pos !== listSize) {
      throw r.error(`section ${section}: filter description list at offset ${start} is ${listSize} bytes but its ${nfilters} filters take ${sub.pos}`);
    }
    byNumber.set(section, { filters });
    order.push(section);
  }
  let n = limit ?? 0;
  for (const s of order) n = Math.max(n, s + 1);
  const sections: FilterPipeline[] = [];
  for (let s = 0; s < n; s++) sections.push(byNumber.get(s) ?? { filters: [] });
  return { sections, order };
}

/** The section order to encode: `p.order`, or the filtered sections by number; validated. */
function encodeOrder(p: SectionPipelines, structure: string): number[] {
  const order = p.order ?? p.sections.flatMap((s, i) => (s.filters.length > 0 ? [i] : []));
  const seen = new Set<number>();
  for (const s of order) {
    if (!Number.isInteger(s) || s < 0 || s > 255 || s >= p.sections.length) throw new ValueError(`invalid section number ${s} in the section order`, { structure });
    if (seen.has(s)) throw new ValueError(`section ${s} appears twice in the section order`, { structure });
    seen.add(s);
  }
  p.sections.forEach((s, i) => {
    if (s.filters.length > 0 && !seen.has(i)) throw new ValueError(`section ${i} has filters but is missing from the section order`, { structure });
  });
  if (order.length > 255) throw new ValueError(`${order.length} filtered sections exceed 255`, { structure });
  return order;
}

/** Encodes the part of a per-section pipeline message after its version byte (docs/structured-chunk-format.md §4.1 (RFC table 17)). */
export function encodeSectionPipelinesBody(w: ByteWriter, p: SectionPipelines, structure: string): void {
  const order = encodeOrder(p, structure);
  w.u8(order.length);
  for (const s of order) {
    const { filters } = p.sections[s]!;
    if (filters.length > MAX_SECTION_FILTERS) {
      throw new ValueError(`section ${s}: ${filters.length} filters exceed the maximum of ${MAX_SECTION_FILTERS}`, { structure });
    }
    w.u8(s).u8(filters.length);
    const sizeAt = w.pos;
    w.u16(0);
    for (const f of filters) encodeFilterDescriptionV2(w, f, structure);
    const size = w.pos - sizeAt - 2;
    if (size > 0xffff) throw new ValueError(`section ${s}: filter description list of ${size} bytes exceeds 65535`, { structure });
    w.patchUN(sizeAt, size, 2);
  }
}

/** Decodes a filter pipeline message version 3 (docs/structured-chunk-format.md §4.1 (RFC table 17), dialect A). */
export function decodeFilterPipelineV3(body: Uint8Array, opts: SectionPipelinesDecodeOptions = {}): SectionPipelines {
  const r = new ByteReader(body, { structure: STRUCTURE, base: opts.address ?? UNDEFINED_ADDRESS });
  const version = r.u8();
  if (version !== FILTER_PIPELINE_VERSION_3) throw r.error(`expected version 3, found ${version}`);
  return decodeSectionPipelinesBody(r, opts);
}

/** Encodes a filter pipeline message version 3 (docs/structured-chunk-format.md §4.1 (RFC table 17), dialect A). */
export function encodeFilterPipelineV3(p: SectionPipelines): Uint8Array {
  const w = new ByteWriter(undefined, 64);
  w.u8(FILTER_PIPELINE_VERSION_3);
  encodeSectionPipelinesBody(w, p, STRUCTURE);
  return w.finishExact();
}
