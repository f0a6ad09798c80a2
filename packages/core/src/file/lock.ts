/**
 * The ordering of API calls on one open file: a first-come-first-served readers-writer discipline
 * at two levels, so that any mix of un-awaited calls gives the result of running them one after the
 * other in the order they were made.
 *
 * - File level ({@link FileLock}): group and file operations take it shared (`'read'`: listing links,
 *   opening objects, reading group attributes) or exclusive (`'write'`: creating objects, links,
 *   group attribute changes, flush, close). Dataset operations take it in an intention mode: they
 *   run alongside each other and alongside group reads, except that a dataset mutation and a group
 *   read exclude each other (the read may open the dataset whose header the mutation changes).
 * - Dataset level ({@link DatasetLock}): reads share it, mutations hold it alone. A read holds it
 *   alone too while the dataset has changes that only live in its chunk cache (such a read may
 *   write an evicted chunk out, which no other reader of that dataset may see half done).
 *
 * Two calls that conflict run in call order; a call waits only for earlier calls it conflicts with.
 * A call that fails releases what it holds like one that succeeds. Granting takes no promise of its
 * own when nothing is in the way; a waiting call costs one small record and one promise.
 * @module
 */

/** How a call uses what it locks. */
export type LockMode = 'read' | 'write';

/**
 * What orders the API calls on one open file: {@link FileLock}, or for a file opened read-only
 * through `@chunkform/core/read` the smaller ./read-lock.ts (nothing there mutates a dataset).
 */
export interface CallOrder {
  /** Runs a group or file operation (see {@link FileLock.file}). */
  file<T>(mode: LockMode, fn: () => Promise<T> | T): Promise<T>;
  /** Runs an operation on one dataset, `lock` being the dataset's (see {@link FileLock.dataset}). */
  dataset<T>(lock: DatasetLock | null, mode: LockMode, fn: () => Promise<T> | T): Promise<T>;
  /** A new dataset's lock (`readsAlone` as for {@link DatasetLock}); null when this order keeps none per dataset. */
  datasetLock(readsAlone: () => boolean): DatasetLock | null;
}

/** File-level modes: intention-shared / intention-exclusive (dataset reads / mutations), shared, exclusive. */
type FileMode = 'is' | 'ix' | 's' | 'x';

interface FileWaiter {
  mode: FileMode;
  grant: () => void;
}

/** A call waiting on a dataset: in call order, whether or not the file level has let it through yet. */
interface DatasetWaiter {
  write: boolean;
  /** False while the call still waits at the file level (it then holds back the calls behind it). */
  ready: boolean;
  grant: (exclusive: boolean) => void;
}

/** The dataset level: one per dataset (every handle of a dataset shares it). */
export class DatasetLock {
  private readers = 0;
  /** A mutation, or a read that must run alone, holds the dataset. */
  private held = false;
  private readonly queue: DatasetWaiter[] = [];
  private head = 0;

  /**
   * @param readsAlone True when a read starting now must run alone (the dataset has cached
   *   changes a read might write out); asked whenever a read is about to start.
   */
  constructor(private readonly readsAlone: () => boolean = () => false) {}

  /** Takes the lock now (returns whether the read runs alone), or returns undefined when it must wait. */
  tryAcquire(write: boolean): boolean | undefined {
    if (this.head < this.queue.length || this.held) return undefined;
    if (write) {
      if (this.readers > 0) return undefined;
      this.held = true;
      return true;
    }
    if (this.readers > 0) {
      // Readers running means no cached changes (only a mutation makes some, and none runs).
      this.readers++;
      return false;
    }
    if (this.readsAlone()) {
      this.held = true;
      return true;
    }
    this.readers++;
    return false;
  }

  /**
   * Queues a call behind the earlier ones; `grant` runs when it may start. `ready`: the call holds
   * its file-level turn already (else {@link ready} tells when it does).
   */
  enqueue(write: boolean, ready: boolean, grant: (exclusive: boolean) => void): DatasetWaiter {
    const w: DatasetWaiter = { write, ready, grant };
    this.queue.push(w);
    return w;
  }

  /** A queued call got its file-level turn. */
  ready(w: DatasetWaiter): void {
    w.ready = true;
    this.drain();
  }

  /** Releases a hold taken by {@link tryAcquire} or granted from the queue. */
  release(exclusive: boolean): void {
    if (exclusive) this.held = false;
    else this.readers--;
    this.drain();
  }

  /** Starts the waiting calls at the head of the queue that no running call conflicts with. */
  private drain(): void {
    const q = this.queue;
    while (this.head < q.length && !this.held) {
      const w = q[this.head]!;
      if (!w.ready) break;
      let exclusive: boolean;
      if (w.write || this.readsAlone()) {
        if (this.readers > 0) break;
        this.held = exclusive = true;
      } else {
        this.readers++;
        exclusive = false;
      }
      q[this.head++] = undefined as never;
      w.grant(exclusive);
    }
    if (this.head === q.length) {
      q.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > q.length) {
      q.splice(0, this.head);
      this.head = 0;
    }
  }
}

