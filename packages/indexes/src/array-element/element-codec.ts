/**
 * Chunk index elements of the fixed array and extensible array indexes (HDF5 spec VII.B/VII.C
 * "Data Block" element layouts, and IV.A.2.i layout v4 "Chunk Indexing"): one element per chunk,
 * stored in blocks and pages. The element layout depends on the array's *client id*
 * (0 = chunks without filters: address; 1 = filtered chunks: address, chunk size, filter mask;
 * 2/3 = structured chunks of the sparse-data work) — so the codec is pluggable per client id.
 *
 * Elements of one block or page are held column-wise in an {@link ElementTable} and decoded /
 * encoded a whole block at a time.
 * @module
 */
import {
  type ChunkIndexContext,
  type ChunkRecord,
  FormatError,
  UnsupportedError,
  ValueError,
  UNDEFINED_ADDRESS,
  type SizeContext,
  floorLog2,
} from '@chunkform/core/plugin';
import { checkChunkAddress, checkFilterMask } from '../index-helpers.js';
import type { ChunkGrid } from './chunk-grid.js';
import { readAddress, readU32, readUnsigned, writeAddress, writeU32, writeUnsigned } from './element-fields.js';
import {
  CLIENT_FILTERED_STRUCTURED_CHUNKS,
  CLIENT_STRUCTURED_CHUNKS,
  STRUCTURED_ARRAY_VERSION,
  structuredElementCodecFactory,
} from './structured-element-codec.js';

/** What an element stores about one chunk (a {@link ChunkRecord} without its coordinates). */
export type ElementValue = Omit<ChunkRecord, 'coords'>;

/** The elements of one data block or data block page, column-wise, for reading. */
export interface ElementColumns {
  /** Number of elements. */
  readonly length: number;
  /** True when element `i` refers to a stored chunk (its address is defined). */
  isDefined(i: number): boolean;
  /** Element `i`, or null when it is the "fill" (never written / removed) element. */
  get(i: number): ElementValue | null;
  /** Number of defined elements. */
  countDefined(): number;
}

/**
 * The chunk records of the defined elements among the first `n` of `table`, whose element 0 is array
 * index `first` of `grid` (a data block or page of a fixed or extensible array).
 */
export function* definedRecords(table: ElementColumns, grid: ChunkGrid, first: number, n: number): Generator<ChunkRecord> {
  for (let i = 0; i < n; i++) {
    if (!table.isDefined(i)) continue;
    yield { coords: grid.coords(first + i), ...table.get(i)! };
  }
}

/** The elements of one data block or data block page, column-wise. */
export interface ElementTable extends ElementColumns {
  /** Stores a chunk's record in element `i`. Throws {@link ValueError} when it cannot be encoded. */
  set(i: number, v: ElementValue): void;
  /** Resets element `i` to the fill element. */
  clear(i: number): void;
}

/** Decodes the elements of one array client (one element layout): what a read-only index needs. */
export interface ElementDecoder {
  /** The array client id stored in the array's headers and blocks. */
  readonly clientId: number;
  /** Bytes per encoded element. */
  readonly elementSize: number;
  /**
   * Decodes `n` elements starting at `bytes[offset]` (the caller has checked the bytes exist).
   * `structure`/`address` name the block for errors.
   */
  decode(bytes: Uint8Array, offset: number, n: number, structure: string, address: number): ElementColumns;
}

/** Encodes and decodes the elements of one array client (one element layout). */
export interface ElementCodec extends ElementDecoder {
  /** A table of `n` fill elements. */
  create(n: number): ElementTable;
  decode(bytes: Uint8Array, offset: number, n: number, structure: string, address: number): ElementTable;
  /** Encodes every element of `table` into `out` starting at `offset`. */
  encode(table: ElementTable, out: Uint8Array, offset: number): void;
}

/**
 * Makes the codec for `clientId` in a dataset, or throws {@link FormatError} when the client id
 * does not fit the dataset (e.g. a filtered client for an unfiltered dataset).
 */
export type ElementCodecFactory = (ctx: ChunkIndexContext, clientId: number) => ElementCodec;

/** Makes the decoder for `clientId` in a dataset (a read-only index's {@link ElementCodecFactory}). */
export type ElementDecoderFactory = (ctx: ChunkIndexContext, clientId: number) => ElementDecoder;

