/**
 * Deterministic corruptions for the corrupt-input suite: seeded byte mutations and truncations.
 * @module
 */

import { mulberry32 } from '../../packages/core/test/support/prng.js';

/** A single corruption: xor or set one byte, or truncate the file. */
export type Mutation =
  | { kind: 'xor'; offset: number; mask: number }
  | { kind: 'set'; offset: number; value: number }
  | { kind: 'truncate'; length: number };

/** What happened to one mutation. */
export interface Outcome {
  i: number;
  /** 'ok' (walk succeeded), 'h5error' (typed error), 'bad' (any other throw), 'hang' (no answer in time), 'crash' (process died). */
  outcome: 'ok' | 'h5error' | 'bad' | 'hang' | 'crash';
  errorName?: string;
  message?: string;
  stack?: string;
}

/** The bytes of `orig` with mutation `m` applied. */
export function mutate(orig: Uint8Array, m: Mutation): Uint8Array {
  if (m.kind === 'truncate') return orig.slice(0, m.length);
  const b = orig.slice();
  b[m.offset] = m.kind === 'xor' ? b[m.offset]! ^ m.mask : m.value;
  return b;
}

/**
 * The `k`-th of a run of single-byte mutations, at `offset`, cycling through: all bits flipped, one
 * random bit (`rnd`) flipped, set to 0x00, set to 0xff.
 */
export function byteMutation(offset: number, k: number, rnd: () => number): Mutation {
  switch (k % 4) {
    case 0:
      return { kind: 'xor', offset, mask: 0xff };
    case 1:
      return { kind: 'xor', offset, mask: 1 << Math.floor(rnd() * 8) };
    case 2:
      return { kind: 'set', offset, value: 0x00 };
    default:
      return { kind: 'set', offset, value: 0xff };
  }
}

/** mulberry32: a small seeded PRNG (deterministic across runs and platforms). */
export const prng = mulberry32;

function seedOf(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Options of {@link mutationsFor}. */
export interface MutationPlan {
  /** Files smaller than this get every offset mutated. */
  exhaustiveBelow: number;
  /** Number of sampled offsets for larger files. */
  samples: number;
  /** Number of truncation lengths (besides every length up to 64). */
  truncations: number;
}

/**
 * The mutations for a file of `size` bytes named `name`: for each chosen offset one of
 * xor 0xFF, flip one bit, set 0x00, set 0xFF (rotating); plus truncations at every length up to 64
 * and at `truncations` seeded lengths.
 */
export function mutationsFor(name: string, size: number, plan: MutationPlan): Mutation[] {
  const rnd = prng(seedOf(name));
  let offsets: number[];
  if (size < plan.exhaustiveBelow) {
    offsets = Array.from({ length: size }, (_, i) => i);
  } else {
    const set = new Set<number>();
    // the first 256 bytes (superblock, root header) always, then a uniform sample
    for (let i = 0; i < Math.min(256, size); i++) set.add(i);
    while (set.size < Math.min(size, plan.samples)) set.add(Math.floor(rnd() * size));
    offsets = [...set].sort((a, b) => a - b);
  }
  const out: Mutation[] = [];
  offsets.forEach((offset, k) => out.push(byteMutation(offset, k, rnd)));
  const lengths = new Set<number>();
  for (let n = 0; n <= Math.min(64, size - 1); n++) lengths.add(n);
  while (lengths.size < Math.min(size, 65 + plan.truncations)) lengths.add(Math.floor(rnd() * size));
  for (const length of [...lengths].sort((a, b) => a - b)) out.push({ kind: 'truncate', length });
  return out;
}

/** A readable description of a mutation against the original bytes. */
export function describeMutation(orig: Uint8Array, m: Mutation): string {
  const hex = (v: number): string => `0x${v.toString(16).padStart(2, '0')}`;
  if (m.kind === 'truncate') return `truncated to ${m.length} of ${orig.length} bytes`;
  const before = orig[m.offset]!;
  const after = m.kind === 'xor' ? before ^ m.mask : m.value;
  return `offset ${m.offset}: ${hex(before)} → ${hex(after)} (${m.kind === 'xor' ? `xor ${hex(m.mask)}` : `set ${hex(m.value)}`})`;
}
