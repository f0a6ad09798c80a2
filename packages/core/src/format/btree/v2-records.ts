/**
 * Record decoders for version 2 B-trees (HDF5 File Format Specification, section III.A.2, the
 * record-type table). Each takes the raw record bytes that `iterateV2BTree` yields.
 * @module
 */
import { ByteReader, ByteWriter, type SizeContext } from '../bytes.js';

/** Record types defined by the format. */
export const V2RecordType = {
  /** Huge fractal-heap objects, indirectly accessed, not filtered. */
  HugeIndirect: 1,
  /** Huge fractal-heap objects, indirectly accessed, filtered. */
  HugeIndirectFiltered: 2,
  /** Huge fractal-heap objects, directly accessed, not filtered. */
  HugeDirect: 3,
  /** Huge fractal-heap objects, directly accessed, filtered. */
  HugeDirectFiltered: 4,
  /** Link name index of a dense group. */
  LinkName: 5,
  /** Creation order index of a dense group. */
  LinkCreationOrder: 6,
  /** Shared object header message index. */
  SharedMessage: 7,
  /** Attribute name index of dense attribute storage. */
  AttributeName: 8,
  /** Attribute creation order index of dense attribute storage. */
  AttributeCreationOrder: 9,
  /** Chunks of a dataset without filters. */
  Chunk: 10,
  /** Chunks of a dataset with filters. */
  FilteredChunk: 11,
} as const;

/** Fractal heap ID length used by group link indexes (`H5G_DENSE_FHEAP_ID_LEN`). */
export const LINK_HEAP_ID_LENGTH = 7;
/** Fractal heap ID length used by attribute indexes (`H5O_FHEAP_ID_LEN`). */
export const ATTRIBUTE_HEAP_ID_LENGTH = 8;

function reader(bytes: Uint8Array, sizes: SizeContext, what: string): ByteReader {
  return new ByteReader(bytes, { sizes, structure: `v2 B-tree ${what} record` });
}

/** Types 1 and 2: an indirectly accessed huge object. */
export interface HugeObjectRecord {
  /** Address of the object (of its filtered bytes for type 2). */
  address: number;
  /** Length on disk. */
  length: number;
  /** Filter mask (type 2 only; 0 otherwise). */
  filterMask: number;
  /** De-filtered size in memory (type 2; equals `length` for type 1). */
  objectSize: number;
  /** The huge object ID that heap IDs carry (types 1/2; 0 for direct types 3/4). */
  id: number;
}

/** Type 1 record: address (O), length (L), ID (L). Spec III.A.2, record type 1. */
export function decodeHugeIndirectRecord(bytes: Uint8Array, sizes: SizeContext): HugeObjectRecord {
  const r = reader(bytes, sizes, 'huge object');
  const address = r.offset();
  const length = r.length();
  const id = r.length();
  return { address, length, filterMask: 0, objectSize: length, id };
}

/** Type 1 record encoder. Spec III.A.2, record type 1. */
export function encodeHugeIndirectRecord(rec: Pick<HugeObjectRecord, 'address' | 'length' | 'id'>, sizes: SizeContext): Uint8Array {
  return new ByteWriter(sizes).offset(rec.address).length(rec.length).length(rec.id).finish();
}

/** Type 2 record: address, length, filter mask (4), object size (L), ID (L). Spec III.A.2, record type 2. */
export function decodeHugeIndirectFilteredRecord(bytes: Uint8Array, sizes: SizeContext): HugeObjectRecord {
  const r = reader(bytes, sizes, 'filtered huge object');
  const address = r.offset();
  const length = r.length();
  const filterMask = r.u32();
  const objectSize = r.length();
  const id = r.length();
  return { address, length, filterMask, objectSize, id };
}

/** Type 3 record: address, length. Spec III.A.2, record type 3. */
export function decodeHugeDirectRecord(bytes: Uint8Array, sizes: SizeContext): HugeObjectRecord {
  const r = reader(bytes, sizes, 'huge object');
  const address = r.offset();
  const length = r.length();
  return { address, length, filterMask: 0, objectSize: length, id: 0 };
}

/** Type 4 record: address, length, filter mask (4), object size (L). Spec III.A.2, record type 4. */
export function decodeHugeDirectFilteredRecord(bytes: Uint8Array, sizes: SizeContext): HugeObjectRecord {
  const r = reader(bytes, sizes, 'filtered huge object');
  const address = r.offset();
  const length = r.length();
  const filterMask = r.u32();
  const objectSize = r.length();
  return { address, length, filterMask, objectSize, id: 0 };
}

/** Type 5: link name index record. */
export interface LinkNameRecord {
  /** Jenkins lookup3 hash of the link name. */
  hash: number;
  /** Fractal heap ID of the link message. */
  heapId: Uint8Array;
}

/** Type 5 record: hash (4), heap ID (`heapIdLength`, 7 for groups). Spec III.A.2, record type 5. */
export function decodeLinkNameRecord(bytes: Uint8Array, heapIdLength = LINK_HEAP_ID_LENGTH): LinkNameRecord {
  const r = reader(bytes, { sizeOfOffsets: 8, sizeOfLengths: 8 }, 'link name');
  const hash = r.u32();
  const heapId = r.bytesView(heapIdLength, 'heap ID');
  return { hash, heapId };
}

/** Type 5 record encoder. Spec III.A.2, record type 5. */
export function encodeLinkNameRecord(rec: LinkNameRecord): Uint8Array {
  return new ByteWriter().u32(rec.hash).bytes(rec.heapId).finish();
}

/** Type 6: link creation order index record. */
export interface LinkCreationOrderRecord {
  /** Creation order of the link. */
  creationOrder: number;
  /** Fractal heap ID of the link message. */
  heapId: Uint8Array;
}

