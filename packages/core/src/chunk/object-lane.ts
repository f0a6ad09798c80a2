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
}

/** What a format that keeps values itself tells the dataset (see the module comment). */
export interface ObjectValues {
  /** User data (flat array in selection order) → one checked value per element. */
  fromUser(data: unknown, count: number): unknown[];
  /** Lane values → what `Dataset.read` returns (e.g. `string[]`, an array of TypedArrays). */
  toUser(values: unknown[]): Values;
  /** The value an element that was never written reads as. */
  fill(): unknown;
}

/** Lanes by the memory of their request buffer (a view of the same memory finds the lane too). */
const lanes = new WeakMap<ArrayBufferLike, ObjectLane>();

/** Attaches `lane` to the memory of `buf` (a buffer made for one request, starting at byte 0). */
export function attachLane(buf: Uint8Array, lane: ObjectLane): void {
  if (buf.byteOffset !== 0) throw new UnsupportedError('an object lane needs a request buffer of its own');
  lanes.set(buf.buffer, lane);
}

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

/** Reads the `count` elements of `sel` through a lane: the user values. */
export async function readObjects(storage: LaneStorage, ov: ObjectValues, sel: Selection, count: number, elementSize: number): Promise<Values> {
  const buf = new Uint8Array(count * elementSize);
  const fill = ov.fill();
  const lane: ObjectLane = { values: new Array<unknown>(count).fill(fill) };
  attachLane(buf, lane);
  await storage.read(sel, count, buf);
  return ov.toUser(lane.values);
}

/** Writes user `data` to the `count` elements of `sel` through a lane. */
export async function writeObjects(storage: LaneStorage, ov: ObjectValues, data: unknown, sel: Selection, count: number, elementSize: number): Promise<void> {
  const values = ov.fromUser(data, count);
  if (count === 0) return;
  const buf = new Uint8Array(count * elementSize);
  attachLane(buf, { values });
  await storage.write!(sel, buf);
}
