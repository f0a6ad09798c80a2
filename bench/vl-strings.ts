/**
 * The strings of the VL benches (bench/vl.ts, bench/vl_prof.ts): log lines and detector event labels.
 * @module
 */
import { xorshift32 } from './xorshift.js';

const WORDS = ['INFO', 'WARN', 'DEBUG', 'ERROR', 'det', 'CSPAD', 'epix', 'jungfrau', 'hit', 'miss', 'photon', 'event', 'run', 'shot', 'gain', 'calib', 'ok', 'timeout', 'retry', 'seq'];

/** `n` strings of 5–60 ASCII bytes: words, numbers and hex ids, from a fixed seed (the same strings every run). */
export function logStrings(n: number): string[] {
  const rnd = xorshift32(0x5eed1234);
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const len = 5 + (rnd() % 56);
    let s = '';
    while (s.length < len) {
      const r = rnd();
      const k = r & 3;
      s += k === 0 ? WORDS[(r >>> 2) % WORDS.length] : k === 1 ? String((r >>> 2) % 100000) : k === 2 ? ((r >>> 2) & 0xffffff).toString(16) : '=';
      s += ' ';
    }
    out[i] = s.slice(0, len);
  }
  return out;
}
