/**
 * The in-memory image of a version 2 B-tree (HDF5 File Format Specification III.A.2): the header
 * fields, node pointers and lazily loaded nodes, with the node geometry HDF5 derives
 * (`H5B2__hdr_init`: max/split/merge record counts per depth). Nodes are read through the
 * dataset's `MetadataReader` on first use (checksum, record order, record counts and cycles are
 * verified) and written back by {@link V2NodeStore.flush}. The insert/update/remove algorithms
 * live in `tree.ts`.
 * @module
 */
import { FormatError } from '../errors.js';
import type { IndexStorage } from '../chunk/chunk-index.js';
import type { MetadataReader } from '../file/metadata-reader.js';
import { UNDEFINED_ADDRESS, type SizeContext } from '../format/bytes.js';
import {
  computeV2NodeInfo,
  decodeV2BTreeNode,
  encodeV2BTreeHeader,
  encodeV2BTreeNode,
  v2HeaderSize,
  v2NodeUsedSize,
  V2_MAX_DEPTH,
  type V2BTreeHeader,
} from '../format/btree/v2.js';

/** How records of one B-tree type are compared and (de)serialised (HDF5's `H5B2_class_t`). */
export interface V2RecordClass<R> {
  /** Record type stored in the header and nodes. */
  readonly type: number;
  /** Version byte of a new tree's header (default 0; 1 for the structured-chunk types 12/13). */
  readonly headerVersion?: number;
  /** Encoded record size in bytes. */
  readonly recordSize: number;
  /** Order of two records (negative: `a` first). */
  compare(a: R, b: R): number;
  encode(rec: R): Uint8Array;
  /** Decodes one record; `address` is the node's, for error messages. */
  decode(bytes: Uint8Array, address: number): R;
}

/** Creation parameters of a tree. */
export interface V2TreeParams {
  nodeSize: number;
  splitPercent: number;
  mergePercent: number;
}

/** A loaded node. `children` (internal nodes only) has `records.length + 1` entries. */
export interface TreeNode<R> {
  depth: number;
  records: R[];
  children: NodePtr<R>[];
  dirty: boolean;
}

/** A pointer to a node, as its parent (or the header) stores it, plus the node once loaded. */
export interface NodePtr<R> {
  /** File address ({@link UNDEFINED_ADDRESS} for a node not yet written). */
  address: number;
  /** Records in the node. */
  nrec: number;
  /** Records in the node's subtree. */
  all: number;
  node?: TreeNode<R>;
}

/** Record counts that drive splits and merges at one depth. */
export interface LevelLimits {
  max: number;
  split: number;
  merge: number;
}

const HEADER = 'v2 B-tree header';
const LEAF = 'v2 B-tree leaf node';
const INTERNAL = 'v2 B-tree internal node';

/** Header, root pointer and node cache of one v2 B-tree. */
export class V2NodeStore<R> {
  /** Header address ({@link UNDEFINED_ADDRESS} until first flushed). */
  headerAddress: number;
  depth: number;
  root: NodePtr<R>;
  headerDirty = false;
  /** Per-depth geometry (index 0 = leaves) in the shape of a decoded header. */
  hdr: V2BTreeHeader;
  levels: LevelLimits[] = [];
  /** Addresses of loaded nodes (a second reference to one of them is a cycle). */
  private readonly loaded = new Set<number>();
  /** Space of removed nodes, given back at the next flush. */
  private readonly released: number[] = [];

