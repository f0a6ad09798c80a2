/**
 * Size-field mutations for the corrupt-input suites (issue 10, "hostile sizes"): every field of a file
 * that tells a reader how much to allocate or how far to iterate — dataspace dimensions and maximum
 * dimensions, datatype sizes, layout sizes and chunk dimensions, object header continuation lengths,
 * local/global/fractal heap sizes, fixed-array / extensible-array / v2 B-tree header counts — set to
 * hostile values, with the checksum of the enclosing structure recomputed (v2 object header chunks,
 * index and heap headers) so that the change gets past checksum verification and reaches the code
 * that believes the number.
 *
 * The fields are located by opening the unmutated file with chunkform (object headers, with each
 * message's file address) and by scanning for structure signatures.
 * @module
 */
import { readFileSync } from 'node:fs';
import { lookup3, openFile, type Dataset, type Group, type H5File } from '../../packages/core/src/index.js';
import type { ObjectHeader } from '../../packages/core/src/format/object-header.js';
import { le, type ChunkedMutation } from './chunked-mutations.js';
import { prng } from './mutations.js';
import { runMutations, type HarnessOutcome } from './corrupt-harness.js';

/** One size-field mutation and what it does. */
export interface SizeMutation {
  name: string;
  mutation: ChunkedMutation;
}

const DATASPACE = 0x01;
const DATATYPE = 0x03;
const LAYOUT = 0x08;
const CONTINUATION = 0x10;

