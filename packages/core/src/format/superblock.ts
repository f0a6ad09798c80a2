/**
 * Superblock (HDF5 File Format Specification II.A), versions 0, 1, 2 and 3: the entry point of a
 * file. Versions 0/1 carry B-tree K values and the root group's symbol table entry; versions 2/3 are
 * 48 bytes (with 8-byte offsets and lengths) protected by a lookup3 checksum.
 * @module
 */
import { FormatError, TruncatedError, UnsupportedError, ValueError } from '../errors.js';
import { ByteReader, ByteWriter, UNDEFINED_ADDRESS, type SizeContext } from './bytes.js';

/** The 8-byte format signature `\x89HDF\r\n\x1a\n` that starts every superblock. */
export const SUPERBLOCK_SIGNATURE: Uint8Array = Uint8Array.of(0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a);

/**
 * Bytes the largest supported superblock occupies (version 1 with 8-byte offsets and lengths:
 * 100 bytes). Callers read `min(SUPERBLOCK_MAX_SIZE, bytes left in the file)` bytes.
 */
export const SUPERBLOCK_MAX_SIZE = 100;

const STRUCTURE = 'superblock';

/** The root group's symbol table entry (superblock versions 0 and 1). */
export interface RootSymbolTableEntry {
  /** Object header address of the root group. */
  objectHeaderAddress: number;
  /** Address of the root group's v1 B-tree, when the entry caches it (cache type 1). */
  btreeAddress?: number;
  /** Address of the root group's local heap, when the entry caches it (cache type 1). */
  heapAddress?: number;
}

/** A decoded superblock. Addresses (except {@link Superblock.eofAddress}) are relative to {@link Superblock.baseAddress}. */
export interface Superblock {
  /** Superblock version (0, 1, 2 or 3). */
  version: number;
  /** Sizes of offsets and lengths used throughout the file. */
  sizes: SizeContext;
  /** Absolute file address all other addresses are relative to (usually 0). */
  baseAddress: number;
  /**
   * End-of-file address as stored. HDF5 stores the absolute end of file (it includes a user block:
   * a file with a 1024-byte user block and base address 1024 stores its full length), so the
   * relative end of the HDF5 data is `eofAddress - baseAddress`.
   */
  eofAddress: number;
  /** Address of the root group's object header. */
  rootObjectHeaderAddress: number;
  /** Superblock extension object header address ({@link UNDEFINED_ADDRESS} when absent; always absent in v0/1). */
  superblockExtensionAddress: number;
  /** File consistency flags (v0/1: 4 bytes; v2/3: 1 byte). */
  consistencyFlags: number;
  /** Group leaf node K (v0/1). */
  groupLeafNodeK?: number;
  /** Group internal node K (v0/1). */
  groupInternalNodeK?: number;
  /** Indexed storage internal node K (v1 only; v0 implies 32). */
  indexedStorageInternalNodeK?: number;
  /** Address of the global free-space index (v0/1; normally undefined). */
  freeSpaceInfoAddress?: number;
  /** Address of the driver information block (v0/1). */
  driverInfoAddress?: number;
  /** The root group symbol table entry (v0/1). */
  rootSymbolTableEntry?: RootSymbolTableEntry;
}

/** Offsets at which a superblock may start in a file of `size` bytes: 0, 512, 1024, 2048, … (< size). */
export function findSuperblockOffsets(size: number): number[] {
  const out: number[] = [];
  if (!(size > 0)) return out;
  out.push(0);
  for (let at = 512; at < size && at <= Number.MAX_SAFE_INTEGER / 2; at *= 2) out.push(at);
  return out;
}

function checkSize(n: number, what: string, address: number): void {
  if (n !== 2 && n !== 4 && n !== 8) {
    if (n === 16 || n === 32) throw new UnsupportedError(`${what} of ${n} bytes is not supported`, { structure: STRUCTURE, address });
    throw new FormatError(`invalid ${what} ${n}`, { structure: STRUCTURE, address });
  }
}

