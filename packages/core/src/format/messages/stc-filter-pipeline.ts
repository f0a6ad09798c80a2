/**
 * "STC filter pipeline" message (type 0x0019, version 1): the per-section filter pipelines of a
 * structured-chunk dataset as the sparse prototype writes them after HDF Group PR #6043
 * ("dialect B", docs/structured-chunk-format.md §4.2). Same body as the filter pipeline message
 * version 3 (`filter-pipeline-v3.ts`, docs/structured-chunk-format.md §4.1) behind version byte 1; written with the
 * "constant" message flag, right before the layout message, only when a section is filtered.
 * @module
 */
import { ByteReader, ByteWriter, UNDEFINED_ADDRESS } from '../bytes.js';
import {
  decodeSectionPipelinesBody,
  encodeSectionPipelinesBody,
  type SectionPipelines,
  type SectionPipelinesDecodeOptions,
} from './filter-pipeline-v3.js';

/** Version of the STC filter pipeline message. */
export const STC_FILTER_PIPELINE_VERSION = 1;
const STRUCTURE = 'STC filter pipeline message';

/** Decodes an STC filter pipeline message body (docs/structured-chunk-format.md §4.2, message 0x0019 version 1). */
export function decodeStcFilterPipeline(body: Uint8Array, opts: SectionPipelinesDecodeOptions = {}): SectionPipelines {
  const r = new ByteReader(body, { structure: STRUCTURE, base: opts.address ?? UNDEFINED_ADDRESS });
  const version = r.u8();
  if (version !== STC_FILTER_PIPELINE_VERSION) throw r.error(`unsupported version ${version}`);
  return decodeSectionPipelinesBody(r, opts);
}

/** Encodes an STC filter pipeline message body (docs/structured-chunk-format.md §4.2, message 0x0019 version 1). */
export function encodeStcFilterPipeline(p: SectionPipelines): Uint8Array {
  const w = new ByteWriter(undefined, 64);
  w.u8(STC_FILTER_PIPELINE_VERSION);
  encodeSectionPipelinesBody(w, p, STRUCTURE);
  return w.finishExact();
}
