/**
 * The call-order lock (src/file/lock.ts) on its own: first come first served between conflicting
 * calls, reads of a dataset together, mutations alone, file-wide operations alone in the file, a
 * failed call releasing its turn, and a read running alone while its dataset has cached changes.
 */
import { describe, expect, it } from 'vitest';
import { DatasetLock, FileLock, type LockMode } from '../src/file/lock.js';
import { ReadOnlyLock } from '../src/file/read-lock.js';

/** A step that stays running until released; records when it starts and ends. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

const ticks = async (n = 5): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

/** Runs calls with a shared log of "start x" / "end x" events; each call runs until its gate opens. */
class Harness {
  readonly log: string[] = [];
  readonly running = new Set<string>();
  readonly gates = new Map<string, ReturnType<typeof gate>>();
  readonly done: Promise<unknown>[] = [];

  call(name: string, run: (fn: () => Promise<void>) => Promise<void>): void {
    const g = gate();
    this.gates.set(name, g);
    this.done.push(
      run(async () => {
        this.log.push(`start ${name}`);
        this.running.add(name);
        await g.promise;
        this.running.delete(name);
        this.log.push(`end ${name}`);
      }).catch(() => undefined),
    );
  }

  async finish(name: string): Promise<void> {
    this.gates.get(name)!.open();
    await ticks();
  }

  /** Checks which calls run at first, then after each named call finishes (names sorted). */
  async steps(first: string[], ...then: [finished: string, running: string[]][]): Promise<void> {
    await ticks();
    expect([...this.running].sort()).toEqual(first);
    for (const [name, running] of then) {
      await this.finish(name);
      expect([...this.running].sort()).toEqual(running);
    }
  }
}

