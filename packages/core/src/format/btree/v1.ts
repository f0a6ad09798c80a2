/**
 * Version 1 B-trees `TREE` (HDF5 File Format Specification, section III.A.1): the index of
 * symbol-table groups (node type 0, keys are local-heap name offsets, leaves point at symbol table
 * nodes) and of chunked datasets with pre-1.10 layouts (node type 1, keys are chunk size, filter
 * mask and chunk offsets, leaves point at chunks).
 * @module
 */
import { FormatError } from '../../errors.js';
import { ByteReader, type SizeContext, UNDEFINED_ADDRESS } from '../bytes.js';
import type { MetadataReader } from '../../file/metadata-reader.js';

const STRUCTURE = 'v1 B-tree node';

/** Size of the node header: signature, type, level, entries used, left and right siblings. */
export function v1NodeHeaderSize(sizes: SizeContext): number {
  return 8 + 2 * sizes.sizeOfOffsets;
}

/** Deepest tree accepted (levels are a u8 in the file; real trees are a few levels deep). */
export const V1_MAX_LEVEL = 64;

/** Key of a group node (type 0): offset of a name in the group's local heap. */
export interface V1GroupKey {
  heapOffset: number;
}

/** Key of a chunk node (type 1). */
export interface V1ChunkKey {
  /** Size of the (filtered) chunk in bytes. */
  chunkSize: number;
  /** Filters skipped for this chunk (bit i = filter i not applied). */
  filterMask: number;
  /** Element offsets of the chunk in each dimension, plus a trailing 0 for the element "dimension" (rank + 1 values). */
  offsets: number[];
}

/** A decoded node. `keys.length === children.length + 1`. */
export interface V1Node {
  nodeType: 0 | 1;
  /** 0 for leaves. */
  level: number;
  entriesUsed: number;
  leftSibling: number;
  rightSibling: number;
  keys: V1GroupKey[] | V1ChunkKey[];
  /** Child addresses: nodes one level down, or (at level 0) symbol table nodes / chunks. */
  children: number[];
}

/** A leaf entry of a group B-tree: the symbol table node and the name keys bracketing it. */
export interface V1GroupEntry {
  /** Heap offset of the key left of the child (names in the child sort after it). */
  key: number;
  /** Heap offset of the key right of the child (the child's last name). */
  nextKey: number;
  /** Address of the symbol table node. */
  childAddress: number;
}

/** A leaf entry of a chunk B-tree: one chunk. */
export interface V1ChunkEntry extends V1ChunkKey {
  /** Address of the chunk. */
  childAddress: number;
}

/** Size of one key: a length for groups, 8 + 8 × (rank + 1) for chunks. */
export function v1KeySize(sizes: SizeContext, nodeType: number, rank = 0): number {
  return nodeType === 0 ? sizes.sizeOfLengths : 8 + 8 * (rank + 1);
}

/**
 * Size of a node holding `entries` children: header, `entries` child addresses and
 * `entries + 1` keys. Pass 2K to get the allocated size of a full node.
 */
export function v1NodeSize(sizes: SizeContext, nodeType: number, entries: number, rank = 0): number {
  return v1NodeHeaderSize(sizes) + entries * sizes.sizeOfOffsets + (entries + 1) * v1KeySize(sizes, nodeType, rank);
}

/**
 * Decodes a node (`bytes` start at the signature and hold at least the used part). `rank` (the
 * dataspace rank) is required for chunk nodes. Spec III.A.1 "Version 1 B-trees".
 */
export function decodeV1Node(bytes: Uint8Array, sizes: SizeContext, address: number, rank?: number): V1Node {
  const r = new ByteReader(bytes, { sizes, structure: STRUCTURE, base: address });
  r.signature('TREE');
  const nodeType = r.u8();
  if (nodeType !== 0 && nodeType !== 1) throw r.error(`unknown node type ${nodeType}`);
  if (nodeType === 1 && (rank === undefined || !(rank >= 0 && rank <= 32))) {
    throw r.error(`chunk node needs a dataspace rank (got ${rank})`);
  }
  const level = r.u8();
  const entriesUsed = r.u16();
  const leftSibling = r.offset();
  const rightSibling = r.offset();
  r.need(v1NodeSize(sizes, nodeType, entriesUsed, rank) - r.pos, 'keys and children');
  const keys: (V1GroupKey | V1ChunkKey)[] = [];
  const children: number[] = [];
  const ndims = (rank ?? 0) + 1;
  for (let i = 0; i <= entriesUsed; i++) {
    if (nodeType === 0) {
      keys.push({ heapOffset: r.length() });
    } else {
      const chunkSize = r.u32();
      const filterMask = r.u32();
      const offsets = new Array<number>(ndims);
      for (let d = 0; d < ndims; d++) offsets[d] = r.u64();
      keys.push({ chunkSize, filterMask, offsets });
    }
    if (i < entriesUsed) {
      const child = r.offset();
      if (child === UNDEFINED_ADDRESS) throw r.error(`child ${i} has an undefined address`);
      children.push(child);
    }
  }
  return {
    nodeType,
    level,
    entriesUsed,
    leftSibling,
    rightSibling,
    keys: keys as V1GroupKey[] | V1ChunkKey[],
    children,
  };
}

