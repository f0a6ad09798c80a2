/**
 * Element text as h5dump 1.10 prints it (`h5tools_str_sprint`): integers in decimal, floats with
 * `%g` (or `-m`), enum members by name, strings quoted with C escapes and their padding bytes,
 * arrays as `[ a, b ]`, variable-length sequences as `(a, b)`.
 * @module
 */
import type { Datatype } from '@chunkform/core';
import { formatFloat, type FloatFormat } from './printf.js';

/** Turns element `i` of a block of read values into its text. */
export type ElementFormatter = (values: unknown, i: number) => string;

const ESC: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r', 34: '\\"', 92: '\\\\' };

/**
 * A string value quoted the way h5dump prints it; fixed-size strings show their padding. With
 * `escape` (h5dump -e, and always in h5ls) quotes, backslashes and control characters are escaped;
 * without it only NUL characters are (as `\000`).
 */
export function quoteString(s: string, t: Extract<Datatype, { class: 'string' }>, escape = true): string {
  let body = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const e = escape ? ESC[c] : undefined;
    if (e !== undefined) body += e;
    else if (c === 0 || (escape && (c < 0x20 || c === 0x7f))) body += `\\${c.toString(8).padStart(3, '0')}`;
    else body += s[i];
  }
  if (typeof t.length === 'number' && t.padding !== 'nullterm') {
    const used = Buffer.byteLength(s, 'utf8');
    if (used < t.length) body += (t.padding === 'nullpad' ? '\\000' : ' ').repeat(t.length - used);
  }
  return `"${body}"`;
}

/** The formatter of one element of type `t`. */
export function elementFormatter(t: Datatype, float: FloatFormat, escape = true): ElementFormatter {
  switch (t.class) {
    case 'integer':
    case 'bitfield':
    case 'time':
      return (v, i) => String((v as ArrayLike<number | bigint>)[i]);
    case 'float':
      return (v, i) => formatFloat(Number((v as ArrayLike<number>)[i]), float);
    case 'enum': {
      const names = new Map<string, string>(t.members.map((m) => [String(m.value), m.name]));
      return (v, i) => {
        const x = String((v as ArrayLike<number | bigint>)[i]);
        return names.get(x) ?? x;
      };
    }
    case 'string':
      return (v, i) => {
        const s = (v as ArrayLike<unknown>)[i];
        return s === null || s === undefined ? 'NULL' : quoteString(String(s), t, escape);
      };
    case 'array': {
      const one = valueFormatter(t.base, float, escape);
      return (v, i) => {
        const items = Array.from((v as ArrayLike<unknown>)[i] as ArrayLike<unknown>, (x) => one(x));
        return `[ ${items.join(', ')} ]`;
      };
    }
    case 'vlen': {
      const one = valueFormatter(t.base, float, escape);
      return (v, i) => `(${Array.from((v as ArrayLike<unknown>)[i] as ArrayLike<unknown>, (x) => one(x)).join(', ')})`;
    }
    case 'compound': {
      const members = t.members.map((m) => ({ name: m.name, f: valueFormatter(m.type, float, escape) }));
      return (v, i) => {
        const rec = (v as ArrayLike<Record<string, unknown>>)[i]!;
        return `{${members.map((m) => m.f(rec[m.name])).join(', ')}}`;
      };
    }
    default:
      return (v, i) => {
        const x = (v as ArrayLike<unknown>)[i];
        return x instanceof Uint8Array ? Array.from(x, (b) => b.toString(16).padStart(2, '0')).join(':') : String(x);
      };
  }
}

/** The formatter of a single value (not an element of a block), e.g. a compound member or a fill value. */
export function valueFormatter(t: Datatype, float: FloatFormat, escape = true): (x: unknown) => string {
  const f = elementFormatter(t, float, escape);
  return (x) => f([x], 0);
}
