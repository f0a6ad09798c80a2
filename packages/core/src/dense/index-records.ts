/**
 * The v2 B-tree record classes of dense storage, for {@link V2Tree}: huge fractal-heap objects
 * (type 1), link names (5) and creation order (6), attribute names (8) and creation order (9).
 * Name records order by the Jenkins lookup3 hash of the name, then — for equal hashes — by the
 * name's bytes (as HDF5 compares them, strcmp), so each record carries its name once known.
 * @module
 */
import type { SizeContext } from '../format/bytes.js';
import {
  ATTRIBUTE_HEAP_ID_LENGTH,
  LINK_HEAP_ID_LENGTH,
  V2RecordType,
  decodeAttributeCreationOrderRecord,
  decodeAttributeNameRecord,
  decodeHugeIndirectRecord,
  decodeLinkCreationOrderRecord,
  decodeLinkNameRecord,
  encodeAttributeCreationOrderRecord,
  encodeAttributeNameRecord,
  encodeHugeIndirectRecord,
  encodeLinkCreationOrderRecord,
  encodeLinkNameRecord,
} from '../format/btree/v2-records.js';
import type { V2RecordClass, V2TreeParams } from '../btree2/node-store.js';
import { compareNameBytes } from '../objects/link-list.js';

/** Node size, split and merge percents HDF5 gives every dense-storage B-tree (512 bytes, 100 %, 40 %). */
export const DENSE_BTREE_PARAMS: V2TreeParams = { nodeSize: 512, splitPercent: 100, mergePercent: 40 };

/** A heap ID as a map key (its bytes as a string of char codes). */
export function heapIdKey(id: Uint8Array): string {
  return String.fromCharCode(...id);
}

/** A name index record: hash, heap ID and — when known — the name's UTF-8 bytes. */
export interface NameRecord {
  hash: number;
  heapId: Uint8Array;
  name?: Uint8Array;
  /** Attribute records only: message flags and creation order. */
  messageFlags?: number;
  creationOrder?: number;
}

/** A creation-order index record. */
export interface OrderRecord {
  creationOrder: number;
  heapId: Uint8Array;
  messageFlags?: number;
}

/** A huge object record (type 1). */
export interface HugeRecord {
  address: number;
  length: number;
  id: number;
}

function compareName(a: NameRecord, b: NameRecord): number {
  if (a.hash !== b.hash) return a.hash < b.hash ? -1 : 1;
  if (a.name && b.name) return compareNameBytes(a.name, b.name);
  // Equal hashes and a record whose name is unknown: the store fills names of every record it
  // loads (see `names`), so this only orders a search key without a name.
  return 0;
}

/**
 * Type 5 (link name) records; `names` maps heap IDs (see {@link heapIdKey}) to the names of the
 * links they hold, filled by the dense link store so that records read from the file order fully.
 */
export function linkNameClass(names: Map<string, Uint8Array>): V2RecordClass<NameRecord> {
  return {
    type: V2RecordType.LinkName,
    recordSize: 4 + LINK_HEAP_ID_LENGTH,
    compare: compareName,
    encode: (r) => encodeLinkNameRecord({ hash: r.hash, heapId: r.heapId }),
    decode: (bytes) => {
      const { hash, heapId } = decodeLinkNameRecord(bytes);
      const id = heapId.slice();
      const name = names.get(heapIdKey(id));
      return name ? { hash, heapId: id, name } : { hash, heapId: id };
    },
  };
}

/** Type 6 (link creation order) records. */
export const linkOrderClass: V2RecordClass<OrderRecord> = {
  type: V2RecordType.LinkCreationOrder,
  recordSize: 8 + LINK_HEAP_ID_LENGTH,
  compare: (a, b) => a.creationOrder - b.creationOrder,
  encode: (r) => encodeLinkCreationOrderRecord(r),
  decode: (bytes) => {
    const r = decodeLinkCreationOrderRecord(bytes);
    return { creationOrder: r.creationOrder, heapId: r.heapId.slice() };
  },
};

/** Type 8 (attribute name) records; `names` as for {@link linkNameClass}. */
export function attributeNameClass(names: Map<string, Uint8Array>): V2RecordClass<NameRecord> {
  return {
    type: V2RecordType.AttributeName,
    recordSize: ATTRIBUTE_HEAP_ID_LENGTH + 9,
    compare: compareName,
    encode: (r) => encodeAttributeNameRecord({ heapId: r.heapId, messageFlags: r.messageFlags ?? 0, creationOrder: r.creationOrder ?? 0, hash: r.hash }),
    decode: (bytes) => {
      const r = decodeAttributeNameRecord(bytes);
      const id = r.heapId.slice();
      const name = names.get(heapIdKey(id));
      const rec: NameRecord = { hash: r.hash, heapId: id, messageFlags: r.messageFlags, creationOrder: r.creationOrder };
      if (name) rec.name = name;
      return rec;
    },
  };
}

/** Type 9 (attribute creation order) records. */
export const attributeOrderClass: V2RecordClass<OrderRecord> = {
  type: V2RecordType.AttributeCreationOrder,
  recordSize: ATTRIBUTE_HEAP_ID_LENGTH + 5,
  compare: (a, b) => a.creationOrder - b.creationOrder,
  encode: (r) => encodeAttributeCreationOrderRecord({ heapId: r.heapId, messageFlags: r.messageFlags ?? 0, creationOrder: r.creationOrder, hash: 0 }),
  decode: (bytes) => {
    const r = decodeAttributeCreationOrderRecord(bytes);
    return { creationOrder: r.creationOrder, heapId: r.heapId.slice(), messageFlags: r.messageFlags };
  },
};

/** Type 1 (huge object, indirectly accessed, unfiltered) records of a heap with these sizes. */
export function hugeObjectClass(sizes: SizeContext): V2RecordClass<HugeRecord> {
  return {
    type: V2RecordType.HugeIndirect,
    recordSize: sizes.sizeOfOffsets + 2 * sizes.sizeOfLengths,
    compare: (a, b) => a.id - b.id,
    encode: (r) => encodeHugeIndirectRecord(r, sizes),
    decode: (bytes) => {
      const r = decodeHugeIndirectRecord(bytes, sizes);
      return { address: r.address, length: r.length, id: r.id };
    },
  };
}
