/**
 * Whole dense VL chunks of a column built into reused shared memory, their checksums computed on
 * the filter worker pool (docs/format-vl.md §5.2): the calling thread writes each chunk's stored
 * image — entries from the offsets, the heap bytes copied in — into a shared {@link Slab} inside
 * the write call ({@link slabChunk}: the caller's column is its own again when the call returns) and
 * publishes its sections in a shared ring (./vl-image-ring.ts); one job on a worker
 * (`sealRing` of ./vl-image-task.ts) computes their lookup3 in order as they come and writes them in,
 * while the calling thread builds the next chunks and stores the sealed ones straight from the slab.
 * Each section is claimed before it is sealed (an atomic cell per section): whenever the calling
 * thread would wait (its event loop turns), it seals the sections no worker has claimed yet itself,
 * newest first, so a worker that is slow to get a core delays nothing. A slab is reused once every
 * image in it is in the file (`ChunkImage.written`) or no longer needed, and no worker holds one of
 * its sections. Without a worker pool that runs tasks (browsers, chunks below the pool's size
 * threshold, no `SharedArrayBuffer`, a chunk of several runs) chunks are built on the calling thread
 * as before; a chunk whose job fails there is sealed here, and a chunk used before it is encoded
 * gets a sealed image of its own.
 * @module
 */
import type { ChunkImage } from '@chunkform/core';
import { pipelineOffload } from '@chunkform/core/plugin';
import { HEAP_HEADER, VlChunk } from './vl-chunk.js';
import { ENTRY_SIZE, LITTLE_ENDIAN, seal } from './vl-sections.js';
import { adoptImage, entriesOf, type ColumnBytes } from './vl-image.js';
import { CLAIMED, FREE, RING_ACTIVE, RING_DESC, RING_HEAD, RING_HEADER, RING_SIZE, SEALED, descAt } from './vl-image-ring.js';
import type { SealRingArgs } from './vl-image-task.js';

/**
 * Smallest pool that takes the checksums of chunks without filters: 3 threads. The calling thread
 * publishes each section in a shared ring and one long job on a worker (./vl-image-task.ts
 * `sealRing`) seals them as they come, waiting on the ring between them (`Atomics.wait`), so a
 * write sends a job or a few, not one per chunk (before the ring: one job per 4 chunks, ≈ 50 job
 * messages of 0.2–0.5 ms per write on the calling thread, BENCHMARKS.md "vlwrite3"); the calling
 * thread seals, newest first, those no worker has claimed whenever it would wait. A pool of 2 (a
 * 2-core machine) still leaves the chunks to the calling thread: with the ring, on this 2-core
 * machine under the load of other processes (load average 10–17), a fresh process's write used 1–4 ms
 * less main-thread CPU but ≈ 30 ms more process CPU (the worker's and V8's helper threads), and its
 * best wall time over 6–8 runs was 87–100 ms against 61–76 ms built on the calling thread
 * (BENCHMARKS.md "vlwrite4"); with a free core it may pay, which that machine could not show.
 */
export const MIN_POOL_THREADS = 3;

/**
 * Smallest pool that takes the checksums of chunks with filters: their job ends as soon as it has
 * nothing to seal (it does not wait on the ring), so it holds no worker the filters need; pools of
 * fewer threads leave those chunks to the calling thread.
 */
export const MIN_POOL_THREADS_FILTERED = 3;

/** Bytes of one slab (a chunk whose image is larger gets a slab of its own, up to {@link MAX_SLAB})... */
const SLAB_BYTES = 4 << 20;
/** ...and the largest image built in a slab (positions in the ring are int32). */
const MAX_SLAB = 0x7fff0000;
/** Slabs at once (beyond: chunks are built the usual way). */
const MAX_SLABS = 8;

/** How long a job without filters waits for the next section before it ends (ms). */
const IDLE_MS = 4;
/**
 * How long the calling thread waits for a section a worker is sealing before it seals it too (ms):
 * the worker is on it (a 270 KB section takes it 0.1 ms) unless it lost its core, and sealing it
 * here as well would spend the core the worker waits for; this is for a worker that stopped.
 */
const WAIT_MS = 20;

