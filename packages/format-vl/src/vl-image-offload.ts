/**
 * Whole dense VL chunks of a column built into reused shared memory, their checksums computed on
 * the filter worker pool (docs/format-vl.md §5.2): the calling thread writes each chunk's stored
 * image — entries from the offsets, the heap bytes copied in — into a shared {@link Slab} inside
 * the write call ({@link slabChunk}: the caller's column is its own again when the call returns), and
 * a worker computes the lookup3 of the sections of several chunks at once and writes them in
 * ({@link sealImages} of ./vl-image-task.ts), while the calling thread builds the next chunks and
 * stores the sealed ones straight from the slab. Each section is claimed before it is sealed (an
 * atomic cell per section): whenever the calling thread would wait (its event loop turns), it seals
 * the sections no worker has claimed yet itself, so a worker that is slow to get a core delays
 * nothing. A slab is reused once every image in it is in the file (`ChunkImage.written`) or no longer
 * needed, and no job reads it. Without a worker pool that runs tasks (browsers, chunks below the
 * pool's size threshold, no `SharedArrayBuffer`, a chunk of several runs) chunks are built on the
 * calling thread as before; a chunk whose job fails there is sealed here, and a chunk used before
 * it is encoded gets a sealed image of its own.
 * @module
 */
import type { ChunkImage } from '@chunkform/core';
import { pipelineOffload } from '@chunkform/core/plugin';
import { HEAP_HEADER, VlChunk } from './vl-chunk.js';
import { ENTRY_SIZE, LITTLE_ENDIAN, seal } from './vl-sections.js';
import { adoptImage, entriesOf, type ColumnBytes } from './vl-image.js';

/** What a worker is sent for one job (./vl-image-task.ts): the sections to seal, in shared memory. */
export interface SealImagesArgs {
  /** A view of the slab. */
  images: Uint8Array;
  /** The slab's claim cells: 0 free, 1 being sealed, 2 sealed. */
  cells: Int32Array;
  /** `(start, end, cell)` of each section: its bytes `[start, end)` (checksum in the last 4), its claim cell. */
  sections: Float64Array;
}

/**
 * Pools of fewer threads leave the chunks to the calling thread. On this 2-core machine under the
 * load of other processes (load average 10–14) a pool of 2 was not faster in bench/vl.ts, whose rows
 * each write once in a fresh process (8192-string chunks: 3.56× h5py wall, process CPU 0.16 s, against
 * 4.75× and 0.14 s built on the main thread), though in one warm process it used less CPU (0.12 s
 * against 0.14 s, main thread 70 against 90 ms, wall the same): BENCHMARKS.md "vlpar". Measured again
 * with chunks built at their first use (BENCHMARKS.md "vlwrite3"), a pool of 2 still loses: the
 * calling thread seals about as many sections itself (its event loop turns while the engine's queue of
 * 8 chunks waits on the head chunk, and the one worker has no free core) as it hashes without a pool,
 * and pays on top for the first write's new slabs (2–9 of 4 MiB, copied into at a quarter of the speed
 * of kept buffers) and ≈ 50 job messages: process CPU 0.12–0.14 s against 0.07–0.10 s.
 */
export const MIN_POOL_THREADS = 3;

/** Chunks per worker job: one message each way for several chunks. */
export const CHUNKS_PER_JOB = 4;

/** Bytes of one slab (a chunk whose image is larger gets a slab of its own)... */
const SLAB_BYTES = 4 << 20;
/** ...and sections in one (a slab of this many is full). */
const SLAB_SECTIONS = 512;

/** The worker's entry (resolved by the worker's own module loader: the sources under tsx, else the built module). */
const TASK_MODULE = new URL(import.meta.url.endsWith('.ts') ? './vl-image-task.ts' : './vl-image-task.js', import.meta.url).href;

/** Slabs kept for reuse (no new memory, no page faults, once a write runs): a write holds 2–3 at once. */
const kept: Slab[] = [];
const KEPT_MAX = 4;

/** Claim cell states. */
const FREE = 0;
const CLAIMED = 1;
const SEALED = 2;

/**
 * Shared memory holding the images of several chunks one after another, and a claim cell per
 * section; given back for reuse once it is no longer the one being filled, every chunk whose image
 * is in it is done with it and no job reads it.
 */
export class Slab {
  /** Where the next image goes. */
  at = 0;
  /** Sections (claim cells) used. */
  sections = 0;
  /** Users: chunks, jobs, plus one while it is being filled. */
  private users = 1;
  /** A job on it failed (its worker may have been stopped while it wrote): never reused. */
  spoiled = false;
  readonly bytes: Uint8Array;
  readonly cells = new Int32Array(new SharedArrayBuffer(4 * SLAB_SECTIONS));
  constructor(readonly memory: SharedArrayBuffer) {
    this.bytes = new Uint8Array(memory);
  }
  hold(): void {
    this.users++;
  }
  /** One user is done with it: the last one gives it back for reuse. */
  drop(): void {
    if (--this.users > 0 || this.spoiled || this.memory.byteLength !== SLAB_BYTES || kept.length >= KEPT_MAX) return;
    this.at = 0;
    this.sections = 0;
    this.users = 1;
    this.cells.fill(FREE);
    kept.push(this);
  }
}

