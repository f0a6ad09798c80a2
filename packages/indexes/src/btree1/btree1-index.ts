/**
 * Version 1 B-tree chunk index (HDF5 spec III.A.1, node type 1; layout message version 3, what
 * HDF5 writes with the earliest file format): read-only. Keys are chunk size (u32), filter mask
 * (u32) and the chunk's element offsets in every dimension plus a trailing element-size
 * "dimension"; leaf children are the chunks. A key's offsets are multiples of the chunk dims
 * (H5D__btree_decode_key); the right-most key is the last chunk's scaled offset + 1 in every
 * dimension. Lookups descend with HDF5's rule (child i holds keys[i] ≤ chunk < keys[i+1]).
 * @module
 */
import { FormatError, UnsupportedError } from '@chunkform/core';
import {
  type ChunkIndex,
  type ChunkIndexContext,
  type ChunkIndexProvider,
  type ChunkRecord,
  type ChunkIndexInfo,
  UNDEFINED_ADDRESS,
  iterateV1BTree,
  readV1Node,
  v1NodeSize,
  V1_MAX_LEVEL,
  type V1ChunkKey,
  type V1Node,
} from '@chunkform/core/plugin';
import { checkCoords, located, OpQueue } from '../index-helpers.js';
import { compareScaledCoords } from '../btree2/chunk-records.js';

const STRUCTURE = 'v1 B-tree chunk index';
const NODE = 'v1 B-tree node';
/** HDF5's default "indexed storage internal node K" (superblock), used to size nodes. */
export const DEFAULT_CHUNK_BTREE_K = 32;
const NODE_CACHE_LIMIT = 4096;

/** The v1 B-tree chunk index of one dataset (read-only). */
export class BTree1ChunkIndex implements ChunkIndex {
  readonly type = 'btree1' as const;
  /** Chunks of datasets indexed by a v1 B-tree are read here, not written. */
  readonly readOnly = true;
  private readonly queue = new OpQueue();
  private readonly rank: number;
  /** Chunk dims plus the element size: the divisors of the key offsets. */
  private readonly divisors: number[];
  private readonly nodes = new Map<number, V1Node>();

  /**
   * @param address root node address (UNDEFINED_ADDRESS: no chunk allocated)
   * @param k the file's chunk B-tree K (superblock v1 field; 32 by default) — only sizes nodes in {@link sizeOnDisk}
   */
  constructor(private readonly ctx: ChunkIndexContext, private readonly address: number, private readonly k = DEFAULT_CHUNK_BTREE_K) {
    this.rank = ctx.chunkDims.length;
    this.divisors = [...ctx.chunkDims, ctx.elementSize];
  }

