/**
 * Fixed array / extensible array elements of structured-chunk (sparse) datasets: array client ids
 * 2 and 3 (docs/structured-chunk-format.md §5.1 (RFC tables 21–25), §5.3, §5.4).
 *
 * | client | element |
 * |---|---|
 * | 2 (structured chunks) | address (size of offsets), chunk size (L bytes, docs/structured-chunk-format.md §3.5), offsets of sections 1…n−1 (O bytes each) |
 * | 3 (filtered structured chunks) | the same, then unfiltered sizes of sections 0…n−1 (O each), filter masks of sections 0…n−1 (4 each) |
 *
 * O is the layout composition's offset size (8). With n = 2 and L = 2 the elements are 18 and 42
 * bytes. A fill element (no chunk) has an undefined address and zeros elsewhere.
 * @module
 */
import {
  type ChunkIndexContext,
  type StructuredChunkSections,
  FormatError,
  ValueError,
  UNDEFINED_ADDRESS,
  type SizeContext,
  structuredChunkSizeLength,
} from '@chunkform/core/plugin';
import type { ElementCodec, ElementCodecFactory, ElementTable, ElementValue } from './element-codec.js';
import { checkChunkAddress, checkChunkSize, checkSectionFields } from '../index-helpers.js';
import { readAddress, readU32, readUnsigned, writeAddress, writeU32, writeUnsigned } from './element-fields.js';

/** Client id of arrays indexing structured chunks without filters. */
export const CLIENT_STRUCTURED_CHUNKS = 2;
/** Client id of arrays indexing structured chunks with at least one filtered section. */
export const CLIENT_FILTERED_STRUCTURED_CHUNKS = 3;
/** Header (and block) version of structured-chunk arrays (docs/structured-chunk-format.md §5.3/§5.4). */
export const STRUCTURED_ARRAY_VERSION = 1;
/** Default composition offset size (docs/structured-chunk-format.md §3.2). */
export const DEFAULT_SECTION_OFFSET_SIZE = 8;

/** Largest value of a `width`-byte field that is also a safe integer. */
function maxOf(width: number): number {
  return width >= 7 ? Number.MAX_SAFE_INTEGER : 256 ** width - 1;
}

/** Structured-chunk elements, column-wise. */
export class StructuredElementTable implements ElementTable {
  /** Chunk addresses; UNDEFINED_ADDRESS for fill elements. */
  readonly addresses: Float64Array;
  /** Stored chunk sizes (all sections). */
  readonly sizes: Float64Array;
  /** Offsets of sections 1…n−1, `n − 1` per element. */
  readonly offsets: Float64Array;
  /** Unfiltered size of each section, `n` per element (filtered tables only). */
  readonly unfilteredSizes: Float64Array | null;
  /** Filter mask of each section, `n` per element (filtered tables only). */
  readonly masks: Uint32Array | null;
  /** Where decoded elements came from (errors of {@link get}). */
  where: { structure: string; address: number } = { structure: 'chunk index element', address: UNDEFINED_ADDRESS };

  constructor(
    readonly length: number,
    /** Sections per chunk. */
    readonly sections: number,
    private readonly maxSize: number,
    private readonly maxOffset: number,
    filtered: boolean,
  ) {
    this.addresses = new Float64Array(length).fill(UNDEFINED_ADDRESS);
    this.sizes = new Float64Array(length);
    this.offsets = new Float64Array(length * (sections - 1));
    this.unfilteredSizes = filtered ? new Float64Array(length * sections) : null;
    this.masks = filtered ? new Uint32Array(length * sections) : null;
  }

  isDefined(i: number): boolean {
    return this.addresses[i] !== UNDEFINED_ADDRESS;
  }

