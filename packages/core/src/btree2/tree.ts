/**
 * Version 2 B-tree operations (HDF5 File Format Specification III.A.2) following the HDF5
 * library's algorithms so that the same operations give the same node contents:
 * `H5B2_update` (modify in place, or insert with pre-emptive splits/redistributions on the way
 * down and the "could split" punt to a full insert), `H5B2__insert` (root split increasing the
 * depth, `H5B2__split1`, `H5B2__redistribute2/3`) and `H5B2_remove` (pre-emptive
 * `H5B2__merge2/3` and redistributions, swap with the successor leaf record, root collapse
 * decreasing the depth), with exact node and subtree record counts.
 * @module
 */
import { FormatError, UnsupportedError, ValueError } from '../errors.js';
import type { MetadataReader } from '../file/metadata-reader.js';
import type { IndexStorage } from '../chunk/chunk-index.js';
import type { SizeContext } from '../format/bytes.js';
import { openV2BTree } from '../format/btree/v2.js';
import { V2NodeStore, type NodePtr, type TreeNode, type V2RecordClass, type V2TreeParams } from './node-store.js';

export type { V2RecordClass, V2TreeParams } from './node-store.js';

type Status = 'modified' | 'inserted' | 'full';

/** Where a record found in an internal node waits to be swapped with its successor leaf record. */
interface SwapSlot<R> {
  node: TreeNode<R>;
  index: number;
}

/**
 * Why `params` cannot be used for inserts and removals, or undefined. HDF5's algorithms assume
 * every node keeps at least one record when it is not merged (merge threshold ≥ 1 record at all
 * depths; with 0 they empty and free non-root nodes); the check uses the smallest internal node
 * capacity any depth can have (child pointers with 8-byte total counts).
 */
function restructuringProblem(sizes: SizeContext, recordSize: number, p: V2TreeParams): string | undefined {
  const leafMax = Math.floor((p.nodeSize - 10) / recordSize);
  const ptr = sizes.sizeOfOffsets + Math.floor(Math.log2(Math.max(1, leafMax)) / 8) + 1 + 8;
  const intMax = Math.floor((p.nodeSize - 10 - ptr) / (recordSize + ptr));
  if (Math.floor((Math.min(leafMax, intMax) * p.mergePercent) / 100) < 1) {
    return `v2 B-tree nodes of ${p.nodeSize} bytes (${recordSize}-byte records) are too small for merge percent ${p.mergePercent}`;
  }
  return undefined;
}

/** A v2 B-tree opened from a file or created in memory. */
export class V2Tree<R> {
  private constructor(private readonly s: V2NodeStore<R>, private materialized: boolean) {}

  /** A new, empty tree; nothing exists in the file until the first record is inserted and flushed. */
  static create<R>(cls: V2RecordClass<R>, reader: MetadataReader, sizes: SizeContext, params: V2TreeParams): V2Tree<R> {
    const { nodeSize, splitPercent: split, mergePercent: merge } = params;
    if (!Number.isInteger(split) || !Number.isInteger(merge) || split < 1 || split > 100 || merge < 1 || merge >= Math.floor(split / 2)) {
      throw new ValueError(`v2 B-tree split/merge percents ${split}/${merge} are invalid (1 ≤ merge < split / 2, split ≤ 100)`, { structure: 'v2 B-tree header' });
    }
    if (!Number.isInteger(nodeSize) || nodeSize < 1 || nodeSize > 0xffffffff) {
      throw new ValueError(`invalid v2 B-tree node size ${nodeSize}`, { structure: 'v2 B-tree header' });
    }
    const problem = restructuringProblem(sizes, cls.recordSize, params);
    if (problem) throw new ValueError(problem, { structure: 'v2 B-tree header' });
    return new V2Tree(new V2NodeStore(cls, reader, sizes, params), false);
  }

  /** Opens the tree whose header is at `address`; checks the header's record type and size against `cls`. */
  static async open<R>(cls: V2RecordClass<R>, reader: MetadataReader, address: number): Promise<V2Tree<R>> {
    const h = await openV2BTree(reader, address);
    if (h.type !== cls.type || h.recordSize !== cls.recordSize) {
      throw new FormatError(`record type ${h.type} of ${h.recordSize} bytes, expected type ${cls.type} of ${cls.recordSize} bytes`, {
        structure: 'v2 B-tree header',
        address,
      });
    }
    const params = { nodeSize: h.nodeSize, splitPercent: h.splitPercent, mergePercent: h.mergePercent };
    return new V2Tree(new V2NodeStore(cls, reader, reader.sizes, params, h), true);
  }

