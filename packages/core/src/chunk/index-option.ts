/**
 * The `chunkIndex` create option: the chunk index a new dataset uses instead of HDF5's own choice
 * ({@link chooseChunkIndex}), checked against what each index type can hold (HDF5 spec IV.A.2.i
 * "Chunk Indexing Type"): a single chunk needs dims = max dims = chunk dims, implicit and fixed
 * array need fixed max dims (implicit also early allocation and no filters), an extensible array
 * exactly one unlimited dimension; structured chunk layouts (class 4) take no implicit or v1 B-tree,
 * and chunkform creates no v1 B-tree (it reads them).
 * @module
 */
import { ValueError } from '../errors.js';
import { UNDEFINED_ADDRESS } from '../format/bytes.js';
import type { ChunkIndexInfo } from '../format/messages/layout-index.js';
import type { StructuredChunkIndexInfo } from '../format/messages/layout-structured.js';
import {
  chooseChunkIndex,
  chooseStructuredChunkIndex,
  DEFAULT_BTREE2_INDEX_INFO,
  DEFAULT_EXTENSIBLE_ARRAY_INFO,
  DEFAULT_FIXED_ARRAY_INFO,
} from './choose-index.js';
import type { IndexRequest } from './dataset-creator.js';

/** Values of the `chunkIndex` create option. */
export const CHUNK_INDEX_OPTIONS = ['single', 'implicit', 'fixed-array', 'extensible-array', 'btree2', 'btree1'] as const;

/** A value of the `chunkIndex` create option. */
export type ChunkIndexOption = (typeof CHUNK_INDEX_OPTIONS)[number];

const isUnlimited = (m: number): boolean => m === -1 || m === UNDEFINED_ADDRESS;

/** Why `type` cannot index the dataset `req` describes, or null when it can. */
function unsuitable(type: ChunkIndexOption, req: IndexRequest): string | null {
  const unlimited = req.maxDims.filter(isUnlimited).length;
  if (req.layoutClass === 'structured' && (type === 'implicit' || type === 'btree1')) {
    return 'structured-chunk layouts (layout message version 5) take single, fixed-array, extensible-array or btree2';
  }
  switch (type) {
    case 'single':
      return req.dims.every((d, i) => d === req.maxDims[i] && d === req.chunkDims[i])
        ? null
        : 'a single-chunk index needs shape = maxShape = chunks';
    case 'implicit':
      if (unlimited > 0) return 'an implicit index needs a maxShape without unlimited dimensions';
      if (req.filtered) return 'an implicit index cannot hold filtered chunks';
      if (req.allocTime !== 'early') return "an implicit index needs allocTime: 'early' (every chunk is allocated at creation)";
      return null;
    case 'fixed-array':
      return unlimited > 0 ? 'a fixed-array index needs a maxShape without unlimited dimensions' : null;
    case 'extensible-array':
      return unlimited === 1 ? null : `an extensible-array index needs exactly one unlimited dimension (maxShape has ${unlimited})`;
    case 'btree2':
      return null;
    case 'btree1':
      return "chunkform reads v1 B-tree chunk indexes (layout message version 3) but does not create them; use 'btree2'";
  }
}

/** The index info of `type` with HDF5's default parameters. */
function infoOf(type: ChunkIndexOption): ChunkIndexInfo {
  switch (type) {
    case 'fixed-array':
      return { ...DEFAULT_FIXED_ARRAY_INFO };
    case 'extensible-array':
      return { ...DEFAULT_EXTENSIBLE_ARRAY_INFO };
    case 'btree2':
      return { ...DEFAULT_BTREE2_INDEX_INFO };
    default:
      return { type };
  }
}

/**
 * The chunk index of a new dataset: HDF5's choice without `req.requested`, else the requested type
 * when it suits the layout.
 * @throws ValueError naming the `chunkIndex` option for an unknown or unsuitable index type.
 */
export function chooseIndexWithOption(req: IndexRequest & { layoutClass: 'chunked' }): ChunkIndexInfo;
export function chooseIndexWithOption(req: IndexRequest & { layoutClass: 'structured' }): StructuredChunkIndexInfo;
export function chooseIndexWithOption(req: IndexRequest): ChunkIndexInfo | StructuredChunkIndexInfo;
export function chooseIndexWithOption(req: IndexRequest): ChunkIndexInfo | StructuredChunkIndexInfo {
  const maxDims = req.maxDims.map((m) => (isUnlimited(m) ? -1 : m));
  const structured = req.layoutClass === 'structured';
  const auto = (): ChunkIndexInfo | StructuredChunkIndexInfo =>
    structured
      ? chooseStructuredChunkIndex({ dims: req.dims, maxDims, chunkDims: req.chunkDims, filtered: req.filtered, ...(req.sections !== undefined ? { sections: req.sections } : {}) })
      : chooseChunkIndex({ dims: req.dims, maxDims, chunkDims: req.chunkDims, filtered: req.filtered, ...(req.allocTime ? { allocTime: req.allocTime } : {}) });
  const want = req.requested;
  if (want === undefined) return auto();
  if (typeof want !== 'string' || !(CHUNK_INDEX_OPTIONS as readonly string[]).includes(want)) {
    throw new ValueError(
      `unknown chunkIndex ${JSON.stringify(want)}; use ${CHUNK_INDEX_OPTIONS.map((t) => `'${t}'`).join(', ')}`,
      { path: req.path },
    );
  }
  const type = want as ChunkIndexOption;
  const why = unsuitable(type, { ...req, maxDims });
  if (why) throw new ValueError(`chunkIndex '${type}' does not suit this dataset: ${why}`, { path: req.path });
  const chosen = auto();
  if (chosen.type === type) return chosen;
  // A structured single chunk is never chosen here: `unsuitable` let it through only when HDF5 picks it too.
  return infoOf(type) as ChunkIndexInfo | StructuredChunkIndexInfo;
}
