/**
 * Creating run-length datasets: the format's `DatasetCreator`. The header messages come from
 * core's structured-chunk base (layout message version 5, class 4) with this package's chunk type
 * and one section; the index is HDF5's choice or the `chunkIndex` option.
 * @module
 */
import {
  ValueError,
  structuredDatasetMessages,
  type CreateDatasetCommon,
  type DatasetCreateContext,
  type DatasetCreator,
  type DatasetPlan,
} from '@chunkform/core';

/**
 * Structured chunk type code of run-length chunks. Codes 0 (sparse) and 1 (variable-length) are
 * HDF5's; a third-party format picks a code no other format in the files it meets uses.
 */
export const RLE_CHUNK_TYPE = 256;

/** Options that would filter chunks: run-length chunks take none. */
const FILTER_OPTIONS = ['compression', 'shuffle', 'fletcher32', 'filters'];

/** Plans new run-length datasets. */
export const rleCreator: DatasetCreator = {
  plan(opts: Readonly<Record<string, unknown>> & CreateDatasetCommon, ctx: DatasetCreateContext): DatasetPlan {
    const { path, dtype } = opts;
    const given = FILTER_OPTIONS.filter((k) => opts[k] !== undefined && opts[k] !== false);
    if (given.length > 0) throw new ValueError(`run-length datasets take no filters (got ${given.join(', ')})`, { path });
    if (dtype.class === 'vlen' || (dtype.class === 'string' && dtype.length === 'variable')) {
      throw new ValueError('run-length datasets need a fixed-size datatype', { path });
    }
    if (opts.allocTime === 'early') throw new ValueError("run-length chunks are stored when written; allocTime 'early' does not apply", { path });
    const messages = structuredDatasetMessages(ctx, opts, {
      chunkType: RLE_CHUNK_TYPE,
      sectionNames: ['runs'],
      metadataSections: [],
      pipelines: [{ filters: [] }],
    });
    return { messages };
  },
};
