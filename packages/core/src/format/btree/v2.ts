/**
 * Version 2 B-trees (HDF5 File Format Specification, section III.A.2): header `BTHD`, internal
 * nodes `BTIN` and leaf nodes `BTLF`, all checksummed. They index dense links (record types 5/6),
 * dense attributes (8/9), huge fractal-heap objects (1–4) and chunks (10/11). This module reads the
 * tree structure and hands out raw record bytes; `v2-records.ts` decodes them.
 * @module
 */
import { FormatError } from '../../errors.js';
import { ByteReader, ByteWriter, type SizeContext, UNDEFINED_ADDRESS, verifyTrailingChecksum } from '../bytes.js';
import type { MetadataReader } from '../../file/metadata-reader.js';

const HEADER = 'v2 B-tree header';
const INTERNAL = 'v2 B-tree internal node';
const LEAF = 'v2 B-tree leaf node';

/** Signature + version + type + checksum: the fixed overhead of every node (`H5B2_METADATA_PREFIX_SIZE`). */
const NODE_PREFIX = 10;
/** Deepest tree accepted (HDF5 trees of billions of records are < 10 deep). */
export const V2_MAX_DEPTH = 32;

/** Derived per-depth sizes (`H5B2_node_info_t`). Index 0 = leaves. */
export interface V2NodeInfo {
  /** Most records a node at this depth can hold. */
  maxRecords: number;
  /** Most records in a subtree rooted at this depth (exact, may exceed 2^53). */
  cumulativeMaxRecords: bigint;
  /** Bytes used to store "total records in child" for a pointer to a node of this depth (0 for leaves). */
  cumulativeMaxRecordsSize: number;
}

/** A decoded v2 B-tree header plus the derived node geometry. */
export interface V2BTreeHeader {
  /** File address of the header. */
  address: number;
  /** Header version (0; 1 is accepted for the structured-chunk record types). */
  version: number;
  /** Record type (1–11, see `v2-records.ts`). */
  type: number;
  /** Size of every node in bytes. */
  nodeSize: number;
  /** Size of one record in bytes. */
  recordSize: number;
  /** Depth of the tree (0 = the root is a leaf). */
  depth: number;
  splitPercent: number;
  mergePercent: number;
  /** Address of the root node ({@link UNDEFINED_ADDRESS} for an empty tree). */
  rootAddress: number;
  /** Records in the root node. */
  rootRecordCount: number;
  /** Records in the whole tree. */
  totalRecordCount: number;
  /** Bytes used to store "number of records" in child pointers (`max_nrec_size`). */
  maxRecordCountSize: number;
  /** Node geometry per depth, index 0 = leaves, up to `depth`. */
  nodeInfo: V2NodeInfo[];
}

/** A child pointer of an internal node. */
export interface V2ChildPointer {
  address: number;
  /** Records in the child node itself. */
  recordCount: number;
  /** Records in the child's whole subtree (equals `recordCount` for leaf children). */
  totalRecordCount: number;
}

/** A decoded node: its records (views into the node bytes) and, for internal nodes, its children. */
export interface V2Node {
  records: Uint8Array[];
  /** `records.length + 1` child pointers for internal nodes; empty for leaves. */
  children: V2ChildPointer[];
}

/** Size of the header on disk. */
export function v2HeaderSize(sizes: SizeContext): number {
  return 4 + 1 + 1 + 4 + 2 + 2 + 1 + 1 + sizes.sizeOfOffsets + 2 + sizes.sizeOfLengths + 4;
}

/** Bytes needed to store values up to `n` (`H5VM_limit_enc_size`: floor(log2 n)/8 + 1). */
function limitEncSize(n: bigint): number {
  let bits = 0;
  for (let v = n; v > 1n; v >>= 1n) bits++;
  return Math.floor(bits / 8) + 1;
}

/** Size of a child pointer stored in an internal node at `depth` (`H5B2_INT_POINTER_SIZE`). */
function pointerSize(h: Pick<V2BTreeHeader, 'maxRecordCountSize' | 'nodeInfo'>, sizes: SizeContext, depth: number): number {
  return sizes.sizeOfOffsets + h.maxRecordCountSize + h.nodeInfo[depth - 1]!.cumulativeMaxRecordsSize;
}

/**
 * Computes the per-depth node geometry exactly as `H5B2__hdr_init` does. Throws
 * {@link FormatError} when a node cannot hold a single record.
 */
