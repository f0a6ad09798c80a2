/**
 * The object lane: how values that are not fixed-size element bytes (variable-length strings and
 * sequences kept inside the chunks by a chunk format, docs/format-vl.md) travel through the chunk
 * engine without the engine knowing. The engine moves `elementSize` bytes per element between
 * chunks and a request buffer; a format that stores values itself declares {@link ObjectValues},
 * and the dataset then hands the engine a request buffer that *carries a lane*: one JS value per
 * element of the buffer, attached to the buffer's memory. The format's `memRead` / `memWrite` /
 * `fromRequest` find the lane of the buffer they are given ({@link laneOf}) and read or write the
 * values at the same element positions its runs name. The buffer's own bytes are unused.
 * @module
 */
import { UnsupportedError } from '../errors.js';
import type { Selection } from '../selection/selection.js';
import type { Values } from '../values/types.js';

/** One value per element of a request buffer. */
export interface ObjectLane {
  values: unknown[];
  /**
   * The values of all the lane's elements in a form of the format's own (e.g. columnar strings:
   * one byte buffer and offsets), used instead of `values` when set (see {@link ColumnarValues}).
   */
  columnar?: unknown;
}

/**
 * A format's columnar form of many values at once (e.g. one UTF-8 byte buffer plus offsets for
 * strings): accepted by writes and returned by `Dataset.readColumnar` without one JS value per element.
 */
export interface ColumnarValues {
  /** The checked columnar form of user `data` for `count` elements, or undefined when `data` is not columnar. */
  fromUser(data: unknown, count: number): unknown;
  /** An empty lane payload that the format's `memRead` fills for a read of `count` elements. */
  forRead(count: number): unknown;
  /** The filled payload → what `Dataset.readColumnar` returns. */
  toUser(payload: unknown): unknown;
}

/** What a format that keeps values itself tells the dataset (see the module comment). */
export interface ObjectValues {
  /** User data (flat array in selection order) → one checked value per element. */
  fromUser(data: unknown, count: number): unknown[];
  /** Lane values → what `Dataset.read` returns (e.g. `string[]`, an array of TypedArrays). */
  toUser(values: unknown[]): Values;
  /** The value an element that was never written reads as. */
  fill(): unknown;
  /** The format's columnar form, when it has one. */
  readonly columnar?: ColumnarValues;
}

/** Lanes by the memory of their request buffer (a view of the same memory finds the lane too). */
const lanes = new WeakMap<ArrayBufferLike, ObjectLane>();

/** The lane of the request buffer `buf` (or of any view of its memory), if it carries one. */
export function laneOf(buf: Uint8Array): ObjectLane | undefined {
  return lanes.get(buf.buffer);
}

/** What the dataset asks of its storage to move lane values. */
interface LaneStorage {
  read(sel: Selection, count: number, into?: Uint8Array): Promise<unknown>;
  /** Absent in read-only storage (writes only reach storage that has it). */
  write?(sel: Selection, bytes: Uint8Array): Promise<void>;
}

/** The memory of the last request buffer whose call is over, kept for the next call until collected. */
let idle: WeakRef<ArrayBuffer> | undefined;

/**
 * Memory of `n` bytes for a request buffer: a resizable `ArrayBuffer` (its maximum `n`) where the
 * runtime has them, a plain one elsewhere. V8 maps a resizable buffer's pages fresh when first
 * touched, and a lane's bytes never are, while a plain one of megabytes comes zeroed from the C
 * allocator: 1.3–13 ms per 16 MB (a write of a million VL strings) on the calling thread.
 */
function laneMemory(n: number): ArrayBuffer {
  try {
    return new (ArrayBuffer as new (n: number, opts: { maxByteLength: number }) => ArrayBuffer)(n, { maxByteLength: n });
  } catch {
    // (a runtime that cannot reserve it)
    return new ArrayBuffer(n);
  }
}

/**
 * Runs `io` with a request buffer of `n` bytes carrying `lane`. The buffer's bytes are never read (a
 * read of a sparse layout may write fill bytes over them), so the memory of a finished call is kept
 * (weakly: the collector may take it) for the next call that fits in it: a call on a million strings
 * does not allocate 16 MB nobody uses. A call takes the kept memory while it runs, so calls at once
 * never share one (each keeps its own when it ends, the last one's stays).
 */
async function carrying<T>(lane: ObjectLane, n: number, io: (buf: Uint8Array) => Promise<T>): Promise<T> {
  const kept = idle?.deref();
  const mem = kept && kept.byteLength >= n ? kept : laneMemory(n);
  if (mem === kept) idle = undefined;
  lanes.set(mem, lane);
  try {
    return await io(new Uint8Array(mem, 0, n));
  } finally {
    lanes.delete(mem);
    idle = new WeakRef(mem);
  }
}

/** Reads the `count` elements of `sel` through a lane: the user values. */
export async function readObjects(storage: LaneStorage, ov: ObjectValues, sel: Selection, count: number, elementSize: number): Promise<Values> {
  const lane: ObjectLane = { values: new Array<unknown>(count).fill(ov.fill()) };
  await carrying(lane, count * elementSize, (buf) => storage.read(sel, count, buf));
  return ov.toUser(lane.values);
}

/** Reads the `count` elements of `sel` through a lane in the format's columnar form. */
export async function readColumnar(storage: LaneStorage, ov: ObjectValues | undefined, sel: Selection, count: number, elementSize: number, path: string): Promise<unknown> {
  const col = ov?.columnar;
  if (!col) throw new UnsupportedError("the dataset's storage has no columnar form of its values (read them with read())", { path });
  const lane: ObjectLane = { values: [], columnar: col.forRead(count) };
  if (count > 0) await carrying(lane, count * elementSize, (buf) => storage.read(sel, count, buf));
  return col.toUser(lane.columnar);
}

/** Writes user `data` to the `count` elements of `sel` through a lane (columnar data as it is). */
export async function writeObjects(storage: LaneStorage, ov: ObjectValues, data: unknown, sel: Selection, count: number, elementSize: number): Promise<void> {
  const columnar = ov.columnar?.fromUser(data, count);
  const lane: ObjectLane = columnar !== undefined ? { values: [], columnar } : { values: ov.fromUser(data, count) };
  if (count > 0) await carrying(lane, count * elementSize, (buf) => storage.write!(sel, buf));
}
