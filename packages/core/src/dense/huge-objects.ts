/**
 * The huge objects of a fractal heap being written (HDF5 spec III.G, "huge" objects: larger than the
 * heap's managed-object limit): each is stored on its own in the file and found through a v2 B-tree
 * of type 1 (indirectly accessed, unfiltered) keyed by the huge object ID the heap ID carries. New
 * objects are written at the next flush; the tree is flushed copy-on-write.
 * @module
 */
import { FormatError } from '../errors.js';
import { UNDEFINED_ADDRESS, type SizeContext } from '../format/bytes.js';
import type { IndexStorage } from '../chunk/chunk-index.js';
import type { MetadataReader } from '../file/metadata-reader.js';
import { V2Tree } from '../btree2/tree.js';
import { DENSE_BTREE_PARAMS, hugeObjectClass, type HugeRecord } from './index-records.js';

interface HugeObject extends HugeRecord {
  /** Bytes not yet written. */
  pending?: Uint8Array;
}

/** The huge objects of one heap, by ID. */
export class HugeObjects {
  private readonly objects = new Map<number, HugeObject>();
  private tree: V2Tree<HugeRecord> | undefined;
  private readonly removed: HugeRecord[] = [];
  /** Flushed space no longer used (given back at the next flush). */
  private readonly released: { address: number; size: number }[] = [];

  constructor(
    private readonly reader: MetadataReader,
    private readonly sizes: SizeContext,
    private readonly heapAddress: () => number,
  ) {}

  /** Loads the records of the tree at `address` (the heap's huge-object B-tree). */
  async load(address: number): Promise<void> {
    this.tree = await V2Tree.open(hugeObjectClass(this.reader.sizes), this.reader, address);
    for (const r of await this.tree.all()) this.objects.set(r.id, { ...r });
  }

  private fail(message: string): FormatError {
    return new FormatError(message, { structure: 'fractal heap ID', address: this.heapAddress() });
  }

  /** Adds `obj` under the new huge object ID `id`. */
  add(id: number, obj: Uint8Array): void {
    this.objects.set(id, { id, address: UNDEFINED_ADDRESS, length: obj.length, pending: obj.slice() });
  }

  /** The object with ID `id` (a copy). */
  async get(id: number): Promise<Uint8Array> {
    const h = this.objects.get(id);
    if (!h) throw this.fail(`huge object ${id} is not in the heap`);
    if (h.pending) return h.pending.slice();
    return (await this.reader.read(h.address, h.length, 'fractal heap huge object')).slice();
  }

  /** Forgets the object with ID `id`; returns its length. */
  remove(id: number): number {
    const h = this.objects.get(id);
    if (!h) throw this.fail(`huge object ${id} is not in the heap`);
    this.objects.delete(id);
    if (!h.pending) {
      this.removed.push(h);
      this.released.push({ address: h.address, size: h.length });
    }
    return h.length;
  }

  /** File extents of the stored objects. */
  extents(): { address: number; size: number }[] {
    return [...this.objects.values()].filter((h) => h.address !== UNDEFINED_ADDRESS).map((h) => ({ address: h.address, size: h.length }));
  }

  /**
   * Writes new objects to fresh space and updates the tree; returns the tree's header address
   * ({@link UNDEFINED_ADDRESS} when the heap has no huge objects), or `current` when nothing changed.
   */
  async flush(storage: IndexStorage, current: number): Promise<number> {
    const pending = [...this.objects.values()].filter((h) => h.pending);
    if (pending.length === 0 && this.removed.length === 0) return current;
    this.tree ??= V2Tree.create(hugeObjectClass(this.sizes), this.reader, this.sizes, DENSE_BTREE_PARAMS);
    for (const r of this.removed.splice(0)) await this.tree.remove(r);
    for (const h of pending) {
      h.address = storage.alloc(h.length);
      await storage.write(h.address, h.pending!);
      delete h.pending;
      await this.tree.insert({ id: h.id, address: h.address, length: h.length });
    }
    const address = this.tree.count > 0 ? await this.tree.flush(storage) : UNDEFINED_ADDRESS;
    for (const e of this.released.splice(0)) storage.release(e.address, e.size);
    return address;
  }
}