export function computeV2NodeInfo(
  sizes: SizeContext,
  nodeSize: number,
  recordSize: number,
  depth: number,
  address = UNDEFINED_ADDRESS,
): { maxRecordCountSize: number; nodeInfo: V2NodeInfo[] } {
  const fail = (m: string) => new FormatError(m, { structure: HEADER, address });
  if (recordSize <= 0) throw fail(`record size ${recordSize} is invalid`);
  const leafMax = Math.floor((nodeSize - NODE_PREFIX) / recordSize);
  if (!(leafMax >= 1)) throw fail(`node size ${nodeSize} cannot hold a ${recordSize}-byte record`);
  const nodeInfo: V2NodeInfo[] = [
    { maxRecords: leafMax, cumulativeMaxRecords: BigInt(leafMax), cumulativeMaxRecordsSize: 0 },
  ];
  const out = { maxRecordCountSize: limitEncSize(BigInt(leafMax)), nodeInfo };
  for (let d = 1; d <= depth; d++) {
    const ptr = pointerSize(out, sizes, d);
    const max = Math.floor((nodeSize - (NODE_PREFIX + ptr)) / (recordSize + ptr));
    if (!(max >= 1)) throw fail(`internal node at depth ${d} cannot hold a record`);
    const cum = BigInt(max + 1) * nodeInfo[d - 1]!.cumulativeMaxRecords + BigInt(max);
    const cumSize = limitEncSize(cum);
    if (cumSize > 8) throw fail(`depth ${depth} is too large for node size ${nodeSize}`);
    nodeInfo.push({ maxRecords: max, cumulativeMaxRecords: cum, cumulativeMaxRecordsSize: cumSize });
  }
  return out;
}

/**
 * Decodes a v2 B-tree header (`bytes` start at the signature) and derives the node geometry.
 * Spec III.A.2 "Version 2 B-trees", header.
 */
export function decodeV2BTreeHeader(bytes: Uint8Array, sizes: SizeContext, address: number): V2BTreeHeader {
  const r = new ByteReader(bytes, { sizes, structure: HEADER, base: address });
  r.signature('BTHD');
  const size = v2HeaderSize(sizes);
  r.need(size - r.pos, 'header');
  verifyTrailingChecksum(bytes.subarray(0, size), HEADER, address);
  const version = r.u8();
  if (version !== 0 && version !== 1) throw r.error(`unsupported version ${version}`);
  const type = r.u8();
  const nodeSize = r.u32();
  const recordSize = r.u16();
  const depth = r.u16();
  const splitPercent = r.u8();
  const mergePercent = r.u8();
  const rootAddress = r.offset();
  const rootRecordCount = r.u16();
  const totalRecordCount = r.length();
  if (depth > V2_MAX_DEPTH) throw r.error(`depth ${depth} exceeds the supported maximum ${V2_MAX_DEPTH}`);
  if (totalRecordCount === UNDEFINED_ADDRESS) throw r.error('total record count is undefined');
  if (rootAddress === UNDEFINED_ADDRESS && (rootRecordCount !== 0 || totalRecordCount !== 0)) {
    throw r.error('tree has records but no root node');
  }
  const geo = computeV2NodeInfo(sizes, nodeSize, recordSize, depth, address);
  if (rootAddress !== UNDEFINED_ADDRESS && rootRecordCount > geo.nodeInfo[depth]!.maxRecords) {
    throw r.error(`root holds ${rootRecordCount} records, more than the ${geo.nodeInfo[depth]!.maxRecords} that fit`);
  }
  return {
    address,
    version,
    type,
    nodeSize,
    recordSize,
    depth,
    splitPercent,
    mergePercent,
    rootAddress,
    rootRecordCount,
    totalRecordCount,
    ...geo,
  };
}

/** The stored fields of a v2 B-tree header (what {@link encodeV2BTreeHeader} needs). */
export type V2BTreeHeaderFields = Pick<
  V2BTreeHeader,
  'type' | 'nodeSize' | 'recordSize' | 'depth' | 'splitPercent' | 'mergePercent' | 'rootAddress' | 'rootRecordCount' | 'totalRecordCount'
> & { version?: number };

/** Encodes a v2 B-tree header with its checksum. Spec III.A.2 "Version 2 B-trees", header. */
export function encodeV2BTreeHeader(h: V2BTreeHeaderFields, sizes: SizeContext): Uint8Array {
  const w = new ByteWriter(sizes, v2HeaderSize(sizes));
  w.signature('BTHD').u8(h.version ?? 0).u8(h.type).u32(h.nodeSize).u16(h.recordSize).u16(h.depth);
  w.u8(h.splitPercent).u8(h.mergePercent).offset(h.rootAddress).u16(h.rootRecordCount).length(h.totalRecordCount);
  w.checksum(0);
  return w.finish();
}

/** The header fields that fix the layout of nodes (what node encoders and size computations need). */
export type V2NodeGeometry = Pick<V2BTreeHeader, 'type' | 'nodeSize' | 'recordSize' | 'maxRecordCountSize' | 'nodeInfo'>;