/** Parses the 40-byte (with 8-byte sizes) root group symbol table entry, including its scratch pad. */
function decodeRootEntry(r: ByteReader): RootSymbolTableEntry {
  r.length(); // link name offset (stored with the size of lengths, as the library does)
  const objectHeaderAddress = r.offset();
  const cacheType = r.u32();
  r.skip(4); // reserved
  const scratchStart = r.pos;
  r.need(16, 'scratch pad');
  const entry: RootSymbolTableEntry = { objectHeaderAddress };
  if (cacheType === 1) {
    entry.btreeAddress = r.offset();
    entry.heapAddress = r.offset();
  } else if (cacheType !== 0 && cacheType !== 2) {
    throw r.error(`root group symbol table entry has unknown cache type ${cacheType}`);
  }
  r.pos = scratchStart + 16;
  return entry;
}

/**
 * Decodes a superblock (spec II.A, versions 0–3). `bytes` starts at the signature and must hold
 * the whole superblock (see {@link SUPERBLOCK_MAX_SIZE}); `address` is its absolute file offset.
 * Throws {@link TruncatedError} when `bytes` is too short, {@link ChecksumError} on a v2/3 checksum
 * mismatch and {@link FormatError} on bad field values.
 */
export function decodeSuperblock(bytes: Uint8Array, address: number): Superblock {
  const head = new ByteReader(bytes, { structure: STRUCTURE, base: address });
  head.signature('\x89HDF\r\n\x1a\n');
  const version = head.u8();
  if (version > 3) throw new UnsupportedError(`superblock version ${version} is not supported`, { structure: STRUCTURE, address });

  if (version >= 2) {
    const sizeOfOffsets = head.u8();
    const sizeOfLengths = head.u8();
    checkSize(sizeOfOffsets, 'size of offsets', address);
    checkSize(sizeOfLengths, 'size of lengths', address);
    const sizes: SizeContext = { sizeOfOffsets, sizeOfLengths };
    const total = 12 + 4 * sizeOfOffsets + 4;
    if (bytes.length < total) {
      throw new TruncatedError(`version ${version} superblock needs ${total} bytes but only ${bytes.length} are available`, {
        structure: STRUCTURE,
        address,
      });
    }
    const r = new ByteReader(bytes.subarray(0, total), { structure: STRUCTURE, base: address, sizes, pos: 11 });
    const consistencyFlags = r.u8();
    const baseAddress = r.offset();
    const superblockExtensionAddress = r.offset();
    const eofAddress = r.offset();
    const rootObjectHeaderAddress = r.offset();
    r.checksum(0);
    return { version, sizes, baseAddress, eofAddress, rootObjectHeaderAddress, superblockExtensionAddress, consistencyFlags };
  }

  // Versions 0 and 1.
  const freeSpaceVersion = head.u8();
  const rootEntryVersion = head.u8();
  head.skip(1);
  const sharedHeaderVersion = head.u8();
  const sizeOfOffsets = head.u8();
  const sizeOfLengths = head.u8();
  checkSize(sizeOfOffsets, 'size of offsets', address);
  checkSize(sizeOfLengths, 'size of lengths', address);
  if (freeSpaceVersion !== 0) throw head.error(`bad free-space storage version ${freeSpaceVersion}`);
  if (rootEntryVersion !== 0) throw head.error(`bad root group symbol table entry version ${rootEntryVersion}`);
  if (sharedHeaderVersion !== 0) throw head.error(`bad shared header message format version ${sharedHeaderVersion}`);
  const sizes: SizeContext = { sizeOfOffsets, sizeOfLengths };
  const fixed = version === 1 ? 28 : 24;
  const entrySize = sizeOfLengths + sizeOfOffsets + 8 + 16;
  const total = fixed + 4 * sizeOfOffsets + entrySize;
  if (bytes.length < total) {
    throw new TruncatedError(`version ${version} superblock needs ${total} bytes but only ${bytes.length} are available`, {
      structure: STRUCTURE,
      address,
    });
  }
  // Byte 15 is reserved; the K values start at 16.
  const r = new ByteReader(bytes.subarray(0, total), { structure: STRUCTURE, base: address, sizes, pos: 16 });
  const groupLeafNodeK = r.u16();
  const groupInternalNodeK = r.u16();
  if (groupLeafNodeK === 0) throw r.error('group leaf node K is 0');
  if (groupInternalNodeK === 0) throw r.error('group internal node K is 0');
  const consistencyFlags = r.u32();
  let indexedStorageInternalNodeK: number | undefined;
  if (version === 1) {
    indexedStorageInternalNodeK = r.u16();
    if (indexedStorageInternalNodeK === 0) throw r.error('indexed storage internal node K is 0');
    r.skip(2);
  }
  const baseAddress = r.offset();
  const freeSpaceInfoAddress = r.offset();
  const eofAddress = r.offset();
  const driverInfoAddress = r.offset();
  const rootSymbolTableEntry = decodeRootEntry(r);
  const sb: Superblock = {
    version,
    sizes,
    baseAddress,
    eofAddress,
    rootObjectHeaderAddress: rootSymbolTableEntry.objectHeaderAddress,
    superblockExtensionAddress: UNDEFINED_ADDRESS,
    consistencyFlags,
    groupLeafNodeK,
    groupInternalNodeK,
    freeSpaceInfoAddress,
    driverInfoAddress,
    rootSymbolTableEntry,
  };
  if (indexedStorageInternalNodeK !== undefined) sb.indexedStorageInternalNodeK = indexedStorageInternalNodeK;
  return sb;
}

