/**
 * The text h5diff 1.10 prints: C `printf` `%g` / `%f` number formatting and the header and
 * difference lines of its report mode (h5diff_array.c's F_FORMAT / I_FORMAT layouts).
 * @module
 */

/** C's `%.<prec>g` for a double (glibc spelling of nan and inf). */
export function formatG(x: number, prec = 6): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const p = Math.max(1, prec);
  const [mant, expText] = x.toExponential(p - 1).split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= p) {
    const m = mant.includes('.') ? mant.replace(/0+$/, '').replace(/\.$/, '') : mant;
    return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const fixed = x.toFixed(Math.max(0, p - 1 - exp));
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}

/** C's `%f`. */
export function formatF(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  return x.toFixed(6);
}

/** `%-<w>s`. */
export function left(s: string, w: number): string {
  return s.length >= w ? s : s + ' '.repeat(w - s.length);
}

/** `size:           [2x3]           [2x3]` (H5S_SCALAR for scalars). */
export function sizeLine(shape1: readonly number[], shape2: readonly number[]): string {
  const dims = (s: readonly number[]): string => (s.length === 0 ? 'H5S_SCALAR' : `[${s.join('x')}]`);
  return `size:           ${dims(shape1)}           ${dims(shape2)}`;
}

/** The column header and rule of a difference table (`relative` adds the relative column of -p). */
export function tableHeader(name1: string, name2: string, relative: boolean): string[] {
  if (relative) {
    return [`${left('position', 16)}${left(name1, 15)} ${left(name2, 15)} ${left('difference', 15)} ${left('relative', 15)}`, '-'.repeat(72)];
  }
  return [`${left('position', 16)}${left(name1, 15)} ${left(name2, 15)} ${left('difference', 20)}`, '-'.repeat(60)];
}

/** The position column: `[ 1 2 ]` and ten spaces, or sixteen spaces for a scalar. */
export function position(coords: readonly number[]): string {
  return coords.length === 0 ? ' '.repeat(16) : `[ ${coords.join(' ')} ]          `;
}
