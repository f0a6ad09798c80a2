/**
 * The dense reference model of the sparse-dataset model tests (test/sparse-model.test.ts): values and
 * a defined mask over a fixed "capacity" box (the largest shape a run can reach), selection recipes
 * (random fractions mapped onto the current shape, so a recipe stays valid after a resize) and an
 * element enumerator written independently of chunkform's selection code.
 * @module
 */
import {
  selectAll,
  selectBlocks,
  selectHyperslab,
  selectPoints,
  type Selection,
} from '../../packages/core/src/index.js';

/** Element types the model tests use, with their value ranges and typed-array constructors. */
export const MODEL_DTYPES = {
  '<i1': { min: -128, range: 256, size: 1 },
  '<u2': { min: 0, range: 65536, size: 2 },
  '>i2': { min: -32768, range: 65536, size: 2 },
  '<i4': { min: -1_000_000, range: 2_000_000, size: 4 },
  '<f8': { min: -1000, range: 2000, size: 8, scale: 0.25 },
} as const;
export type ModelDtype = keyof typeof MODEL_DTYPES;

/** The `k`-th value of a write seeded with `seed`, in the range of `dtype` (floats: exact quarters). */
export function modelValue(dtype: ModelDtype, seed: number, k: number): number {
  const t = MODEL_DTYPES[dtype];
  const v = t.min + ((((seed * 2654435761) >>> 0) + k * 7919 + ((k * k) % 101)) % t.range);
  return 'scale' in t ? v * t.scale : v;
}

export const volume = (dims: readonly number[]): number => dims.reduce((a, b) => a * b, 1);

/** Row-major linear index of `c` in `dims`. */
export function linear(c: readonly number[], dims: readonly number[]): number {
  let i = 0;
  for (let d = 0; d < dims.length; d++) i = i * dims[d]! + c[d]!;
  return i;
}

/** The coordinates of row-major index `i` in `dims`. */
export function unravel(i: number, dims: readonly number[]): number[] {
  const c = new Array<number>(dims.length);
  for (let d = dims.length - 1; d >= 0; d--) {
    c[d] = i % dims[d]!;
    i = Math.floor(i / dims[d]!);
  }
  return c;
}

/** Every coordinate of `dims` in C order. */
export function allCoords(dims: readonly number[]): number[][] {
  const n = volume(dims);
  const out: number[][] = [];
  for (let i = 0; i < n; i++) out.push(unravel(i, dims));
  return out;
}

/**
 * The elements of `sel` in its iteration order (C order for all/hyperslab/blocks, list order for
 * points), computed by brute force from the selection's definition — not with chunkform's code.
 */
export function enumerate(sel: Selection, dims: readonly number[]): number[][] {
  switch (sel.kind) {
    case 'none':
      return [];
    case 'all':
      return allCoords(dims);
    case 'points': {
      const out: number[][] = [];
      for (let p = 0; p < sel.pointCount; p++) out.push(Array.from(sel.coords.subarray(p * sel.rank, (p + 1) * sel.rank)));
      return out;
    }
    case 'hyperslab': {
      const inDim = (x: number, d: number): boolean => {
        const rel = x - sel.start[d]!;
        if (rel < 0) return false;
        const k = Math.floor(rel / sel.stride[d]!);
        return k < sel.count[d]! && rel - k * sel.stride[d]! < sel.block[d]!;
      };
      return allCoords(dims).filter((c) => c.every((x, d) => inDim(x, d)));
    }
    case 'blocks': {
      const r = sel.rank;
      const inBox = (c: number[], b: number): boolean =>
        c.every((x, d) => x >= sel.boxes[b * 2 * r + 2 * d]! && x < sel.boxes[b * 2 * r + 2 * d + 1]!);
      return allCoords(dims).filter((c) => {
        for (let b = 0; b < sel.boxCount; b++) if (inBox(c, b)) return true;
        return false;
      });
    }
  }
}

/** A selection described by random fractions, mapped onto whatever shape the dataset has when it runs. */
export interface SelRecipe {
  kind: 'hyperslab' | 'blocks' | 'points' | 'all';
  /** Fractions in [0, 1). */
  fr: number[];
}

/** Number of fractions a recipe carries (enough for 4 boxes of rank 4, or 8 points of rank 4). */
export const RECIPE_FRACTIONS = 40;

