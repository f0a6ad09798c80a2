/**
 * Comparing chunkform's values and datatypes with the oracle's canonical JSON (see h5py_dump.py):
 * values are normalised to that JSON form and compared exactly (numbers with Object.is, so -0 ≠ 0;
 * NaN/±Infinity as strings), and every difference is reported with its location.
 * @module
 */
import { createHash } from 'node:crypto';
import type { DumpType } from './fixtures.js';

/** chunkform value → the oracle's JSON form (bigint → decimal string, NaN/±Infinity → strings, TypedArray → list). */
export function norm(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (v === Infinity) return 'Infinity';
    if (v === -Infinity) return '-Infinity';
    return v;
  }
  if (v === null || v === undefined || typeof v === 'string' || typeof v === 'boolean') return v;
  if (ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<unknown>, norm);
  if (Array.isArray(v)) return v.map(norm);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), norm(x)]));
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, norm(x)]));
  return String(v);
}

function show(v: unknown): string {
  if (Object.is(v, -0)) return '-0';
  const s = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
  if (s === undefined) return String(v);
  return s.length > 120 ? s.slice(0, 117) + '...' : s;
}

/** Exact structural comparison of two JSON-form values; pushes "where: expected X, got Y" lines to `out`. */
export function deepDiff(actual: unknown, expected: unknown, where: string, out: string[], limit = 20): void {
  if (out.length >= limit) return;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) {
      out.push(`${where}: expected a list of ${expected.length}, got ${show(actual)}`);
      return;
    }
    if (actual.length !== expected.length) {
      out.push(`${where}: expected ${expected.length} elements, got ${actual.length}`);
    }
    const n = Math.min(actual.length, expected.length);
    for (let i = 0; i < n && out.length < limit; i++) deepDiff(actual[i], expected[i], `${where}[${i}]`, out, limit);
    return;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      out.push(`${where}: expected ${show(expected)}, got ${show(actual)}`);
      return;
    }
    const ek = Object.keys(expected as object);
    const ak = Object.keys(actual as object);
    if (ek.join('\u0000') !== ak.join('\u0000')) out.push(`${where}: expected keys ${show(ek)}, got ${show(ak)}`);
    for (const k of ek) {
      if (k in (actual as object)) {
        deepDiff((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], `${where}.${k}`, out, limit);
      }
    }
    return;
  }
  if (!Object.is(actual, expected)) out.push(`${where}: expected ${show(expected)}, got ${show(actual)}`);
}

/** The Values container chunkform should return for elements of type `t` ('Array' for non-numeric). */
export function expectedContainer(t: DumpType): string {
  switch (t.class) {
    case 'integer': {
      const bits = (t.size ?? 0) * 8;
      if (bits === 64) return t.signed ? 'BigInt64Array' : 'BigUint64Array';
      if (bits === 8 || bits === 16 || bits === 32) return `${t.signed ? 'Int' : 'Uint'}${bits}Array`;
      return 'Array';
    }
    case 'enum':
      return expectedContainer(t.base!);
    case 'float':
      return t.size === 8 ? 'Float64Array' : 'Float32Array';
    default:
      return 'Array';
  }
}

/** Constructor name of a Values container. */
export function containerOf(v: unknown): string {
  if (ArrayBuffer.isView(v)) return v.constructor.name;
  if (Array.isArray(v)) return 'Array';
  return v === null ? 'null' : typeof v;
}

/**
 * Differences between chunkform's Datatype and the oracle's description: every field the oracle
 * gives must be equal (enum member values compared as decimal strings).
 */
export function dtypeDiff(actual: unknown, expected: DumpType, where: string, out: string[]): void {
  const a = actual as Record<string, unknown> | undefined;
  if (!a || typeof a !== 'object') {
    out.push(`${where}: expected datatype ${show(expected)}, got ${show(actual)}`);
    return;
  }
  for (const [k, ev] of Object.entries(expected)) {
    const av = a[k];
    if (k === 'base' || k === 'type') {
      dtypeDiff(av, ev as DumpType, `${where}.${k}`, out);
    } else if (k === 'members') {
      const em = ev as NonNullable<DumpType['members']>;
      const am = av as Record<string, unknown>[] | undefined;
      if (!Array.isArray(am) || am.length !== em.length) {
        out.push(`${where}.members: expected ${em.length} members, got ${Array.isArray(am) ? am.length : show(am)}`);
        continue;
      }
      em.forEach((m, i) => {
        const x = am[i]!;
        if (x.name !== m.name) out.push(`${where}.members[${i}].name: expected ${show(m.name)}, got ${show(x.name)}`);
        if (m.offset !== undefined && x.offset !== m.offset) {
          out.push(`${where}.members[${i}].offset: expected ${m.offset}, got ${show(x.offset)}`);
        }
        if (m.value !== undefined && String(x.value) !== String(m.value)) {
          out.push(`${where}.members[${i}].value: expected ${m.value}, got ${show(x.value)}`);
        }
        if (m.type) dtypeDiff(x.type, m.type, `${where}.members[${i}].type`, out);
      });
    } else if (k === 'dims') {
      if (show(av) !== show(ev)) out.push(`${where}.dims: expected ${show(ev)}, got ${show(av)}`);
    } else if (av !== ev) {
      out.push(`${where}.${k}: expected ${show(ev)}, got ${show(av)}`);
    }
  }
}

const DIGEST_CONTAINERS: Record<string, string> = {
  '<f8': 'Float64Array',
  '<f4': 'Float32Array',
  '<i1': 'Int8Array',
  '|i1': 'Int8Array',
  '<u1': 'Uint8Array',
  '|u1': 'Uint8Array',
  '<i2': 'Int16Array',
  '<u2': 'Uint16Array',
  '<i4': 'Int32Array',
  '<u4': 'Uint32Array',
  '<i8': 'BigInt64Array',
  '<u8': 'BigUint64Array',
};

/** Checks a large numeric read against the oracle's digest (SHA-256 of the little-endian elements). */
export function digestDiff(
  actual: unknown,
  d: { sha256: string; count: number; dtype: string; head: unknown[] },
  where: string,
  out: string[],
): void {
  const want = DIGEST_CONTAINERS[d.dtype];
  if (!ArrayBuffer.isView(actual) || actual.constructor.name !== want) {
    out.push(`${where}: expected a ${want} of ${d.count}, got ${containerOf(actual)}`);
    return;
  }
  const ta = actual as unknown as ArrayLike<unknown> & ArrayBufferView;
  if (ta.length !== d.count) out.push(`${where}: expected ${d.count} elements, got ${ta.length}`);
  deepDiff(norm(Array.prototype.slice.call(ta, 0, d.head.length)), d.head, `${where}[head]`, out);
  const bytes = new Uint8Array(ta.buffer, ta.byteOffset, ta.byteLength);
  const got = createHash('sha256').update(bytes).digest('hex');
  if (got !== d.sha256) out.push(`${where}: SHA-256 of the values differs (expected ${d.sha256}, got ${got})`);
}
