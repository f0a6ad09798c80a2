/**
 * Encoded selections: the byte stream of HDF5's `H5Sencode` (header + dataspace message +
 * serialised selection), which a sparse ("structured") chunk stores as its section 0 (docs/structured-chunk-format.md §6.1,
 * §7). {@link decodeSelection} reads every serialisation HDF5 defines; {@link encodeSelection}
 * writes either the smallest valid one or exactly what the HDF Group prototype writes.
 * @module
 */
import { FormatError, H5Error, SelectionError } from '../../errors.js';
import { ByteReader, ByteWriter, DEFAULT_SIZES, UNDEFINED_ADDRESS } from '../../format/bytes.js';
import { validateSelection, type Selection } from '../selection.js';
import { bodySize, prototypeBody, smallestBody, type SelectionBody, type SelectionEncoding } from './choose.js';
import {
  checkExtentInput,
  decodeExtent,
  encodeExtent,
  extentSize,
  extentStyle,
  HEADER_SIZE,
  type ExtentStyle,
  type SelectionExtent,
} from './extent.js';
import { decodeHyperslab, encodeBlockList, encodeRegular, SEL_HYPERSLABS } from './hyperslab.js';
import { decodePoints, encodePoints, SEL_POINTS } from './points.js';

export { UNLIMITED_DIM, type SelectionExtent } from './extent.js';
export type { SelectionEncoding } from './choose.js';

const SEL_NONE = 0;
const SEL_ALL = 3;
const STRUCTURE = 'encoded selection';

/** Where an encoded selection was read from (labels errors). */
export interface SelectionSource {
  /** HDF5 path of the dataset. */
  path?: string;
  /** Chunk coordinates (scaled or element offsets, as the caller prefers). */
  chunk?: readonly number[];
  /** File address of the first byte. */
  address?: number;
}

/** How a buffer was encoded (what {@link decodeSelection} found). */
export interface SelectionFormat {
  /** Dataspace message version of the extent (1 or 2). */
  extentVersion: 1 | 2;
  /** Width of the extent's size fields. */
  sizeOfSize: number;
  /** Serialised selection type. */
  type: 'none' | 'points' | 'hyperslab' | 'all';
  /** Version of the selection serialisation. */
  version: number;
  /** Width of coordinates (4 for version 1, 8 for hyperslab v2; 0 for none/all). */
  width: number;
  /** Hyperslab stored in regular form (v2/v3 flag). */
  regular: boolean;
}

/** Result of {@link decodeSelection}. */
export interface DecodedSelection {
  /** The dataspace the selection lives in. */
  extent: SelectionExtent;
  /**
   * The selection: `all`, `none`, `points` (stored order), `hyperslab` (a stored regular
   * hyperslab) or canonical `blocks` (a stored block list, whatever its order or overlaps).
   */
  selection: Selection;
  /** How the buffer was encoded. */
  format: SelectionFormat;
}

/** The extent an encoded selection is written with. */
export interface ExtentSpec {
  /** Current sizes (for a sparse chunk: the chunk dims). `[]` is a scalar dataspace. */
  dims: readonly number[];
  /** Maximum sizes; `null` or {@link UNLIMITED_DIM} (-1) entries are unlimited. Default: `dims`. */
  maxDims?: readonly (number | null)[] | null;
}

/** Options of {@link encodeSelection}. */
export interface EncodeSelectionOptions {
  /** `smallest` (default) or `prototype` (byte-for-byte what the HDF Group prototype writes). */
  encoding?: SelectionEncoding;
}

function structureName(where: SelectionSource | undefined): string {
  return where?.chunk ? `${STRUCTURE} of chunk [${where.chunk.join(', ')}]` : STRUCTURE;
}

/**
 * Decodes a whole `H5Sencode` buffer: header, extent (dataspace message v1/v2, any size width)
 * and selection (none, all, points v1/v2, hyperslab v1/v2/v3 regular and irregular). Everything
 * is validated — counts against the bytes present, coordinates and blocks inside the extent,
 * overflow, trailing bytes — and a problem is a {@link FormatError} (or {@link TruncatedError})
 * naming the structure, chunk, path and address.
 */
// H5Sencode buffer: docs/structured-chunk-format.md §7.1–7.3; HDF5 H5S.c H5S_decode, H5Spoint.c, H5Shyper.c (spec IV.A.2.b dataspace message + the selection encoding of region references).
export function decodeSelection(bytes: Uint8Array, where?: SelectionSource): DecodedSelection {
  const r = new ByteReader(bytes, { sizes: DEFAULT_SIZES, structure: structureName(where), base: where?.address ?? UNDEFINED_ADDRESS });
  try {
    const { extent, style } = decodeExtent(r);
    const type = r.u32();
    let selection: Selection;
    const format: SelectionFormat = {
      extentVersion: style.version,
      sizeOfSize: style.sizeOfSize,
      type: 'none',
      version: 1,
      width: 0,
      regular: false,
    };
    if (type === SEL_NONE || type === SEL_ALL) {
      const version = r.u32();
      if (version !== 1) throw r.error(`${type === SEL_ALL ? 'all' : 'none'} selection: unknown version ${version}`);
      r.skip(8); // reserved + length
      format.type = type === SEL_ALL ? 'all' : 'none';
      selection = { kind: format.type };
    } else if (type === SEL_POINTS) {
      const at = r.pos;
      selection = decodePoints(r, extent);
      format.type = 'points';
      format.version = r.bytes[at]!;
      format.width = format.version === 1 ? 4 : r.bytes[at + 4]!;
    } else if (type === SEL_HYPERSLABS) {
      const at = r.pos;
      selection = decodeHyperslab(r, extent);
      format.type = 'hyperslab';
      format.version = r.bytes[at]!;
      format.width = format.version === 1 ? 4 : format.version === 2 ? 8 : r.bytes[at + 5]!;
      format.regular = format.version > 1 && (r.bytes[at + 4]! & 1) === 1;
    } else {
      throw r.error(`unknown selection type ${type}`);
    }
    if (r.remaining !== 0) throw r.error(`${r.remaining} unexpected bytes after the selection (at offset ${r.pos})`);
    return { extent, selection, format };
  } catch (e) {
    // Limits hit while expanding a decoded selection are properties of the bytes: report them as such.
    const err = e instanceof SelectionError ? new FormatError(e.detail, { structure: r.structure, address: r.base }) : e;
    if (err instanceof H5Error && where?.path !== undefined) throw err.withPath(where.path);
    throw err;
  }
}