/** The worker's entry (resolved by the worker's own module loader: the sources under tsx, else the built module). */
const TASK_MODULE = new URL(import.meta.url.endsWith('.ts') ? './vl-image-task.ts' : './vl-image-task.js', import.meta.url).href;

/** Slabs kept for reuse (no new memory, no page faults, once a write runs): a write holds 2–3 at once. */
const kept: Slab[] = [];
const KEPT_MAX = 4;
/** Slabs by id: those a job may be sent (never two slabs under one id). */
const live = new Map<number, Slab>();
let nextId = 0;

/** The ring (./vl-image-ring.ts), made at the first chunk built in a slab. */
let ring: Int32Array | null = null;
/** Descriptors published and not yet seen sealed here, by ring slot (a slot is reused only once seen). */
const pending = new Uint8Array(RING_SIZE);
/** Jobs sent and not settled. */
let running = 0;

function theRing(): Int32Array {
  if (!ring) {
    ring = new Int32Array(new SharedArrayBuffer(4 * (RING_HEADER + RING_DESC * RING_SIZE)));
    for (let d = 0; d < RING_SIZE; d++) ring[descAt(d) + 3] = SEALED;
  }
  return ring;
}

/** The claim state of descriptor `d`. */
const stateOf = (d: number): number => Atomics.load(ring!, descAt(d) + 3);

/**
 * Shared memory holding the images of several chunks one after another; given back for reuse once
 * it is no longer the one being filled, every chunk whose image is in it is done with it, and no
 * worker still holds one of its sections.
 */
export class Slab {
  /** Where the next image goes. */
  at = 0;
  /** Users: chunks, plus one while it is being filled. */
  private users = 1;
  readonly id = nextId++;
  /** Descriptors of its sections since it was last reused. */
  readonly descs: number[] = [];
  readonly bytes: Uint8Array;
  constructor(readonly memory: SharedArrayBuffer) {
    this.bytes = new Uint8Array(memory);
    live.set(this.id, this);
  }
  hold(): void {
    this.users++;
  }
  /** One user is done with it: the last one gives it back for reuse (or lets it go). */
  drop(): void {
    if (--this.users > 0) return;
    // (a section a worker still holds — it failed, or the calling thread stopped waiting for it — may still be written: never reused)
    if (this.memory.byteLength === SLAB_BYTES && kept.length < KEPT_MAX && this.descs.every((d) => stateOf(d) !== CLAIMED)) {
      this.at = 0;
      this.descs.length = 0;
      this.users = 1;
      kept.push(this);
    } else live.delete(this.id);
  }
}

/** The slab being filled. */
let filling: Slab | null = null;

/** A slab with room for `n` more bytes, the one being filled when it has; null when {@link MAX_SLABS} are in use. */
function slabFor(n: number): Slab | null {
  if (filling && filling.at + n <= filling.memory.byteLength) return filling;
  const next = n > SLAB_BYTES ? null : kept.pop();
  if (!next && live.size >= MAX_SLABS) return null;
  filling?.drop();
  filling = next ?? new Slab(new SharedArrayBuffer(Math.max(n, SLAB_BYTES)));
  return filling;
}

/** A chunk built in a slab, its checksums not all written yet (as far as this thread has seen). */
interface Unsealed {
  mem: VlChunk;
  slab: Slab;
  /** `(start, end, descriptor)` of each section (slab positions), the descriptor -1 once seen sealed. */
  sections: number[];
  /** Awaited by its encoding (in {@link awaited}). */
  queued: boolean;
  /** Resolves once every section is sealed (there or here). */
  done: Promise<void>;
  settle: () => void;
}

/** Chunks whose image is in a slab: until it is written to the file or copied out. */
const inSlab = new WeakMap<VlChunk, Slab>();
/** Chunks of {@link inSlab} whose checksums are not all seen written yet. */
const unsealed = new WeakMap<VlChunk, Unsealed>();
/** The chunks of {@link unsealed} awaited by their encoding, oldest first (the calling thread seals these when it would wait). */
let awaited: Unsealed[] = [];