/** Client id of arrays indexing chunks without filters. */
export const CLIENT_UNFILTERED_CHUNKS = 0;
/** Client id of arrays indexing filtered chunks. */
export const CLIENT_FILTERED_CHUNKS = 1;

/** Bytes of the uncompressed chunk: product of the chunk dimensions × element size. */
export function chunkByteSize(ctx: Pick<ChunkIndexContext, 'chunkDims' | 'elementSize'>): number {
  let n = ctx.elementSize;
  for (const d of ctx.chunkDims) n *= d;
  return n;
}

/**
 * Width of the "chunk size" field of filtered elements for layout message version 4
 * (H5Dfarray.c / H5Dearray.c `..._COMPUTE_CHUNK_SIZE_LEN`): `1 + (floor(log2(chunk bytes)) + 8) / 8`,
 * at most 8 — one spare byte in case a filter makes a chunk larger.
 */
export function chunkSizeFieldLength(chunkBytes: number): number {
  const n = 1 + Math.floor((floorLog2(Math.max(1, chunkBytes)) + 8) / 8);
  return Math.min(8, n);
}

/** Elements of ordinary chunk indexes (clients 0 and 1), column-wise, for reading ({@link ChunkElementTable} changes them). */
export class ChunkElementColumns implements ElementColumns {
  /** Chunk addresses; `UNDEFINED_ADDRESS` (all bits set) for fill elements. */
  readonly addresses: Float64Array;
  /** Stored sizes (filtered tables only). */
  readonly sizes: Float64Array | null;
  /** Filter masks (filtered tables only). */
  readonly masks: Uint32Array | null;

  constructor(
    readonly length: number,
    /** Size reported for every chunk of an unfiltered table (the chunk's byte size). */
    protected readonly chunkBytes: number,
    /** Largest storable size for filtered tables (from the size field width). */
    protected readonly maxSize: number,
    filtered: boolean,
  ) {
    this.addresses = new Float64Array(length).fill(UNDEFINED_ADDRESS);
    this.sizes = filtered ? new Float64Array(length) : null;
    this.masks = filtered ? new Uint32Array(length) : null;
  }

  isDefined(i: number): boolean {
    return this.addresses[i] !== UNDEFINED_ADDRESS;
  }
  get(i: number): ElementValue | null {
    const address = this.addresses[i]!;
    if (address === UNDEFINED_ADDRESS) return null;
    if (this.sizes) return { address, size: this.sizes[i]!, filterMask: this.masks![i]! };
    return { address, size: this.chunkBytes, filterMask: 0 };
  }
  countDefined(): number {
    let n = 0;
    const a = this.addresses;
    for (let i = 0; i < a.length; i++) if (a[i] !== UNDEFINED_ADDRESS) n++;
    return n;
  }
}

/** Elements of ordinary chunk indexes (clients 0 and 1), column-wise. */
export class ChunkElementTable extends ChunkElementColumns implements ElementTable {
  set(i: number, v: ElementValue): void {
    checkChunkAddress(v.address);
    if (this.sizes) {
      if (!Number.isSafeInteger(v.size) || v.size < 0 || v.size > this.maxSize) {
        throw new ValueError(`chunk size ${v.size} does not fit the index's chunk size field (max ${this.maxSize})`);
      }
      checkFilterMask(v.filterMask);
      this.sizes[i] = v.size;
      this.masks![i] = v.filterMask;
    } else if (v.filterMask !== 0) {
      throw new ValueError(`an unfiltered chunk index cannot store filter mask ${v.filterMask}`);
    }
    this.addresses[i] = v.address;
  }
  clear(i: number): void {
    this.addresses[i] = UNDEFINED_ADDRESS;
    if (this.sizes) {
      this.sizes[i] = 0;
      this.masks![i] = 0;
    }
  }
}

/**
 * The decoder of ordinary chunk elements: client 0 = file address (size of offsets); client 1 =
 * address, chunk size (`sizeLength` bytes), filter mask (u32). Spec IV.A.2.i / VII.B.
 * {@link ChunkElementCodec} adds encoding and tables that change.
 */
