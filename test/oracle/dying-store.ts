/**
 * A {@link ByteStore} over a {@link MemoryStore} that "dies" after a set number of writes: the write
 * that would exceed the budget and every later write, truncate and flush throw, and nothing more
 * reaches the bytes — what a killed process leaves behind, with the kill point chosen
 * deterministically. Truncates count as writes (they change the bytes). It also records the write
 * indices at which the superblock (address 0) was written, so a test knows where each flush's
 * commit writes begin.
 * @module
 */
import { MemoryStore, type ByteStore } from '../../packages/core/src/index.js';

/** Thrown by a {@link DyingStore} once it has died. */
export class StoreDied extends Error {
  constructor() {
    super('the store died (simulated kill)');
  }
}

/** A store that stops accepting writes after `limit` of them. */
export class DyingStore implements ByteStore {
  /** Writes accepted since the last {@link arm}. */
  writes = 0;
  /** True once a write was refused. */
  dead = false;
  /** `writes` before each superblock write (a flush's first commit write) since the last {@link arm}. */
  readonly superblockWrites: number[] = [];
  private limit = Infinity;

  constructor(readonly inner: MemoryStore = new MemoryStore()) {}

  /** Starts counting from 0 and dies once `limit` more writes were accepted (Infinity: never). */
  arm(limit: number): void {
    this.writes = 0;
    this.limit = limit;
    this.superblockWrites.length = 0;
  }

  /** The bytes as they are (after a death: as the killed process left them). */
  bytes(): Uint8Array {
    return this.inner.toBytes();
  }

  private step(): void {
    if (this.dead) throw new StoreDied();
    if (this.writes >= this.limit) {
      this.dead = true;
      throw new StoreDied();
    }
    this.writes++;
  }

  size(): Promise<number> {
    return this.inner.size();
  }
  read(offset: number, length: number): Promise<Uint8Array> {
    return this.inner.read(offset, length);
  }
  readInto(offset: number, target: Uint8Array): Promise<number> {
    return this.inner.readInto(offset, target);
  }
  async write(offset: number, bytes: Uint8Array): Promise<void> {
    if (offset === 0 && !this.dead) this.superblockWrites.push(this.writes);
    this.step();
    await this.inner.write(offset, bytes);
  }
  async truncate(size: number): Promise<void> {
    this.step();
    await this.inner.truncate(size);
  }
  async flush(): Promise<void> {
    if (this.dead) throw new StoreDied();
  }
}
