/**
 * The benchmarks' deterministic random source (xorshift32): the same synthetic detector data in
 * every run, without a dependency.
 * @module
 */

/** A xorshift32 generator seeded with `seed`; each call returns the next unsigned 32-bit value. */
export function xorshift32(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return (): number => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}