  constructor(
    readonly cls: V2RecordClass<R>,
    readonly reader: MetadataReader,
    readonly sizes: SizeContext,
    readonly params: V2TreeParams,
    header?: V2BTreeHeader,
  ) {
    if (header) {
      this.hdr = header;
      this.headerAddress = header.address;
      this.depth = header.depth;
      this.root = { address: header.rootAddress, nrec: header.rootRecordCount, all: header.totalRecordCount };
    } else {
      this.headerAddress = UNDEFINED_ADDRESS;
      this.depth = 0;
      this.root = { address: UNDEFINED_ADDRESS, nrec: 0, all: 0 };
      this.hdr = {
        address: UNDEFINED_ADDRESS,
        version: cls.headerVersion ?? 0,
        type: cls.type,
        nodeSize: params.nodeSize,
        recordSize: cls.recordSize,
        depth: 0,
        splitPercent: params.splitPercent,
        mergePercent: params.mergePercent,
        rootAddress: UNDEFINED_ADDRESS,
        rootRecordCount: 0,
        totalRecordCount: 0,
        ...computeV2NodeInfo(sizes, params.nodeSize, cls.recordSize, 0),
      };
    }
    this.setDepth(this.depth);
  }

  /** Recomputes the node geometry for a tree of `depth` (H5B2__hdr_init / split_root). */
  setDepth(depth: number): void {
    if (depth > V2_MAX_DEPTH) throw new FormatError(`depth ${depth} exceeds the supported maximum ${V2_MAX_DEPTH}`, { structure: HEADER, address: this.headerAddress });
    const geo = computeV2NodeInfo(this.sizes, this.params.nodeSize, this.cls.recordSize, depth, this.headerAddress);
    this.hdr = { ...this.hdr, depth, ...geo };
    this.depth = depth;
    this.levels = geo.nodeInfo.map((n) => ({
      max: n.maxRecords,
      split: Math.floor((n.maxRecords * this.params.splitPercent) / 100),
      merge: Math.floor((n.maxRecords * this.params.mergePercent) / 100),
    }));
  }

  /** True when the tree has no root node. */
  get empty(): boolean {
    return !this.root.node && this.root.address === UNDEFINED_ADDRESS;
  }

  /** A new, dirty node (its pointer gets an address at the next flush). */
  newNode(depth: number): NodePtr<R> {
    return { address: UNDEFINED_ADDRESS, nrec: 0, all: 0, node: { depth, records: [], children: [], dirty: true } };
  }

  /** Drops a node from the tree; its file space is released at the next flush. */
  free(ptr: NodePtr<R>): void {
    if (ptr.address !== UNDEFINED_ADDRESS) {
      this.released.push(ptr.address);
      this.loaded.delete(ptr.address);
    }
    ptr.node = undefined;
    ptr.address = UNDEFINED_ADDRESS;
  }

  /** The node behind `ptr` (at `depth`), reading and verifying it on first use. */
  async load(ptr: NodePtr<R>, depth: number): Promise<TreeNode<R>> {
    if (ptr.node) return ptr.node;
    const structure = depth === 0 ? LEAF : INTERNAL;
    const address = ptr.address;
    const fail = (m: string) => new FormatError(m, { structure, address });
    if (address === UNDEFINED_ADDRESS) throw fail('node pointer has no address');
    if (this.loaded.has(address) || address === this.headerAddress) throw fail('node is referenced twice (cycle in the tree)');
    const level = this.levels[depth];
    if (!level) throw fail(`depth ${depth} exceeds the tree depth ${this.depth}`);
    if (ptr.nrec > level.max) throw fail(`${ptr.nrec} records exceed the ${level.max} a node at depth ${depth} can hold`);
    const used = v2NodeUsedSize(this.hdr, this.sizes, depth, ptr.nrec);
    const bytes = await this.reader.read(address, used, structure);
    const raw = decodeV2BTreeNode(bytes, this.hdr, this.sizes, address, depth, ptr.nrec);
    const records = raw.records.map((b) => this.cls.decode(b, address));
    for (let i = 1; i < records.length; i++) {
      if (!(this.cls.compare(records[i - 1]!, records[i]!) < 0)) throw fail(`records ${i - 1} and ${i} are out of order`);
    }
    let all = records.length;
    const children: NodePtr<R>[] = raw.children.map((c) => {
      if (c.recordCount > this.levels[depth - 1]!.max) throw fail(`child holds ${c.recordCount} records, more than fit`);
      all += c.totalRecordCount;
      return { address: c.address, nrec: c.recordCount, all: c.totalRecordCount };
    });
    if (all !== ptr.all) throw fail(`subtree holds ${all} records, its parent says ${ptr.all}`);
    this.loaded.add(address);
    const node: TreeNode<R> = { depth, records, children, dirty: false };
    ptr.node = node;
    return node;
  }

