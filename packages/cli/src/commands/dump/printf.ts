/**
 * C printf conversions of floating-point numbers (`%g`, `%e`, `%f` with flags, width and precision),
 * as h5dump prints values: `%g` by default, or the format given with `-m`.
 * @module
 */
import { UsageError } from '../../cli/io.js';

/** A parsed `%[flags][width][.precision]conv` format with its surrounding text. */
export interface FloatFormat {
  prefix: string;
  suffix: string;
  flags: string;
  width: number;
  precision: number | undefined;
  conv: 'g' | 'G' | 'e' | 'E' | 'f' | 'F';
}

/** Parses a `-m` format such as `%.3f` or `%12.6e`; throws UsageError for anything else. */
export function parseFloatFormat(fmt: string): FloatFormat {
  const m = /^([^%]*)%([-+ #0]*)(\d*)(?:\.(\d*))?(l?)([gGeEfF])([^%]*)$/.exec(fmt);
  if (!m) throw new UsageError(`bad -m format "${fmt}": expected one %g, %e or %f conversion, e.g. %.3f`);
  return {
    prefix: m[1]!,
    flags: m[2]!,
    width: m[3] ? Number(m[3]) : 0,
    precision: m[4] === undefined ? undefined : Number(m[4] || '0'),
    conv: m[6] as FloatFormat['conv'],
    suffix: m[7]!,
  };
}

/** `%g` (h5dump's default for floats and doubles). */
export const DEFAULT_FLOAT_FORMAT: FloatFormat = parseFloatFormat('%g');

function expDigits(e: number): string {
  const a = Math.abs(e);
  return `${e < 0 ? '-' : '+'}${a < 10 ? '0' : ''}${a}`;
}

/** `|x|` in %e form with `p` fraction digits. */
function fmtE(x: number, p: number, alt: boolean): string {
  const s = x.toExponential(Math.min(p, 100));
  const i = s.indexOf('e');
  let mant = s.slice(0, i);
  if (alt && p === 0) mant += '.';
  return `${mant}e${expDigits(Number(s.slice(i + 1)))}`;
}

/** `|x|` in %f form with `p` fraction digits (exact for any magnitude). */
function fmtF(x: number, p: number, alt: boolean): string {
  let s: string;
  if (x < 1e21) s = x.toFixed(Math.min(p, 100));
  else s = BigInt(x).toString() + (p > 0 ? `.${'0'.repeat(p)}` : '');
  if (alt && p === 0) s += '.';
  return s;
}

function stripZeros(s: string): string {
  if (!s.includes('.')) return s;
  const e = s.indexOf('e');
  const mant = e < 0 ? s : s.slice(0, e);
  const rest = e < 0 ? '' : s.slice(e);
  return mant.replace(/\.?0+$/, '') + rest;
}

/** |x| in %g form with precision `p`. */
function fmtG(x: number, p: number, alt: boolean): string {
  const P = p === 0 ? 1 : p;
  if (x === 0) return alt ? `0.${'0'.repeat(P - 1)}` : '0';
  const exp = Number(x.toExponential(P - 1).split('e')[1]);
  const s = P > exp && exp >= -4 ? fmtF(x, P - 1 - exp, alt) : fmtE(x, P - 1, alt);
  return alt ? s : stripZeros(s);
}

/** Formats `x` as C's printf would with `f`. */
export function formatFloat(x: number, f: FloatFormat): string {
  const neg = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  const upper = f.conv === 'G' || f.conv === 'E' || f.conv === 'F';
  const alt = f.flags.includes('#');
  let body: string;
  if (Number.isNaN(x)) body = 'nan';
  else if (!Number.isFinite(x)) body = 'inf';
  else {
    const p = f.precision ?? 6;
    const c = f.conv.toLowerCase();
    body = c === 'g' ? fmtG(ax, p, alt) : c === 'e' ? fmtE(ax, p, alt) : fmtF(ax, p, alt);
  }
  if (upper) body = body.toUpperCase();
  const sign = neg && !Number.isNaN(x) ? '-' : f.flags.includes('+') ? '+' : f.flags.includes(' ') ? ' ' : '';
  let s = sign + body;
  if (s.length < f.width) {
    if (f.flags.includes('-')) s = s.padEnd(f.width);
    else if (f.flags.includes('0') && Number.isFinite(x)) s = sign + body.padStart(f.width - sign.length, '0');
    else s = s.padStart(f.width);
  }
  return f.prefix + s + f.suffix;
}
