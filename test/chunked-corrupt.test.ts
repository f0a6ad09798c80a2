/**
 * Corrupt chunked storage (fixtures corrupt_*.h5 of test/oracle/make_chunked_fixtures.py: one dataset
 * "/d" per file, one per index structure and filter):
 *
 * 1. Targeted corruptions of fixed-array, extensible-array, v2 and v1 B-tree structures (wrong
 *    signatures, wrong checksums, addresses out of range or pointing back at a node, absurd depths and
 *    counts — patched with valid checksums so the decoders get past verification), corrupt deflate
 *    streams and wrong Fletcher-32 checksums must fail with the expected H5Error subclass, and every
 *    error must name the dataset (and the chunk, where one is involved).
 * 2. A sweep of single-byte corruptions and truncations over every index structure and some chunk
 *    data: each outcome is success or an H5Error — never another error, a hang or a crash.
 *
 * 3. Size-field mutations (test/oracle/size-mutations.ts: dataspace dims and max dims, datatype size,
 *    layout chunk dims, fixed/extensible array and v2 B-tree header counts, checksums recomputed): success
 *    or an H5Error, no hang, at most 256 MB peak memory per mutation over the child's baseline.
 *
 * Everything runs in child processes (test/chunked-corrupt-worker.ts via test/oracle/corrupt-harness.ts),
 * two at a time, so synchronous loops and out-of-memory crashes are caught and attributed.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeMutation } from './oracle/mutations.js';
import {
  findStructures,
  le,
  patchWithChecksum,
  regionMutations,
  type ChunkedMutation,
  type Structure,
} from './oracle/chunked-mutations.js';
import { runMutations, type HarnessOutcome } from './oracle/corrupt-harness.js';
import { runSizeSuite, sizeFailures, SIZE_PEAK_LIMIT_MB, type SizeRun } from './oracle/size-mutations.js';
import { chunkedFixturePath, ensureChunkedFixtures, loadChunkedExpected, type ChunkedFixtureEntry } from './oracle/fixtures.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const WORKER = join(HERE, 'chunked-corrupt-worker.ts');
const CONCURRENCY = 2;
const SWEEP = { perRegion: 120, truncations: 8, chunkBytes: 24, chunks: 3 };

const manifest = ensureChunkedFixtures();
const entries = manifest.files.filter((e) => e.family === 'corrupt');

/** Error classes (by name) a targeted corruption may give. */
const FORMAT = ['FormatError', 'TruncatedError', 'ChecksumError'];
const CHECKSUM = ['ChecksumError'];
const FILTER = ['FilterError'];
const FLETCHER = ['ChecksumError', 'FilterError'];
const ANY = ['*'];

/** One targeted corruption and what it must give. */
interface Targeted {
  file: string;
  name: string;
  mutation: ChunkedMutation;
  /** Acceptable error class names ('*' = any H5Error). */
  errors: string[];
  /** The chunk (element offset) the error must name, if any. */
  chunk?: number[];
  /** Success (e.g. an undefined address read as a never-written chunk) is acceptable too. */
  okAllowed?: boolean;
}

interface FileInfo {
  entry: ChunkedFixtureEntry;
  bytes: Uint8Array;
  structures: Structure[];
  chunks: { offset: number[]; address: number; size: number }[];
  chunkDims: number[];
}

function info(entry: ChunkedFixtureEntry): FileInfo {
  const bytes = new Uint8Array(readFileSync(chunkedFixturePath(entry.file)));
  const e = loadChunkedExpected(entry).extra['/d']!;
  const rank = e.chunks.length;
  return {
    entry,
    bytes,
    structures: findStructures(bytes),
    chunks: e.chunk_info.map((r) => ({ offset: r.slice(0, rank), address: r[rank + 1]!, size: r[rank + 2]! })),
    chunkDims: e.chunks,
  };
}

const xor = (offset: number, mask = 0xff): ChunkedMutation => ({ kind: 'xor', offset, mask });
const u16 = (b: Uint8Array, o: number): number => b[o]! | (b[o + 1]! << 8);
const addrAt = (b: Uint8Array, o: number): number => Number(new DataView(b.buffer, b.byteOffset + o, 8).getBigUint64(0, true));