export class ChunkElementDecoder implements ElementDecoder {
  readonly elementSize: number;
  protected readonly addrWidth: number;
  protected readonly maxSize: number;

  constructor(
    readonly clientId: number,
    sizes: SizeContext,
    /** Byte size of an uncompressed chunk. */
    protected readonly chunkBytes: number,
    /** Width of the chunk size field (client 1); ignored for client 0. */
    protected readonly sizeLength: number,
  ) {
    if (clientId !== CLIENT_UNFILTERED_CHUNKS && clientId !== CLIENT_FILTERED_CHUNKS) {
      throw new ValueError(`chunk element codec handles client ids 0 and 1, not ${clientId}`);
    }
    this.addrWidth = sizes.sizeOfOffsets;
    this.elementSize = clientId === CLIENT_FILTERED_CHUNKS ? this.addrWidth + sizeLength + 4 : this.addrWidth;
    this.maxSize = sizeLength >= 7 ? Number.MAX_SAFE_INTEGER : 256 ** sizeLength - 1;
  }

  protected get filtered(): boolean {
    return this.clientId === CLIENT_FILTERED_CHUNKS;
  }

  /** A table of `n` fill elements, to decode into. */
  protected table(n: number): ChunkElementColumns {
    return new ChunkElementColumns(n, this.chunkBytes, this.maxSize, this.filtered);
  }

  decode(bytes: Uint8Array, offset: number, n: number, structure: string, address: number): ChunkElementColumns {
    const t = this.table(n);
    const aw = this.addrWidth;
    const es = this.elementSize;
    const addrs = t.addresses;
    if (!this.filtered) {
      for (let i = 0, p = offset; i < n; i++, p += es) addrs[i] = readAddress(bytes, p, aw, structure, address);
      return t;
    }
    const sl = this.sizeLength;
    const sizes = t.sizes!;
    const masks = t.masks!;
    for (let i = 0, p = offset; i < n; i++, p += es) {
      addrs[i] = readAddress(bytes, p, aw, structure, address);
      sizes[i] = readUnsigned(bytes, p + aw, sl, structure, address);
      masks[i] = readU32(bytes, p + aw + sl);
    }
    return t;
  }

}

/** The codec of ordinary chunk elements ({@link ChunkElementDecoder} plus encoding and tables that change). */
export class ChunkElementCodec extends ChunkElementDecoder implements ElementCodec {
  protected override table(n: number): ChunkElementTable {
    return new ChunkElementTable(n, this.chunkBytes, this.maxSize, this.filtered);
  }

  create(n: number): ChunkElementTable {
    return this.table(n);
  }

  override decode(bytes: Uint8Array, offset: number, n: number, structure: string, address: number): ChunkElementTable {
    return super.decode(bytes, offset, n, structure, address) as ChunkElementTable;
  }

  encode(table: ElementTable, out: Uint8Array, offset: number): void {
    if (!(table instanceof ChunkElementTable)) throw new ValueError('element table of another codec');
    const aw = this.addrWidth;
    const es = this.elementSize;
    const addrs = table.addresses;
    const n = table.length;
    if (!this.filtered) {
      for (let i = 0, p = offset; i < n; i++, p += es) writeAddress(out, p, addrs[i]!, aw);
      return;
    }
    const sl = this.sizeLength;
    const sizes = table.sizes!;
    const masks = table.masks!;
    for (let i = 0, p = offset; i < n; i++, p += es) {
      writeAddress(out, p, addrs[i]!, aw);
      writeUnsigned(out, p + aw, sizes[i]!, sl);
      writeU32(out, p + aw + sl, masks[i]!);
    }
  }
}

/**
 * The default codec factory: clients 0 (unfiltered) and 1 (filtered) with the layout-v4 chunk
 * size width; for structured-chunk datasets (`ctx.structured`) and client ids 2/3 it delegates to
 * {@link structuredElementCodecFactory}. Throws {@link FormatError} for other client ids or a
 * client that contradicts the dataset's layout or filter pipeline.
 */
export const defaultElementCodecFactory: ElementCodecFactory = (ctx, clientId) => {
  if (ctx.structured || clientId === CLIENT_STRUCTURED_CHUNKS || clientId === CLIENT_FILTERED_STRUCTURED_CHUNKS) {
    return structuredElementCodecFactory(ctx, clientId);
  }
  return new ChunkElementCodec(clientId, ctx.sizes, ...chunkSizes(ctx, clientId));
};

