/**
 * Header message type numbers (HDF5 spec IV.A.2, "Header Message Types") and their names, for
 * dispatching on {@link RawMessage.type} and for error messages.
 * @module
 */

/** NIL message (IV.A.2.a): unused space. */
export const NIL = 0x0000;
/** Dataspace (IV.A.2.b). */
export const DATASPACE = 0x0001;
/** Link info (IV.A.2.c). */
export const LINK_INFO = 0x0002;
/** Datatype (IV.A.2.d). */
export const DATATYPE = 0x0003;
/** Fill value, old (IV.A.2.e). */
export const FILL_VALUE_OLD = 0x0004;
/** Fill value (IV.A.2.f). */
export const FILL_VALUE = 0x0005;
/** Link (IV.A.2.g). */
export const LINK = 0x0006;
/** External data files (IV.A.2.h). */
export const EXTERNAL_FILES = 0x0007;
/** Data layout (IV.A.2.i). */
export const LAYOUT = 0x0008;
/** Bogus, for testing (IV.A.2.j). */
export const BOGUS = 0x0009;
/** Group info (IV.A.2.k). */
export const GROUP_INFO = 0x000a;
/** Filter pipeline (IV.A.2.l). */
export const FILTER_PIPELINE = 0x000b;
/** Attribute (IV.A.2.m). */
export const ATTRIBUTE = 0x000c;
/** Object comment (IV.A.2.n). */
export const COMMENT = 0x000d;
/** Object modification time, old (IV.A.2.o). */
export const MODIFICATION_TIME_OLD = 0x000e;
/** Shared message table (IV.A.2.p). */
export const SHARED_MESSAGE_TABLE = 0x000f;
/** Object header continuation (IV.A.2.q). */
export const CONTINUATION = 0x0010;
/** Symbol table message (IV.A.2.r). */
export const SYMBOL_TABLE = 0x0011;
/** Object modification time (IV.A.2.s). */
export const MODIFICATION_TIME = 0x0012;
/** B-tree 'K' values (IV.A.2.t). */
export const BTREE_K = 0x0013;
/** Driver info (IV.A.2.u). */
export const DRIVER_INFO = 0x0014;
/** Attribute info (IV.A.2.v). */
export const ATTRIBUTE_INFO = 0x0015;
/** Object reference count (IV.A.2.w). */
export const REFERENCE_COUNT = 0x0016;
/** File space info (IV.A.2.x). */
export const FILE_SPACE_INFO = 0x0017;
/**
 * STC filter pipeline: per-section filter pipelines of a structured-chunk (sparse) dataset, written
 * by the HDF5 sparse prototype after PR #6043 (docs/structured-chunk-format.md §4.2).
 */
export const STC_FILTER_PIPELINE = 0x0019;

const NAMES: Record<number, string> = {
  [NIL]: 'NIL',
  [DATASPACE]: 'dataspace',
  [LINK_INFO]: 'link info',
  [DATATYPE]: 'datatype',
  [FILL_VALUE_OLD]: 'fill value (old)',
  [FILL_VALUE]: 'fill value',
  [LINK]: 'link',
  [EXTERNAL_FILES]: 'external data files',
  [LAYOUT]: 'data layout',
  [BOGUS]: 'bogus',
  [GROUP_INFO]: 'group info',
  [FILTER_PIPELINE]: 'filter pipeline',
  [ATTRIBUTE]: 'attribute',
  [COMMENT]: 'object comment',
  [MODIFICATION_TIME_OLD]: 'object modification time (old)',
  [SHARED_MESSAGE_TABLE]: 'shared message table',
  [CONTINUATION]: 'object header continuation',
  [SYMBOL_TABLE]: 'symbol table',
  [MODIFICATION_TIME]: 'object modification time',
  [BTREE_K]: "B-tree 'K' values",
  [DRIVER_INFO]: 'driver info',
  [ATTRIBUTE_INFO]: 'attribute info',
  [REFERENCE_COUNT]: 'object reference count',
  [FILE_SPACE_INFO]: 'file space info',
  [STC_FILTER_PIPELINE]: 'STC filter pipeline',
};

/** Human-readable name of a message type, e.g. `messageTypeName(0x8)` → `"data layout message"`. */
export function messageTypeName(type: number): string {
  const n = NAMES[type];
  return n !== undefined ? `${n} message` : `message type 0x${type.toString(16).padStart(4, '0')}`;
}

/** Header message flag bits (spec IV.A.1.a/b "Header Message Flags"). */
export const MESSAGE_FLAGS = {
  /** Bit 0: the message is constant. */
  CONSTANT: 0x01,
  /** Bit 1: the message is shared (the body is a shared-message reference). */
  SHARED: 0x02,
  /** Bit 2: the message must not be shared. */
  DONT_SHARE: 0x04,
  /** Bit 3: fail if the type is unknown and the file is opened for writing. */
  FAIL_IF_UNKNOWN_AND_OPEN_FOR_WRITE: 0x08,
  /** Bit 4: set bit 5 if the type is unknown and the object is modified. */
  MARK_IF_UNKNOWN: 0x10,
  /** Bit 5: the object was modified by software that did not know this type. */
  WAS_UNKNOWN: 0x20,
  /** Bit 6: the message may be shared. */
  SHAREABLE: 0x40,
  /** Bit 7: always fail if the type is unknown. */
  FAIL_IF_UNKNOWN_ALWAYS: 0x80,
} as const;