/** Fields of a version 2/3 superblock to encode. */
export interface SuperblockV2Fields {
  version: 2 | 3;
  sizes: SizeContext;
  eofAddress: number;
  rootObjectHeaderAddress: number;
  /** Superblock extension object header address; default {@link UNDEFINED_ADDRESS}. */
  superblockExtensionAddress?: number;
  /** File consistency flags; default 0 (a cleanly closed file). */
  consistencyFlags?: number;
}

/**
 * Encodes a version 2 or 3 superblock (spec II.A, "Superblock Version 2 and 3") with base address 0:
 * 48 bytes with 8-byte sizes, byte-identical to what HDF5 1.10 writes for the same field values.
 */
export function encodeSuperblock(sb: SuperblockV2Fields): Uint8Array {
  if (sb.version !== 2 && sb.version !== 3) throw new ValueError(`cannot encode superblock version ${String(sb.version)}`, { structure: STRUCTURE });
  const { sizeOfOffsets, sizeOfLengths } = sb.sizes;
  for (const [n, what] of [[sizeOfOffsets, 'size of offsets'], [sizeOfLengths, 'size of lengths']] as const) {
    if (n !== 2 && n !== 4 && n !== 8) throw new ValueError(`invalid ${what} ${n}`, { structure: STRUCTURE });
  }
  const flags = sb.consistencyFlags ?? 0;
  if (!Number.isInteger(flags) || flags < 0 || flags > 255) throw new ValueError(`invalid consistency flags ${flags}`, { structure: STRUCTURE });
  const w = new ByteWriter(sb.sizes, 12 + 4 * sizeOfOffsets + 4);
  w.bytes(SUPERBLOCK_SIGNATURE).u8(sb.version).u8(sizeOfOffsets).u8(sizeOfLengths).u8(flags);
  w.offset(0);
  w.offset(sb.superblockExtensionAddress ?? UNDEFINED_ADDRESS);
  w.offset(sb.eofAddress);
  w.offset(sb.rootObjectHeaderAddress);
  w.checksum(0);
  return w.finishExact();
}