/** The targeted corruptions of one file. */
function targeted(fi: FileInfo): Targeted[] {
  const out: Targeted[] = [];
  const { bytes } = fi;
  const file = fi.entry.file;
  const eofFar = bytes.length + 4096;
  const add = (name: string, mutation: ChunkedMutation, errors: string[], extra: Partial<Targeted> = {}): void => {
    out.push({ file, name, mutation, errors, ...extra });
  };
  const first = (sig: string): Structure | undefined => fi.structures.find((s) => s.sig === sig);
  // every structure: signature and checksum
  const seen = new Set<string>();
  for (const s of fi.structures) {
    if (seen.has(s.sig)) continue; // the first of each kind
    seen.add(s.sig);
    add(`${s.sig} @${s.address}: wrong signature`, xor(s.address + 1, 0x20), FORMAT);
    if (s.checksumAt !== null) {
      add(`${s.sig} @${s.address}: wrong checksum`, xor(s.address + s.checksumAt), CHECKSUM);
      add(`${s.sig} @${s.address}: body byte changed, checksum not updated`, xor(s.address + Math.min(8, s.checksumAt - 1), 0x04), CHECKSUM);
    }
  }
  const c0 = fi.chunks[0]!;
  const fahd = first('FAHD');
  if (fahd) {
    add('FAHD: data block address beyond EOF', patchWithChecksum(bytes, fahd, 16, le(eofFar, 8)), FORMAT);
    add('FAHD: data block address points at the header itself', patchWithChecksum(bytes, fahd, 16, le(fahd.address, 8)), FORMAT);
    add('FAHD: 2^40 entries', patchWithChecksum(bytes, fahd, 8, le(2n ** 40n, 8)), ANY);
  }
  const fadb = first('FADB');
  if (fadb && fadb.checksumAt !== null) {
    const paged = fadb.checksumAt < 14 + fi.chunks.length * 8;
    if (!paged) {
      add('FADB: chunk 0 address beyond EOF', patchWithChecksum(bytes, fadb, 14, le(eofFar, 8)), FORMAT, { chunk: c0.offset });
      add('FADB: chunk 0 address undefined (reads as never written)', patchWithChecksum(bytes, fadb, 14, le(2n ** 64n - 1n, 8)), ANY, { okAllowed: true });
    } else {
      // pages of 1024 entries of 8 bytes, each followed by its checksum; the last page holds the rest
      const entries = fahd ? addrAt(bytes, fahd.address + 8) : 0;
      const page0 = fadb.address + fadb.checksumAt + 4;
      const page1 = page0 + 1024 * 8 + 4;
      add('FADB page 0: element changed, page checksum not updated', xor(page0 + 3, 0x10), CHECKSUM);
      add('FADB page 1: wrong page checksum', xor(page1 + (entries - 1024) * 8), CHECKSUM);
    }
  }
  const eahd = first('EAHD');
  if (eahd) {
    add('EAHD: index block address beyond EOF', patchWithChecksum(bytes, eahd, 60, le(eofFar, 8)), FORMAT);
    add('EAHD: index block address points at the header itself', patchWithChecksum(bytes, eahd, 60, le(eahd.address, 8)), FORMAT);
    add('EAHD: 2^40 elements realized', patchWithChecksum(bytes, eahd, 52, le(2n ** 40n, 8)), ANY, { okAllowed: true });
    add('EAHD: 0 elements per index block', patchWithChecksum(bytes, eahd, 8, [0]), ANY);
  }
  const eaib = first('EAIB');
  if (eaib) add('EAIB: chunk 0 address beyond EOF', patchWithChecksum(bytes, eaib, 14, le(eofFar, 8)), FORMAT, { chunk: c0.offset });
  const eadb = first('EADB');
  if (eadb && eadb.checksumAt !== null) {
    // data block: sig, version, client id, header address (8), block offset (4 bytes for 32-bit max elements), elements
    const c = fi.chunks.find((x) => x.address === addrAt(bytes, eadb.address + 18));
    add('EADB: element 0 address beyond EOF', patchWithChecksum(bytes, eadb, 18, le(eofFar, 8)), FORMAT, c ? { chunk: c.offset } : {});
  }
  const bthd = first('BTHD');
  if (bthd) {
    add('BTHD: root address beyond EOF', patchWithChecksum(bytes, bthd, 16, le(eofFar, 8)), FORMAT);
    add('BTHD: root address points at the header itself', patchWithChecksum(bytes, bthd, 16, le(bthd.address, 8)), FORMAT);
    add('BTHD: depth 200', patchWithChecksum(bytes, bthd, 12, le(200, 2)), ANY);
    add('BTHD: depth 0 (the internal root read as a leaf)', patchWithChecksum(bytes, bthd, 12, le(0, 2)), FORMAT);
    add('BTHD: 65535 records in the root', patchWithChecksum(bytes, bthd, 24, le(65535, 2)), ANY);
    const btin = first('BTIN');
    if (btin) {
      const recordSize = u16(bytes, bthd.address + 10);
      const nrec = u16(bytes, bthd.address + 24);
      const child0 = 6 + nrec * recordSize;
      add('BTIN: child 0 points at the internal node itself (cycle)', patchWithChecksum(bytes, btin, child0, le(btin.address, 8)), FORMAT);
      add('BTIN: child 0 points at the header', patchWithChecksum(bytes, btin, child0, le(bthd.address, 8)), FORMAT);
      add('BTIN: child 0 beyond EOF', patchWithChecksum(bytes, btin, child0, le(eofFar, 8)), FORMAT);
    }
    const btlf = first('BTLF');
    if (btlf) {
      const c = fi.chunks.find((x) => x.address === addrAt(bytes, btlf.address + 6));
      add('BTLF: record 0 chunk address beyond EOF', patchWithChecksum(bytes, btlf, 6, le(eofFar, 8)), FORMAT, c ? { chunk: c.offset } : {});
      if (file.includes('gzip')) {
        // record type 11: address, chunk size (the remaining width), filter mask (4), one scaled offset (8) per dimension
        const sizeLen = u16(bytes, bthd.address + 10) - 8 - 4 - 8 * fi.chunkDims.length;
        add('BTLF: record 0 chunk size 3 (deflate stream cut short)', patchWithChecksum(bytes, btlf, 14, le(3, sizeLen)), FILTER, c ? { chunk: c.offset } : {});
      }
    }
  }
  const trees = fi.structures.filter((s) => s.sig === 'TREE');
  const root = trees.find((s) => bytes[s.address + 5]! > 0);
  if (root) {
    const rank = fi.chunkDims.length;
    const keySize = 8 + (rank + 1) * 8;
    const child = (k: number): number => root.address + 24 + keySize + k * (keySize + 8);
    add('TREE root: child 0 points at the root itself (cycle)', { kind: 'patch', patches: [{ offset: child(0), bytes: le(root.address, 8) }] }, FORMAT);
    add('TREE root: child 1 points at the root itself (cycle)', { kind: 'patch', patches: [{ offset: child(1), bytes: le(root.address, 8) }] }, FORMAT);
    add('TREE root: child 0 beyond EOF', { kind: 'patch', patches: [{ offset: child(0), bytes: le(eofFar, 8) }] }, FORMAT);
    add('TREE root: level 255', { kind: 'patch', patches: [{ offset: root.address + 5, bytes: [255] }] }, ANY);
    add('TREE root: 65535 entries used', { kind: 'patch', patches: [{ offset: root.address + 6, bytes: [255, 255] }] }, ANY);
    const leaf = trees.find((s) => bytes[s.address + 5] === 0)!;
    const leafChild0 = leaf.address + 24 + keySize;
    const c = fi.chunks.find((x) => x.address === addrAt(bytes, leafChild0));
    add('TREE leaf: chunk 0 address beyond EOF', { kind: 'patch', patches: [{ offset: leafChild0, bytes: le(eofFar, 8) }] }, FORMAT, c ? { chunk: c.offset } : {});
    add('TREE leaf: points at the root (cycle through a leaf)', { kind: 'patch', patches: [{ offset: root.address + 24 + keySize, bytes: le(leaf.address, 8) }, { offset: leaf.address + 5, bytes: [1] }, { offset: leafChild0, bytes: le(root.address, 8) }] }, ANY);
  }
  // chunk data
  const c1 = fi.chunks[1] ?? c0;
  if (file === 'corrupt_gzip.h5' || file === 'corrupt_single_gzip.h5') {
    add(`chunk [${c1.offset}]: deflate stream byte flipped`, xor(c1.address + (c1.size >> 1), 0x5a), FILTER, { chunk: c1.offset });
    add(`chunk [${c1.offset}]: zlib header broken`, { kind: 'set', offset: c1.address, value: 0 }, FILTER, { chunk: c1.offset });
    add(`chunk [${c1.offset}]: deflate stream cut short (zeros)`, { kind: 'patch', patches: [{ offset: c1.address + 4, bytes: new Array<number>(c1.size - 4).fill(0) }] }, FILTER, { chunk: c1.offset });
  }
  if (file === 'corrupt_fletcher32.h5') {
    const c2 = fi.chunks[2]!;
    add(`chunk [${c2.offset}]: data byte changed, Fletcher-32 mismatch`, xor(c2.address + 5, 0x01), FLETCHER, { chunk: c2.offset });
    add(`chunk [${c2.offset}]: stored Fletcher-32 changed`, xor(c2.address + c2.size - 1, 0x80), FLETCHER, { chunk: c2.offset });
  }
  if (file === 'corrupt_shuffle_gzip_fletcher32.h5') {
    add(`chunk [${c1.offset}]: stored Fletcher-32 changed`, xor(c1.address + c1.size - 2, 0x01), FLETCHER, { chunk: c1.offset });
    add(`chunk [${c1.offset}]: deflate byte changed (caught by Fletcher-32)`, xor(c1.address + 10, 0x01), FLETCHER, { chunk: c1.offset });
  }
  return out;
}

