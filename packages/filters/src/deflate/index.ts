/**
 * Deflate filter (HDF5 filter id 1, H5Zdeflate.c; spec IV.A.2.l): zlib-format compression.
 * Client data: `[level]` (0–9). The zlib implementation comes from the `#zlib` import: Node's
 * native zlib under Node, fflate elsewhere, so browser bundles never reference `node:zlib`.
 * @module
 */
import { FilterError, type Filter, type FilterContext } from '@chunkform/core/plugin';
import { ZLIB_BACKEND, zlibCompress, zlibDecompress } from '#zlib';
import { chunkBytes } from '../util/chunk.js';

const ID = 1;
const NAME = 'deflate';
/** zlib's default level, used when a pipeline gives none. */
export const DEFAULT_DEFLATE_LEVEL = 6;

/** Which zlib implementation the deflate filter uses in this runtime. */
export const deflateBackend: 'node' | 'fflate' = ZLIB_BACKEND;

function level(ctx: FilterContext): number {
  const cd = ctx.clientData;
  if (cd.length === 0) return DEFAULT_DEFLATE_LEVEL;
  const l = cd[0]!;
  if (cd.length !== 1 || !Number.isInteger(l) || l < 0 || l > 9) {
    throw new FilterError(`invalid deflate aggression level [${cd.join(', ')}] (expected one value 0–9)`, { filterId: ID, filterName: NAME });
  }
  return l;
}

/**
 * Most bytes a decode may produce: the chunk plus room for filters that grow data before deflate
 * (checksums, scale-offset headers); a stream inflating beyond it is treated as corrupt.
 */
export function decodeLimit(ctx: Pick<FilterContext, 'chunkDims' | 'elementSize'>): number {
  const n = chunkBytes(ctx);
  return n > 0 ? 2 * n + 65536 : 0;
}

/**
 * Spec IV.A.2.l, filter 1: inflates one chunk (both registrations decode with it); under Node off the
 * calling thread for smaller chunks too when the caller does not wait for it (`ctx.background`).
 */
function decode(data: Uint8Array, ctx: FilterContext): ReturnType<Filter['decode']> {
  return zlibDecompress(data, chunkBytes(ctx), decodeLimit(ctx), ctx.wholeInput, ctx.background);
}

/** The deflate (zlib) filter (id 1). */
export const deflateFilter: Filter = {
  id: ID,
  name: NAME,
  encode: (data, ctx) => zlibCompress(data, level(ctx)),
  decode,
  setLocal(clientData) {
    const l = clientData.length === 0 ? DEFAULT_DEFLATE_LEVEL : clientData[0]!;
    if (clientData.length > 1 || !Number.isInteger(l) || l < 0 || l > 9) {
      throw new FilterError(`invalid deflate level [${clientData.join(', ')}] (expected one value 0–9)`, { filterId: ID, filterName: NAME });
    }
    return [l];
  },
};

/**
 * The deflate filter for apps that only read (id 1; `registerInflate`): decodes as {@link deflateFilter}
 * does, and leaves the compressor (fflate's deflate in browsers) out of the bundle. Encoding is a
 * {@link FilterError}: register {@link deflateFilter} (`registerDeflate`) to write deflate-compressed chunks.
 */
export const inflateFilter: Filter = {
  id: ID,
  name: NAME,
  encode: () => {
    throw new FilterError('deflate is registered for reading only (registerInflate); register it with registerDeflate() to write deflate-compressed chunks', {
      filterId: ID,
      filterName: NAME,
    });
  },
  decode,
};