  private checkWritable(): void {
    const problem = restructuringProblem(this.s.sizes, this.s.cls.recordSize, this.s.params);
    if (problem) throw new UnsupportedError(`${problem}; the tree can be read but not modified`, { structure: 'v2 B-tree header', address: this.s.headerAddress });
  }

  /** Creation parameters (from the header when opened). */
  get params(): V2TreeParams {
    return this.s.params;
  }
  /** Records in the tree (the header's total). */
  get count(): number {
    return this.s.root.all;
  }
  /** Current depth (0: the root is a leaf). */
  get depth(): number {
    return this.s.depth;
  }

  private locate(records: readonly R[], key: R): { idx: number; found: boolean } {
    const cls = this.s.cls;
    let lo = 0;
    let hi = records.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = cls.compare(key, records[mid]!);
      if (c === 0) return { idx: mid, found: true };
      if (c < 0) hi = mid;
      else lo = mid + 1;
    }
    return { idx: lo, found: false };
  }

  /** The stored record equal to `key`, if any (H5B2_find). */
  async find(key: R): Promise<R | undefined> {
    const s = this.s;
    if (s.empty) return undefined;
    let ptr = s.root;
    for (let depth = s.depth; ; depth--) {
      const node = await s.load(ptr, depth);
      const { idx, found } = this.locate(node.records, key);
      if (found) return node.records[idx];
      if (depth === 0) return undefined;
      ptr = node.children[idx]!;
    }
  }

  /** Every record in key order (in-order traversal). */
  async all(): Promise<R[]> {
    const s = this.s;
    const out: R[] = [];
    const walk = async (ptr: NodePtr<R>, depth: number): Promise<void> => {
      const node = await s.load(ptr, depth);
      if (depth === 0) {
        for (const r of node.records) out.push(r);
        return;
      }
      for (let i = 0; i < node.children.length; i++) {
        await walk(node.children[i]!, depth - 1);
        if (i < node.records.length) out.push(node.records[i]!);
      }
    };
    if (!s.empty) await walk(s.root, s.depth);
    if (out.length !== s.root.all) {
      throw new FormatError(`tree holds ${out.length} records, its header says ${s.root.all}`, { structure: 'v2 B-tree header', address: s.headerAddress });
    }
    return out;
  }

  /** Inserts `rec`, or replaces the stored record with the same key (H5B2_update). */
  async update(rec: R): Promise<'inserted' | 'modified'> {
    this.checkWritable();
    const s = this.s;
    this.materialized = true;
    if (s.empty) s.root = s.newNode(0);
    let status = s.depth > 0 ? await this.updateInternal(s.depth, s.root, rec) : await this.updateLeaf(s.root, rec);
    if (status === 'full') {
      await this.insert(rec);
      status = 'inserted';
    }
    if (status === 'inserted') s.headerDirty = true;
    return status;
  }

  /** Inserts a record that must not exist yet (H5B2__insert). */
  async insert(rec: R): Promise<void> {
    this.checkWritable();
    const s = this.s;
    this.materialized = true;
    if (s.empty) s.root = s.newNode(0);
    else if (s.root.nrec === s.levels[s.depth]!.split) await this.splitRoot();
    if (s.depth > 0) await this.insertInternal(s.depth, s.root, rec);
    else await this.insertLeaf(s.root, rec);
    s.headerDirty = true;
  }

  /** Removes and returns the record equal to `key` (undefined when absent; H5B2_remove). */
  async remove(key: R): Promise<R | undefined> {
    this.checkWritable();
    const s = this.s;
    if (!(await this.find(key))) return undefined;
    const depth = s.depth;
    const collapse = { count: 0 };
    const removed = depth > 0 ? await this.removeInternal(depth, s.root, key, null, true, collapse) : await this.removeLeaf(s.root, key, true);
    if (collapse.count) s.setDepth(depth - collapse.count);
    s.root.all--;
    s.headerDirty = true;
    return removed;
  }

  /** Writes dirty structures; returns the header address (undefined while the tree was never materialised). */
  async flush(storage: IndexStorage): Promise<number> {
    if (!this.materialized) return this.s.headerAddress;
    return this.s.flush(storage);
  }

  /** Bytes of the header and nodes (0 while never materialised). */
  async sizeOnDisk(): Promise<number> {
    return this.materialized ? this.s.sizeOnDisk() : 0;
  }

  // ---- restructuring (H5B2int.c) -------------------------------------------------------------

  /**
   * Re-deals the records of children `first … first+k-1` of `internal` (plus the k-1 separators
   * between them) in key order over `counts.length` children with `counts[j]` records each:
   * split1 (k=1 → 2 children), redistribute2/3 (k → k) and merge2/3 (k → k-1) all reduce to
   * this, because HDF5's record moves preserve key order and end with these counts.
   */
  private async regroup(internal: TreeNode<R>, depth: number, first: number, k: number, counts: number[]): Promise<void> {
    const s = this.s;
    const ptrs = internal.children.slice(first, first + k);
    const nodes: TreeNode<R>[] = [];
    for (const p of ptrs) nodes.push(await s.load(p, depth - 1));
    const recs: R[] = [];
    const kids: NodePtr<R>[] = [];
    for (let j = 0; j < k; j++) {
      for (const r of nodes[j]!.records) recs.push(r);
      if (depth > 1) for (const c of nodes[j]!.children) kids.push(c);
      if (j < k - 1) recs.push(internal.records[first + j]!);
    }
    const n = counts.length;
    let total = n - 1;
    for (const c of counts) total += c;
    if (total !== recs.length || counts.some((c) => c < 0 || c > s.levels[depth - 1]!.max)) {
      throw new FormatError(`cannot regroup ${recs.length} records as [${counts.join(', ')}]`, { structure: 'v2 B-tree internal node' });
    }
    const outPtrs: NodePtr<R>[] = [];
    const seps: R[] = [];
    let pos = 0;
    let kpos = 0;
    for (let j = 0; j < n; j++) {
      const ptr = j < k ? ptrs[j]! : s.newNode(depth - 1);
      const node = ptr.node!;
      node.records = recs.slice(pos, pos + counts[j]!);
      pos += counts[j]!;
      if (depth > 1) {
        node.children = kids.slice(kpos, kpos + counts[j]! + 1);
        kpos += counts[j]! + 1;
      }
      node.dirty = true;
      ptr.nrec = node.records.length;
      ptr.all = s.subtreeCount(node);
      outPtrs.push(ptr);
      if (j < n - 1) seps.push(recs[pos++]!);
    }
    for (let j = n; j < k; j++) s.free(ptrs[j]!);
    internal.records.splice(first, k - 1, ...seps);
    internal.children.splice(first, k, ...outPtrs);
    internal.dirty = true;
  }

  /** H5B2__split1: the child at `idx` gives its upper half to a new right sibling. */
  private async split1(depth: number, currPtr: NodePtr<R>, internal: TreeNode<R>, idx: number): Promise<void> {
    const n = internal.children[idx]!.nrec;
    const mid = n >>> 1;
    await this.regroup(internal, depth, idx, 1, [mid, n - mid - 1]);
    currPtr.nrec = internal.records.length;
  }

  /** H5B2__redistribute2: children `idx` and `idx+1` share their records evenly. */
  private async redistribute2(internal: TreeNode<R>, depth: number, idx: number): Promise<void> {
    const l = internal.children[idx]!.nrec;
    const r = internal.children[idx + 1]!.nrec;
    const half = (l + r) >>> 1;
    await this.regroup(internal, depth, idx, 2, l < r ? [l + r - half, half] : [half, l + r - half]);
  }

  /** H5B2__redistribute3: children `idx-1 … idx+1` share their records. */
  private async redistribute3(internal: TreeNode<R>, depth: number, idx: number): Promise<void> {
    const c = internal.children;
    const total = c[idx - 1]!.nrec + c[idx]!.nrec + c[idx + 1]!.nrec;
    const middle = Math.floor(total / 3);
    const left = Math.floor((total - middle) / 2);
    await this.regroup(internal, depth, idx - 1, 3, [left, middle, total - left - middle]);
  }

  /** H5B2__merge2: child `idx+1` and the separator are appended to child `idx`. */
  private async merge2(currPtr: NodePtr<R>, internal: TreeNode<R>, depth: number, idx: number): Promise<void> {
    const c = internal.children;
    await this.regroup(internal, depth, idx, 2, [c[idx]!.nrec + c[idx + 1]!.nrec + 1]);
    currPtr.nrec = internal.records.length;
  }

  /** H5B2__merge3: children `idx-1 … idx+1` become two. */
  private async merge3(currPtr: NodePtr<R>, internal: TreeNode<R>, depth: number, idx: number): Promise<void> {
    const c = internal.children;
    const total = c[idx - 1]!.nrec + c[idx]!.nrec + c[idx + 1]!.nrec + 2;
    const left = (total - 1) >>> 1;
    await this.regroup(internal, depth, idx - 1, 3, [left, total - 1 - left]);
    currPtr.nrec = internal.records.length;
  }

  /** H5B2__split_root: a new internal root above the old one, which is then split. */
  private async splitRoot(): Promise<void> {
    const s = this.s;
    const old = s.root;
    s.setDepth(s.depth + 1);
    const root = s.newNode(s.depth);
    root.all = old.all;
    root.node!.children.push(old);
    s.root = root;
    await this.split1(s.depth, root, root.node!, 0);
  }

  // ---- insertion (H5B2internal.c / H5B2leaf.c) -----------------------------------------------

  private async insertInternal(depth: number, currPtr: NodePtr<R>, rec: R): Promise<void> {
    const s = this.s;
    const internal = await s.load(currPtr, depth);
    const exists = () => new ValueError('record is already in the B-tree', { structure: 'v2 B-tree internal node', address: currPtr.address });
    let { idx, found } = this.locate(internal.records, rec);
    if (found) throw exists();
    const split = s.levels[depth - 1]!.split;
    for (let retries = 2; internal.children[idx]!.nrec === split; retries--) {
      const c = internal.children;
      const n = internal.records.length;
      if (idx === 0) {
        if (retries > 0 && c[1]!.nrec < split) await this.redistribute2(internal, depth, 0);
        else await this.split1(depth, currPtr, internal, 0);
      } else if (idx === n) {
        if (retries > 0 && c[idx - 1]!.nrec < split) await this.redistribute2(internal, depth, idx - 1);
        else await this.split1(depth, currPtr, internal, idx);
      } else if (retries > 0 && (c[idx + 1]!.nrec < split || c[idx - 1]!.nrec < split)) {
        await this.redistribute3(internal, depth, idx);
      } else {
        await this.split1(depth, currPtr, internal, idx);
      }
      ({ idx, found } = this.locate(internal.records, rec));
      if (found) throw exists();
    }
    if (internal.records.length > s.levels[depth]!.max) throw new FormatError('internal node overflow', { structure: 'v2 B-tree internal node' });
    const child = internal.children[idx]!;
    if (depth > 1) await this.insertInternal(depth - 1, child, rec);
    else await this.insertLeaf(child, rec);
    currPtr.all++;
    internal.dirty = true;
  }

  private async insertLeaf(currPtr: NodePtr<R>, rec: R): Promise<void> {
    const leaf = await this.s.load(currPtr, 0);
    const { idx, found } = this.locate(leaf.records, rec);
    if (found) throw new ValueError('record is already in the B-tree', { structure: 'v2 B-tree leaf node', address: currPtr.address });
    if (leaf.records.length >= this.s.levels[0]!.max) throw new FormatError('leaf node overflow', { structure: 'v2 B-tree leaf node' });
    leaf.records.splice(idx, 0, rec);
    leaf.dirty = true;
    currPtr.nrec++;
    currPtr.all++;
  }

  private async updateLeaf(currPtr: NodePtr<R>, rec: R): Promise<Status> {
    const leaf = await this.s.load(currPtr, 0);
    let idx = 0;
    if (leaf.records.length > 0) {
      const l = this.locate(leaf.records, rec);
      if (l.found) {
        leaf.records[l.idx] = rec;
        leaf.dirty = true;
        return 'modified';
      }
      if (currPtr.nrec === this.s.levels[0]!.split) return 'full';
      idx = l.idx;
    }
    leaf.records.splice(idx, 0, rec);
    leaf.dirty = true;
    currPtr.nrec++;
    currPtr.all++;
    return 'inserted';
  }

  private async updateInternal(depth: number, currPtr: NodePtr<R>, rec: R): Promise<Status> {
    const s = this.s;
    const internal = await s.load(currPtr, depth);
    const { idx, found } = this.locate(internal.records, rec);
    if (found) {
      internal.records[idx] = rec;
      internal.dirty = true;
      return 'modified';
    }
    const child = internal.children[idx]!;
    const status = depth > 1 ? await this.updateInternal(depth - 1, child, rec) : await this.updateLeaf(child, rec);
    if (status === 'modified') return status;
    if (status === 'inserted') {
      currPtr.all++;
      internal.dirty = true;
      return status;
    }
    // The child is full: punt to a full insert from the root when this node is full too and
    // the child's split could reach it; otherwise insert from here (splits stay local).
    const n = internal.records.length;
    if (n === s.levels[depth]!.split) {
      const c = internal.children;
      const lim = 2 * s.levels[depth - 1]!.split - 1;
      const could =
        idx === 0
          ? c[0]!.nrec + c[1]!.nrec >= lim
          : idx === n
            ? c[n - 1]!.nrec + c[n]!.nrec >= lim
            : c[idx - 1]!.nrec + c[idx]!.nrec >= lim || c[idx]!.nrec + c[idx + 1]!.nrec >= lim;
      if (could) return 'full';
    }
    await this.insertInternal(depth, currPtr, rec);
    return 'inserted';
  }

  // ---- removal ------------------------------------------------------------------------------

  private async removeInternal(
    depth: number,
    currPtr: NodePtr<R>,
    key: R,
    swap: SwapSlot<R> | null,
    isRoot: boolean,
    collapse: { count: number },
  ): Promise<R> {
    const s = this.s;
    const internal = await s.load(currPtr, depth);
    const merge = s.levels[depth - 1]!.merge;
    const c0 = internal.children;
    let next: NodePtr<R>;
    let collapsed = false;
    if (isRoot && internal.records.length === 1 && c0[0]!.nrec + c0[1]!.nrec <= merge * 2 + 1) {
      // Root with two small children: merge them and let the merged child become the root.
      await this.merge2(currPtr, internal, depth, 0);
      const only = internal.children[0]!;
      const all = currPtr.all;
      s.free(currPtr);
      Object.assign(currPtr, { address: only.address, nrec: only.nrec, all, node: only.node });
      collapse.count++;
      next = currPtr;
      collapsed = true;
    } else {
      let idx = 0;
      let found = false;
      const relocate = () => {
        if (swap) {
          idx = 0;
          return;
        }
        const l = this.locate(internal.records, key);
        found = l.found;
        idx = l.found ? l.idx + 1 : l.idx;
      };
      relocate();
      for (let retries = 2; internal.children[idx]!.nrec === merge; retries--) {
        const c = internal.children;
        const n = internal.records.length;
        if (idx === 0) {
          if (retries > 0 && c[1]!.nrec > merge) await this.redistribute2(internal, depth, 0);
          else await this.merge2(currPtr, internal, depth, 0);
        } else if (idx === n) {
          if (retries > 0 && c[idx - 1]!.nrec > merge) await this.redistribute2(internal, depth, idx - 1);
          else await this.merge2(currPtr, internal, depth, idx - 1);
        } else if (retries > 0 && (c[idx + 1]!.nrec > merge || c[idx - 1]!.nrec > merge)) {
          await this.redistribute3(internal, depth, idx);
        } else {
          await this.merge3(currPtr, internal, depth, idx);
        }
        relocate();
      }
      if (!swap && found) swap = { node: internal, index: idx - 1 };
      if (swap && depth === 1) {
        // H5B2__swap_leaf: the record to remove trades places with its successor, the first
        // record of the leftmost leaf of the right subtree, and is removed from that leaf.
        const leaf = await s.load(internal.children[idx]!, 0);
        const t = leaf.records[0]!;
        leaf.records[0] = swap.node.records[swap.index]!;
        swap.node.records[swap.index] = t;
        swap.node.dirty = true;
        leaf.dirty = true;
      }
      internal.dirty = true;
      next = internal.children[idx]!;
    }
    const removed =
      depth > 1
        ? await this.removeInternal(depth - 1, next, key, swap, collapsed, collapse)
        : await this.removeLeaf(next, key, collapsed);
    if (!collapsed) next.all--;
    return removed;
  }

  /**
   * Removes `key` from a leaf. An emptied root leaf is freed (the tree becomes empty); HDF5 frees
   * any emptied leaf, which only happens below the root when the merge threshold is 0 records and
   * would break the tree, so an emptied non-root leaf is kept (and merged away later).
   */
  private async removeLeaf(currPtr: NodePtr<R>, key: R, isRoot: boolean): Promise<R> {
    const leaf = await this.s.load(currPtr, 0);
    const { idx, found } = this.locate(leaf.records, key);
    if (!found) throw new FormatError('record to remove is not in its leaf', { structure: 'v2 B-tree leaf node', address: currPtr.address });
    const [removed] = leaf.records.splice(idx, 1);
    leaf.dirty = true;
    currPtr.nrec--;
    if (leaf.records.length === 0 && isRoot) {
      const { nrec, all } = currPtr;
      this.s.free(currPtr);
      Object.assign(currPtr, { nrec, all });
    }
    return removed!;
  }
}