/**
 * A whole dense chunk of `n` elements from the strings of `col` (checked) at the request's run
 * (column positions from `base`), built in a slab for its checksums to be computed on a worker;
 * null when it is built the usual way here: a chunk of several runs (a 2-D chunk narrower than the
 * dataset), no worker pool of {@link MIN_POOL_THREADS} threads ({@link MIN_POOL_THREADS_FILTERED}
 * when a section of the layout has filters: `filtered`) that runs tasks, a chunk below its size
 * threshold, no `SharedArrayBuffer`, a big-endian host, an image over 2 GiB, or every slab or ring
 * slot in use. `into`: an empty dense chunk of `n` elements to build it in (./vl-deferred.ts), else
 * a new one.
 */
export function slabChunk(n: number, runs: Float64Array, col: ColumnBytes, base: number, filtered: boolean, into?: VlChunk): VlChunk | null {
  const offload = pipelineOffload();
  if (runs.length !== 3 || !LITTLE_ENDIAN || !offload?.runTask || !((offload.threads ?? 0) >= (filtered ? MIN_POOL_THREADS_FILTERED : MIN_POOL_THREADS)) || typeof SharedArrayBuffer !== 'function') return null;
  const { bytes, offsets, origin = 0 } = col;
  const m = runs[2]!;
  const b = base + runs[1]!;
  const o0 = offsets[b]!;
  const total = offsets[b + m]! - o0;
  const eb = n * ENTRY_SIZE + 4;
  const size = eb + (total > 0 ? HEAP_HEADER + total + 4 : 0);
  if (total < (offload.minBytes ?? 0) || size > MAX_SLAB) return null;
  const r = theRing();
  let head = Atomics.load(r, RING_HEAD);
  // (a slot a stopped worker left claimed is skipped: published as it is, no one can claim it)
  for (let k = 0; k < RING_SIZE && !pending[head & (RING_SIZE - 1)] && stateOf(head) === CLAIMED; k++) head = (head + 1) | 0;
  const nsec = total > 0 ? 2 : 1;
  for (let k = 0; k < nsec; k++) if (pending[(head + k) & (RING_SIZE - 1)] || stateOf(head + k) !== SEALED) return null;
  const room = Math.ceil(size / 8) * 8; // (8-byte aligned: the entries are read as 32-bit words)
  const slab = slabFor(room);
  if (!slab) return null;
  const start = slab.at;
  slab.at += room;
  const image = slab.bytes.subarray(start, start + size);
  // (the slab is reused: entries the run does not cover and the heap's unused count are zeros;
  // `entriesOf` writes all four words of the entries it covers)
  if (m !== n) image.fill(0, 0, n * ENTRY_SIZE);
  if (total > 0) {
    image.fill(0, eb, eb + HEAP_HEADER);
    copyIn(image, eb + HEAP_HEADER, bytes.subarray(o0 - origin, o0 - origin + total));
  }
  entriesOf(new Uint32Array(slab.memory, start, n * 4), runs[0]!, offsets, b, m, HEAP_HEADER - o0, size - eb >= 0x80000000);
  const mem = into ?? new VlChunk(n, null);
  adoptImage(mem, image);
  slab.hold();
  inSlab.set(mem, slab);
  // published: the descriptors' cells, then each made free, then the head (the worker reads a descriptor after claiming it)
  const sections = [start, start + eb, head];
  if (total > 0) sections.push(start + eb, start + size, (head + 1) | 0);
  for (let s = 0; s < sections.length; s += 3) {
    const d = sections[s + 2]!;
    const at = descAt(d);
    r[at] = slab.id;
    r[at + 1] = sections[s]!;
    r[at + 2] = sections[s + 1]!;
    Atomics.store(r, at + 3, FREE);
    pending[d & (RING_SIZE - 1)] = 1;
    slab.descs.push(d);
  }
  Atomics.store(r, RING_HEAD, (head + nsec) | 0);
  Atomics.notify(r, RING_HEAD);
  startJob(filtered ? 0 : IDLE_MS, size);
  let settle!: () => void;
  const done = new Promise<void>((ok) => (settle = ok));
  unsealed.set(mem, { mem, slab, sections, queued: false, done, settle });
  return mem;
}

/** A buffer for {@link copyIn}, kept (at most {@link SLAB_BYTES} + 8). */
let scratch = new Uint8Array(0);

/**
 * Copies `src` into the shared `image` at `at`. A copy into or out of shared memory is done a word
 * at a time only when source and target are as far from 8-byte alignment (V8; else byte by byte:
 * 12.5 against 2.8 ms for 32 MB here), so a source that is not goes through a kept buffer at the
 * target's alignment first (a plain copy, as fast as the aligned one).
 */
