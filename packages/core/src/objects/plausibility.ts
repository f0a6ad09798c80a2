/**
 * Plausibility of a dataset's sizes at open (issue 10, "hostile sizes"): the dataspace (spec IV.A.2.b),
 * datatype size and data layout (spec IV.A.2.i) must agree with each other and with the file before
 * any number from them sizes an allocation or a loop. A corrupt dimension otherwise becomes a
 * multi-gigabyte allocation or a walk over millions of chunks that were never stored.
 *
 * Checks that need the chunk index itself (fixed array entries, extensible array capacity, an
 * implicit index's block within the file) are made by the index providers when they open.
 * @module
 */
import { FormatError, TruncatedError } from '../errors.js';
import { isDefinedAddress } from '../format/bytes.js';
import type { Dataspace } from '../format/messages/dataspace.js';
import type { DataLayout } from '../format/messages/layout.js';

const SPACE = 'dataspace message';
const LAYOUT = 'data layout message';

/** What the checks need to know about a dataset. */
export interface PlausibilityInput {
  path: string;
  dataspace: Dataspace;
  layout: DataLayout;
  /** Datatype size in bytes. */
  elementSize: number;
  /** End of the file (bytes). */
  eof: number;
  /** True when the data lives in external files (the layout's address and size are then unused). */
  external: boolean;
}

/**
 * Throws a {@link FormatError} naming the dataset, the structure and the numbers when the dataset's
 * sizes cannot be right: dimensions above their maximum, element or byte counts beyond 2^53, compact
 * data of another size than the dataspace needs, contiguous storage of another size or past the end
 * of the file, chunk element size unlike the datatype's, more chunks than 2^53, or (single-chunk
 * index) a dataspace larger than its one chunk.
 */
export function checkDatasetSizes(d: PlausibilityInput): void {
  const { path, dataspace: space, layout, elementSize: es } = d;
  const dims = space.kind === 'simple' ? space.dims : [];
  if (space.kind === 'simple' && space.maxDims) {
    space.maxDims.forEach((m, i) => {
      if (m !== -1 && dims[i]! > m) {
        throw new FormatError(`dimension ${i} has size ${dims[i]} but maximum ${m} (dims [${dims.join(', ')}], max [${space.maxDims!.join(', ')}])`, { path, structure: SPACE });
      }
    });
  }
  const count = space.kind === 'null' ? 0 : dims.reduce((a, b) => a * b, 1);
  const bytes = count * es;
  if (!Number.isSafeInteger(count) || !Number.isSafeInteger(bytes)) {
    throw new FormatError(`dims [${dims.join(', ')}] of ${es}-byte elements exceed 2^53 bytes`, { path, structure: SPACE });
  }
  switch (layout.class) {
    case 'compact':
      if (layout.data.length !== bytes) {
        throw new FormatError(`compact data has ${layout.data.length} bytes, the dataspace [${dims.join(', ')}] of ${es}-byte elements needs ${bytes}`, {
          path,
          structure: LAYOUT,
        });
      }
      return;
    case 'contiguous': {
      if (d.external || !isDefinedAddress(layout.address)) return;
      // Versions 1–2 store no size (it is derived from stored dims truncated to 32 bits): use the dataspace.
      const size = (layout.version ?? 3) >= 3 ? layout.size : bytes;
      if (size !== bytes) {
        throw new FormatError(`contiguous storage holds ${size} bytes, the dataspace [${dims.join(', ')}] of ${es}-byte elements needs ${bytes}`, {
          path,
          structure: LAYOUT,
          address: layout.address,
        });
      }
      if (layout.address + size > d.eof) {
        throw new TruncatedError(`contiguous storage of ${size} bytes at address ${layout.address} extends past the end of the file (${d.eof} bytes)`, {
          path,
          structure: LAYOUT,
        });
      }
      return;
    }
    case 'chunked':
    case 'structured': {
      if (layout.elementSize !== es) {
        throw new FormatError(`chunk element size ${layout.elementSize} differs from the datatype size ${es}`, { path, structure: LAYOUT });
      }
      const chunk = layout.chunkDims;
      if (chunk.length !== dims.length) {
        throw new FormatError(`chunk dims [${chunk.join(', ')}] do not match the rank of the dataspace [${dims.join(', ')}]`, { path, structure: LAYOUT });
      }
      let chunks = 1;
      dims.forEach((n, i) => (chunks *= Math.ceil(n / chunk[i]!)));
      if (!Number.isSafeInteger(chunks)) {
        throw new FormatError(`dims [${dims.join(', ')}] in chunks of [${chunk.join(', ')}] make more than 2^53 chunks`, { path, structure: LAYOUT });
      }
      if (layout.index.type === 'single' && dims.some((n, i) => n > chunk[i]!)) {
        throw new FormatError(`a single-chunk index holds one chunk of [${chunk.join(', ')}], the dataspace is [${dims.join(', ')}]`, {
          path,
          structure: LAYOUT,
        });
      }
      return;
    }
    default:
      return;
  }
}
