/**
 * Attribute message (HDF5 spec IV.A.2.m, message type 0x000C), versions 1, 2 and 3, and the
 * shared-message reference (IV.A.2 "Shared Message") an attribute's datatype/dataspace may be.
 * @module
 */
import { TruncatedError, ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, UNDEFINED_ADDRESS, utf8Decode, utf8Encode, type SizeContext } from '../bytes.js';
import { datatypeSize, decodeDatatype, encodeDatatype, type Datatype, type EncodeDatatypeOptions } from './datatype.js';
import { dataspaceElementCount, decodeDataspace, encodeDataspace, type Dataspace } from './dataspace.js';

/** Where a shared message lives: a committed object's header, or the shared-message (SOHM) heap. */
export interface SharedMessageRef {
  /** `committed`: the message is in the object header at `address`; `sohm`: in the SOHM fractal heap. */
  kind: 'committed' | 'sohm';
  /** Object header address (committed), else `UNDEFINED_ADDRESS`. */
  address: number;
  /** The 8-byte fractal heap ID (sohm only). */
  heapId?: Uint8Array;
  /** The shared-message bytes as stored. */
  raw: Uint8Array;
}

/** A decoded attribute message. */
export interface AttributeMessage {
  name: string;
  /**
   * The attribute's datatype. When {@link sharedDatatypeRef} is set this is only a placeholder
   * (`{class: 'opaque', size: 1, tag: 'shared datatype'}`): resolve the committed datatype and
   * call {@link resolveAttribute}.
   */
  datatype: Datatype;
  /** The attribute's dataspace (a placeholder scalar when {@link sharedDataspaceRef} is set). */
  dataspace: Dataspace;
  /** Element bytes: exactly count × element size, or (while shared parts are unresolved) all remaining bytes. */
  data: Uint8Array;
  /** Character set of the name (attribute message version 3; older versions are ASCII). */
  charset: 'ascii' | 'utf-8';
  /** Set when the datatype is a shared message (attribute flag bit 0). */
  sharedDatatypeRef?: SharedMessageRef;
  /** Set when the dataspace is a shared message (attribute flag bit 1). */
  sharedDataspaceRef?: SharedMessageRef;
}

const STRUCTURE = 'attribute message';

/** Decodes a shared-message reference, versions 1–3 (spec IV.A.2, "Shared Message"). */
// Spec IV.A.2 (Shared Message encoding, versions 1, 2, 3).
export function decodeSharedMessageRef(bytes: Uint8Array, sizes: SizeContext, address = UNDEFINED_ADDRESS): SharedMessageRef {
  const r = new ByteReader(bytes, { sizes, structure: 'shared message', base: address });
  const version = r.u8();
  if (version < 1 || version > 3) throw r.error(`unknown version ${version}`);
  const type = r.u8();
  if (version === 1) {
    r.skip(6 + sizes.sizeOfLengths); // reserved, then the unused local heap field of the old symbol-table entry
    return { kind: 'committed', address: r.offset(), raw: bytes.subarray(0, r.pos) };
  }
  if (version === 3 && type === 1) {
    const heapId = r.bytesView(8, 'heap ID').slice();
    return { kind: 'sohm', address: UNDEFINED_ADDRESS, heapId, raw: bytes.subarray(0, r.pos) };
  }
  if (version === 3 && type !== 2) throw r.error(`unknown shared message type ${type}`);
  return { kind: 'committed', address: r.offset(), raw: bytes.subarray(0, r.pos) };
}

/** Encodes a committed shared-message reference the way HDF5 does (version 2, type 2, address). */
// Spec IV.A.2 (Shared Message encoding, version 2).
export function encodeSharedMessageRef(ref: SharedMessageRef, sizes: SizeContext): Uint8Array {
  if (ref.kind !== 'committed') return ref.raw;
  return new ByteWriter(sizes, 2 + sizes.sizeOfOffsets).u8(2).u8(2).offset(ref.address).finishExact();
}

/**
 * Decodes an attribute message body, versions 1–3 (spec IV.A.2.m). Validates that the data holds
 * element count × element size bytes (extra trailing bytes — object header padding — are dropped).
 */