/**
 * The codecs of chunked (dense) datasets alone: clients 0 (unfiltered) and 1 (filtered) with the
 * layout-v4 chunk size width — {@link defaultElementCodecFactory} without the structured-chunk
 * codecs, for the read-only fixed array index (a bundle then leaves those out). Structured-chunk
 * datasets and client ids 2/3 are an `UnsupportedError` naming the registration that reads them.
 */
export const chunkElementDecoderFactory: ElementDecoderFactory = (ctx, clientId) => {
  if (ctx.structured || clientId === CLIENT_STRUCTURED_CHUNKS || clientId === CLIENT_FILTERED_STRUCTURED_CHUNKS) {
    throw new UnsupportedError(
      `array client id ${clientId}: the read-only fixed array index reads dense chunks; structured-chunk datasets need registerFixedArrayIndex()`,
      { path: ctx.datasetPath, structure: 'chunk index' },
    );
  }
  return new ChunkElementDecoder(clientId, ctx.sizes, ...chunkSizes(ctx, clientId));
};

/** The chunk byte size and size field width of clients 0/1, checked against the dataset ({@link FormatError}). */
function chunkSizes(ctx: ChunkIndexContext, clientId: number): [chunkBytes: number, sizeLength: number] {
  const where = { path: ctx.datasetPath, structure: 'chunk index' };
  if (clientId !== CLIENT_UNFILTERED_CHUNKS && clientId !== CLIENT_FILTERED_CHUNKS) {
    throw new FormatError(`unsupported array client id ${clientId}`, where);
  }
  if ((clientId === CLIENT_FILTERED_CHUNKS) !== ctx.filtered) {
    throw new FormatError(
      `array client id ${clientId} does not match a dataset ${ctx.filtered ? 'with' : 'without'} filters`,
      where,
    );
  }
  const bytes = chunkByteSize(ctx);
  return [bytes, chunkSizeFieldLength(bytes)];
}

/** Options shared by the fixed and extensible array providers. */
export interface ArrayIndexOptions {
  /** Codec per client id (default: {@link defaultElementCodecFactory}: 0 and 1, and 2/3 for structured chunks). */
  codecFactory?: ElementCodecFactory;
  /** Client id of newly created indexes (default: {@link defaultCreateClientId}). */
  createClientId?: (ctx: ChunkIndexContext) => number;
  /** Version byte of newly created headers and blocks (default: {@link defaultCreateVersion}). */
  createVersion?: number | ((ctx: ChunkIndexContext) => number);
}

/**
 * Client id of a new array index: 0 unfiltered / 1 filtered chunks; for structured chunks
 * (`ctx.structured`) 2 unfiltered / 3 when any section is filtered (docs/structured-chunk-format.md §5.1).
 */
export function defaultCreateClientId(ctx: ChunkIndexContext): number {
  if (ctx.structured) return ctx.structured.filtered ? CLIENT_FILTERED_STRUCTURED_CHUNKS : CLIENT_STRUCTURED_CHUNKS;
  return ctx.filtered ? CLIENT_FILTERED_CHUNKS : CLIENT_UNFILTERED_CHUNKS;
}

/**
 * Version of a new array index's header and blocks: 0 as HDF5 1.10 writes for ordinary chunks; 1
 * for structured chunks, which the prototype writes for the header (docs/structured-chunk-format.md §5.3/§5.4) and the spec
 * edits (docs/structured-chunk-format.md §9 (RFC tables 21/22) item 2) give for the blocks too.
 */
export function defaultCreateVersion(ctx: ChunkIndexContext): number {
  return ctx.structured ? STRUCTURED_ARRAY_VERSION : 0;
}

/** The client id and version a provider with `opts` gives a new index of `ctx`. */
export function createParams(ctx: ChunkIndexContext, opts: ArrayIndexOptions): { clientId: number; version: number } {
  const clientId = (opts.createClientId ?? defaultCreateClientId)(ctx);
  const v = opts.createVersion;
  const version = v === undefined ? defaultCreateVersion(ctx) : typeof v === 'number' ? v : v(ctx);
  return { clientId, version };
}