/** The file level: one per open file. */
export class FileLock implements CallOrder {
  private readonly running: Record<FileMode, number> = { is: 0, ix: 0, s: 0, x: 0 };
  private readonly waiting: Record<FileMode, number> = { is: 0, ix: 0, s: 0, x: 0 };
  private queue: FileWaiter[] = [];

  /**
   * Runs a group or file operation: `'read'` alongside other reads and dataset reads, `'write'` alone
   * in the file. Starts after every earlier call it conflicts with has finished.
   */
  async file<T>(mode: LockMode, fn: () => Promise<T> | T): Promise<T> {
    const m: FileMode = mode === 'read' ? 's' : 'x';
    if (!this.tryFile(m)) await new Promise<void>((grant) => this.enqueueFile(m, grant));
    try {
      return await fn();
    } finally {
      this.releaseFile(m);
    }
  }

  /**
   * Runs an operation on one dataset: `'read'` alongside other reads of it, `'write'` (any change of
   * its values, shape, chunks or attributes) alone on it. Starts after every earlier call it
   * conflicts with has finished.
   */
  async dataset<T>(datasetLock: DatasetLock | null, mode: LockMode, fn: () => Promise<T> | T): Promise<T> {
    const lock = datasetLock ?? new DatasetLock();
    const write = mode === 'write';
    const m: FileMode = write ? 'ix' : 'is';
    let exclusive: boolean | undefined;
    if (this.tryFile(m)) {
      exclusive = lock.tryAcquire(write);
      exclusive ??= await new Promise<boolean>((grant) => lock.enqueue(write, true, grant));
    } else {
      // Take the place in the dataset's order now, so that later calls on it cannot pass.
      exclusive = await new Promise<boolean>((grant) => {
        const w = lock.enqueue(write, false, grant);
        this.enqueueFile(m, () => lock.ready(w));
      });
    }
    try {
      return await fn();
    } finally {
      lock.release(exclusive);
      this.releaseFile(m);
    }
  }

  /** A new dataset's lock. */
  datasetLock(readsAlone: () => boolean): DatasetLock {
    return new DatasetLock(readsAlone);
  }

  /** Takes file mode `m` now when no running or earlier waiting call conflicts. */
  private tryFile(m: FileMode): boolean {
    const r = this.running;
    const w = this.waiting;
    let ok: boolean;
    switch (m) {
      case 'is':
        ok = r.x === 0 && w.x === 0;
        break;
      case 'ix':
        ok = r.x === 0 && r.s === 0 && w.x === 0 && w.s === 0;
        break;
      case 's':
        ok = r.x === 0 && r.ix === 0 && w.x === 0 && w.ix === 0;
        break;
      default:
        ok = r.is === 0 && r.ix === 0 && r.s === 0 && r.x === 0 && this.queue.length === 0;
    }
    if (ok) r[m]++;
    return ok;
  }

  private enqueueFile(mode: FileMode, grant: () => void): void {
    this.waiting[mode]++;
    this.queue.push({ mode, grant });
  }

  private releaseFile(m: FileMode): void {
    if (--this.running[m] > 0 || this.queue.length === 0) return;
    // Only a mode whose count reached zero can unblock a waiting call.
    this.drainFile();
  }

  /** Starts every waiting call that conflicts with no running call and no earlier waiting one. */
  private drainFile(): void {
    const r = this.running;
    const q = this.queue;
    let seenS = false;
    let seenIX = false;
    const keep: FileWaiter[] = [];
    const start: FileWaiter[] = [];
    let i = 0;
    for (; i < q.length; i++) {
      const w = q[i]!;
      let ok: boolean;
      switch (w.mode) {
        case 'is':
          ok = r.x === 0;
          break;
        case 'ix':
          ok = r.x === 0 && r.s === 0 && !seenS;
          break;
        case 's':
          ok = r.x === 0 && r.ix === 0 && !seenIX;
          break;
        default:
          ok = r.is === 0 && r.ix === 0 && r.s === 0 && r.x === 0 && keep.length === 0;
      }
      if (ok) {
        r[w.mode]++;
        this.waiting[w.mode]--;
        start.push(w);
        continue;
      }
      // Everything after a waiting exclusive call waits for it.
      if (w.mode === 'x') break;
      keep.push(w);
      if (w.mode === 's') seenS = true;
      else if (w.mode === 'ix') seenIX = true;
    }
    if (start.length === 0) return;
    this.queue = i < q.length ? keep.concat(q.slice(i)) : keep;
    for (const w of start) w.grant();
  }
}