/** The slab being filled. */
let filling: Slab | null = null;

/** A slab with room for `n` more bytes and two sections, the one being filled when it has. */
function slabFor(n: number): Slab {
  if (filling && filling.at + n <= filling.memory.byteLength && filling.sections + 2 <= SLAB_SECTIONS) return filling;
  filling?.drop();
  filling = n > SLAB_BYTES ? new Slab(new SharedArrayBuffer(n)) : (kept.pop() ?? new Slab(new SharedArrayBuffer(SLAB_BYTES)));
  return filling;
}

/** A chunk built in a slab, its checksums not written yet. */
interface Unsealed {
  mem: VlChunk;
  slab: Slab;
  /** `(start, end, cell)` of each section (slab positions). */
  sections: number[];
  /** In a job (sent or about to be). */
  queued: boolean;
  /** Resolves once every section is sealed (there or here). */
  done: Promise<void>;
  settle: () => void;
}

/** Chunks whose image is in a slab: until it is written to the file or copied out. */
const inSlab = new WeakMap<VlChunk, Slab>();
/** Chunks of {@link inSlab} whose checksums are not all written yet. */
const unsealed = new WeakMap<VlChunk, Unsealed>();
/** The chunks of {@link unsealed} awaited by their encoding, oldest first (the calling thread seals these when it would wait). */
let awaited: Unsealed[] = [];

/**
 * A whole dense chunk of `n` elements from the strings of `col` (checked) at the request's run
 * (column positions from `base`), built in a slab for its checksums to be computed on a worker;
 * null when it is built the usual way here: a chunk of several runs (a 2-D chunk narrower than the
 * dataset), no worker pool of {@link MIN_POOL_THREADS} threads that runs tasks, a chunk below its
 * size threshold, no `SharedArrayBuffer`, a big-endian host, or more than 4 GiB of values.
 * `into`: an empty dense chunk of `n` elements to build it in (./vl-deferred.ts), else a new one.
 */
export function slabChunk(n: number, runs: Float64Array, col: ColumnBytes, base: number, into?: VlChunk): VlChunk | null {
  const offload = pipelineOffload();
  if (runs.length !== 3 || !LITTLE_ENDIAN || !offload?.runTask || !((offload.threads ?? 0) >= MIN_POOL_THREADS) || typeof SharedArrayBuffer !== 'function') return null;
  const { bytes, offsets, origin = 0 } = col;
  const m = runs[2]!;
  const b = base + runs[1]!;
  const o0 = offsets[b]!;
  const total = offsets[b + m]! - o0;
  if (total < (offload.minBytes ?? 0) || total > 0xffffffff - HEAP_HEADER - 8 - n * ENTRY_SIZE) return null;
  const eb = n * ENTRY_SIZE + 4;
  const size = eb + (total > 0 ? HEAP_HEADER + total + 4 : 0);
  const room = Math.ceil(size / 8) * 8; // (8-byte aligned: the entries are read as 32-bit words)
  const slab = slabFor(room);
  const start = slab.at;
  slab.at += room;
  const image = slab.bytes.subarray(start, start + size);
  // (the slab is reused: entries the run does not cover and the heap's unused count are zeros;
  // `entriesOf` writes all four words of the entries it covers)
  if (m !== n) image.fill(0, 0, n * ENTRY_SIZE);
  if (total > 0) {
    image.fill(0, eb, eb + HEAP_HEADER);
    image.set(bytes.subarray(o0 - origin, o0 - origin + total), eb + HEAP_HEADER);
  }
  entriesOf(new Uint32Array(slab.memory, start, n * 4), runs[0]!, offsets, b, m, HEAP_HEADER - o0, size - eb >= 0x80000000);
  const mem = into ?? new VlChunk(n, null);
  adoptImage(mem, image);
  slab.hold();
  inSlab.set(mem, slab);
  const sections = [start, start + eb, slab.sections++];
  if (total > 0) sections.push(start + eb, start + size, slab.sections++);
  let settle!: () => void;
  const done = new Promise<void>((ok) => (settle = ok));
  unsealed.set(mem, { mem, slab, sections, queued: false, done, settle });
  return mem;
}

/** Chunks built in slabs whose job is not sent yet. */
let waiting: Unsealed[] = [];
let sendScheduled = false;
let stealScheduled = false;
const later = (fn: () => void): void => void (typeof setImmediate === 'function' ? setImmediate : setTimeout)(fn);

