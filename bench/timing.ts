/**
 * Timing helper shared by the benchmarks.
 * @module
 */

/** Best time in seconds of `repeat` runs of `fn`; `before` runs untimed before each (e.g. removing the previous output). */
export async function bestSeconds(repeat: number, fn: () => unknown, before?: () => void): Promise<number> {
  let t = Infinity;
  for (let r = 0; r < repeat; r++) {
    before?.();
    const t0 = performance.now();
    await fn();
    t = Math.min(t, performance.now() - t0);
  }
  return t / 1000;
}

/** Median of `xs`. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