/** The sweep's mutations of one file: every index structure and the start of a few chunks. */
function sweep(fi: FileInfo): ChunkedMutation[] {
  const regions: [number, number][] = fi.structures.map((s) => [s.address, s.address + (s.checksumAt !== null ? s.checksumAt + 4 : 600)]);
  for (const c of fi.chunks.slice(0, SWEEP.chunks)) regions.push([c.address, c.address + Math.min(c.size, SWEEP.chunkBytes)]);
  return regionMutations(fi.entry.file, regions, SWEEP.perRegion, SWEEP.truncations);
}

interface Run {
  fi: FileInfo;
  targeted: Targeted[];
  mutations: ChunkedMutation[];
  outcomes: HarnessOutcome[];
  ms: number;
}
const runs = new Map<string, Run>();

beforeAll(async () => {
  const queue = [...entries];
  const work = async (): Promise<void> => {
    for (let e = queue.shift(); e; e = queue.shift()) {
      const fi = info(e);
      const t = targeted(fi);
      const s = sweep(fi);
      const t0 = Date.now();
      // index 0: the file unchanged (must walk cleanly); then the targeted corruptions, then the sweep
      const all: ChunkedMutation[] = [{ kind: 'xor', offset: 0, mask: 0 }, ...t.map((x) => x.mutation), ...s];
      const outcomes = await runMutations(WORKER, chunkedFixturePath(e.file), all);
      runs.set(e.file, { fi, targeted: t, mutations: all, outcomes, ms: Date.now() - t0 });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, work));
}, 900_000);

