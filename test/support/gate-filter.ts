/**
 * A test filter for background-write tests: its encodings wait until the test opens the gate, and an
 * input the test marks as poisoned fails, so a test controls when (and whether) queued chunks finish.
 */
import type { Filter } from '../../packages/core/src/index.js';

/** Encodings wait for {@link GateFilter.open}; inputs `poisoned` says yes to fail with `message`. */
export class GateFilter {
  started = 0;
  finished = 0;
  held = true;
  private waiting: (() => void)[] = [];
  readonly filter: Filter;

  constructor(id: number, name: string, poisoned: (data: Uint8Array) => boolean, message: string) {
    this.filter = {
      id,
      name,
      encode: async (data) => {
        this.started++;
        const copy = data.slice(); // what the filter saw when it started
        if (this.held) await new Promise<void>((r) => this.waiting.push(r));
        this.finished++;
        if (poisoned(copy)) throw new Error(message);
        return copy;
      },
      decode: (data) => data,
    };
  }

  /** Lets every waiting (and, with `hold = false`, every later) encoding finish. */
  open(hold = false): void {
    this.held = hold;
    const w = this.waiting;
    this.waiting = [];
    for (const r of w) r();
  }
}

/** Settles `p` into 'pending' / 'done' / the error after the microtasks and timers in flight. */
export async function promiseState(p: Promise<unknown>): Promise<unknown> {
  let s: unknown = 'pending';
  p.then(
    () => (s = 'done'),
    (e: unknown) => (s = e),
  );
  await new Promise((r) => setTimeout(r, 20));
  return s;
}
