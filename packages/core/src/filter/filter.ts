/**
 * The filter interface (HDF5 spec IV.A.2.l "Filter Pipeline", H5Z): one implementation per filter
 * id, registered by a package (`@chunkform/filters` or a third party) with one call.
 * @module
 */
import type { Datatype } from '../format/messages/datatype.js';

/** What a filter knows about the data it transforms. */
export interface FilterContext {
  /** Client data values (cd_values) stored in the pipeline message for this filter. */
  clientData: readonly number[];
  /** Element datatype of the dataset. */
  datatype: Datatype;
  /** Bytes per element. */
  elementSize: number;
  /** Chunk dimensions (elements). */
  chunkDims: readonly number[];
  /** Pipeline flags of this filter (bit 0: optional). */
  flags: number;
  /**
   * The dataset's fill value (one element, file byte order): bytes when the user set one, `null`
   * when it is explicitly undefined, absent for the library default (zero). Scale-offset uses it.
   */
  fillValue?: Uint8Array | null;
  /**
   * The encoded stream must fill its input exactly (a structured chunk section, whose end is the
   * next section's offset): a decoder that can tell where its stream ends rejects bytes after it.
   */
  wholeInput?: boolean;
  /**
   * The result is not waited for right away (a chunk decoded ahead of a reader reaching it): a
   * pipeline offload may run it on another thread even when it is smaller than the work it takes otherwise.
   */
  background?: boolean;
}

/** One HDF5 filter. */
export interface Filter {
  /** HDF5 filter id (1 deflate, 2 shuffle, 3 fletcher32, 4 szip, 5 nbit, 6 scaleoffset, ≥ 256 registered plugins). */
  readonly id: number;
  /** Name written to the pipeline message for ids ≥ 256 and shown by tools. */
  readonly name: string;
  /** Forward direction (write). May return the input when the filter does nothing for this data. */
  encode(data: Uint8Array, ctx: FilterContext): Uint8Array | Promise<Uint8Array>;
  /** Reverse direction (read). */
  decode(data: Uint8Array, ctx: FilterContext): Uint8Array | Promise<Uint8Array>;
  /**
   * Optional: {@link decode} writing the result into `out` (which has the size the caller expects,
   * e.g. the chunk's place in a read's result in shared memory), saving a buffer and a copy when the
   * filter is the last one a chunk's decoding runs. Throws when the data decodes to another size.
   */
  decodeInto?(data: Uint8Array, ctx: FilterContext, out: Uint8Array): void | Promise<void>;
  /**
   * Client data to store when a dataset is created with this filter (H5Z "set local"), from the
   * user's values and the dataset's type and chunking. Default: the user's values unchanged.
   */
  setLocal?(clientData: readonly number[], ctx: Omit<FilterContext, 'clientData' | 'flags'>): number[];
}

/** Where to get a filter that is not registered (shown in {@link UnknownFilterError}). */
export const KNOWN_FILTER_PACKAGES: Readonly<Record<number, { name: string; package: string }>> = {
  1: { name: 'deflate', package: '@chunkform/filters' },
  2: { name: 'shuffle', package: '@chunkform/filters' },
  3: { name: 'fletcher32', package: '@chunkform/filters' },
  4: { name: 'szip', package: '(no package yet)' },
  5: { name: 'nbit', package: '@chunkform/filters' },
  6: { name: 'scaleoffset', package: '@chunkform/filters' },
  32000: { name: 'lzf', package: '(no package yet)' },
  32001: { name: 'blosc', package: '(no package yet)' },
  32004: { name: 'lz4', package: '@chunkform/filters' },
  32008: { name: 'bitshuffle', package: '@chunkform/filters' },
  32015: { name: 'zstd', package: '@chunkform/filters' },
};
