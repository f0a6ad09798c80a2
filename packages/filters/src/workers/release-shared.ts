/**
 * Letting go of the shared memory a filter worker was sent. Every message that carries a view of a
 * `SharedArrayBuffer` (a read's result that the worker decodes a chunk into, a streamed write's
 * chunk) gives the worker an object of its own over that memory, and the memory lives until the
 * last such object of every thread is collected. V8 counts none of it towards a collection
 * (shared memory has no per-thread size in its heuristics), and a worker allocates little else, so
 * it went on holding every read's result: a loop of `read()` calls over 32 MiB kept each result
 * alive after the caller dropped it (+32 MiB of RSS per read, 1.3 GB after 40 reads), and the next
 * results got new, never-touched pages. After jobs with shared memory the worker therefore runs a
 * young-generation collection of its own heap (its objects of a finished job are young garbage:
 * ≈ 0.1–1 ms) once no job has started for a moment (the end of a read), or after a job when the
 * last collection is {@link MAX_DELAY_MS} ago (jobs that keep it busy). Node only: ./worker.ts is its sole importer.
 * @module
 */
import { flaggedBuiltin } from './flagged-builtin.js';

/** Idle time after a job with shared memory before the collection runs (a read's next chunk usually comes sooner). */
const IDLE_MS = 2;
/** Longest time between collections while jobs with shared memory keep the worker busy. */
const MAX_DELAY_MS = 100;

type Collect = (opts: { type: 'minor' | 'major' }) => void;

/**
 * The engine's collector: `gc` when the process runs with `--expose-gc` (every thread has it then),
 * else one taken from a new context with the flag set for that moment only (and reset: contexts
 * made later, the caller's included, do not get `gc`). Null when the engine refuses.
 */
function collector(): Collect | null {
  const g = (globalThis as { gc?: unknown }).gc;
  if (typeof g === 'function') return g as Collect;
  return flaggedBuiltin<Collect>('expose-gc', 'gc');
}

let collect: Collect | null | undefined;
/** A job with shared memory finished since the last collection. */
let owed = false;
let lastCollect = performance.now();
let timer: ReturnType<typeof setTimeout> | null = null;

function collectNow(): void {
  timer = null;
  owed = false;
  lastCollect = performance.now();
  collect ??= collector();
  collect?.({ type: 'minor' });
}

/** A job begins: the worker is not idle (a collection waiting for that waits on). */
export function jobStarted(): void {
  if (timer) clearTimeout(timer);
  timer = null;
}

/**
 * A job ended; `shared`: its message carried shared memory (a target or bytes), which the worker's
 * objects of it keep alive until collected. The collection runs once no job has started for
 * {@link IDLE_MS}, or now when the last one is {@link MAX_DELAY_MS} ago.
 */
export function jobEnded(shared: boolean): void {
  owed ||= shared;
  if (!owed) return;
  if (performance.now() - lastCollect >= MAX_DELAY_MS) return collectNow();
  if (timer) clearTimeout(timer);
  timer = setTimeout(collectNow, IDLE_MS);
  timer.unref?.();
}

/** True when the message's job carries shared memory (its target, its bytes, or a section's bytes). */
export function carriesShared(m: { target?: { out: Uint8Array }; bytes?: Uint8Array; sections?: { bytes: Uint8Array }[] }): boolean {
  const isSab = (b: Uint8Array | undefined) => b !== undefined && b.buffer instanceof SharedArrayBuffer;
  return isSab(m.target?.out) || isSab(m.bytes) || (m.sections?.some((s) => isSab(s.bytes)) ?? false);
}
