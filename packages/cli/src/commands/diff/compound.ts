/**
 * Compound values in `chunkform diff`, compared as h5diff 1.10 does (`diff_datum` over the members):
 * member by member in declaration order, nested compounds flattened, one difference line per
 * differing number member, and strings character by character — one line per differing character,
 * printed as h5diff prints it (the second file's character first).
 * @module
 */
import type { Datatype } from '@chunkform/core';
import { compareAt, DBL_EPSILON, FLT_EPSILON, type Column, type CompareRules } from './compare.js';

/** One atomic member reached through `path` (names of nested members). */
export interface Leaf {
  path: string[];
  /** The same member's path in the second type (members are matched by position, as h5diff does). */
  path2: string[];
  kind: 'number' | 'string';
  isFloat: boolean;
  /** Largest size in bytes of the member's type on either side. */
  size: number;
}

function atomicKind(t: Datatype): 'number' | 'string' | null {
  if (t.class === 'integer' || t.class === 'float' || t.class === 'enum' || t.class === 'bitfield') return 'number';
  if (t.class === 'string') return 'string';
  return null;
}

function typeSize(t: Datatype): number {
  return 'size' in t && typeof t.size === 'number' ? t.size : 0;
}

/** The atomic members of two compound types, or null when h5diff finds them not comparable. */
export function compoundLeaves(t1: Datatype, t2: Datatype, path: string[] = [], path2: string[] = []): Leaf[] | null {
  if (t1.class !== 'compound' || t2.class !== 'compound' || t1.members.length !== t2.members.length) return null;
  const out: Leaf[] = [];
  for (let i = 0; i < t1.members.length; i++) {
    const m1 = t1.members[i]!;
    const m2 = t2.members[i]!;
    if (m1.type.class === 'compound') {
      const inner = compoundLeaves(m1.type, m2.type, [...path, m1.name], [...path2, m2.name]);
      if (inner === null) return null;
      out.push(...inner);
      continue;
    }
    const k = atomicKind(m1.type);
    if (k === null || k !== atomicKind(m2.type)) return null;
    out.push({ path: [...path, m1.name], path2: [...path2, m2.name], kind: k, isFloat: m1.type.class === 'float' || m2.type.class === 'float', size: Math.max(typeSize(m1.type), typeSize(m2.type)) });
  }
  return out;
}

/** Member `path` of every record (the second side's member names are taken by position from the first's). */
function column(records: ArrayLike<unknown>, path: readonly string[]): unknown[] {
  return Array.from(records, (r) => path.reduce<unknown>((v, name) => (v as Record<string, unknown>)[name], r));
}

/** h5diff's `h5diff_print_char`: printable characters as they are, others as C escapes. */
function charText(code: number): string {
  const esc: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r', 34: '\\"', 92: '\\\\' };
  if (esc[code]) return esc[code]!;
  return code >= 0x20 && code < 0x7f ? String.fromCharCode(code) : `\\${code.toString(8).padStart(3, '0')}`;
}

/**
 * Compares `n` records of two compound blocks; calls `line(i, text)` for each difference (text
 * without the position column) and returns the number of differences.
 */
export function compareRecords(
  v1: ArrayLike<unknown>,
  v2: ArrayLike<unknown>,
  leaves: readonly Leaf[],
  rules: CompareRules,
  useSystemEpsilon: boolean,
  line: (i: number, text: string) => void,
): number {
  const n = Math.min(v1.length, v2.length);
  const cols = leaves.map((l) => [column(v1, l.path), column(v2, l.path2)] as const);
  let count = 0;
  for (let i = 0; i < n; i++) {
    leaves.forEach((leaf, k) => {
      const [a, b] = cols[k]!;
      if (leaf.kind === 'string') {
        const s1 = String(a[i] ?? '');
        const s2 = String(b[i] ?? '');
        for (let c = 0; c < Math.max(s1.length, s2.length); c++) {
          const c1 = c < s1.length ? s1.charCodeAt(c) : 0;
          const c2 = c < s2.length ? s2.charCodeAt(c) : 0;
          if (c1 === c2) continue;
          count++;
          line(i, `  ${charText(c2)}            ${charText(c1)}`);
        }
        return;
      }
      const r: CompareRules = useSystemEpsilon && leaf.isFloat ? { ...rules, epsilon: leaf.size <= 4 ? FLT_EPSILON : DBL_EPSILON } : rules;
      const t = compareAt(a as Column, b as Column, i, leaf.isFloat, r);
      if (t !== null) {
        count++;
        line(i, t);
      }
    });
  }
  return count;
}
