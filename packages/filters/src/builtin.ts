/**
 * The list of this package's filters (one module, so the worker thread of ./workers can load them
 * without the registration code of ./index.ts).
 * @module
 */
import type { Filter } from '@chunkform/core/plugin';
import { deflateFilter } from './deflate/index.js';
import { fletcher32Filter } from './fletcher32/index.js';
import { nbitFilter } from './nbit/index.js';
import { scaleOffsetFilter } from './scaleoffset/index.js';
import { shuffleFilter } from './shuffle/index.js';
import { lz4Filter } from './lz4/index.js';
import { zstdFilter } from './zstd/index.js';
import { bitshuffleFilter } from './bitshuffle/index.js';

/** Every filter of this package. */
export const ALL_FILTERS: readonly Filter[] = [deflateFilter, shuffleFilter, fletcher32Filter, nbitFilter, scaleOffsetFilter, lz4Filter, zstdFilter, bitshuffleFilter];