/** Bytes a node at `depth` with `recordCount` records occupies up to and including its checksum. */
export function v2NodeUsedSize(header: Omit<V2NodeGeometry, 'type' | 'nodeSize'>, sizes: SizeContext, depth: number, recordCount: number): number {
  const base = NODE_PREFIX + recordCount * header.recordSize;
  return depth === 0 ? base : base + (recordCount + 1) * pointerSize(header, sizes, depth);
}

/**
 * Decodes a leaf (`depth` 0) or internal node holding `recordCount` records; `bytes` start at the
 * signature and hold at least {@link v2NodeUsedSize} bytes. Verifies signature, type and checksum.
 * Spec III.A.2 "Version 2 B-trees", internal and leaf nodes.
 */
export function decodeV2BTreeNode(
  bytes: Uint8Array,
  header: V2BTreeHeader,
  sizes: SizeContext,
  address: number,
  depth: number,
  recordCount: number,
): V2Node {
  const leaf = depth === 0;
  const r = new ByteReader(bytes, { sizes, structure: leaf ? LEAF : INTERNAL, base: address });
  const info = header.nodeInfo[depth];
  if (!info) throw r.error(`depth ${depth} exceeds the tree depth ${header.depth}`);
  if (recordCount > info.maxRecords) {
    throw r.error(`${recordCount} records exceed the ${info.maxRecords} a node at depth ${depth} can hold`);
  }
  r.signature(leaf ? 'BTLF' : 'BTIN');
  const used = v2NodeUsedSize(header, sizes, depth, recordCount);
  r.need(used - r.pos, 'node');
  verifyTrailingChecksum(bytes.subarray(0, used), leaf ? LEAF : INTERNAL, address);
  const version = r.u8();
  if (version !== 0 && version !== 1) throw r.error(`unsupported version ${version}`);
  const type = r.u8();
  if (type !== header.type) throw r.error(`record type ${type} does not match the header's type ${header.type}`);
  const records: Uint8Array[] = new Array(recordCount);
  for (let i = 0; i < recordCount; i++) records[i] = r.bytesView(header.recordSize, 'record');
  const children: V2ChildPointer[] = [];
  if (!leaf) {
    const totalSize = depth > 1 ? header.nodeInfo[depth - 1]!.cumulativeMaxRecordsSize : 0;
    for (let i = 0; i <= recordCount; i++) {
      const address = r.offset();
      const count = r.uN(header.maxRecordCountSize);
      const total = depth > 1 ? r.uN(totalSize) : count;
      if (address === UNDEFINED_ADDRESS) throw r.error(`child pointer ${i} is undefined`);
      children.push({ address, recordCount: count, totalRecordCount: total });
    }
  }
  return { records, children };
}

/**
 * Encodes a leaf (`depth` 0, `BTLF`) or internal node (`BTIN`) with its checksum, zero-padded to
 * the node size as HDF5 writes it. `records` are encoded records of `recordSize` bytes each;
 * internal nodes take `records.length + 1` child pointers (the "total records" field is written
 * only below depth 1). Spec III.A.2 "Version 2 B-trees", internal and leaf nodes.
 */
export function encodeV2BTreeNode(
  geo: V2NodeGeometry,
  sizes: SizeContext,
  depth: number,
  records: readonly Uint8Array[],
  children: readonly V2ChildPointer[] = [],
  version = 0,
): Uint8Array {
  const leaf = depth === 0;
  const structure = leaf ? LEAF : INTERNAL;
  const fail = (m: string) => new FormatError(m, { structure });
  const info = geo.nodeInfo[depth];
  if (!info) throw fail(`depth ${depth} has no node geometry`);
  if (records.length > info.maxRecords) throw fail(`${records.length} records exceed the ${info.maxRecords} a node at depth ${depth} can hold`);
  if (!leaf && children.length !== records.length + 1) throw fail(`${records.length} records need ${records.length + 1} child pointers, got ${children.length}`);
  const used = v2NodeUsedSize(geo, sizes, depth, records.length);
  if (used > geo.nodeSize) throw fail(`${records.length} records need ${used} bytes, more than the node size ${geo.nodeSize}`);
  const w = new ByteWriter(sizes, geo.nodeSize);
  w.signature(leaf ? 'BTLF' : 'BTIN').u8(version).u8(geo.type);
  for (const r of records) {
    if (r.length !== geo.recordSize) throw fail(`record of ${r.length} bytes, expected ${geo.recordSize}`);
    w.bytes(r);
  }
  if (!leaf) {
    const totalSize = depth > 1 ? geo.nodeInfo[depth - 1]!.cumulativeMaxRecordsSize : 0;
    for (const c of children) {
      if (c.address === UNDEFINED_ADDRESS) throw fail('child pointer has no address');
      w.offset(c.address).uN(c.recordCount, geo.maxRecordCountSize);
      if (depth > 1) w.uN(c.totalRecordCount, totalSize);
    }
  }
  w.checksum(0);
  w.zeros(geo.nodeSize - w.pos);
  return w.finish();
}

