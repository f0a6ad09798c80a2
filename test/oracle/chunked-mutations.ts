/**
 * Corruptions aimed at chunk index structures (fixed array, extensible array, v2 and v1 B-trees) and
 * chunk data: locating the structures in a file by signature, their extent by their lookup3 checksum,
 * and multi-byte patches that keep a structure's checksum valid so decoders get past it.
 * @module
 */
import { lookup3 } from '../../packages/core/src/index.js';
import { byteMutation, mutate, prng, type Mutation } from './mutations.js';

/** A corruption: one of mutations.ts's, or byte patches applied together. */
export type ChunkedMutation = Mutation | { kind: 'patch'; patches: { offset: number; bytes: number[] }[] };

/** The bytes of `orig` with `m` applied. */
export function applyChunkedMutation(orig: Uint8Array, m: ChunkedMutation): Uint8Array {
  if (m.kind !== 'patch') return mutate(orig, m);
  const b = orig.slice();
  for (const p of m.patches) b.set(p.bytes, p.offset);
  return b;
}

/** Signatures of the chunk index structures (v1 B-tree nodes only when their node type is 1 = chunks). */
export const INDEX_SIGNATURES = ['FAHD', 'FADB', 'EAHD', 'EAIB', 'EASB', 'EADB', 'BTHD', 'BTIN', 'BTLF', 'TREE'] as const;
export type IndexSignature = (typeof INDEX_SIGNATURES)[number];

/** One index structure found in a file. */
export interface Structure {
  sig: IndexSignature;
  address: number;
  /** Offset of the (first) lookup3 checksum from `address`, or null (v1 B-tree nodes have none). */
  checksumAt: number | null;
}

const u32 = (b: Uint8Array, o: number): number => (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;

/** Finds every index structure of `bytes` (scan for signatures; extent = the first matching checksum). */
export function findStructures(bytes: Uint8Array, maxSize = 16384): Structure[] {
  const out: Structure[] = [];
  for (const sig of INDEX_SIGNATURES) {
    const code = [...sig].map((c) => c.charCodeAt(0));
    for (let s = 0; s + 4 <= bytes.length; s++) {
      if (bytes[s] !== code[0] || bytes[s + 1] !== code[1] || bytes[s + 2] !== code[2] || bytes[s + 3] !== code[3]) continue;
      if (sig === 'TREE') {
        if (bytes[s + 4] === 1) out.push({ sig, address: s, checksumAt: null });
        continue;
      }
      let at: number | null = null;
      for (let k = 6; k <= maxSize && s + k + 4 <= bytes.length; k++) {
        if (lookup3(bytes.subarray(s, s + k)) === u32(bytes, s + k)) {
          at = k;
          break;
        }
      }
      if (at !== null) out.push({ sig, address: s, checksumAt: at });
    }
  }
  return out.sort((a, b) => a.address - b.address);
}

/** Little-endian bytes of an unsigned integer. */
export function le(value: number | bigint, size: number): number[] {
  let v = BigInt(value);
  const out: number[] = [];
  for (let i = 0; i < size; i++) {
    out.push(Number(v & 0xffn));
    v >>= 8n;
  }
  return out;
}

/**
 * A patch writing `bytes` at `address + at` inside structure `s`, with the structure's checksum
 * recomputed (when the patched bytes lie before it) so the change is seen past checksum verification.
 */
export function patchWithChecksum(file: Uint8Array, s: Structure, at: number, bytes: number[]): ChunkedMutation {
  const patches = [{ offset: s.address + at, bytes }];
  if (s.checksumAt !== null && at + bytes.length <= s.checksumAt) {
    const copy = file.slice(s.address, s.address + s.checksumAt);
    copy.set(bytes, at);
    patches.push({ offset: s.address + s.checksumAt, bytes: le(lookup3(copy), 4) });
  }
  return { kind: 'patch', patches };
}

/**
 * Single-byte corruptions of the regions `[start, end)` (at most `perRegion` offsets each, seeded),
 * rotating xor 0xff / flip one bit / set 0x00 / set 0xff, plus `truncations` seeded truncation lengths
 * inside the regions.
 */
export function regionMutations(name: string, regions: [number, number][], perRegion: number, truncations: number): Mutation[] {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  const rnd = prng(h >>> 0);
  const out: Mutation[] = [];
  let k = 0;
  const cuts = new Set<number>();
  for (const [start, end] of regions) {
    const len = end - start;
    const offsets = new Set<number>();
    if (len <= perRegion) for (let o = start; o < end; o++) offsets.add(o);
    else {
      for (let o = start; o < Math.min(end, start + 32); o++) offsets.add(o); // headers: every byte
      while (offsets.size < perRegion) offsets.add(start + Math.floor(rnd() * len));
    }
    for (const offset of [...offsets].sort((a, b) => a - b)) out.push(byteMutation(offset, k++, rnd));
    for (let t = 0; t < truncations; t++) cuts.add(start + Math.floor(rnd() * len));
  }
  for (const length of [...cuts].sort((a, b) => a - b)) out.push({ kind: 'truncate', length });
  return out;
}
