/** A task module for the worker pool's task jobs (worker-tasks.test.ts): pure functions of their arguments. */
import { threadId } from 'node:worker_threads';

/** Each byte of `args.bytes` doubled, in a new buffer moved back; with the thread it ran on. */
export function doubled(args: { bytes: Uint8Array }): { value: { out: Uint8Array; thread: number }; transfer: ArrayBuffer[] } {
  const out = args.bytes.map((b) => (b * 2) & 0xff);
  return { value: { out, thread: threadId }, transfer: [out.buffer] };
}

/** Always throws. */
export function fails(): never {
  throw new Error('task-module: this task fails');
}

/**
 * Holds its worker until `args.flag[0]` is set (and notified) elsewhere: a worker kept busy. Sets
 * `args.flag[1]` first (when there is one) so the caller can wait until the worker is really held.
 */
export function held(args: { flag: Int32Array }): { value: number; transfer: ArrayBuffer[] } {
  if (args.flag.length > 1) Atomics.store(args.flag, 1, 1);
  while (Atomics.load(args.flag, 0) === 0) Atomics.wait(args.flag, 0, 0);
  return { value: threadId, transfer: [] };
}