const u16 = (b: Uint8Array, o: number): number => b[o]! | (b[o + 1]! << 8);
const u32 = (b: Uint8Array, o: number): number => (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
const u64 = (b: Uint8Array, o: number): number => Number(new DataView(b.buffer, b.byteOffset + o, 8).getBigUint64(0, true));
const ALL_ONES = (n: number): bigint => (1n << BigInt(8 * n)) - 1n;

/** Hostile values for a field now holding `v` (`width` bytes; duplicates and out-of-width values dropped). */
function hostile(v: number, width: number, extra: (number | bigint)[] = []): bigint[] {
  const max = ALL_ONES(width);
  const cands: bigint[] = [0n, BigInt(v) + 1n, BigInt(v) * 1000n + 7n, 0xffffffn, 4250861632n, 1n << 40n, max, ...extra.map(BigInt)];
  const out = new Set<bigint>();
  for (const c of cands) if (c >= 0n && c <= max && c !== BigInt(v)) out.add(c);
  return [...out];
}

/** Objects reachable from the root (groups and datasets), each header once. */
async function headers(f: H5File): Promise<{ path: string; header: ObjectHeader }[]> {
  const out: { path: string; header: ObjectHeader }[] = [];
  const seen = new Set<number>();
  const note = (path: string, header: ObjectHeader | null | undefined): void => {
    if (header && !seen.has(header.address)) {
      seen.add(header.address);
      out.push({ path, header });
    }
  };
  const visit = async (g: Group, depth: number): Promise<void> => {
    note(g.path, g.headerModel.source);
    if (depth > 8) return;
    for (const name of await g.keys()) {
      const link = await g.getLink(name);
      if (link.kind !== 'hard') continue;
      const child = (await g.get(name)) as unknown as Group | Dataset;
      if (typeof (child as Dataset).read === 'function' && 'dtype' in child) note((child as Dataset).path, (child as Dataset).headerModel.source);
      else if (typeof (child as Group).keys === 'function') await visit(child as Group, depth + 1);
    }
  };
  await visit(f as unknown as Group, 0);
  return out;
}

/** A patch of the header field at file offset `at`, with the v2 chunk checksum recomputed. */
function headerPatch(file: Uint8Array, h: ObjectHeader, at: number, bytes: number[]): ChunkedMutation {
  const patches = [{ offset: at, bytes }];
  if (h.version === 2) {
    const c = h.chunks.find((k) => at >= k.address && at + bytes.length <= k.address + k.size - 4);
    if (c) {
      const copy = file.slice(c.address, c.address + c.size - 4);
      copy.set(bytes, at - c.address);
      patches.push({ offset: c.address + c.size - 4, bytes: le(lookup3(copy), 4) });
    }
  }
  return { kind: 'patch', patches };
}

/** A patch inside a checksummed structure at `s` whose checksum covers `[s, s + span)` (none: `span` null). */
function structPatch(file: Uint8Array, s: number, span: number | null, at: number, bytes: number[]): ChunkedMutation {
  const patches = [{ offset: s + at, bytes }];
  if (span !== null && at + bytes.length <= span) {
    const copy = file.slice(s, s + span);
    copy.set(bytes, at);
    patches.push({ offset: s + span, bytes: le(lookup3(copy), 4) });
  }
  return { kind: 'patch', patches };
}

/** Offset of the lookup3 checksum of the structure at `s` (the first that matches), or null. */
function checksumSpan(b: Uint8Array, s: number, min: number, max = 4096): number | null {
  for (let k = min; k <= max && s + k + 4 <= b.length; k++) if (lookup3(b.subarray(s, s + k)) === u32(b, s + k)) return k;
  return null;
}

/** File offsets at which the 4-byte signature `sig` stands. */
function* signatures(b: Uint8Array, sig: string): Generator<number> {
  const c = [...sig].map((x) => x.charCodeAt(0));
  for (let s = 0; s + 4 <= b.length; s++) if (b[s] === c[0] && b[s + 1] === c[1] && b[s + 2] === c[2] && b[s + 3] === c[3]) yield s;
}

/** Mutations of the size fields of one object header's messages. */
function headerMutations(file: Uint8Array, path: string, h: ObjectHeader, add: (name: string, m: ChunkedMutation) => void): void {
  for (const m of h.messages) {
    const b = m.body;
    const at = m.bodyAddress;
    const field = (what: string, off: number, width: number, value: number, extra: (number | bigint)[] = []): void => {
      for (const v of hostile(value, width, extra)) add(`${path}: ${what} ${value} → ${v}`, headerPatch(file, h, at + off, le(v, width)));
    };
    if (m.type === DATASPACE && b.length >= 4) {
      const version = b[0]!;
      const rank = b[1]!;
      const hasMax = (b[2]! & 1) !== 0;
      const dimsAt = version === 1 ? 8 : 4;
      if (dimsAt + rank * 8 * (hasMax ? 2 : 1) > b.length) continue;
      for (let i = 0; i < Math.min(rank, 3); i++) field(`dataspace dim ${i}`, dimsAt + 8 * i, 8, u64(b, dimsAt + 8 * i));
      if (hasMax) for (let i = 0; i < Math.min(rank, 3); i++) field(`dataspace max dim ${i}`, dimsAt + 8 * (rank + i), 8, u64(b, dimsAt + 8 * (rank + i)));
    } else if (m.type === DATATYPE && (m.flags & 2) === 0 && b.length >= 8) {
      field('datatype size', 4, 4, u32(b, 4), [2 ** 31]);
    } else if (m.type === LAYOUT && b.length >= 4) {
      const version = b[0]!;
      if (version === 3 || version === 4 || version === 5) {
        const cls = b[1]!;
        if (cls === 0) field('compact layout size', 2, 2, u16(b, 2));
        else if (cls === 1 && b.length >= 18) {
          field('contiguous layout size', 10, 8, u64(b, 10));
          field('contiguous layout address', 2, 8, u64(b, 2), [file.length - 8]);
        } else if (cls === 2 && version === 3) {
          const rank = b[2]!;
          for (let i = 0; i < rank && 11 + 4 * i + 4 <= b.length; i++) field(`chunked layout (v3) dim ${i}`, 11 + 4 * i, 4, u32(b, 11 + 4 * i));
        } else if ((cls === 2 || cls === 4) && version >= 4) {
          const rank = b[3]!;
          const w = b[4]!;
          if (w >= 1 && w <= 8) {
            for (let i = 0; i < rank && 5 + w * (i + 1) <= b.length; i++) {
              let v = 0;
              for (let k = w - 1; k >= 0; k--) v = v * 256 + b[5 + w * i + k]!;
              field(`${cls === 4 ? 'structured' : 'chunked'} layout (v${version}) dim ${i}`, 5 + w * i, w, v);
            }
          }
        }
      } else if ((version === 1 || version === 2) && b.length >= 8) {
        const rank = b[1]!;
        const cls = b[2]!;
        const dimsAt = 8 + (cls === 0 ? 0 : 8);
        for (let i = 0; i < rank && dimsAt + 4 * i + 4 <= b.length; i++) field(`layout (v${version}) dim ${i}`, dimsAt + 4 * i, 4, u32(b, dimsAt + 4 * i));
      }
    } else if (m.type === CONTINUATION && b.length >= 16) {
      field('continuation length', 8, 8, u64(b, 8));
    }
  }
}

/**
 * The size fields of the heap and index headers found by signature: where the header's checksum is
 * looked for from (null: the structure has no checksum) and each field as [what, offset, width].
 */
const STRUCTURE_FIELDS: { signature: string; checksumFrom: number | null; fields: [string, number, number][] }[] = [
  { signature: 'HEAP', checksumFrom: null, fields: [['local heap data size', 8, 8]] },
  { signature: 'GCOL', checksumFrom: null, fields: [['global heap collection size', 8, 8]] },
  {
    signature: 'FRHP',
    checksumFrom: 140,
    fields: [
      ['fractal heap max managed object size', 10, 4],
      ['fractal heap table width', 110, 2],
      ['fractal heap starting block size', 112, 8],
      ['fractal heap max direct block size', 120, 8],
      ['fractal heap max heap size (bits)', 128, 2],
      ['fractal heap rows in root indirect block', 140, 2],
    ],
  },
  { signature: 'FAHD', checksumFrom: 12, fields: [['fixed array entries', 8, 8]] },
  {
    signature: 'EAHD',
    checksumFrom: 12,
    fields: [
      ['extensible array max elements bits', 7, 1],
      ['extensible array index block elements', 8, 1],
      ['extensible array data blocks', 28, 8],
      ['extensible array max index set', 44, 8],
      ['extensible array elements realized', 52, 8],
    ],
  },
  {
    signature: 'BTHD',
    checksumFrom: 12,
    fields: [
      ['v2 B-tree node size', 6, 4],
      ['v2 B-tree record size', 10, 2],
      ['v2 B-tree total records', 26, 8],
    ],
  },
];

/** Mutations of heap and index header size fields found by signature ({@link STRUCTURE_FIELDS}). */
function structureMutations(file: Uint8Array, add: (name: string, m: ChunkedMutation) => void): void {
  const field = (what: string, s: number, span: number | null, off: number, width: number): void => {
    if (s + off + width > file.length) return;
    let value = 0;
    for (let k = width - 1; k >= 0; k--) value = value * 256 + file[s + off + k]!;
    for (const v of hostile(value, width)) add(`${what} @${s} ${value} → ${v}`, structPatch(file, s, span, off, le(v, width)));
  };
  for (const { signature, checksumFrom, fields } of STRUCTURE_FIELDS) {
    for (const s of signatures(file, signature)) {
      const span = checksumFrom === null ? null : checksumSpan(file, s, checksumFrom);
      if (checksumFrom !== null && span === null) continue;
      for (const [what, off, width] of fields) field(what, s, span, off, width);
    }
  }
}

/**
 * The size-field mutations of `bytes` (at most `max`, a seeded sample when there are more, always
 * keeping every dataspace mutation of the first dataset), each with a readable name.
 */
export async function sizeMutations(bytes: Uint8Array, seed: string, max = 400): Promise<SizeMutation[]> {
  const out: SizeMutation[] = [];
  const add = (name: string, mutation: ChunkedMutation): void => void out.push({ name, mutation });
  const f = await openFile(bytes.slice());
  try {
    for (const { path, header } of await headers(f)) headerMutations(bytes, path, header, add);
  } finally {
    await f.close();
  }
  structureMutations(bytes, add);
  if (out.length <= max) return out;
  let h = 2166136261;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619);
  const rnd = prng(h >>> 0);
  const keep = new Set<number>();
  out.forEach((m, i) => {
    if (i < 60 && m.name.includes('dataspace')) keep.add(i);
  });
  while (keep.size < max) keep.add(Math.floor(rnd() * out.length));
  return [...keep].sort((a, b) => a - b).map((i) => out[i]!);
}