/** Reads and decodes the header at `address`. */
export async function openV2BTree(reader: MetadataReader, address: number): Promise<V2BTreeHeader> {
  const bytes = await reader.read(address, v2HeaderSize(reader.sizes), HEADER);
  const h = decodeV2BTreeHeader(bytes, reader.sizes, address);
  // Every node takes the whole node size in the file: a larger node size is corrupt (and would size
  // the buffers of any node written later).
  if (h.rootAddress !== UNDEFINED_ADDRESS && h.nodeSize > reader.eof) {
    throw new FormatError(`node size ${h.nodeSize} is larger than the file (${reader.eof} bytes)`, { structure: HEADER, address });
  }
  return h;
}

/** Reads one node, bounded by the node size and the end of the file. */
async function readNode(
  reader: MetadataReader,
  header: V2BTreeHeader,
  address: number,
  depth: number,
  recordCount: number,
): Promise<V2Node> {
  const structure = depth === 0 ? LEAF : INTERNAL;
  const used = v2NodeUsedSize(header, reader.sizes, depth, recordCount);
  if (used > header.nodeSize) {
    throw new FormatError(`${recordCount} records need ${used} bytes, more than the node size ${header.nodeSize}`, {
      structure,
      address,
    });
  }
  const bytes = await reader.read(address, used, structure);
  return decodeV2BTreeNode(bytes, header, reader.sizes, address, depth, recordCount);
}

function cycleError(address: number, depth: number): FormatError {
  return new FormatError('node is referenced twice (cycle in the tree)', {
    structure: depth === 0 ? LEAF : INTERNAL,
    address,
  });
}

/**
 * Yields every record's raw bytes in key order (in-order traversal: an internal node's child
 * subtrees interleave with its records). The arrays are views into cached blocks: do not modify.
 */
export async function* iterateV2BTree(reader: MetadataReader, header: V2BTreeHeader): AsyncGenerator<Uint8Array> {
  if (header.rootAddress === UNDEFINED_ADDRESS || header.rootRecordCount === 0) return;
  const visited = new Set<number>([header.address]);
  yield* walk(reader, header, header.rootAddress, header.depth, header.rootRecordCount, visited);
}

async function* walk(
  reader: MetadataReader,
  header: V2BTreeHeader,
  address: number,
  depth: number,
  recordCount: number,
  visited: Set<number>,
): AsyncGenerator<Uint8Array> {
  if (visited.has(address)) throw cycleError(address, depth);
  visited.add(address);
  const node = await readNode(reader, header, address, depth, recordCount);
  if (depth === 0) {
    yield* node.records;
    return;
  }
  for (let i = 0; i <= node.records.length; i++) {
    const child = node.children[i]!;
    if (depth === 1 && child.totalRecordCount !== child.recordCount) {
      throw new FormatError(`child ${i} record counts disagree`, { structure: INTERNAL, address });
    }
    yield* walk(reader, header, child.address, depth - 1, child.recordCount, visited);
    if (i < node.records.length) yield node.records[i]!;
  }
}

/**
 * Finds the record for which `compare` returns 0. `compare(record)` must return a negative number
 * when the wanted key sorts before `record`, positive when after (the order records are stored in).
 * Returns the record's raw bytes, or `undefined` when there is none.
 */
export async function findV2BTreeRecord(
  reader: MetadataReader,
  header: V2BTreeHeader,
  compare: (record: Uint8Array) => number,
): Promise<Uint8Array | undefined> {
  if (header.rootAddress === UNDEFINED_ADDRESS || header.rootRecordCount === 0) return undefined;
  const visited = new Set<number>([header.address]);
  let address = header.rootAddress;
  let depth = header.depth;
  let count = header.rootRecordCount;
  for (;;) {
    if (visited.has(address)) throw cycleError(address, depth);
    visited.add(address);
    const node = await readNode(reader, header, address, depth, count);
    let lo = 0;
    let hi = node.records.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = compare(node.records[mid]!);
      if (c === 0) return node.records[mid];
      if (c < 0) hi = mid;
      else lo = mid + 1;
    }
    if (depth === 0) return undefined;
    const child = node.children[lo]!;
    address = child.address;
    count = child.recordCount;
    depth--;
  }
}