  /** Records in a node's subtree, from its records and child pointers. */
  subtreeCount(node: TreeNode<R>): number {
    let n = node.records.length;
    for (const c of node.children) n += c.all;
    return n;
  }

  /**
   * Writes every dirty node and the header through `storage`, copy-on-write: a dirty node or
   * header is rewritten in place only while its space is fresh (allocated since the last flush);
   * otherwise it gets new space (`nodeSize` bytes for a node, the header's fixed size) and its
   * parent — up to the header — records the new address and is written too. The space of moved and
   * removed nodes is released. Returns the header address.
   */
  async flush(storage: IndexStorage): Promise<number> {
    const nodeSize = this.params.nodeSize;
    const dirty: NodePtr<R>[] = [];
    // Post-order: a child that moves dirties its parent. Returns true when `ptr.address` changed.
    const visit = (ptr: NodePtr<R>): boolean => {
      const node = ptr.node;
      if (!node) return false;
      for (const c of node.children) if (visit(c)) node.dirty = true;
      const isNew = ptr.address === UNDEFINED_ADDRESS;
      if (!isNew && !(node.dirty && !storage.isFresh(ptr.address, nodeSize))) {
        if (node.dirty) dirty.push(ptr);
        return false;
      }
      if (!isNew) {
        this.released.push(ptr.address);
        this.loaded.delete(ptr.address);
      }
      ptr.address = storage.alloc(nodeSize);
      this.loaded.add(ptr.address);
      node.dirty = true;
      dirty.push(ptr);
      return true;
    };
    if (visit(this.root)) this.headerDirty = true;
    for (const ptr of dirty) {
      const node = ptr.node!;
      const records = node.records.map((r) => this.cls.encode(r));
      const children = node.children.map((c) => ({ address: c.address, recordCount: c.nrec, totalRecordCount: c.all }));
      await storage.write(ptr.address, encodeV2BTreeNode(this.hdr, this.sizes, node.depth, records, children));
      node.dirty = false;
    }
    const headerSize = v2HeaderSize(this.sizes);
    const moveHeader = this.headerDirty && this.headerAddress !== UNDEFINED_ADDRESS && !storage.isFresh(this.headerAddress, headerSize);
    if (this.headerAddress === UNDEFINED_ADDRESS || moveHeader) {
      const old = this.headerAddress;
      this.headerAddress = storage.alloc(headerSize);
      if (moveHeader) storage.release(old, headerSize);
      this.hdr = { ...this.hdr, address: this.headerAddress };
      this.headerDirty = true;
    }
    if (this.headerDirty) {
      const header = encodeV2BTreeHeader(
        {
          version: this.hdr.version,
          type: this.cls.type,
          nodeSize,
          recordSize: this.cls.recordSize,
          depth: this.depth,
          splitPercent: this.params.splitPercent,
          mergePercent: this.params.mergePercent,
          rootAddress: this.root.address,
          rootRecordCount: this.root.nrec,
          totalRecordCount: this.root.all,
        },
        this.sizes,
      );
      await storage.write(this.headerAddress, header);
      this.headerDirty = false;
    }
    for (const a of this.released.splice(0)) storage.release(a, nodeSize);
    return this.headerAddress;
  }

  /** Bytes of the header and all nodes (H5B2_size). Loads every internal node. */
  async sizeOnDisk(): Promise<number> {
    const count = async (ptr: NodePtr<R>, depth: number): Promise<number> => {
      if (depth === 0) return 1;
      const node = await this.load(ptr, depth);
      let n = 1;
      for (const c of node.children) n += depth === 1 ? 1 : await count(c, depth - 1);
      return n;
    };
    const nodes = this.empty ? 0 : await count(this.root, this.depth);
    return v2HeaderSize(this.sizes) + nodes * this.params.nodeSize;
  }
}