/**
 * Resolves once the checksums of `mem` (built by {@link slabChunk}) are written: on a worker,
 * together with the chunks built next to it ({@link CHUNKS_PER_JOB} per job), or here (the calling
 * thread would wait, or the pool declines the job or it fails there).
 */
function sealed(mem: VlChunk): Promise<void> {
  const u = unsealed.get(mem);
  if (!u) return Promise.resolve();
  if (!u.queued) {
    u.queued = true;
    waiting.push(u);
    awaited.push(u);
    if (waiting.length >= CHUNKS_PER_JOB) sendWaiting();
    else if (!sendScheduled) {
      // (the rest goes once the calling thread waits for anything: a file write, the queue)
      sendScheduled = true;
      later(sendWaiting);
    }
    if (!stealScheduled) {
      stealScheduled = true;
      later(steal);
    }
  }
  return u.done;
}

/** Sends the chunks waiting as one job per slab. */
function sendWaiting(): void {
  sendScheduled = false;
  const bySlab = new Map<Slab, Unsealed[]>();
  for (const u of waiting) if (unsealed.get(u.mem) === u) bySlab.set(u.slab, [...(bySlab.get(u.slab) ?? []), u]);
  waiting = [];
  for (const [slab, group] of bySlab) {
    const sections = Float64Array.from(group.flatMap((u) => u.sections));
    let bytes = 0;
    for (let s = 0; s < sections.length; s += 3) bytes += sections[s + 1]! - sections[s]!;
    const job = pipelineOffload()?.runTask?.({ module: TASK_MODULE, fn: 'sealImages', args: { images: slab.bytes, cells: slab.cells, sections } satisfies SealImagesArgs, bytes });
    if (!job) {
      for (const u of group) sealNow(u);
      continue;
    }
    slab.hold(); // (the job reads it until it settled)
    void job.then(
      (count) => jobSettled(slab, group, count === sections.length / 3),
      () => jobSettled(slab, group, false),
    );
  }
}

/** A job settled (its sections sealed there, or it failed: the rest are sealed here, and the slab is never reused). */
function jobSettled(slab: Slab, group: readonly Unsealed[], ok: boolean): void {
  if (!ok) slab.spoiled = true;
  for (const u of group) sealNow(u);
  slab.drop();
  awaited = awaited.filter((u) => unsealed.get(u.mem) === u);
}

/**
 * Seals here the sections of `u` no one claimed, and resolves it once every section is sealed;
 * true then. `claim` false: seals nothing, only notes a chunk the workers sealed. `settled`: its job
 * settled (or none was sent), so a section still claimed was left by a job that failed: sealed here too.
 */
function sealNow(u: Unsealed, claim = true, settled = true): boolean {
  if (unsealed.get(u.mem) !== u) return true;
  const { cells } = u.slab;
  const image = u.mem.image!;
  const at = u.sections[0]!;
  let all = true;
  for (let s = 0; s < u.sections.length; s += 3) {
    const cell = u.sections[s + 2]!;
    const was = claim ? Atomics.compareExchange(cells, cell, FREE, CLAIMED) : Atomics.load(cells, cell);
    if (was === SEALED) continue;
    if (!claim || (was === CLAIMED && !settled)) {
      all = false;
      continue;
    }
    seal(image.subarray(u.sections[s]! - at, u.sections[s + 1]! - at));
    Atomics.store(cells, cell, SEALED);
  }
  if (all) {
    unsealed.delete(u.mem);
    u.settle();
  }
  return all;
}

/**
 * The calling thread's turn while it would wait (its event loop turns): notes the awaited chunks the
 * workers sealed, and seals the newest one no worker claimed (the workers take the oldest first),
 * one chunk per turn.
 */
function steal(): void {
  stealScheduled = false;
  const free = (u: Unsealed): boolean => u.sections.some((c, s) => s % 3 === 2 && Atomics.load(u.slab.cells, c) === FREE);
  let more = false;
  for (let i = awaited.length - 1; i >= 0; i--) {
    const u = awaited[i]!;
    if (unsealed.get(u.mem) === u && free(u)) {
      sealNow(u, true, false);
      more = awaited.some((v, j) => j < i && unsealed.get(v.mem) === v && free(v));
      break;
    }
  }
  awaited = awaited.filter((u) => !sealNow(u, false, false));
  // (again next turn while there is work no worker took; else the jobs' answers settle the rest)
  if (more && !stealScheduled) {
    stealScheduled = true;
    later(steal);
  }
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
    // (sealed on the copy: a worker may still write the slab's checksums; its job holds the slab)
    for (let s = 0; s < u.sections.length; s += 3) seal(image.subarray(u.sections[s]! - u.sections[0]!, u.sections[s + 1]! - u.sections[0]!));
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