/** The selection a recipe describes on `shape` (every dimension ≥ 1) and its elements in iteration order. */
export function selectionOf(recipe: SelRecipe, shape: readonly number[]): { sel: Selection; coords: number[][] } {
  const rank = shape.length;
  let at = 0;
  const next = (): number => recipe.fr[at++ % recipe.fr.length]!;
  const pick = (n: number): number => Math.min(n - 1, Math.floor(next() * n)); // 0 … n-1
  let sel: Selection;
  switch (recipe.kind) {
    case 'all':
      sel = selectAll();
      break;
    case 'hyperslab': {
      const start: number[] = [];
      const stride: number[] = [];
      const count: number[] = [];
      const block: number[] = [];
      for (let d = 0; d < rank; d++) {
        const n = shape[d]!;
        const s = pick(n);
        const b = 1 + pick(Math.min(3, n - s));
        const st = b + pick(3);
        const maxCount = Math.floor((n - s - b) / st) + 1;
        start.push(s);
        block.push(b);
        stride.push(st);
        count.push(1 + pick(maxCount));
      }
      sel = selectHyperslab({ start, stride, count, block });
      break;
    }
    case 'blocks': {
      const boxes = Array.from({ length: 1 + pick(4) }, () => {
        const start = shape.map((n) => pick(n));
        const end = start.map((s, d) => s + 1 + pick(Math.min(4, shape[d]! - s)));
        return { start, end };
      });
      sel = selectBlocks(boxes);
      break;
    }
    case 'points': {
      const seen = new Set<number>();
      const pts: number[][] = [];
      const n = 1 + pick(8);
      for (let p = 0; p < n; p++) {
        const c = shape.map((m) => pick(m));
        const key = linear(c, shape);
        if (!seen.has(key)) {
          seen.add(key);
          pts.push(c);
        }
      }
      sel = selectPoints(pts);
      break;
    }
  }
  return { sel, coords: enumerate(sel, shape) };
}

/** Short text of a selection for failure messages. */
export function describeSelection(sel: Selection): string {
  switch (sel.kind) {
    case 'all':
    case 'none':
      return sel.kind;
    case 'points':
      return `points ${JSON.stringify(enumerate(sel, []))}`;
    case 'hyperslab':
      return `hyperslab start ${JSON.stringify(sel.start)} stride ${JSON.stringify(sel.stride)} count ${JSON.stringify(sel.count)} block ${JSON.stringify(sel.block)}`;
    case 'blocks':
      return `blocks ${JSON.stringify(Array.from(sel.boxes))}`;
  }
}

/** The dense reference: values and defined flags over the capacity box; undefined elements read as the fill value. */
export class SparseModel {
  readonly values: Float64Array;
  readonly defined: Uint8Array;
  shape: number[];

  constructor(
    readonly cap: readonly number[],
    shape: readonly number[],
    readonly chunks: readonly number[],
    readonly fill: number,
  ) {
    this.values = new Float64Array(volume(cap));
    this.defined = new Uint8Array(volume(cap));
    this.shape = shape.slice();
  }

  private at(c: readonly number[]): number {
    return linear(c, this.cap);
  }

  write(coords: readonly number[][], values: readonly number[]): void {
    coords.forEach((c, k) => {
      const i = this.at(c);
      this.values[i] = values[k]!;
      this.defined[i] = 1;
    });
  }

  erase(coords: readonly number[][]): void {
    for (const c of coords) this.defined[this.at(c)] = 0;
  }

  /** What a read of `coords` returns. */
  read(coords: readonly number[][]): number[] {
    return coords.map((c) => {
      const i = this.at(c);
      return this.defined[i] ? this.values[i]! : this.fill;
    });
  }

  isDefined(c: readonly number[]): boolean {
    return this.defined[this.at(c)] === 1;
  }

  /** Row-major indices (in the current shape) of the defined elements among `coords`, sorted. */
  definedAmong(coords: readonly number[][]): number[] {
    return coords.filter((c) => this.isDefined(c)).map((c) => linear(c, this.shape)).sort((a, b) => a - b);
  }

  /** New shape: elements outside it become undefined (a shrink erases them; a later growth shows fill). */
  resize(shape: readonly number[]): void {
    this.shape = shape.slice();
    for (let i = 0; i < this.defined.length; i++) {
      if (!this.defined[i]) continue;
      const c = unravel(i, this.cap);
      if (c.some((x, d) => x >= shape[d]!)) this.defined[i] = 0;
    }
  }

  /** Element offsets of the chunks (within the current shape) holding at least one defined element, as "a,b,c" keys. */
  chunksWithDefined(): Map<string, number> {
    const out = new Map<string, number>();
    for (let i = 0; i < this.defined.length; i++) {
      if (!this.defined[i]) continue;
      const c = unravel(i, this.cap);
      if (c.some((x, d) => x >= this.shape[d]!)) continue;
      const key = c.map((x, d) => Math.floor(x / this.chunks[d]!) * this.chunks[d]!).join(',');
      out.set(key, (out.get(key) ?? 0) + 1);
    }
    return out;
  }
}