  /** Element `i`; a section offset past the chunk's end is a {@link FormatError}. */
  get(i: number): ElementValue | null {
    const address = this.addresses[i]!;
    if (address === UNDEFINED_ADDRESS) return null;
    const size = this.sizes[i]!;
    const m = this.sections - 1;
    const offsets = Array.from(this.offsets.subarray(i * m, i * m + m));
    for (let k = 0; k < m; k++) {
      if (offsets[k]! > size) {
        throw new FormatError(`element ${i}: section ${k + 1} starts at offset ${offsets[k]}, past the end of the ${size}-byte chunk`, this.where);
      }
    }
    const sections: StructuredChunkSections = { offsets };
    if (this.unfilteredSizes) {
      const n = this.sections;
      sections.unfilteredSizes = Array.from(this.unfilteredSizes.subarray(i * n, i * n + n));
      sections.filterMasks = Array.from(this.masks!.subarray(i * n, i * n + n));
    }
    return { address, size, filterMask: 0, sections };
  }

  /** Stores a structured chunk's record; {@link ValueError} when it lacks or misfits its section fields. */
  set(i: number, v: ElementValue): void {
    checkChunkAddress(v.address);
    checkChunkSize(v.size, this.maxSize);
    const n = this.sections;
    const s = checkSectionFields(v, n, this.unfilteredSizes !== null, this.maxOffset);
    if (this.unfilteredSizes) {
      this.unfilteredSizes.set(s.unfilteredSizes!, i * n);
      this.masks!.set(s.filterMasks!, i * n);
    }
    this.offsets.set(s.offsets, i * (n - 1));
    this.sizes[i] = v.size;
    this.addresses[i] = v.address;
  }

  clear(i: number): void {
    const n = this.sections;
    this.addresses[i] = UNDEFINED_ADDRESS;
    this.sizes[i] = 0;
    this.offsets.fill(0, i * (n - 1), (i + 1) * (n - 1));
    this.unfilteredSizes?.fill(0, i * n, (i + 1) * n);
    this.masks?.fill(0, i * n, (i + 1) * n);
  }

  countDefined(): number {
    let c = 0;
    const a = this.addresses;
    for (let i = 0; i < a.length; i++) if (a[i] !== UNDEFINED_ADDRESS) c++;
    return c;
  }
}

/** The codec of structured-chunk elements (clients 2 and 3; docs/structured-chunk-format.md §5.1 (RFC tables 24/25)). */
export class StructuredElementCodec implements ElementCodec {
  readonly elementSize: number;
  private readonly addrWidth: number;
  private readonly filtered: boolean;

  constructor(
    readonly clientId: number,
    sizes: SizeContext,
    /** Sections per chunk (n ≥ 1). */
    readonly sections: number,
    /** Width L of the chunk size field (docs/structured-chunk-format.md §3.5). */
    readonly sizeLength: number,
    /** Width O of section offsets and unfiltered sizes (the composition's offset size). */
    readonly offsetSize: number = DEFAULT_SECTION_OFFSET_SIZE,
  ) {
    if (clientId !== CLIENT_STRUCTURED_CHUNKS && clientId !== CLIENT_FILTERED_STRUCTURED_CHUNKS) {
      throw new ValueError(`structured element codec handles client ids 2 and 3, not ${clientId}`);
    }
    if (!Number.isInteger(sections) || sections < 1 || sections > 255) throw new ValueError(`invalid number of sections ${sections}`);
    if (!Number.isInteger(sizeLength) || sizeLength < 1 || sizeLength > 8) throw new ValueError(`invalid chunk size width ${sizeLength}`);
    if (!Number.isInteger(offsetSize) || offsetSize < 1 || offsetSize > 8) throw new ValueError(`invalid section offset size ${offsetSize}`);
    this.filtered = clientId === CLIENT_FILTERED_STRUCTURED_CHUNKS;
    this.addrWidth = sizes.sizeOfOffsets;
    this.elementSize = this.addrWidth + sizeLength + (sections - 1) * offsetSize + (this.filtered ? sections * (offsetSize + 4) : 0);
  }

  create(n: number): StructuredElementTable {
    return new StructuredElementTable(n, this.sections, maxOf(this.sizeLength), maxOf(this.offsetSize), this.filtered);
  }