interface Plan {
  dims: readonly number[];
  maxDims: number[] | null;
  style: ExtentStyle;
  body: SelectionBody;
  size: number;
}

function plan(sel: Selection, extent: ExtentSpec, opts: EncodeSelectionOptions): Plan {
  const mode = opts.encoding ?? 'smallest';
  if (mode !== 'smallest' && mode !== 'prototype') throw new SelectionError(`unknown selection encoding "${String(mode)}"`);
  const dims = extent.dims;
  const maxDims = checkExtentInput(dims, extent.maxDims);
  validateSelection(sel, dims);
  if (dims.length === 0 && sel.kind !== 'all' && sel.kind !== 'none') {
    throw new SelectionError(`a ${sel.kind} selection cannot be encoded in a scalar dataspace`);
  }
  const style = extentStyle(mode, dims, maxDims);
  const body = mode === 'prototype' ? prototypeBody(sel) : smallestBody(sel, dims);
  return { dims, maxDims, style, body, size: HEADER_SIZE + extentSize(dims.length, style) + bodySize(body) };
}

/**
 * Encodes `sel` (valid in a dataspace of shape `extent.dims`) as an `H5Sencode` buffer.
 *
 * - `smallest` (default): extent v2 with the narrowest size width and max sizes only when they
 *   differ from the sizes; selection = the smallest of `all`, points v2, hyperslab v3 regular and
 *   hyperslab v3 block list (a reduced, disjoint block cover), each at its narrowest width. HDF5
 *   ≥ 1.12 decodes it to the same elements in the same order: a point list that is not in
 *   strictly increasing C order stays a point list (convert it with `toBlocks` first when its
 *   order does not matter).
 * - `prototype`: byte-for-byte what the HDF Group prototype writes (docs/structured-chunk-format.md §7.4–7.6): extent v1
 *   with 8-byte sizes and max sizes (`maxDims`, default `dims`), points v1 / hyperslab v1 (a
 *   regular hyperslab or canonical blocks as HDF5's block list), raised to points v2 /
 *   hyperslab v2 (regular) / v3 (irregular) only when a value exceeds 32 bits.
 *
 * @throws SelectionError when the selection does not fit the extent or the extent is invalid
 */
// H5Sencode buffer: docs/structured-chunk-format.md §7.1–7.6; HDF5 H5S.c H5S_encode, H5Spoint.c, H5Shyper.c (spec IV.A.2.b dataspace message + the selection encoding of region references).
export function encodeSelection(sel: Selection, extent: ExtentSpec, opts: EncodeSelectionOptions = {}): Uint8Array {
  return encodePlanned(plan(sel, extent, opts), 0);
}

/**
 * {@link encodeSelection} followed by `trailer` zero bytes in the same buffer (room for a checksum
 * without copying the encoding again); returns the encoding and the trailer.
 */
export function encodeSelectionWithTrailer(sel: Selection, extent: ExtentSpec, opts: EncodeSelectionOptions, trailer: number): Uint8Array {
  const enc = encodePlanned(plan(sel, extent, opts), trailer);
  return new Uint8Array(enc.buffer, enc.byteOffset, enc.length + trailer);
}

/** Writes a planned encoding into a buffer with `trailer` spare bytes after it; returns the encoding. */
function encodePlanned(p: Plan, trailer: number): Uint8Array {
  // (its own buffer: the trailer goes in the room after the encoding)
  const w = new ByteWriter(DEFAULT_SIZES, p.size + trailer, trailer > 0);
  encodeExtent(w, p.dims, p.maxDims, p.style);
  const b = p.body;
  switch (b.kind) {
    case 'none':
    case 'all':
      w.u32(b.kind === 'all' ? SEL_ALL : SEL_NONE).u32(1).u32(0).u32(0);
      break;
    case 'points':
      encodePoints(w, b.coords, b.rank, b.version, b.width);
      break;
    case 'regular':
      encodeRegular(w, b.params, b.version, b.width);
      break;
    case 'blocks':
      encodeBlockList(w, b.boxes, b.rank, b.version, b.width);
      break;
  }
  const out = w.finish();
  if (out.length !== p.size) {
    throw new FormatError(`internal error: encoded ${out.length} bytes, planned ${p.size}`, { structure: STRUCTURE });
  }
  return out;
}

/** The size in bytes {@link encodeSelection} would produce, computed without encoding. */
export function encodedSelectionSize(sel: Selection, extent: ExtentSpec, opts: EncodeSelectionOptions = {}): number {
  return plan(sel, extent, opts).size;
}
