/**
 * Builtins Node ships behind an engine flag (`gc` behind `--expose-gc`; `ArrayBuffer.prototype.transfer`
 * behind `--harmony-rab-gsab-transfer` in Node 20), taken from a new context made while the flag is set
 * for that moment only and reset after: contexts made later, the caller's included, do not get them.
 * Node only (the filter workers' ./release-shared.ts and ./inflate-release.ts).
 * @module
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The function `expr` evaluates to in a new context made with the engine flag `--<flag>` set, or null when it is none (or the engine refuses). */
export function flaggedBuiltin<T>(flag: string, expr: string): T | null {
  try {
    setFlagsFromString(`--${flag}`);
    try {
      const v = runInNewContext(expr) as unknown;
      return typeof v === 'function' ? (v as T) : null;
    } finally {
      setFlagsFromString(`--no-${flag}`);
    }
  } catch {
    return null;
  }
}