  decode(bytes: Uint8Array, offset: number, n: number, structure: string, address: number): StructuredElementTable {
    const t = this.create(n);
    t.where = { structure, address };
    const { addrWidth: aw, sizeLength: sl, offsetSize: ow, elementSize: es, sections: ns } = this;
    const m = ns - 1;
    const { addresses, sizes, offsets, unfilteredSizes, masks } = t;
    for (let i = 0, p = offset; i < n; i++, p += es) {
      addresses[i] = readAddress(bytes, p, aw, structure, address);
      let q = p + aw;
      sizes[i] = readUnsigned(bytes, q, sl, structure, address);
      q += sl;
      for (let k = 0; k < m; k++, q += ow) offsets[i * m + k] = readUnsigned(bytes, q, ow, structure, address);
      if (unfilteredSizes) {
        for (let k = 0; k < ns; k++, q += ow) unfilteredSizes[i * ns + k] = readUnsigned(bytes, q, ow, structure, address);
        for (let k = 0; k < ns; k++, q += 4) masks![i * ns + k] = readU32(bytes, q);
      }
    }
    return t;
  }

  encode(table: ElementTable, out: Uint8Array, offset: number): void {
    if (!(table instanceof StructuredElementTable) || table.sections !== this.sections || this.filtered !== (table.unfilteredSizes !== null)) {
      throw new ValueError('element table of another codec');
    }
    const { addrWidth: aw, sizeLength: sl, offsetSize: ow, elementSize: es, sections: ns } = this;
    const m = ns - 1;
    const { addresses, sizes, offsets, unfilteredSizes, masks } = table;
    for (let i = 0, p = offset; i < table.length; i++, p += es) {
      writeAddress(out, p, addresses[i]!, aw);
      let q = p + aw;
      writeUnsigned(out, q, sizes[i]!, sl);
      q += sl;
      for (let k = 0; k < m; k++, q += ow) writeUnsigned(out, q, offsets[i * m + k]!, ow);
      if (unfilteredSizes) {
        for (let k = 0; k < ns; k++, q += ow) writeUnsigned(out, q, unfilteredSizes[i * ns + k]!, ow);
        for (let k = 0; k < ns; k++, q += 4) writeU32(out, q, masks![i * ns + k]!);
      }
    }
  }
}

/**
 * Codec factory of structured-chunk datasets: clients 2/3 with the chunk-size width of docs/structured-chunk-format.md §3.5
 * computed from `ctx.structured` (sections, offset size) and the chunk shape. Throws
 * {@link FormatError} when the dataset is not structured, the client id is not 2/3, or the client
 * contradicts the dataset's section filters.
 */
export const structuredElementCodecFactory: ElementCodecFactory = (ctx: ChunkIndexContext, clientId: number) => {
  const where = { path: ctx.datasetPath, structure: 'chunk index' };
  const st = ctx.structured;
  if (!st) throw new FormatError(`array client id ${clientId} (structured chunks) in a dataset without a structured chunk layout`, where);
  if (clientId !== CLIENT_STRUCTURED_CHUNKS && clientId !== CLIENT_FILTERED_STRUCTURED_CHUNKS) {
    throw new FormatError(`array client id ${clientId} in a structured-chunk dataset (expected 2 or 3)`, where);
  }
  if ((clientId === CLIENT_FILTERED_STRUCTURED_CHUNKS) !== st.filtered) {
    throw new FormatError(`array client id ${clientId} does not match a structured-chunk dataset ${st.filtered ? 'with' : 'without'} section filters`, where);
  }
  const O = st.offsetSize ?? DEFAULT_SECTION_OFFSET_SIZE;
  const L = structuredChunkSizeLength(ctx.chunkDims, ctx.elementSize, O, st.sections, st.chunkType);
  return new StructuredElementCodec(clientId, ctx.sizes, st.sections, L, O);
};
