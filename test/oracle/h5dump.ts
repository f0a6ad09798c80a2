/**
 * Running the HDF5 command-line `h5dump` (a second, independent reader of the C library) and parsing
 * the DATA sections it prints for numeric, enum and string datasets.
 * @module
 */
import { spawnSync } from 'node:child_process';

/** `h5dump` on PATH (Debian hdf5-tools). */
export const H5DUMP = 'h5dump';

/** Result of an h5dump run. */
export interface H5dumpRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs h5dump with `args`. */
export function runH5dump(args: string[]): H5dumpRun {
  const r = spawnSync(H5DUMP, args, { encoding: 'latin1', maxBuffer: 1 << 28 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** One element as h5dump printed it: a number (or NaN/±Infinity), a bigint for integers, a string, or an enum name. */
export type H5dumpValue = { kind: 'number'; text: string } | { kind: 'string'; bytes: Uint8Array } | { kind: 'name'; text: string };

const ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, b: 8, f: 12, a: 7, v: 11, '"': 34, '\\': 92, "'": 39 };

/** Parses an h5dump string literal starting at s[i] === '"'; returns its bytes and the index after it. */
function parseString(s: string, i: number): { bytes: Uint8Array; end: number } {
  const out: number[] = [];
  let j = i + 1;
  while (j < s.length && s[j] !== '"') {
    if (s[j] === '\\') {
      const m = /^\\([0-7]{1,11})/.exec(s.slice(j, j + 12));
      if (m) {
        out.push(Number.parseInt(m[1]!, 8) & 0xff); // h5dump prints sign-extended chars: \37777777703 = 0xC3
        j += m[0].length;
        continue;
      }
      const c = s[j + 1]!;
      out.push(ESCAPES[c] ?? c.charCodeAt(0));
      j += 2;
      continue;
    }
    out.push(s.charCodeAt(j) & 0xff); // stdout was read as latin1: one char per byte
    j++;
  }
  return { bytes: Uint8Array.from(out), end: j + 1 };
}

/**
 * The DATA sections of `h5dump -y -w 0 -m %.17g -d P1 -d P2 ... FILE` output, by dataset path.
 * Only flat element lists (numbers, enum names, strings) are supported.
 */
export function parseDataSections(stdout: string): Map<string, H5dumpValue[]> {
  const out = new Map<string, H5dumpValue[]>();
  const re = /DATASET "([^"]*)" \{/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(stdout))) {
    const path = m[1]!;
    const start = stdout.indexOf('DATA {', m.index);
    const nextDs = stdout.indexOf('DATASET "', m.index + 1);
    const values: H5dumpValue[] = [];
    out.set(path, values);
    if (start < 0 || (nextDs >= 0 && start > nextDs)) continue;
    let i = start + 'DATA {'.length;
    while (i < stdout.length) {
      const c = stdout[i]!;
      if (c === '}') break;
      if (c === ',' || c === ' ' || c === '\n' || c === '\r' || c === '\t') {
        i++;
        continue;
      }
      if (c === '"') {
        const { bytes, end } = parseString(stdout, i);
        values.push({ kind: 'string', bytes });
        i = end;
        continue;
      }
      let j = i;
      while (j < stdout.length && !/[,\s}]/.test(stdout[j]!)) j++;
      const text = stdout.slice(i, j);
      values.push(/^[-+]?(\d|\.\d|nan|inf)/i.test(text) ? { kind: 'number', text } : { kind: 'name', text });
      i = j;
    }
  }
  return out;
}

/** A printed element in the oracle's JSON form (see h5py_dump.py): numbers, decimal strings for 64-bit, text. */
export function h5dumpToJson(v: H5dumpValue, opts: { int64?: boolean; fixedString?: boolean }): unknown {
  if (v.kind === 'string') {
    let b = v.bytes;
    if (opts.fixedString) {
      let n = b.length;
      while (n > 0 && b[n - 1] === 0) n--;
      b = b.subarray(0, n);
    }
    return new TextDecoder('utf-8', { fatal: true }).decode(b);
  }
  if (v.kind === 'name') return v.text;
  const t = v.text.toLowerCase();
  if (t === 'nan' || t === '-nan') return 'NaN';
  if (t === 'inf' || t === '+inf') return 'Infinity';
  if (t === '-inf') return '-Infinity';
  if (opts.int64) return BigInt(v.text).toString();
  return Number(v.text);
}
