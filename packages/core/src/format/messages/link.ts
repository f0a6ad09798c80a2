/**
 * Link message (HDF5 spec IV.A.2.g, type 0x0006): one link of a compact or dense "new-style"
 * group — hard, soft, external or user-defined.
 * @module
 */
import { ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, DEFAULT_SIZES, UNDEFINED_ADDRESS, utf8Decode, utf8Encode, type SizeContext } from '../bytes.js';

/** A decoded link. */
export interface LinkMessage {
  /** Link name. */
  name: string;
  kind: 'hard' | 'soft' | 'external' | 'user';
  /** Hard links: object header address of the target. */
  address?: number;
  /** Soft links: the target path. */
  target?: string;
  /** External links: file name. */
  externalFile?: string;
  /** External links: object path inside that file. */
  externalPath?: string;
  /** External links: the flags nibble of the link value (0 in files HDF5 writes). */
  externalFlags?: number;
  /** User-defined links: the link type (65–255). */
  userType?: number;
  /** User-defined links: the raw link value. */
  userData?: Uint8Array;
  /** Creation order, when the group tracks it. */
  creationOrder?: number;
  /** Character set of the name. */
  charset: 'ascii' | 'utf-8';
}

const STRUCTURE = 'link message';
const HARD = 0;
const SOFT = 1;
const EXTERNAL = 64;

/** Decodes a link message body (spec IV.A.2.g, version 1). */
export function decodeLink(body: Uint8Array, sizes: SizeContext = DEFAULT_SIZES, address = UNDEFINED_ADDRESS): LinkMessage {
  const r = new ByteReader(body, { sizes, structure: STRUCTURE, base: address });
  const version = r.u8();
  if (version !== 1) throw r.error(`unsupported version ${version}`);
  const flags = r.u8();
  if (flags & ~0x1f) throw r.error(`unknown flags 0x${flags.toString(16)}`);
  const linkType = flags & 0x08 ? r.u8() : HARD;
  if (linkType > SOFT && linkType < EXTERNAL) throw r.error(`invalid link type ${linkType}`);
  const creationOrder = flags & 0x04 ? r.u64() : undefined;
  let charset: LinkMessage['charset'] = 'ascii';
  if (flags & 0x10) {
    const cs = r.u8();
    if (cs === 1) charset = 'utf-8';
    else if (cs !== 0) throw r.error(`invalid name character set ${cs}`);
  }
  const nameLength = r.uN(1 << (flags & 0x03));
  if (nameLength === 0) throw r.error('link name is empty');
  const name = utf8Decode(r.bytesView(nameLength, 'link name'));
  const link: LinkMessage = { name, kind: 'hard', charset };
  if (creationOrder !== undefined) link.creationOrder = creationOrder;
  if (linkType === HARD) {
    link.address = r.offset();
  } else if (linkType === SOFT) {
    link.kind = 'soft';
    const n = r.u16();
    link.target = utf8Decode(r.bytesView(n, 'soft link value'));
  } else if (linkType === EXTERNAL) {
    link.kind = 'external';
    const n = r.u16();
    const v = new ByteReader(r.bytesView(n, 'external link value'), { structure: STRUCTURE, base: address });
    const vf = v.u8();
    if (vf >> 4 !== 0) throw r.error(`unsupported external link version ${vf >> 4}`);
    link.externalFlags = vf & 0x0f;
    link.externalFile = v.cstring();
    link.externalPath = v.cstring();
  } else {
    link.kind = 'user';
    link.userType = linkType;
    const n = r.u16();
    link.userData = r.bytesView(n, 'user-defined link value').slice();
  }
  return link;
}

function lengthCode(n: number): number {
  if (n > 0xffffffff) return 3;
  if (n > 0xffff) return 2;
  if (n > 0xff) return 1;
  return 0;
}

/**
 * Encodes a link message body (spec IV.A.2.g, version 1) as HDF5 does: the smallest name-length
 * width, the creation order when given, the link-type byte only for non-hard links and the
 * character-set byte only for UTF-8 names.
 */
export function encodeLink(link: LinkMessage, sizes: SizeContext = DEFAULT_SIZES): Uint8Array {
  const name = utf8Encode(link.name);
  if (name.length === 0) throw new ValueError('link name is empty', { structure: STRUCTURE });
  let linkType: number;
  let value: Uint8Array | null = null;
  switch (link.kind) {
    case 'hard':
      linkType = HARD;
      if (link.address === undefined || link.address < 0) throw new ValueError(`hard link "${link.name}" has no address`, { structure: STRUCTURE });
      break;
    case 'soft':
      linkType = SOFT;
      value = utf8Encode(link.target ?? '');
      break;
    case 'external': {
      linkType = EXTERNAL;
      const f = utf8Encode(link.externalFile ?? '');
      const p = utf8Encode(link.externalPath ?? '');
      value = new Uint8Array(1 + f.length + 1 + p.length + 1);
      value[0] = (link.externalFlags ?? 0) & 0x0f;
      value.set(f, 1);
      value.set(p, f.length + 2);
      break;
    }
    case 'user':
      linkType = link.userType ?? -1;
      if (!Number.isInteger(linkType) || linkType < 65 || linkType > 255) {
        throw new ValueError(`invalid user-defined link type ${String(link.userType)}`, { structure: STRUCTURE });
      }
      value = link.userData ?? new Uint8Array(0);
      break;
    default:
      throw new ValueError(`unknown link kind ${String((link as { kind: unknown }).kind)}`, { structure: STRUCTURE });
  }
  if (value && value.length > 0xffff) throw new ValueError(`link value of ${value.length} bytes exceeds 65535`, { structure: STRUCTURE });
  const code = lengthCode(name.length);
  let flags = code;
  if (link.creationOrder !== undefined) flags |= 0x04;
  if (linkType !== HARD) flags |= 0x08;
  if (link.charset === 'utf-8') flags |= 0x10;
  const w = new ByteWriter(sizes, 16 + name.length + (value ? value.length : sizes.sizeOfOffsets));
  w.u8(1).u8(flags);
  if (linkType !== HARD) w.u8(linkType);
  if (link.creationOrder !== undefined) w.u64(link.creationOrder);
  if (link.charset === 'utf-8') w.u8(1);
  w.uN(name.length, 1 << code);
  w.bytes(name);
  if (linkType === HARD) w.offset(link.address!);
  else w.u16(value!.length).bytes(value!);
  return w.finishExact();
}
