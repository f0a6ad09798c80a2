/**
 * Element comparison of `chunkform diff`: h5diff's rules for when two values differ (exact, `-d`
 * absolute delta, `-p` relative, `--use-system-epsilon`; NaN equals NaN) and the report line of
 * each difference.
 * @module
 */
import { formatF, formatG, left, position } from './format.js';

/** How values are compared. */
export interface CompareRules {
  delta?: number | undefined;
  relative?: number | undefined;
  /** Float epsilon to use (`--use-system-epsilon`): FLT_EPSILON or DBL_EPSILON by element size. */
  epsilon?: number | undefined;
}

/** FLT_EPSILON and DBL_EPSILON. */
export const FLT_EPSILON = 1.1920928955078125e-7;
export const DBL_EPSILON = 2.220446049250313e-16;

/** One side's values in a block: numbers, bigints or strings. */
export type Column = ArrayLike<number> | ArrayLike<bigint> | ArrayLike<string>;

/** Result of comparing two elements: equal, or the text of the difference line's value columns. */
export function compareAt(a: Column, b: Column, i: number, isFloat: boolean, rules: CompareRules): string | null {
  const x = a[i]!;
  const y = b[i]!;
  if (typeof x === 'string' || typeof y === 'string') return x === y ? null : `${left(String(x), 15)} ${left(String(y), 15)}`;
  if (typeof x === 'bigint' || typeof y === 'bigint') {
    const bx = BigInt(x);
    const by = BigInt(y);
    const d = bx > by ? bx - by : by - bx;
    if (rules.relative !== undefined) {
      if (bx === 0n) return by === 0n ? null : relativeLine(String(bx), String(by), String(d), 'not comparable');
      const rel = Number(d) / Math.abs(Number(bx));
      return rel > rules.relative ? relativeLine(String(bx), String(by), String(d), formatF(rel)) : null;
    }
    if (rules.delta !== undefined ? Number(d) <= rules.delta : d === 0n) return null;
    return `${left(String(bx), 15)} ${left(String(by), 15)} ${left(String(d), 15)}`;
  }
  const nx = x as number;
  const ny = y as number;
  const fmt = (v: number, prec: number): string => (isFloat ? formatG(v, prec) : String(v));
  if (Number.isNaN(nx) || Number.isNaN(ny)) {
    if (Number.isNaN(nx) && Number.isNaN(ny)) return null;
    // h5diff prints the difference of a NaN as glibc prints the x86 default NaN
    return rules.relative !== undefined
      ? relativeLine(fmt(nx, 10), fmt(ny, 10), '-nan', '-nan')
      : `${left(fmt(nx, 6), 15)} ${left(fmt(ny, 6), 15)} ${left('-nan', 15)}`;
  }
  const d = Math.abs(nx - ny);
  if (rules.relative !== undefined) {
    // h5diff takes |x| < DBL_EPSILON as zero (H5_DBL_ABS_EQUAL): both zero are equal, x zero is not comparable
    const zero = (v: number): boolean => (isFloat ? Math.abs(v) < DBL_EPSILON : v === 0);
    if (zero(nx)) return zero(ny) ? null : relativeLine(fmt(nx, 10), fmt(ny, 10), fmt(d, 10), 'not comparable');
    const rel = d / Math.abs(nx);
    if (!(rel > rules.relative)) return null;
    return relativeLine(fmt(nx, 10), fmt(ny, 10), fmt(d, 10), isFloat ? formatG(rel) : formatF(rel));
  }
  const limit = rules.delta ?? (isFloat ? rules.epsilon : undefined);
  if (limit !== undefined ? !(d > limit) : nx === ny) return null;
  return `${left(fmt(nx, 6), 15)} ${left(fmt(ny, 6), 15)} ${left(fmt(d, 6), 15)}`;
}

function relativeLine(x: string, y: string, d: string, rel: string): string {
  return `${left(x, 15)} ${left(y, 15)} ${left(d, 15)} ${left(rel, 14)}`;
}

/** The difference line of an element defined on one side only (`--defined`). */
export function definedLine(coords: readonly number[], a: string, b: string): string {
  return `${position(coords)}${left(a, 15)} ${left(b, 15)} ${left('defined differs', 15)}`.trimEnd();
}

/** Coordinates of flat index `i` of a block starting at `start` with extent `dims`. */
export function coordsOf(i: number, start: readonly number[], dims: readonly number[]): number[] {
  const out = new Array<number>(dims.length);
  for (let d = dims.length - 1; d >= 0; d--) {
    out[d] = start[d]! + (i % dims[d]!);
    i = Math.floor(i / dims[d]!);
  }
  return out;
}