/** Options of {@link iterateV1BTree}. */
export interface V1IterateOptions {
  /** Reject nodes with more entries than this (2K from the superblock or layout, when known). */
  maxEntries?: number;
}

/**
 * Yields the leaf entries (level-0 children) in key order. Guards: each step down decreases the
 * level by exactly one, no node is visited twice, entry counts are bounded.
 */
export function iterateV1BTree(reader: MetadataReader, address: number, nodeType: 0, rank?: number, opts?: V1IterateOptions): AsyncGenerator<V1GroupEntry>;
export function iterateV1BTree(reader: MetadataReader, address: number, nodeType: 1, rank: number, opts?: V1IterateOptions): AsyncGenerator<V1ChunkEntry>;
export async function* iterateV1BTree(
  reader: MetadataReader,
  address: number,
  nodeType: 0 | 1,
  rank?: number,
  opts: V1IterateOptions = {},
): AsyncGenerator<V1GroupEntry | V1ChunkEntry> {
  const visited = new Set<number>();
  yield* walk(reader, address, nodeType, rank, undefined, visited, opts.maxEntries ?? 0xffff);
}

/** Reads one node: the header first, then exactly the used part, bounded by the end of the file. */
export async function readV1Node(reader: MetadataReader, address: number, nodeType: 0 | 1, rank?: number, maxEntries = 0xffff): Promise<V1Node> {
  const sizes = reader.sizes;
  const head = await reader.read(address, v1NodeHeaderSize(sizes), STRUCTURE);
  const hr = new ByteReader(head, { sizes, structure: STRUCTURE, base: address });
  hr.signature('TREE');
  const type = hr.u8();
  if (type !== nodeType) throw hr.error(`node type ${type}, expected ${nodeType}`);
  hr.u8();
  const entries = hr.u16();
  if (entries > maxEntries) throw hr.error(`${entries} entries exceed the maximum ${maxEntries}`);
  const bytes = await reader.read(address, v1NodeSize(sizes, nodeType, entries, rank), STRUCTURE);
  return decodeV1Node(bytes, sizes, address, rank);
}

async function* walk(
  reader: MetadataReader,
  address: number,
  nodeType: 0 | 1,
  rank: number | undefined,
  expectedLevel: number | undefined,
  visited: Set<number>,
  maxEntries: number,
): AsyncGenerator<V1GroupEntry | V1ChunkEntry> {
  if (visited.has(address)) {
    throw new FormatError('node is referenced twice (cycle in the tree)', { structure: STRUCTURE, address });
  }
  visited.add(address);
  const node = await readV1Node(reader, address, nodeType, rank, maxEntries);
  if (expectedLevel !== undefined && node.level !== expectedLevel) {
    throw new FormatError(`node has level ${node.level}, expected ${expectedLevel}`, { structure: STRUCTURE, address });
  }
  if (node.level > V1_MAX_LEVEL) {
    throw new FormatError(`level ${node.level} exceeds the supported maximum ${V1_MAX_LEVEL}`, { structure: STRUCTURE, address });
  }
  if (node.level > 0) {
    for (const child of node.children) yield* walk(reader, child, nodeType, rank, node.level - 1, visited, maxEntries);
    return;
  }
  if (nodeType === 0) {
    const keys = node.keys as V1GroupKey[];
    for (let i = 0; i < node.children.length; i++) {
      yield { key: keys[i]!.heapOffset, nextKey: keys[i + 1]!.heapOffset, childAddress: node.children[i]! };
    }
  } else {
    const keys = node.keys as V1ChunkKey[];
    for (let i = 0; i < node.children.length; i++) {
      const k = keys[i]!;
      yield { chunkSize: k.chunkSize, filterMask: k.filterMask, offsets: k.offsets, childAddress: node.children[i]! };
    }
  }
}
