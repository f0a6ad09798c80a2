/**
 * A {@link MemoryStore} whose reads and writes take a seeded random number of event-loop turns,
 * so that un-awaited calls interleave differently from run to run (as they would over a real
 * file or network), and which keeps a snapshot of the bytes at every `flush()` of the store (the
 * last step of a file flush: the state a reader opening the file afterwards would see).
 * @module
 */
import { MemoryStore, type ByteStore } from '../../packages/core/src/index.js';
import { prng } from './mutations.js';

/** A memory store with random delays and flush snapshots. */
export class DelayStore implements ByteStore {
  readonly inner = new MemoryStore();
  /** The store's bytes at each `flush()`, in order. */
  readonly snapshots: Uint8Array[] = [];
  private readonly random: () => number;

  /** `seed`: the delay sequence; `maxTurns`: the most event-loop turns one operation waits. */
  constructor(seed: number, private readonly maxTurns = 3) {
    this.random = prng(seed);
  }

  /** Waits 0…maxTurns turns: mostly microtasks, sometimes a macrotask. */
  private async pause(): Promise<void> {
    const n = Math.floor(this.random() * (this.maxTurns + 1));
    for (let i = 0; i < n; i++) {
      if (this.random() < 0.3) await new Promise((r) => setImmediate(r));
      else await Promise.resolve();
    }
  }

  async size(): Promise<number> {
    return this.inner.size();
  }
  async read(offset: number, length: number): Promise<Uint8Array> {
    await this.pause();
    const b = (await this.inner.read(offset, length)).slice();
    await this.pause();
    return b;
  }
  async write(offset: number, bytes: Uint8Array): Promise<void> {
    await this.pause();
    await this.inner.write(offset, bytes);
    await this.pause();
  }
  async truncate(size: number): Promise<void> {
    await this.inner.truncate(size);
  }
  async flush(): Promise<void> {
    this.snapshots.push(this.inner.toBytes());
    await this.pause();
  }
  /** The current bytes. */
  toBytes(): Uint8Array {
    return this.inner.toBytes();
  }
}