/** Does `message` name the chunk at element offset `offset` (as an offset or as chunk coordinates)? */
function namesChunk(message: string, offset: number[], chunkDims: number[]): boolean {
  const idx = offset.map((o, i) => Math.floor(o / chunkDims[i]!));
  const forms = [offset, idx].flatMap((v) => [`[${v.join(', ')}]`, `[${v.join(',')}]`, `(${v.join(', ')})`]);
  return forms.some((f) => message.includes(f));
}

describe('corrupt chunked storage', () => {
  it('found the corrupt-input fixtures and their index structures', () => {
    expect(entries.length).toBeGreaterThanOrEqual(10);
    const sigs = new Set(entries.flatMap((e) => info(e).structures.map((s) => s.sig)));
    expect([...sigs].sort()).toEqual(['BTHD', 'BTIN', 'BTLF', 'EADB', 'EAHD', 'EAIB', 'EASB', 'FADB', 'FAHD', 'TREE']);
  });

  for (const e of entries) {
    describe(e.file, () => {
      it('the unmodified file walks without errors', () => {
        const run = runs.get(e.file)!;
        const base = run.outcomes.find((o) => o.i === 0);
        expect(base?.outcome, `${base?.message ?? ''} ${JSON.stringify(base?.errors ?? [])}`).toBe('ok');
      });

      it('targeted corruptions give the expected typed errors, naming the dataset and chunk', () => {
        const run = runs.get(e.file)!;
        const problems: string[] = [];
        run.targeted.forEach((t, k) => {
          const o = run.outcomes.find((x) => x.i === k + 1);
          const what = `${t.name}`;
          if (!o) return void problems.push(`${what}: no outcome`);
          if (o.outcome === 'ok') {
            if (!t.okAllowed) problems.push(`${what}: read without any error`);
            return;
          }
          if (o.outcome !== 'h5error') return void problems.push(`${what}: ${o.outcome.toUpperCase()} ${o.errorName ?? ''}: ${o.message ?? ''}\n${o.stack ?? ''}`);
          const errs = o.errors ?? [];
          const matching = t.errors[0] === '*' ? errs : errs.filter((x) => t.errors.includes(x.name));
          if (matching.length === 0) problems.push(`${what}: expected ${t.errors.join(' | ')}, got ${errs.map((x) => `${x.name}: ${x.message}`).join(' ; ')}`);
          for (const x of errs) if (!x.message.includes('/d')) problems.push(`${what}: ${x.name} does not name the dataset "/d": ${x.message}`);
          if (t.chunk && !matching.some((x) => namesChunk(x.message, t.chunk!, run.fi.chunkDims) || (x.chunk && namesChunk(`[${x.chunk.join(', ')}]`, t.chunk!, run.fi.chunkDims)))) {
            problems.push(`${what}: no ${t.errors.join(' | ')} names chunk [${t.chunk.join(', ')}]: ${matching.map((x) => x.message).join(' ; ')}`);
          }
        });
        expect(problems).toEqual([]);
      });

      it('every corruption of index structures and chunk data gives success or an H5Error', () => {
        const run = runs.get(e.file)!;
        const first = 1 + run.targeted.length;
        const sweepOutcomes = run.outcomes.filter((o) => o.i >= first);
        const counts: Record<string, number> = {};
        for (const o of sweepOutcomes) {
          const k = o.outcome === 'h5error' ? `H5Error:${o.errorName}` : o.outcome;
          counts[k] = (counts[k] ?? 0) + 1;
        }
        console.log(`${e.file}: ${run.mutations.length - first} mutations in ${run.ms} ms: ${JSON.stringify(counts)}`);
        expect(sweepOutcomes.length).toBe(run.mutations.length - first);
        const failures = sweepOutcomes
          .filter((o) => o.outcome === 'bad' || o.outcome === 'hang' || o.outcome === 'crash')
          .map((o) => {
            const m = run.mutations[o.i]!;
            const what = m.kind === 'patch' ? JSON.stringify(m) : describeMutation(run.fi.bytes, m);
            const err = o.outcome === 'bad' ? `${o.errorName}: ${o.message}\n${o.stack ?? ''}` : `${o.outcome.toUpperCase()}: ${o.message ?? ''}`;
            return `${e.file} ${what}\n  ${err.replace(/\n/g, '\n  ')}`;
          });
        expect(failures.slice(0, 25), `${failures.length} corruptions of ${e.file} gave a non-H5Error, a hang or a crash`).toEqual([]);
      });
    });
  }
});

