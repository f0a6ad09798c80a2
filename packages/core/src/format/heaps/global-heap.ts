/**
 * Global heap collection `GCOL` (HDF5 File Format Specification, section III.E): where
 * variable-length data (vlen strings and sequences) and region references keep their bytes.
 * A heap ID in the file is (collection address, object index).
 * @module
 */
import { FormatError, TruncatedError, ValueError } from '../../errors.js';
import { ByteReader, ByteWriter, type SizeContext } from '../bytes.js';
import type { MetadataReader } from '../../file/metadata-reader.js';

const STRUCTURE = 'global heap collection';

/** Smallest collection the library creates (`H5HG_MINSIZE`). */
export const GLOBAL_HEAP_MIN_SIZE = 4096;

/** Rounds `n` up to a multiple of 8 (`H5HG_ALIGN`). */
function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

/** Size of the collection header: signature, version, 3 reserved bytes, collection size; 8-aligned. */
export function globalHeapHeaderSize(sizes: SizeContext): number {
  return align8(8 + sizes.sizeOfLengths);
}

/** Size of a global heap object header: index (2), reference count (2), reserved (4), size (L); 8-aligned. */
export function globalHeapObjectHeaderSize(sizes: SizeContext): number {
  return align8(8 + sizes.sizeOfLengths);
}

/**
 * Decodes the collection header and returns the collection size (which includes the header).
 * `bytes` must hold at least {@link globalHeapHeaderSize} bytes.
 * Spec III.E "Global Heap".
 */
export function decodeGlobalHeapCollectionSize(bytes: Uint8Array, sizes: SizeContext, address: number): number {
  const r = new ByteReader(bytes, { sizes, structure: STRUCTURE, base: address });
  r.signature('GCOL');
  const version = r.u8();
  if (version !== 1) throw r.error(`unsupported version ${version}`);
  r.skip(3);
  const size = r.length();
  const headerSize = globalHeapHeaderSize(sizes);
  if (size < headerSize) throw r.error(`collection size ${size} is smaller than its ${headerSize}-byte header`);
  return size;
}

/**
 * Decodes a whole global heap collection (`bytes` = exactly the collection, starting at its
 * signature). Returns object index → object data (views into `bytes`); the free-space object
 * (index 0) is not included. Spec III.E "Global Heap".
 */
export function decodeGlobalHeapCollection(bytes: Uint8Array, sizes: SizeContext, address: number): Map<number, Uint8Array> {
  const size = decodeGlobalHeapCollectionSize(bytes, sizes, address);
  if (size > bytes.length) {
    throw new TruncatedError(`collection size ${size} exceeds the ${bytes.length} bytes available`, {
      structure: STRUCTURE,
      address,
    });
  }
  const objHeader = globalHeapObjectHeaderSize(sizes);
  const r = new ByteReader(bytes.subarray(0, size), { sizes, structure: STRUCTURE, base: address });
  r.pos = globalHeapHeaderSize(sizes);
  const objects = new Map<number, Uint8Array>();
  let sawFreeSpace = false;
  while (r.pos < size) {
    // Fewer bytes than an object header left: unlabelled free space (the library writes no header).
    if (size - r.pos < objHeader) break;
    const begin = r.pos;
    const index = r.u16();
    r.u16(); // reference count
    r.skip(4);
    const objSize = r.length();
    if (index === 0) {
      // Free space: its size includes its own header and runs to the end of the collection.
      if (sawFreeSpace) throw r.error(`second free-space object at offset ${begin}`);
      sawFreeSpace = true;
      if (objSize < objHeader || objSize !== size - begin || objSize % 8 !== 0) {
        throw r.error(`free-space object at offset ${begin} has size ${objSize}, expected ${size - begin}`);
      }
      break;
    }
    const need = objHeader + align8(objSize);
    if (objSize < 0 || need > size - begin) {
      throw r.error(`object ${index} at offset ${begin} (${objSize} bytes) runs past the end of the collection`);
    }
    if (objects.has(index)) throw r.error(`object index ${index} appears twice`);
    objects.set(index, bytes.subarray(begin + objHeader, begin + objHeader + objSize));
    r.pos = begin + need;
  }
  return objects;
}

/**
 * Reads the global heap collection at `address`: its header first to learn the collection
 * size (checked against the end of the file), then the whole collection.
 */
export async function readGlobalHeapCollection(reader: MetadataReader, address: number): Promise<Map<number, Uint8Array>> {
  const head = await reader.read(address, globalHeapHeaderSize(reader.sizes), STRUCTURE);
  const size = decodeGlobalHeapCollectionSize(head, reader.sizes, address);
  if (size > reader.eof || address + size > reader.eof) {
    throw new TruncatedError(`collection of ${size} bytes extends past the end of the file (${reader.eof} bytes)`, {
      structure: STRUCTURE,
      address,
    });
  }
  const bytes = await reader.read(address, size, STRUCTURE);
  return decodeGlobalHeapCollection(bytes, reader.sizes, address);
}

/**
 * Encodes a global heap collection holding `objects`, numbered from 1 in array order, each padded
 * to 8 bytes, followed by a free-space object (index 0) when room for its header remains. The
 * collection is at least `minSize` bytes (the library never makes one smaller than 4096).
 * Spec III.E "Global Heap".
 */
export function encodeGlobalHeapCollection(objects: Uint8Array[], sizes: SizeContext, minSize = GLOBAL_HEAP_MIN_SIZE): Uint8Array {
  if (objects.length > 0xffff) {
    throw new ValueError(`a global heap collection holds at most 65535 objects, got ${objects.length}`, { structure: STRUCTURE });
  }
  const headerSize = globalHeapHeaderSize(sizes);
  const objHeader = globalHeapObjectHeaderSize(sizes);
  let used = headerSize;
  for (const o of objects) used += objHeader + align8(o.length);
  const size = Math.max(align8(minSize), used);
  const w = new ByteWriter(sizes, size);
  w.signature('GCOL').u8(1).zeros(3).length(size);
  w.zeros(headerSize - w.pos);
  for (let i = 0; i < objects.length; i++) {
    const o = objects[i]!;
    w.u16(i + 1).u16(0).u32(0).length(o.length);
    w.zeros(objHeader - (8 + sizes.sizeOfLengths));
    w.bytes(o).zeros(align8(o.length) - o.length);
  }
  const free = size - used;
  if (free >= objHeader) {
    w.u16(0).u16(0).u32(0).length(free);
    w.zeros(size - w.pos);
  } else if (free > 0) {
    w.zeros(free);
  }
  if (w.pos !== size) throw new FormatError(`internal error: encoded ${w.pos} of ${size} bytes`, { structure: STRUCTURE });
  return w.finish();
}
