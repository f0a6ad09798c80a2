/**
 * Sparse matrix converters: store a COO, CSR or CSC matrix in a dataset (sparse, or any format
 * that tracks defined elements) in one call and read it back in the same form. The defined
 * elements are the stored entries; everything else reads as the fill value.
 * @module
 */
import { ValueError, selectPoints, selectionRuns, type Dataset, type Selection, type Values } from '@chunkform/core';

/** Coordinate-list form: `coords[k]` is the index of `values[k]` (one array per dimension). */
export interface CooMatrix {
  /** One coordinate array per dimension, all of the same length. */
  coords: Float64Array[];
  values: Values;
}

/** Compressed sparse rows (2-D): row i's entries are `indices/data[indptr[i] .. indptr[i+1])`. */
export interface CsrMatrix {
  indptr: Float64Array;
  indices: Float64Array;
  data: Values;
}

/** Compressed sparse columns (2-D): column j's entries are `indices/data[indptr[j] .. indptr[j+1])`. */
export type CscMatrix = CsrMatrix;

/** Coordinates (one array per dimension) of every element of `sel`, in selection order. */
export function selectionCoordinates(sel: Selection, dims: readonly number[]): Float64Array[] {
  const runs = selectionRuns(sel, dims);
  let n = 0;
  for (let i = 1; i < runs.length; i += 2) n += runs[i]!;
  const rank = dims.length;
  const out = Array.from({ length: rank }, () => new Float64Array(n));
  let k = 0;
  for (let i = 0; i < runs.length; i += 2) {
    let lin = runs[i]!;
    const len = runs[i + 1]!;
    // Unravel the run start once, then step the last coordinate (a run never wraps a row).
    const c = new Array<number>(rank);
    for (let d = rank - 1; d >= 0; d--) {
      c[d] = lin % dims[d]!;
      lin = Math.floor(lin / dims[d]!);
    }
    for (let j = 0; j < len; j++, k++) {
      for (let d = 0; d < rank - 1; d++) out[d]![k] = c[d]!;
      out[rank - 1]![k] = c[rank - 1]! + j;
    }
  }
  return out;
}

function pointsOf(coords: readonly ArrayLike<number>[], rank: number): Float64Array {
  if (coords.length !== rank) throw new ValueError(`${coords.length} coordinate arrays for a dataset of rank ${rank}`);
  const n = coords[0]?.length ?? 0;
  for (const c of coords) if (c.length !== n) throw new ValueError('coordinate arrays differ in length');
  const flat = new Float64Array(n * rank);
  for (let d = 0; d < rank; d++) {
    const c = coords[d]!;
    for (let k = 0; k < n; k++) flat[k * rank + d] = c[k]!;
  }
  return flat;
}

/** Writes a COO matrix: the listed elements become defined with the given values. */
export async function writeCoo(dset: Dataset, m: { coords: readonly ArrayLike<number>[]; values: unknown }): Promise<void> {
  const rank = dset.shape.length;
  const flat = pointsOf(m.coords, rank);
  if (flat.length === 0) return;
  await dset.write(m.values, selectPoints(flat, rank));
}

/** Reads the defined elements as a COO matrix (C order). */
export async function readCoo(dset: Dataset): Promise<CooMatrix> {
  const { selection, values } = await dset.readDefined();
  return { coords: selectionCoordinates(selection, dset.shape), values };
}

/** Writes a CSR (`byColumns` false) or CSC (true) matrix into a 2-D dataset. */
export async function writeCompressed(dset: Dataset, m: { indptr: ArrayLike<number>; indices: ArrayLike<number>; data: unknown }, byColumns = false): Promise<void> {
  const [rows, cols] = check2d(dset);
  const outer = byColumns ? cols : rows;
  if (m.indptr.length !== outer + 1) throw new ValueError(`indptr has ${m.indptr.length} entries, ${outer + 1} expected`);
  const nnz = m.indptr[outer]!;
  if (m.indices.length !== nnz) throw new ValueError(`indices has ${m.indices.length} entries, indptr says ${nnz}`);
  const a = new Float64Array(nnz);
  const b = new Float64Array(nnz);
  for (let o = 0; o < outer; o++) {
    const from = m.indptr[o]!;
    const to = m.indptr[o + 1]!;
    if (!(from <= to) || to > nnz) throw new ValueError(`indptr is not non-decreasing at ${o}`);
    for (let k = from; k < to; k++) {
      a[k] = o;
      b[k] = m.indices[k]!;
    }
  }
  await writeCoo(dset, { coords: byColumns ? [b, a] : [a, b], values: m.data });
}

/** Reads the defined elements of a 2-D dataset as CSR (`byColumns` false) or CSC (true). */
export async function readCompressed(dset: Dataset, byColumns = false): Promise<CsrMatrix> {
  const [rows, cols] = check2d(dset);
  const { coords, values } = await readCoo(dset);
  const [r, c] = coords as [Float64Array, Float64Array];
  const n = r.length;
  const outer = byColumns ? cols : rows;
  const major = byColumns ? c : r;
  const minor = byColumns ? r : c;
  const indptr = new Float64Array(outer + 1);
  for (let k = 0; k < n; k++) indptr[major[k]! + 1]!++;
  for (let o = 0; o < outer; o++) indptr[o + 1]! += indptr[o]!;
  if (!byColumns) return { indptr, indices: minor.slice(), data: values };
  // Column order: a stable counting sort of the (row-major) entries by column.
  const order = new Float64Array(n);
  const next = indptr.slice(0, outer);
  for (let k = 0; k < n; k++) order[next[major[k]!]!++] = k;
  const indices = new Float64Array(n);
  for (let k = 0; k < n; k++) indices[k] = minor[order[k]!]!;
  return { indptr, indices, data: permute(values, order) };
}

function permute(values: Values, order: Float64Array): Values {
  const v = values as unknown as { length: number; [i: number]: unknown; constructor: new (n: number) => unknown };
  const out = (ArrayBuffer.isView(values) ? new v.constructor(order.length) : new Array(order.length)) as { [i: number]: unknown };
  for (let k = 0; k < order.length; k++) out[k] = v[order[k]!];
  return out as unknown as Values;
}

function check2d(dset: Dataset): [number, number] {
  const s = dset.shape;
  if (s.length !== 2) throw new ValueError(`CSR/CSC needs a 2-D dataset, "${dset.path}" has rank ${s.length}`);
  return [s[0]!, s[1]!];
}