function copyIn(image: Uint8Array, at: number, src: Uint8Array): void {
  const pad = (image.byteOffset + at) & 7;
  if (((src.byteOffset - pad) & 7) === 0 || src.buffer instanceof SharedArrayBuffer || src.length > SLAB_BYTES) {
    image.set(src, at);
    return;
  }
  if (scratch.length < pad + src.length) scratch = new Uint8Array(Math.min(SLAB_BYTES + 8, Math.max(pad + src.length, 2 * scratch.length)));
  scratch.set(src, pad);
  image.set(scratch.subarray(pad, pad + src.length), at);
}

/** Starts a job sealing the ring unless one runs (`idleMs`: how long it waits for more; `bytes`: the work that asks). */
function startJob(idleMs: number, bytes: number): void {
  const r = ring!;
  if (Atomics.load(r, RING_ACTIVE) !== 0 || Atomics.compareExchange(r, RING_ACTIVE, 0, 1) !== 0) return;
  const slabs = new Map<number, Uint8Array>();
  for (const [id, s] of live) slabs.set(id, s.bytes);
  const job = pipelineOffload()?.runTask?.({ module: TASK_MODULE, fn: 'sealRing', args: { ring: r, slabs, idleMs } satisfies SealRingArgs, bytes });
  if (!job) {
    Atomics.store(r, RING_ACTIVE, 0); // (declined: the next chunk asks again; a job that fails is asked again once it settled)
    return;
  }
  running++;
  void job.then(
    (count) => jobSettled(typeof count === 'number'),
    () => jobSettled(false),
  );
}

/** A job settled: when it failed, its worker may have stopped inside a section (left claimed: sealed here, its slab never reused). */
function jobSettled(ok: boolean): void {
  running--;
  if (!ok) Atomics.store(ring!, RING_ACTIVE, 0);
  schedule();
}

/**
 * Notes the sections of `u` seen sealed and seals here those no one claimed (`claim`; `force`: those
 * a worker claimed too, the same bytes — it stopped, or is slow to get a core); resolves `u` once
 * every section is sealed: true then.
 */
function sealNow(u: Unsealed, claim: boolean, force = false): boolean {
  if (unsealed.get(u.mem) !== u) return true;
  const r = ring!;
  const image = u.mem.image!;
  const at0 = u.sections[0]!;
  let all = true;
  for (let s = 0; s < u.sections.length; s += 3) {
    const d = u.sections[s + 2]!;
    if (d < 0) continue;
    const cell = descAt(d) + 3;
    const was = claim ? Atomics.compareExchange(r, cell, FREE, CLAIMED) : Atomics.load(r, cell);
    if (was === SEALED || (claim && was === FREE) || (force && was === CLAIMED)) {
      if (was !== SEALED) seal(image.subarray(u.sections[s]! - at0, u.sections[s + 1]! - at0));
      if (was === FREE) Atomics.store(r, cell, SEALED);
      pending[d & (RING_SIZE - 1)] = 0;
      u.sections[s + 2] = -1;
    } else all = false;
  }
  if (all) {
    unsealed.delete(u.mem);
    u.settle();
  }
  return all;
}

/** True when a section of `u` is free (no one claimed it). */
function hasFree(u: Unsealed): boolean {
  for (let s = 2; s < u.sections.length; s += 3) if (u.sections[s]! >= 0 && stateOf(u.sections[s]!) === FREE) return true;
  return false;
}

/** `Atomics.waitAsync` (ES2024; Node 16+), where there is one. */
const waitAsync = (Atomics as unknown as { waitAsync?: (a: Int32Array, i: number, v: number, ms: number) => { async: false; value: string } | { async: true; value: Promise<string> } }).waitAsync;

let stealScheduled = false;
let waitingOn = false;
const later = (fn: () => void): void => void (typeof setImmediate === 'function' ? setImmediate : setTimeout)(fn);

function schedule(): void {
  if (stealScheduled) return;
  stealScheduled = true;
  later(steal);
}

/**
 * Resolves once the checksums of `mem` (built by {@link slabChunk}) are written: on a worker, or
 * here when the calling thread would wait.
 */
