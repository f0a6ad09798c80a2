/**
 * Symbol tables of version-1 groups: symbol table entries (HDF5 File Format Specification,
 * section III.C) and symbol table nodes `SNOD` (III.B), and the traversal that lists a group's
 * members through its v1 B-tree and local heap.
 * @module
 */
import { FormatError } from '../errors.js';
import { ByteReader, type ByteWriter, type SizeContext, UNDEFINED_ADDRESS } from './bytes.js';
import type { MetadataReader } from '../file/metadata-reader.js';
import { iterateV1BTree } from './btree/v1.js';
import { readLocalHeap } from './heaps/local-heap.js';

const NODE = 'symbol table node';
const ENTRY = 'symbol table entry';

/** Size of the scratch-pad space of an entry (always 16 bytes). */
const SCRATCH_SIZE = 16;

/** Cache type 1: the object is a group whose B-tree and heap addresses are cached. */
export interface SymbolTableScratchGroup {
  btreeAddress: number;
  heapAddress: number;
}

/** Cache type 2: the entry is a soft link; the value is at this offset in the local heap. */
export interface SymbolTableScratchSoftLink {
  softLinkOffset: number;
}

/** A symbol table entry. */
export interface SymbolTableEntry {
  /** Offset of the link name in the group's local heap. */
  linkNameOffset: number;
  /** Address of the object header ({@link UNDEFINED_ADDRESS} for soft links). */
  objectHeaderAddress: number;
  /** 0 = nothing cached, 1 = group (B-tree/heap), 2 = soft link. */
  cacheType: number;
  /** Decoded scratch-pad for cache types 1 and 2, else `null`. */
  scratch: SymbolTableScratchGroup | SymbolTableScratchSoftLink | null;
}

/** Size of one entry: link name offset (L), object header address (O), cache type, reserved, scratch pad. */
export function symbolTableEntrySize(sizes: SizeContext): number {
  return sizes.sizeOfLengths + sizes.sizeOfOffsets + 4 + 4 + SCRATCH_SIZE;
}

/** Decodes one entry at the cursor of `r`. Spec III.C "Symbol Table Entry". */
export function decodeSymbolTableEntry(r: ByteReader): SymbolTableEntry {
  r.need(symbolTableEntrySize(r.sizes), ENTRY);
  const linkNameOffset = r.length();
  const objectHeaderAddress = r.offset();
  const cacheType = r.u32();
  r.skip(4);
  const scratchStart = r.pos;
  let scratch: SymbolTableEntry['scratch'] = null;
  if (cacheType === 1) {
    scratch = { btreeAddress: r.offset(), heapAddress: r.offset() };
  } else if (cacheType === 2) {
    scratch = { softLinkOffset: r.u32() };
  } else if (cacheType !== 0) {
    throw r.error(`symbol table entry has unknown cache type ${cacheType}`);
  }
  r.pos = scratchStart + SCRATCH_SIZE;
  if (linkNameOffset === UNDEFINED_ADDRESS) throw r.error('symbol table entry has an undefined link name offset');
  return { linkNameOffset, objectHeaderAddress, cacheType, scratch };
}

/** Encodes one entry at the cursor of `w` (the scratch pad is zero-padded to 16 bytes). Spec III.C. */
export function encodeSymbolTableEntry(w: ByteWriter, e: SymbolTableEntry): void {
  w.length(e.linkNameOffset).offset(e.objectHeaderAddress).u32(e.cacheType).u32(0);
  const start = w.pos;
  if (e.cacheType === 1) {
    const s = e.scratch as SymbolTableScratchGroup | null;
    if (!s || !('btreeAddress' in s)) throw new FormatError('cache type 1 needs B-tree and heap addresses', { structure: ENTRY });
    w.offset(s.btreeAddress).offset(s.heapAddress);
  } else if (e.cacheType === 2) {
    const s = e.scratch as SymbolTableScratchSoftLink | null;
    if (!s || !('softLinkOffset' in s)) throw new FormatError('cache type 2 needs a soft link offset', { structure: ENTRY });
    w.u32(s.softLinkOffset);
  }
  w.zeros(SCRATCH_SIZE - (w.pos - start));
}

/** Size of the node header: signature, version, reserved, number of symbols. */
const NODE_HEADER = 8;

/**
 * Decodes a symbol table node (`bytes` start at the signature and hold at least the used
 * entries). Spec III.B "Symbol Table Node".
 */
export function decodeSymbolTableNode(bytes: Uint8Array, sizes: SizeContext, address: number): SymbolTableEntry[] {
  const r = new ByteReader(bytes, { sizes, structure: NODE, base: address });
  r.signature('SNOD');
  const version = r.u8();
  if (version !== 1) throw r.error(`unsupported version ${version}`);
  r.skip(1);
  const count = r.u16();
  r.need(count * symbolTableEntrySize(sizes), 'entries');
  const entries: SymbolTableEntry[] = new Array(count);
  for (let i = 0; i < count; i++) entries[i] = decodeSymbolTableEntry(r);
  return entries;
}

/** Reads a symbol table node: its 8-byte header, then exactly its used entries. */
export async function readSymbolTableNode(reader: MetadataReader, address: number): Promise<SymbolTableEntry[]> {
  const head = await reader.read(address, NODE_HEADER, NODE);
  const hr = new ByteReader(head, { sizes: reader.sizes, structure: NODE, base: address });
  hr.signature('SNOD');
  hr.skip(2);
  const count = hr.u16();
  const bytes = await reader.read(address, NODE_HEADER + count * symbolTableEntrySize(reader.sizes), NODE);
  return decodeSymbolTableNode(bytes, reader.sizes, address);
}

/** One member of a symbol-table group. */
export interface SymbolTableMember {
  /** Link name. */
  name: string;
  entry: SymbolTableEntry;
  /** Soft link value, for entries with cache type 2. */
  softLinkValue?: string;
}

/**
 * Lists the members of a version-1 group in name order: walks the group's v1 B-tree (node
 * type 0) to its symbol table nodes and resolves names (and soft-link values) in the local heap.
 */
export async function readSymbolTableGroup(
  reader: MetadataReader,
  btreeAddress: number,
  heapAddress: number,
): Promise<SymbolTableMember[]> {
  const heap = await readLocalHeap(reader, heapAddress);
  const members: SymbolTableMember[] = [];
  for await (const leaf of iterateV1BTree(reader, btreeAddress, 0)) {
    const entries = await readSymbolTableNode(reader, leaf.childAddress);
    for (const entry of entries) {
      const member: SymbolTableMember = { name: heap.getString(entry.linkNameOffset), entry };
      if (entry.cacheType === 2) member.softLinkValue = heap.getString((entry.scratch as SymbolTableScratchSoftLink).softLinkOffset);
      members.push(member);
    }
  }
  return members;
}
