/**
 * Dataspace message (HDF5 spec IV.A.2.b, message type 0x0001), versions 1 and 2.
 * @module
 */
import { FormatError, ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, UNDEFINED_ADDRESS, type SizeContext } from '../bytes.js';

/** HDF5's maximum rank (H5S_MAX_RANK). */
export const MAX_RANK = 32;

/** The shape of a dataset or attribute. */
export interface Dataspace {
  /** scalar: one element, no dims; simple: an N-d array; null: no elements at all. */
  kind: 'scalar' | 'simple' | 'null';
  /** Current dimension sizes (empty for scalar and null). */
  dims: number[];
  /** Maximum dimension sizes (`UNDEFINED_ADDRESS` = -1 for unlimited), or null when not stored. */
  maxDims: number[] | null;
}

const STRUCTURE = 'dataspace message';

/**
 * Number of elements of a dataspace (1 for scalar, 0 for null). Throws {@link FormatError} when
 * the product exceeds 2^53.
 */
export function dataspaceElementCount(ds: Dataspace): number {
  if (ds.kind === 'null') return 0;
  let n = 1;
  for (const d of ds.dims) n *= d;
  if (!Number.isSafeInteger(n)) throw new FormatError(`element count of dims [${ds.dims.join(', ')}] exceeds 2^53`, { structure: STRUCTURE });
  return n;
}

/**
 * Decodes a dataspace message body (spec IV.A.2.b). Version 1 with rank 0 means scalar. `address`
 * (of the containing object header) only labels errors.
 */
// Spec IV.A.2.b: Dataspace message, versions 1 and 2.
export function decodeDataspace(bytes: Uint8Array, sizes: SizeContext, address = UNDEFINED_ADDRESS): Dataspace {
  const r = new ByteReader(bytes, { sizes, structure: STRUCTURE, base: address });
  const version = r.u8();
  if (version !== 1 && version !== 2) throw r.error(`unknown version ${version}`);
  const rank = r.u8();
  const flags = r.u8();
  if (rank > MAX_RANK) throw r.error(`rank ${rank} exceeds the maximum of ${MAX_RANK}`);
  let kind: Dataspace['kind'];
  if (version === 1) {
    r.skip(5); // reserved (1) + reserved (4)
    kind = rank > 0 ? 'simple' : 'scalar';
  } else {
    const type = r.u8();
    if (type === 0) kind = 'scalar';
    else if (type === 1) kind = 'simple';
    else if (type === 2) kind = 'null';
    else throw r.error(`unknown dataspace type ${type}`);
    if (kind !== 'simple' && rank !== 0) throw r.error(`${kind} dataspace with rank ${rank}`);
  }
  const n = kind === 'simple' ? rank : 0;
  r.need(n * sizes.sizeOfLengths * (flags & 1 ? 2 : 1), 'dimension sizes');
  const dims: number[] = [];
  for (let i = 0; i < n; i++) {
    const d = r.length();
    if (d === UNDEFINED_ADDRESS) throw r.error(`dimension ${i} has the undefined size`);
    dims.push(d);
  }
  let maxDims: number[] | null = null;
  if (flags & 1 && n > 0) {
    maxDims = [];
    // (HDF5 does not check size <= maximum when decoding; neither do we.)
    for (let i = 0; i < n; i++) maxDims.push(r.length());
  }
  const ds: Dataspace = { kind, dims, maxDims };
  let count = 1;
  for (const d of dims) count *= d;
  if (!Number.isSafeInteger(count)) throw r.error(`element count of dims [${dims.join(', ')}] exceeds 2^53`);
  return ds;
}

/** Encodes a dataspace message body, version 2 (spec IV.A.2.b). */
// Spec IV.A.2.b: Dataspace message, version 2.
export function encodeDataspace(ds: Dataspace, sizes: SizeContext): Uint8Array {
  const simple = ds.kind === 'simple';
  const rank = simple ? ds.dims.length : 0;
  if (rank > MAX_RANK) throw new ValueError(`rank ${rank} exceeds the maximum of ${MAX_RANK}`, { structure: STRUCTURE });
  if (!simple && ds.dims.length > 0) throw new ValueError(`${ds.kind} dataspace cannot have dimensions`, { structure: STRUCTURE });
  const maxDims = simple ? ds.maxDims : null;
  if (maxDims && maxDims.length !== rank) {
    throw new ValueError(`maxDims has ${maxDims.length} entries for rank ${rank}`, { structure: STRUCTURE });
  }
  let count = 1;
  for (let i = 0; i < rank; i++) {
    const d = ds.dims[i]!;
    if (!Number.isSafeInteger(d) || d < 0) throw new ValueError(`dimension ${i} size ${d} is not a non-negative integer`, { structure: STRUCTURE });
    const m = maxDims?.[i];
    if (m !== undefined && m !== UNDEFINED_ADDRESS && (!Number.isSafeInteger(m) || m < d)) {
      throw new ValueError(`dimension ${i}: maximum ${m} is smaller than the size ${d}`, { structure: STRUCTURE });
    }
    count *= d;
  }
  if (!Number.isSafeInteger(count)) throw new ValueError('element count exceeds 2^53', { structure: STRUCTURE });
  const w = new ByteWriter(sizes, 4 + rank * sizes.sizeOfLengths * 2);
  w.u8(2).u8(rank).u8(maxDims ? 1 : 0).u8(ds.kind === 'scalar' ? 0 : simple ? 1 : 2);
  for (let i = 0; i < rank; i++) w.length(ds.dims[i]!);
  if (maxDims) for (const m of maxDims) w.length(m);
  return w.finishExact();
}
