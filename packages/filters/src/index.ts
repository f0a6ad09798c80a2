/**
 * @packageDocumentation
 * `@chunkform/filters`: the HDF5 filters deflate (1), shuffle (2), fletcher32 (3), n-bit (5) and
 * scale-offset (6) for `@chunkform/core`. Importing this package registers nothing (it is free of
 * side effects); call {@link registerFilters} once, or register single filters with core's
 * `registerFilter`.
 */
import { defaultContainer, registerFilter, type Container } from '@chunkform/core/internal/di/container';
import type { Filter } from '@chunkform/core/internal/filter/filter';
import { deflateFilter } from './deflate/index.js';
import { fletcher32Filter } from './fletcher32/index.js';
import { nbitFilter } from './nbit/index.js';
import { scaleOffsetFilter } from './scaleoffset/index.js';
import { shuffleFilter } from './shuffle/index.js';

export { deflateFilter, deflateBackend, decodeLimit, DEFAULT_DEFLATE_LEVEL } from './deflate/index.js';
export { shuffleFilter, shuffle, unshuffle } from './shuffle/index.js';
export { fletcher32Filter, fletcher32, appendFletcher32, verifyFletcher32 } from './fletcher32/index.js';
export { scaleOffsetFilter, scaleOffsetDecode, scaleOffsetEncode, scaleOffsetSetLocal, SO_FLOAT_DSCALE, SO_INT, type FillValueContext } from './scaleoffset/index.js';
export { nbitFilter, nbitDecode, nbitEncode, nbitSetLocal } from './nbit/index.js';

/** Every filter of this package. */
export const ALL_FILTERS: readonly Filter[] = [deflateFilter, shuffleFilter, fletcher32Filter, nbitFilter, scaleOffsetFilter];

/** Registers every filter of this package in `container` (default: the process-wide one). */
export function registerFilters(container: Container = defaultContainer): void {
  for (const f of ALL_FILTERS) registerFilter(f, container);
}