function sealed(mem: VlChunk): Promise<void> {
  const u = unsealed.get(mem);
  if (!u || sealNow(u, false)) return Promise.resolve();
  if (!u.queued) {
    u.queued = true;
    awaited.push(u);
    schedule();
  }
  return u.done;
}

/**
 * The calling thread's turn while it would wait (its event loop turns): notes the awaited chunks the
 * workers sealed, seals the newest one no worker claimed (the workers take the oldest first), one
 * chunk per turn; when a worker holds every section left, waits for the oldest one (`waitAsync`) at
 * most {@link WAIT_MS}, then seals it here too. With no job running, it seals everything left.
 */
function steal(): void {
  stealScheduled = false;
  awaited = awaited.filter((u) => !sealNow(u, false));
  if (awaited.length === 0) return;
  for (let i = awaited.length - 1; i >= 0; i--) {
    if (!hasFree(awaited[i]!)) continue;
    if (sealNow(awaited[i]!, true)) awaited.splice(i, 1);
    if (awaited.length > 0) schedule();
    return;
  }
  const oldest = awaited[0]!;
  if (running === 0) {
    for (const u of awaited) sealNow(u, true, true);
    awaited = [];
    return;
  }
  if (waitingOn) return; // (a wait runs: it turns again when it ends, or when a new chunk is awaited)
  const d = oldest.sections.find((x, s) => s % 3 === 2 && x >= 0)!;
  const w = waitAsync ? waitAsync(ring!, descAt(d) + 3, CLAIMED, WAIT_MS) : null;
  if (!w?.async) {
    if (!w) sealNow(oldest, true, true);
    schedule();
    return;
  }
  waitingOn = true;
  void w.value.then((how) => {
    waitingOn = false;
    if (how === 'timed-out') sealNow(oldest, true, true);
    schedule();
  });
}

/**
 * Gives `mem` an image of its own, sealed, when its image is in a slab (it is used before it is
 * encoded, or encoded while the engine keeps it): nothing the slab's next chunks or a worker write
 * changes it.
 */
export function ownImage(mem: VlChunk): void {
  const slab = inSlab.get(mem);
  if (!slab) return;
  inSlab.delete(mem);
  const u = unsealed.get(mem);
  unsealed.delete(mem);
  const image = mem.image!.slice();
  adoptImage(mem, image);
  if (u) {
    // (sealed on the copy; its free sections given up, so no worker takes them: one a worker holds
    // keeps the slab from reuse until it is sealed there)
    for (let s = 0; s < u.sections.length; s += 3) {
      seal(image.subarray(u.sections[s]! - u.sections[0]!, u.sections[s + 1]! - u.sections[0]!));
      const d = u.sections[s + 2]!;
      if (d < 0) continue;
      Atomics.compareExchange(ring!, descAt(d) + 3, FREE, SEALED);
      pending[d & (RING_SIZE - 1)] = 0;
    }
    u.settle();
  }
  slab.drop();
}

/**
 * Encodes `mem` with `encode`: a chunk whose image is in a slab once its checksums are written; the
 * slab is let go when the image is written (`ChunkImage.written`), or at once when the stored bytes
 * are a copy (filters). The image stays in the slab only when the engine drops the chunk afterwards
 * (`last`); else the chunk first gets an image of its own. `encode` is told whether the image is in
 * a slab: its `written` is then the slab's, so the encoder must not keep the buffer for reuse too
 * (./vl-image-pool.ts).
 */
export async function encodeOwned(mem: VlChunk, last: boolean, encode: (inSlab: boolean) => Promise<ChunkImage>): Promise<ChunkImage> {
  if (!inSlab.has(mem)) return encode(false);
  if (!last) {
    ownImage(mem);
    return encode(false);
  }
  await sealed(mem);
  const slab = inSlab.get(mem);
  if (!slab) return encode(false); // (used while it was sealed: it has its own image now)
  inSlab.delete(mem);
  let image: ChunkImage;
  try {
    image = await encode(true);
  } catch (e) {
    slab.drop();
    throw e;
  }
  if (image.bytes.buffer !== slab.memory) {
    slab.drop();
    return image;
  }
  return { ...image, written: () => slab.drop() };
}