// Spec IV.A.2.m: Attribute message, versions 1, 2, 3.
export function decodeAttribute(bytes: Uint8Array, sizes: SizeContext, address = UNDEFINED_ADDRESS): AttributeMessage {
  const r = new ByteReader(bytes, { sizes, structure: STRUCTURE, base: address });
  const version = r.u8();
  if (version < 1 || version > 3) throw r.error(`unknown version ${version}`);
  const flags = r.u8();
  if (version >= 2 && flags & ~3) throw r.error(`unknown flags 0x${flags.toString(16)}`);
  const nameSize = r.u16();
  const dtSize = r.u16();
  const dsSize = r.u16();
  let charset: AttributeMessage['charset'] = 'ascii';
  if (version === 3) {
    const c = r.u8();
    if (c > 1) throw r.error(`unknown name character set ${c}`);
    charset = c === 1 ? 'utf-8' : 'ascii';
  }
  const pad = (n: number): number => (version === 1 ? (n + 7) & ~7 : n);
  if (nameSize === 0) throw r.error('attribute name size is 0');
  const nameBytes = r.bytesView(nameSize, 'attribute name');
  const nul = nameBytes.indexOf(0);
  if (nul !== nameSize - 1) throw r.error(`attribute name is not ${nameSize - 1} bytes followed by NUL`);
  const name = utf8Decode(nameBytes.subarray(0, nul));
  r.skip(pad(nameSize) - nameSize);

  const dtBytes = r.bytesView(dtSize, 'attribute datatype');
  r.skip(pad(dtSize) - dtSize);
  const dsBytes = r.bytesView(dsSize, 'attribute dataspace');
  r.skip(pad(dsSize) - dsSize);
  const rest = bytes.subarray(r.pos);

  const out: AttributeMessage = {
    name,
    datatype: { class: 'opaque', size: 1, tag: 'shared datatype' },
    dataspace: { kind: 'scalar', dims: [], maxDims: null },
    data: rest,
    charset,
  };
  if (flags & 1 && version >= 2) out.sharedDatatypeRef = decodeSharedMessageRef(dtBytes, sizes, address);
  else {
    out.datatype = decodeDatatype(new ByteReader(dtBytes, { sizes, structure: `${STRUCTURE} "${name}" datatype`, base: address }));
  }
  if (flags & 2 && version >= 2) out.sharedDataspaceRef = decodeSharedMessageRef(dsBytes, sizes, address);
  else out.dataspace = decodeDataspace(dsBytes, sizes, address);
  if (out.sharedDatatypeRef || out.sharedDataspaceRef) return out;
  out.data = sliceData(rest, out.datatype, out.dataspace, sizes, name, address);
  return out;
}

function sliceData(rest: Uint8Array, t: Datatype, ds: Dataspace, sizes: SizeContext, name: string, address: number): Uint8Array {
  const n = dataspaceElementCount(ds) * datatypeSize(t, sizes);
  if (!Number.isSafeInteger(n) || n > rest.length) {
    throw new TruncatedError(`attribute "${name}" needs ${n} data bytes but only ${rest.length} remain`, { structure: STRUCTURE, address });
  }
  return rest.subarray(0, n);
}

/**
 * Completes an attribute whose datatype and/or dataspace were shared messages: sets them and
 * trims/validates the data bytes. Returns a new message.
 */
export function resolveAttribute(
  a: AttributeMessage,
  sizes: SizeContext,
  resolved: { datatype?: Datatype; dataspace?: Dataspace },
  address = UNDEFINED_ADDRESS,
): AttributeMessage {
  const out: AttributeMessage = { ...a };
  if (resolved.datatype) out.datatype = resolved.datatype;
  if (resolved.dataspace) out.dataspace = resolved.dataspace;
  out.data = sliceData(a.data, out.datatype, out.dataspace, sizes, a.name, address);
  return out;
}

/** Options of {@link encodeAttribute}. */
export interface EncodeAttributeOptions {
  /** Passed to {@link encodeDatatype} (3 reproduces what HDF5 writes with `libver='latest'`). */
  datatypeMinVersion?: EncodeDatatypeOptions['minVersion'];
}

/**
 * Encodes an attribute message, version 3 (spec IV.A.2.m), with the name's charset. A committed
 * {@link AttributeMessage.sharedDatatypeRef} is written as a shared datatype (flag bit 0). Throws
 * {@link ValueError} unless `data` holds exactly element count × element size bytes.
 */
// Spec IV.A.2.m: Attribute message, version 3.
export function encodeAttribute(a: AttributeMessage, sizes: SizeContext, opts: EncodeAttributeOptions = {}): Uint8Array {
  const name = utf8Encode(a.name);
  if (name.length === 0 || name.includes(0)) throw new ValueError(`attribute name "${a.name}" is empty or contains NUL`, { structure: STRUCTURE });
  if (name.length + 1 > 0xffff) throw new ValueError('attribute name is longer than 65534 bytes', { structure: STRUCTURE });
  if (a.sharedDataspaceRef) throw new ValueError('writing shared dataspaces is not supported', { structure: STRUCTURE });
  const expected = dataspaceElementCount(a.dataspace) * datatypeSize(a.datatype, sizes);
  if (a.data.length !== expected) {
    throw new ValueError(`attribute "${a.name}" data has ${a.data.length} bytes, expected ${expected}`, { structure: STRUCTURE });
  }
  let dt: Uint8Array;
  if (a.sharedDatatypeRef) dt = encodeSharedMessageRef(a.sharedDatatypeRef, sizes);
  else {
    const dw = new ByteWriter(sizes, 64);
    encodeDatatype(dw, a.datatype, opts.datatypeMinVersion ? { minVersion: opts.datatypeMinVersion } : {});
    dt = dw.finish();
  }
  const ds = encodeDataspace(a.dataspace, sizes);
  if (dt.length > 0xffff) throw new ValueError('attribute datatype description exceeds 65535 bytes', { structure: STRUCTURE });
  const w = new ByteWriter(sizes, 9 + name.length + 1 + dt.length + ds.length + a.data.length);
  w.u8(3).u8(a.sharedDatatypeRef ? 1 : 0).u16(name.length + 1).u16(dt.length).u16(ds.length).u8(a.charset === 'utf-8' ? 1 : 0);
  w.bytes(name).u8(0).bytes(dt).bytes(ds).bytes(a.data);
  return w.finishExact();
}