  private run<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.run(() => located(this.ctx.datasetPath, fn));
  }

  private refuse(what: string): never {
    throw new UnsupportedError(`${what}: the v1 B-tree chunk index (layout version 3, libver "earliest") is read-only`, {
      path: this.ctx.datasetPath,
      structure: STRUCTURE,
      address: this.address,
    });
  }

  /** Scaled coordinates (rank + 1, the last for the element "dimension") of a key. */
  private scaled(key: V1ChunkKey, address: number): number[] {
    const out = new Array<number>(key.offsets.length);
    for (let d = 0; d < key.offsets.length; d++) {
      const div = this.divisors[d]!;
      const o = key.offsets[d]!;
      if (o % div !== 0) throw new FormatError(`key offset ${o} in dimension ${d} is not a multiple of ${div}`, { structure: NODE, address });
      out[d] = o / div;
    }
    return out;
  }

  private record(key: V1ChunkKey, child: number, address: number): ChunkRecord {
    const s = this.scaled(key, address);
    if (s[this.rank] !== 0) throw new FormatError('chunk key has a non-zero element offset', { structure: NODE, address });
    return { coords: s.slice(0, this.rank), address: child, size: key.chunkSize, filterMask: key.filterMask };
  }

  private async node(address: number): Promise<V1Node> {
    let n = this.nodes.get(address);
    if (!n) {
      n = await readV1Node(this.ctx.reader, address, 1, this.rank);
      if (this.nodes.size >= NODE_CACHE_LIMIT) this.nodes.clear();
      this.nodes.set(address, n);
    }
    return n;
  }

  /**
   * The node at `address` on a walk down the tree: {@link FormatError} when the walk met it before (a
   * cycle), when its level is not `level` (the level below its parent's; undefined at the root) or
   * beyond the supported maximum.
   */
  private async visit(address: number, level: number | undefined, visited: Set<number>): Promise<V1Node> {
    if (visited.has(address)) throw new FormatError('node is referenced twice (cycle in the tree)', { structure: NODE, address });
    visited.add(address);
    const node = await this.node(address);
    if (level !== undefined && node.level !== level) throw new FormatError(`node has level ${node.level}, expected ${level}`, { structure: NODE, address });
    if (node.level > V1_MAX_LEVEL) throw new FormatError(`level ${node.level} exceeds the supported maximum`, { structure: NODE, address });
    return node;
  }

  lookup(coords: readonly number[]): Promise<ChunkRecord | null> {
    return this.run(async () => {
      checkCoords(coords, this.rank, STRUCTURE, this.ctx.datasetPath);
      if (this.address === UNDEFINED_ADDRESS) return null;
      const target = [...coords, 0];
      const visited = new Set<number>();
      let address = this.address;
      let level: number | undefined;
      for (;;) {
        const node = await this.visit(address, level, visited);
        const keys = node.keys as V1ChunkKey[];
        // Binary search for keys[i] <= target < keys[i+1] (H5B_find with H5D__btree_cmp3).
        let lo = 0;
        let hi = node.children.length;
        let found = -1;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (compareScaledCoords(target, this.scaled(keys[mid + 1]!, address)) >= 0) lo = mid + 1;
          else if (compareScaledCoords(target, this.scaled(keys[mid]!, address)) < 0) hi = mid;
          else {
            found = mid;
            break;
          }
        }
        if (found < 0) return null;
        if (node.level === 0) {
          const key = keys[found]!;
          return compareScaledCoords(target, this.scaled(key, address)) === 0 ? this.record(key, node.children[found]!, address) : null;
        }
        level = node.level - 1;
        address = node.children[found]!;
      }
    });
  }

  async insert(_rec: ChunkRecord): Promise<void> {
    this.refuse('inserting a chunk');
  }

  async remove(_coords: readonly number[]): Promise<ChunkRecord | null> {
    this.refuse('removing a chunk');
  }

  /** All chunks in key order. */
  async *iterate(): AsyncIterable<ChunkRecord> {
    const all = await this.run(async () => {
      const out: ChunkRecord[] = [];
      if (this.address === UNDEFINED_ADDRESS) return out;
      for await (const e of iterateV1BTree(this.ctx.reader, this.address, 1, this.rank)) {
        out.push(this.record(e, e.childAddress, this.address));
      }
      return out;
    });
    yield* all;
  }

  /** Nothing to do for the index itself (chunks outside a smaller extent stay until rewritten). */
  async resize(_dims: readonly number[]): Promise<void> {}

  /** Nothing is ever dirty: returns the root address. */
  async flush(): Promise<{ address: number; info: ChunkIndexInfo }> {
    return { address: this.address, info: { type: 'btree1' } };
  }

  /** Bytes of all nodes, each allocated for 2K entries (H5D__btree_idx_size). */
  sizeOnDisk(): Promise<number> {
    return this.run(async () => {
      if (this.address === UNDEFINED_ADDRESS) return 0;
      const nodeBytes = v1NodeSize(this.ctx.sizes, 1, 2 * this.k, this.rank);
      let count = 0;
      const visited = new Set<number>();
      const walk = async (address: number, level: number | undefined): Promise<void> => {
        const node = await this.visit(address, level, visited);
        count++;
        if (node.level > 0) for (const c of node.children) await walk(c, node.level - 1);
      };
      await walk(this.address, undefined);
      return count * nodeBytes;
    });
  }
}

/** Provider of {@link BTree1ChunkIndex} (index type `btree1`): opens existing trees; `create` is unsupported. */
export class BTree1IndexProvider implements ChunkIndexProvider {
  readonly type = 'btree1' as const;
  async open(ctx: ChunkIndexContext, address: number): Promise<ChunkIndex> {
    return new BTree1ChunkIndex(ctx, address);
  }
  async create(ctx: ChunkIndexContext): Promise<ChunkIndex> {
    throw new UnsupportedError('creating a v1 B-tree chunk index is not supported; new datasets use the layout version 4 indexes', {
      path: ctx.datasetPath,
      structure: STRUCTURE,
    });
  }
}

/** The shared {@link BTree1IndexProvider} instance. */
export const btree1IndexProvider: ChunkIndexProvider = new BTree1IndexProvider();