/** Type 6 record: creation order (8), heap ID (`heapIdLength`). Spec III.A.2, record type 6. */
export function decodeLinkCreationOrderRecord(bytes: Uint8Array, heapIdLength = LINK_HEAP_ID_LENGTH): LinkCreationOrderRecord {
  const r = reader(bytes, { sizeOfOffsets: 8, sizeOfLengths: 8 }, 'link creation order');
  const creationOrder = r.u64();
  const heapId = r.bytesView(heapIdLength, 'heap ID');
  return { creationOrder, heapId };
}

/** Type 6 record encoder. Spec III.A.2, record type 6. */
export function encodeLinkCreationOrderRecord(rec: LinkCreationOrderRecord): Uint8Array {
  return new ByteWriter().u64(rec.creationOrder).bytes(rec.heapId).finish();
}

/** Types 8 and 9: attribute index records. */
export interface AttributeRecord {
  /** Fractal heap ID of the attribute message (8 bytes). */
  heapId: Uint8Array;
  /** Object header message flags of the attribute message (bit 1: shared). */
  messageFlags: number;
  /** Creation order of the attribute. */
  creationOrder: number;
  /** Jenkins lookup3 hash of the name (type 8 only; 0 for type 9). */
  hash: number;
}

/** Type 8 record: heap ID (8), message flags (1), creation order (4), hash (4). Spec III.A.2, record type 8. */
export function decodeAttributeNameRecord(bytes: Uint8Array, heapIdLength = ATTRIBUTE_HEAP_ID_LENGTH): AttributeRecord {
  const r = reader(bytes, { sizeOfOffsets: 8, sizeOfLengths: 8 }, 'attribute name');
  const heapId = r.bytesView(heapIdLength, 'heap ID');
  const messageFlags = r.u8();
  const creationOrder = r.u32();
  const hash = r.u32();
  return { heapId, messageFlags, creationOrder, hash };
}

/** Type 8 record encoder. Spec III.A.2, record type 8. */
export function encodeAttributeNameRecord(rec: AttributeRecord): Uint8Array {
  return new ByteWriter().bytes(rec.heapId).u8(rec.messageFlags).u32(rec.creationOrder).u32(rec.hash).finish();
}

/** Type 9 record: heap ID (8), message flags (1), creation order (4). Spec III.A.2, record type 9. */
export function decodeAttributeCreationOrderRecord(bytes: Uint8Array, heapIdLength = ATTRIBUTE_HEAP_ID_LENGTH): AttributeRecord {
  const r = reader(bytes, { sizeOfOffsets: 8, sizeOfLengths: 8 }, 'attribute creation order');
  const heapId = r.bytesView(heapIdLength, 'heap ID');
  const messageFlags = r.u8();
  const creationOrder = r.u32();
  return { heapId, messageFlags, creationOrder, hash: 0 };
}

/** Type 9 record encoder. Spec III.A.2, record type 9. */
export function encodeAttributeCreationOrderRecord(rec: AttributeRecord): Uint8Array {
  return new ByteWriter().bytes(rec.heapId).u8(rec.messageFlags).u32(rec.creationOrder).finish();
}

/** Types 10 and 11: chunk records. */
export interface ChunkRecord {
  /** Address of the chunk. */
  address: number;
  /** Size of the (filtered) chunk on disk (type 11; 0 for type 10, whose size is implied). */
  chunkSize: number;
  /** Filter mask (type 11; 0 for type 10). */
  filterMask: number;
  /** Chunk coordinates divided by the chunk dimensions, one per dataspace dimension. */
  scaledOffsets: number[];
}

/** Type 10 record: address (O), `rank` scaled offsets (8 each). Spec III.A.2, record type 10. */
export function decodeChunkRecord(bytes: Uint8Array, sizes: SizeContext, rank: number): ChunkRecord {
  const r = reader(bytes, sizes, 'chunk');
  const address = r.offset();
  const scaledOffsets = new Array<number>(rank);
  for (let i = 0; i < rank; i++) scaledOffsets[i] = r.u64();
  return { address, chunkSize: 0, filterMask: 0, scaledOffsets };
}

/** Type 10 record encoder. Spec III.A.2, record type 10. */
export function encodeChunkRecord(rec: ChunkRecord, sizes: SizeContext): Uint8Array {
  const w = new ByteWriter(sizes).offset(rec.address);
  for (const o of rec.scaledOffsets) w.u64(o);
  return w.finish();
}

/**
 * Type 11 record: address (O), chunk size (`chunkSizeWidth` bytes), filter mask (4), `rank`
 * scaled offsets (8 each). Spec III.A.2, record type 11.
 */
export function decodeFilteredChunkRecord(bytes: Uint8Array, sizes: SizeContext, rank: number, chunkSizeWidth: number): ChunkRecord {
  const r = reader(bytes, sizes, 'filtered chunk');
  const address = r.offset();
  const chunkSize = r.uN(chunkSizeWidth);
  const filterMask = r.u32();
  const scaledOffsets = new Array<number>(rank);
  for (let i = 0; i < rank; i++) scaledOffsets[i] = r.u64();
  return { address, chunkSize, filterMask, scaledOffsets };
}

/** Type 11 record encoder. Spec III.A.2, record type 11. */
export function encodeFilteredChunkRecord(rec: ChunkRecord, sizes: SizeContext, chunkSizeWidth: number): Uint8Array {
  const w = new ByteWriter(sizes).offset(rec.address).uN(rec.chunkSize, chunkSizeWidth).u32(rec.filterMask);
  for (const o of rec.scaledOffsets) w.u64(o);
  return w.finish();
}