/** Peak memory a size-field mutation may take over the walking child's baseline (issue 10). */
export const SIZE_PEAK_LIMIT_MB = 256;

/** The outcome of every size-field mutation of one file. */
export interface SizeRun {
  name: string;
  mutations: SizeMutation[];
  /** Outcome of the unmutated file. */
  baseline: HarnessOutcome | undefined;
  /** Outcomes of `mutations` (`i` indexes `mutations`). */
  outcomes: HarnessOutcome[];
  ms: number;
}

/** One file of a size-field suite: its name, path, the worker that walks it and the mutation cap. */
export interface SizeJob {
  name: string;
  file: string;
  worker: string;
  max: number;
}

/** Runs the size-field mutations of every job, `concurrency` files at a time (each in its own child). */
export async function runSizeSuite(jobs: SizeJob[], concurrency = 2): Promise<Map<string, SizeRun>> {
  const runs = new Map<string, SizeRun>();
  const queue = [...jobs];
  const work = async (): Promise<void> => {
    for (let j = queue.shift(); j; j = queue.shift()) {
      const mutations = await sizeMutations(new Uint8Array(readFileSync(j.file)), j.name, j.max);
      const t0 = Date.now();
      const all: ChunkedMutation[] = [{ kind: 'xor', offset: 0, mask: 0 }, ...mutations.map((m) => m.mutation)];
      const outcomes = await runMutations(j.worker, j.file, all, { gcEachCase: true });
      runs.set(j.name, {
        name: j.name,
        mutations,
        baseline: outcomes.find((o) => o.i === 0),
        outcomes: outcomes.filter((o) => o.i > 0).map((o) => ({ ...o, i: o.i - 1 })),
        ms: Date.now() - t0,
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, work));
  return runs;
}

/**
 * Every way `run` misses the criteria — an outcome other than success or an H5Error (untyped
 * error, hang, crash), a peak above {@link SIZE_PEAK_LIMIT_MB}, a missing outcome — and a summary line.
 */
export function sizeFailures(run: SizeRun): { failures: string[]; summary: string } {
  const counts: Record<string, number> = {};
  let worst = 0;
  const failures: string[] = [];
  if (run.baseline?.outcome !== 'ok') failures.push(`${run.name} unmodified: ${run.baseline?.outcome ?? 'no outcome'} ${run.baseline?.message ?? ''}`);
  if (run.outcomes.length !== run.mutations.length) failures.push(`${run.name}: ${run.outcomes.length} outcomes for ${run.mutations.length} mutations`);
  for (const o of run.outcomes) {
    const key = o.outcome === 'h5error' ? `H5Error:${o.errorName}` : o.outcome;
    counts[key] = (counts[key] ?? 0) + 1;
    worst = Math.max(worst, o.peakMb ?? 0);
    const what = `${run.name} ${run.mutations[o.i]?.name ?? `#${o.i}`}`;
    if (o.outcome === 'bad' || o.outcome === 'hang' || o.outcome === 'crash') {
      failures.push(`${what}\n  ${o.outcome.toUpperCase()} ${o.errorName ?? ''}: ${o.message ?? ''}\n  ${(o.stack ?? '').replace(/\n/g, '\n  ')}`);
    } else if ((o.peakMb ?? 0) > SIZE_PEAK_LIMIT_MB) {
      failures.push(`${what}: peak memory ${o.peakMb} MB over the baseline (limit ${SIZE_PEAK_LIMIT_MB} MB)`);
    }
  }
  return { failures, summary: `${run.name}: ${run.mutations.length} size-field mutations in ${run.ms} ms, worst peak ${worst} MB: ${JSON.stringify(counts)}` };
}
