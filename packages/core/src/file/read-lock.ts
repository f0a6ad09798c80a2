/**
 * The call order of a file opened read-only through `@chunkform/core/read`: its calls read, except
 * `close`, so they run together, and a `'write'` call (`close`) runs alone — after every call made
 * before it, and before every call made after it (which then finds the file closed). Any mix of
 * un-awaited calls thus gives the result of running them one after the other in call order, as
 * with ./lock.ts, whose dataset level and intention modes a file without mutations does not need
 * (a read-only bundle leaves them out).
 * @module
 */
import type { CallOrder, LockMode } from './lock.js';

interface Waiter {
  write: boolean;
  grant: () => void;
}

/** Reads together, a `'write'` call alone, in call order: one per read-only file. */
export class ReadOnlyLock implements CallOrder {
  /** Calls running that share the file. */
  private shared = 0;
  /** A `'write'` call is running. */
  private alone = false;
  /** Calls waiting, in call order (only while a `'write'` call waits or runs). */
  private queue: Waiter[] = [];

  file<T>(mode: LockMode, fn: () => Promise<T> | T): Promise<T> {
    return this.run(mode === 'write', fn);
  }

  dataset<T>(_lock: unknown, mode: LockMode, fn: () => Promise<T> | T): Promise<T> {
    return this.run(mode === 'write', fn);
  }

  /** None: datasets of a read-only file are ordered at the file level alone. */
  datasetLock(): null {
    return null;
  }

  private async run<T>(write: boolean, fn: () => Promise<T> | T): Promise<T> {
    if (this.queue.length > 0 || !this.take(write)) await new Promise<void>((grant) => this.queue.push({ write, grant }));
    try {
      return await fn();
    } finally {
      if (write) this.alone = false;
      else this.shared--;
      this.drain();
    }
  }

  /** Starts a call now when nothing running conflicts with it. */
  private take(write: boolean): boolean {
    if (this.alone || (write && this.shared > 0)) return false;
    if (write) this.alone = true;
    else this.shared++;
    return true;
  }

  /** Starts the waiting calls at the head of the queue that nothing running conflicts with. */
  private drain(): void {
    let i = 0;
    while (i < this.queue.length && this.take(this.queue[i]!.write)) i++;
    if (i === 0) return;
    const start = this.queue.slice(0, i);
    this.queue = this.queue.slice(i);
    for (const w of start) w.grant();
  }
}
