/** Test data shared by the package's tests. */

/**
 * Deterministic xorshift32 bytes. `kind`: `false` uniform bytes; `true` detector-like (one in
 * seven 0–15, else 0); `'thirds'` one in three 0–7, else 0.
 */
export function randomBytes(n: number, seed: number, kind: boolean | 'thirds' = false): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const u = s >>> 0;
    out[i] = kind === 'thirds' ? (u % 3 === 0 ? s & 7 : 0) : kind ? (u % 7 === 0 ? s & 0x0f : 0) : s & 0xff;
  }
  return out;
}