describe('FileLock / DatasetLock', () => {
  it('runs reads of a dataset together and mutations alone, in call order', async () => {
    const f = new FileLock();
    const d = new DatasetLock();
    const h = new Harness();
    const on = (mode: LockMode) => (fn: () => Promise<void>) => f.dataset(d, mode, fn);
    h.call('r1', on('read'));
    h.call('r2', on('read'));
    h.call('w1', on('write'));
    h.call('r3', on('read'));
    h.call('w2', on('write'));
    await h.steps(['r1', 'r2'], ['r1', ['r2']], ['r2', ['w1']], ['w1', ['r3']], ['r3', ['w2']], ['w2', []]);
  });

  it('lets different datasets proceed in parallel, and a file write waits for all of them', async () => {
    const f = new FileLock();
    const a = new DatasetLock();
    const b = new DatasetLock();
    const h = new Harness();
    h.call('wa', (fn) => f.dataset(a, 'write', fn));
    h.call('wb', (fn) => f.dataset(b, 'write', fn));
    h.call('flush', (fn) => f.file('write', fn));
    h.call('ra', (fn) => f.dataset(a, 'read', fn));
    h.call('list', (fn) => f.file('read', fn));
    // After the flush: a dataset read and a group read do not conflict.
    await h.steps(['wa', 'wb'], ['wa', ['wb']], ['wb', ['flush']], ['flush', ['list', 'ra']], ['ra', ['list']], ['list', []]);
  });

  it('orders group reads after earlier dataset mutations, and dataset reads pass waiting group reads', async () => {
    const f = new FileLock();
    const a = new DatasetLock();
    const h = new Harness();
    h.call('wa', (fn) => f.dataset(a, 'write', fn));
    h.call('get', (fn) => f.file('read', fn));
    h.call('wa2', (fn) => f.dataset(a, 'write', fn));
    h.call('rb', (fn) => f.dataset(new DatasetLock(), 'read', fn));
    await h.steps(['rb', 'wa'], ['rb', ['wa']], ['wa', ['get']], ['get', ['wa2']], ['wa2', []]);
  });

  it('a dataset call waiting at the file level holds back later calls on that dataset', async () => {
    const f = new FileLock();
    const a = new DatasetLock();
    const h = new Harness();
    h.call('get', (fn) => f.file('read', fn));
    h.call('wa', (fn) => f.dataset(a, 'write', fn)); // waits for the group read
    h.call('ra', (fn) => f.dataset(a, 'read', fn)); // free at the file level, not on the dataset
    h.call('rb', (fn) => f.dataset(new DatasetLock(), 'read', fn));
    await h.steps(['get', 'rb'], ['get', ['rb', 'wa']], ['wa', ['ra', 'rb']], ['ra', ['rb']], ['rb', []]);
  });

  it('a failed call releases its turn', async () => {
    const f = new FileLock();
    const d = new DatasetLock();
    const order: string[] = [];
    const results = await Promise.allSettled([
      f.dataset(d, 'write', async () => {
        order.push('a');
        throw new Error('boom');
      }),
      f.dataset(d, 'write', () => {
        order.push('b');
        throw new Error('sync boom');
      }),
      f.file('write', async () => void order.push('flush')),
      f.dataset(d, 'read', async () => {
        order.push('c');
        return 42;
      }),
    ]);
    expect(order).toEqual(['a', 'b', 'flush', 'c']);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[3] as PromiseFulfilledResult<number>).value).toBe(42);
  });

  it('runs a read alone while the dataset has cached changes', async () => {
    const f = new FileLock();
    let dirty = true;
    const d = new DatasetLock(() => dirty);
    const h = new Harness();
    h.call('r1', (fn) => f.dataset(d, 'read', fn));
    h.call('r2', (fn) => f.dataset(d, 'read', fn));
    h.call('r3', (fn) => f.dataset(d, 'read', fn));
    await h.steps(['r1']);
    dirty = false;
    await h.steps(['r1'], ['r1', ['r2', 'r3']], ['r2', ['r3']], ['r3', []]);
  });

  it('keeps call order over many queued calls (no per-call growth of work)', async () => {
    const f = new FileLock();
    const d = new DatasetLock();
    const seen: number[] = [];
    const calls: Promise<void>[] = [];
    for (let i = 0; i < 20000; i++) {
      if (i % 5000 === 2500) calls.push(f.file('write', async () => void seen.push(-i)));
      calls.push(
        f.dataset(d, i % 3 === 0 ? 'read' : 'write', async () => {
          await Promise.resolve();
          seen.push(i);
        }),
      );
    }
    await Promise.all(calls);
    const expected: number[] = [];
    for (let i = 0; i < 20000; i++) {
      if (i % 5000 === 2500) expected.push(-i);
      expected.push(i);
    }
    expect(seen).toEqual(expected);
  });
});

describe('ReadOnlyLock (a read-only file)', () => {
  it('runs reads together; close waits for the reads made before it, and later calls wait for close', async () => {
    const f = new ReadOnlyLock();
    const h = new Harness();
    h.call('list', (fn) => f.file('read', fn));
    h.call('ra', (fn) => f.dataset(f.datasetLock(), 'read', fn));
    h.call('close', (fn) => f.file('write', fn));
    h.call('rb', (fn) => f.dataset(null, 'read', fn));
    h.call('get', (fn) => f.file('read', fn));
    await h.steps(['list', 'ra'], ['list', ['ra']], ['ra', ['close']], ['close', ['get', 'rb']], ['get', ['rb']], ['rb', []]);
  });

  it('a failed call releases its turn, and two write calls run one after the other', async () => {
    const f = new ReadOnlyLock();
    const order: string[] = [];
    const results = await Promise.allSettled([
      f.file('read', async () => {
        order.push('a');
        throw new Error('boom');
      }),
      f.file('write', () => {
        order.push('close');
        throw new Error('sync boom');
      }),
      f.file('write', async () => void order.push('close again')),
      f.dataset(null, 'read', async () => {
        order.push('c');
        return 42;
      }),
    ]);
    expect(order).toEqual(['a', 'close', 'close again', 'c']);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[3] as PromiseFulfilledResult<number>).value).toBe(42);
  });
});
