/**
 * Local heap `HEAP` (HDF5 File Format Specification, section III.D): the name store of a
 * version-1 ("symbol table") group. Link names and soft-link values live in its data segment as
 * NUL-terminated strings; symbol table entries and v1 B-tree group keys refer to them by offset.
 * @module
 */
import { FormatError, TruncatedError } from '../../errors.js';
import { ByteReader, ByteWriter, type SizeContext, UNDEFINED_ADDRESS, utf8Decode } from '../bytes.js';
import type { MetadataReader } from '../../file/metadata-reader.js';

const STRUCTURE = 'local heap';
const DATA_STRUCTURE = 'local heap data segment';

/**
 * Value of "Offset to Head of Free-list" when the heap has no free block. The library writes 1
 * (`H5HL_FREE_NULL`; an offset of 1 can never start a free block since blocks are 8-aligned),
 * although the specification text says "undefined address"; both are accepted on read.
 */
export const LOCAL_HEAP_FREE_NULL = 1;

/** The fixed-size local heap header. */
export interface LocalHeapHeader {
  /** Size of the data segment in bytes. */
  dataSegmentSize: number;
  /**
   * Offset (in the data segment) of the first free block, or {@link LOCAL_HEAP_FREE_NULL} /
   * {@link UNDEFINED_ADDRESS} when there is none.
   */
  freeListOffset: number;
  /** File address of the data segment. */
  dataSegmentAddress: number;
}

/** Size of the local heap header: signature, version, reserved, two lengths and an offset. */
export function localHeapHeaderSize(sizes: SizeContext): number {
  return 8 + 2 * sizes.sizeOfLengths + sizes.sizeOfOffsets;
}

/**
 * Decodes a local heap header from `bytes` (which start at the header).
 * Spec III.D "Local Heap".
 */
export function decodeLocalHeapHeader(bytes: Uint8Array, sizes: SizeContext, address: number): LocalHeapHeader {
  const r = new ByteReader(bytes, { sizes, structure: STRUCTURE, base: address });
  r.signature('HEAP');
  const version = r.u8();
  if (version !== 0) throw r.error(`unsupported version ${version}`);
  r.skip(3);
  const dataSegmentSize = r.length();
  const freeListOffset = r.length();
  const dataSegmentAddress = r.offset();
  if (dataSegmentSize === UNDEFINED_ADDRESS) throw r.error('data segment size is undefined');
  if (
    freeListOffset !== UNDEFINED_ADDRESS &&
    freeListOffset !== LOCAL_HEAP_FREE_NULL &&
    freeListOffset >= dataSegmentSize
  ) {
    throw r.error(`free-list offset ${freeListOffset} lies outside the ${dataSegmentSize}-byte data segment`);
  }
  if (dataSegmentSize > 0 && dataSegmentAddress === UNDEFINED_ADDRESS) throw r.error('data segment address is undefined');
  return { dataSegmentSize, freeListOffset, dataSegmentAddress };
}

/**
 * Encodes a local heap header. `freeListOffset` defaults to {@link LOCAL_HEAP_FREE_NULL}.
 * Spec III.D "Local Heap".
 */
export function encodeLocalHeapHeader(h: LocalHeapHeader, sizes: SizeContext): Uint8Array {
  const w = new ByteWriter(sizes, localHeapHeaderSize(sizes));
  w.signature('HEAP').u8(0).zeros(3);
  w.length(h.dataSegmentSize).length(h.freeListOffset).offset(h.dataSegmentAddress);
  return w.finish();
}

/** A loaded local heap: header plus data segment. */
export class LocalHeap {
  /**
   * @param address file address of the heap header (for error messages)
   * @param header the decoded header
   * @param data the data segment (exactly `header.dataSegmentSize` bytes)
   */
  constructor(
    readonly address: number,
    readonly header: LocalHeapHeader,
    readonly data: Uint8Array,
  ) {}

  /**
   * The NUL-terminated string at `offset` in the data segment (UTF-8). Throws
   * {@link FormatError} when the offset is outside the segment or the string is unterminated.
   */
  getString(offset: number): string {
    if (!Number.isSafeInteger(offset) || offset < 0 || offset >= this.data.length) {
      throw new FormatError(`string offset ${offset} lies outside the ${this.data.length}-byte data segment`, {
        structure: DATA_STRUCTURE,
        address: this.address,
      });
    }
    const end = this.data.indexOf(0, offset);
    if (end < 0) {
      throw new FormatError(`string at offset ${offset} is not NUL-terminated`, {
        structure: DATA_STRUCTURE,
        address: this.address,
      });
    }
    return utf8Decode(this.data.subarray(offset, end));
  }
}

/**
 * Reads the local heap whose header is at `address`: the header first, then its data segment
 * (bounded by the end of the file by `reader`).
 */
export async function readLocalHeap(reader: MetadataReader, address: number): Promise<LocalHeap> {
  const headerBytes = await reader.read(address, localHeapHeaderSize(reader.sizes), STRUCTURE);
  const header = decodeLocalHeapHeader(headerBytes, reader.sizes, address);
  if (header.dataSegmentSize > reader.eof) {
    throw new TruncatedError(`data segment size ${header.dataSegmentSize} exceeds the file size ${reader.eof}`, {
      structure: STRUCTURE,
      address,
    });
  }
  const data =
    header.dataSegmentSize === 0
      ? new Uint8Array(0)
      : await reader.read(header.dataSegmentAddress, header.dataSegmentSize, DATA_STRUCTURE);
  return new LocalHeap(address, header, data);
}