describe('corrupt chunked storage: size-field mutations (checksums recomputed)', () => {
  let size: Map<string, SizeRun>;
  beforeAll(async () => {
    size = await runSizeSuite(entries.map((e) => ({ name: e.file, file: chunkedFixturePath(e.file), worker: WORKER, max: 40 })), CONCURRENCY);
  }, 300_000);

  it('a dataspace dimension inflated over a few stored chunks reads (fill values) within the limits', () => {
    const run = size.get('corrupt_ea.h5')!;
    const k = run.mutations.findIndex((m) => m.name === '/d: dataspace dim 0 400 → 16777215');
    expect(k, run.mutations.map((m) => m.name).join('\n')).toBeGreaterThanOrEqual(0);
    expect(run.outcomes.find((o) => o.i === k)?.outcome).toBe('ok');
  });

  for (const e of entries) {
    it(`${e.file}: success or an H5Error, no hang, at most ${SIZE_PEAK_LIMIT_MB} MB`, () => {
      const { failures, summary } = sizeFailures(size.get(e.file)!);
      console.log(summary);
      expect(size.get(e.file)!.mutations.length).toBeGreaterThan(10);
      expect(failures.slice(0, 25), `${failures.length} size-field mutations of ${e.file} failed`).toEqual([]);
    });
  }
});
