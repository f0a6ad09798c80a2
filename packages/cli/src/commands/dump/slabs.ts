/**
 * Cutting a hyperslab selection of a dataset into slabs that each hold at most a bounded number of
 * bytes, in C order, so `dump` reads and prints any dataset with bounded memory. A slab is itself a
 * hyperslab: single coordinates in the outer dimensions, a run of blocks in one dimension, and the
 * whole selection in the inner dimensions (runs aligned to chunk rows where the selection allows).
 * @module
 */
import { selectHyperslab, type Dataset, type HyperslabSelection, type Selection } from '@chunkform/core';

/** A per-dimension regular hyperslab (h5dump's -s/-S/-c/-k). */
export interface Subset {
  start: number[];
  stride: number[];
  count: number[];
  block: number[];
}

/** The whole of `shape` as a subset. */
export function fullSubset(shape: readonly number[]): Subset {
  return { start: shape.map(() => 0), stride: shape.map(() => 1), count: [...shape], block: shape.map(() => 1) };
}

/** Number of selected elements along each dimension. */
export function extents(s: Subset): number[] {
  return s.count.map((c, d) => c * s.block[d]!);
}

/** Coordinate of the `j`-th selected element along dimension `d`. */
export function coordAt(s: Subset, d: number, j: number): number {
  const b = s.block[d]!;
  return s.start[d]! + Math.floor(j / b) * s.stride[d]! + (j % b);
}

/** One slab: its selection and the number of elements it holds. */
export interface Slab {
  selection: HyperslabSelection;
  elements: number;
}

/** Largest number of elements a slab of {@link slabs} holds for these arguments. */
export function maxSlabElements(s: Subset, elementSize: number, budgetBytes: number): number {
  let max = 0;
  for (const slab of slabs(s, elementSize, budgetBytes)) {
    max = Math.max(max, slab.elements);
    break; // the first slab is the largest (later ones are only shorter in the split dimension)
  }
  return max;
}

/** The slabs of `s` in C order, each at most about `budgetBytes` (but at least one block of one row). */
export function* slabs(s: Subset, elementSize: number, budgetBytes: number, chunkDims?: readonly number[] | null): Generator<Slab> {
  const rank = s.count.length;
  const ext = extents(s);
  if (ext.some((e) => e === 0)) return;
  const budget = Math.max(1, Math.floor(budgetBytes / Math.max(1, elementSize)));
  // split dimension k: the first whose inner part fits the budget
  let k = rank - 1;
  let inner = 1;
  for (let d = rank - 1; d >= 0; d--) {
    if (inner * ext[d]! > budget) break;
    inner *= ext[d]!;
    k = d - 1;
  }
  if (k < 0) {
    yield { selection: selectHyperslab({ start: s.start, stride: s.stride, count: s.count, block: s.block }), elements: inner };
    return;
  }
  const bk = s.block[k]!;
  let perSlab = Math.max(1, Math.floor(budget / (inner * bk)));
  const chunk = chunkDims?.[k];
  if (chunk && s.stride[k] === 1 && bk === 1 && perSlab > chunk) perSlab -= perSlab % chunk;
  const outer = ext.slice(0, k);
  const idx = outer.map(() => 0);
  for (;;) {
    for (let b0 = 0; b0 < s.count[k]!; b0 += perSlab) {
      const m = Math.min(perSlab, s.count[k]! - b0);
      const start: number[] = [];
      const stride: number[] = [];
      const count: number[] = [];
      const block: number[] = [];
      for (let d = 0; d < rank; d++) {
        if (d < k) {
          start.push(coordAt(s, d, idx[d]!));
          stride.push(1);
          count.push(1);
          block.push(1);
        } else if (d === k) {
          start.push(s.start[d]! + b0 * s.stride[d]!);
          stride.push(s.stride[d]!);
          count.push(m);
          block.push(bk);
        } else {
          start.push(s.start[d]!);
          stride.push(s.stride[d]!);
          count.push(s.count[d]!);
          block.push(s.block[d]!);
        }
      }
      yield { selection: selectHyperslab({ start, stride, count, block }), elements: m * bk * inner };
    }
    let d = k - 1;
    while (d >= 0) {
      if (++idx[d]! < outer[d]!) break;
      idx[d] = 0;
      d--;
    }
    if (d < 0) return;
  }
}

type NumericCtor = new (n: number) => ArrayLike<number | bigint> & { subarray(a: number, b: number): unknown };

/** The TypedArray class `readInto` fills for an integer or float type, or undefined. */
function numericArray(t: Dataset['dtype']): NumericCtor | undefined {
  if (t.class === 'integer') {
    const m: Record<number, [NumericCtor, NumericCtor]> = {
      1: [Int8Array, Uint8Array],
      2: [Int16Array, Uint16Array],
      4: [Int32Array, Uint32Array],
      8: [BigInt64Array as unknown as NumericCtor, BigUint64Array as unknown as NumericCtor],
    };
    const pair = m[t.size];
    return pair ? pair[t.signed ? 0 : 1] : undefined;
  }
  if (t.class === 'float') return t.size === 4 ? Float32Array : t.size === 8 ? Float64Array : undefined;
  return undefined;
}

/**
 * Reads slabs of `ds`: integer and float values land in one buffer reused for every slab (no
 * allocation per slab; the values of a slab are valid until the next read), others are read anew.
 */
export function slabReader(ds: Dataset, maxElements: number): (sel: Selection, n: number) => Promise<unknown> {
  const Ctor = numericArray(ds.dtype);
  if (!Ctor) return (sel) => ds.read(sel);
  let buf: InstanceType<NumericCtor> | undefined;
  return async (sel, n) => {
    buf ??= new Ctor(maxElements);
    return ds.readInto(buf.subarray(0, n) as never, sel);
  };
}
