/**
 * Bad input at dataset level for sparse datasets (issue #4 "Done when"): corrupt selection bytes
 * (checksum mismatch), a section offset past the chunk, a selection outside the chunk, a values section of
 * the wrong length, corrupt filtered sections — crafted with `writeStructChunk` and by patching bytes of a
 * written file (index records re-checksummed so the decoders get past verification). Every operation that
 * touches the chunk (read, getDefined, readDefined, write and erase into it) must throw an `H5Error` whose
 * message names the dataset and the chunk.
 *
 * Then a sweep of single-byte corruptions and truncations over a small file with sparse datasets of every
 * index type (and filters) in child processes (test/oracle/sparse-corrupt-worker.ts through
 * test/oracle/corrupt-harness.ts): read-only walks and r+ modifications must end in success or an
 * H5Error — never another error, a hang or a crash.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import {
  createFile,
  H5Error,
  lookup3,
  MemoryStore,
  openFile,
  selectPoints,
  type CreateDatasetOptions,
  type Dataset,
} from '../packages/core/src/index.js';
import { findStructures, le, patchWithChecksum, applyChunkedMutation, type ChunkedMutation } from './oracle/chunked-mutations.js';
import { runMutations, type HarnessOutcome } from './oracle/corrupt-harness.js';
import { runSizeSuite, sizeFailures, SIZE_PEAK_LIMIT_MB, type SizeRun } from './oracle/size-mutations.js';
import { describeMutation, mutationsFor } from './oracle/mutations.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const TMP = mkdtempSync(join(tmpdir(), 'chunkform-sparse-corrupt-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const withChecksum = (b: Uint8Array): Uint8Array => {
  const o = new Uint8Array(b.length + 4);
  o.set(b);
  new DataView(o.buffer).setUint32(b.length, lookup3(b), true);
  return o;
};
const u32 = (b: Uint8Array, o: number): number => new DataView(b.buffer, b.byteOffset + o, 4).getUint32(0, true);

/** Does `message` name the chunk whose first element is at `offset` (as an offset or as chunk coordinates)? */
function namesChunk(message: string, offset: number[], chunkDims: number[]): boolean {
  const idx = offset.map((o, i) => Math.floor(o / chunkDims[i]!));
  return [offset, idx].flatMap((v) => [`[${v.join(', ')}]`, `[${v.join(',')}]`, `(${v.join(', ')})`]).some((f) => message.includes(f));
}

/** A one-dataset file: `path` with `opts`, elements 6, 8 (chunk [5]) and 12 (chunk [10]) written. */
async function oneDataset(path: string, opts: CreateDatasetOptions): Promise<Uint8Array> {
  const store = new MemoryStore();
  const f = await createFile(store, { superblockVersion: 3 });
  const d = await f.createDataset(path, { selectionEncoding: 'prototype', ...opts });
  await d.write([1, 2, 3], selectPoints([[6], [8], [12]]));
  await f.close();
  return store.toBytes();
}

const PATH = '/grp/sparse';
const UNFILTERED: CreateDatasetOptions = { layout: 'sparse', dtype: '<i4', shape: [20], chunks: [5] }; // fixed array
const FILTERED: CreateDatasetOptions = { layout: 'sparse', dtype: '<i4', shape: [20], maxShape: [null], chunks: [5], filters: { selection: [{ id: 1, clientData: [5] }], values: [{ id: 1, clientData: [5] }] } };
const SINGLE: CreateDatasetOptions = { layout: 'sparse', dtype: '<i4', shape: [20], chunks: [20] };

/**
 * Runs every chunk-touching operation on `bytes` (opened 'r+' in memory) and returns a problem per
 * operation that did not throw an H5Error naming the dataset and the chunk at `offset`.
 */
async function expectTypedErrors(bytes: Uint8Array, offset: number[], chunkDims: number[], what: string, allowed?: string[]): Promise<string[]> {
  const problems: string[] = [];
  const ops: [string, (d: Dataset) => Promise<unknown>][] = [
    ['read()', (d) => d.read()],
    ['getDefined()', (d) => d.getDefined()],
    ['readDefined()', (d) => d.readDefined()],
    ['write into the chunk', (d) => d.write([99], selectPoints([[offset[0]! + 1]]))],
    ['erase in the chunk', (d) => d.erase(selectPoints([[offset[0]!]]))],
  ];
  for (const [name, op] of ops) {
    const f = await openFile(new MemoryStore(bytes.slice()), { mode: 'r+' });
    const d = (await f.get(PATH)) as Dataset;
    try {
      await op(d);
      problems.push(`${what}: ${name} succeeded`);
    } catch (e) {
      if (!(e instanceof H5Error)) problems.push(`${what}: ${name} threw ${String(e)} (not an H5Error)`);
      else {
        if (!e.message.includes(PATH)) problems.push(`${what}: ${name}: ${e.constructor.name} does not name ${PATH}: ${e.message}`);
        if (!namesChunk(e.message, offset, chunkDims)) problems.push(`${what}: ${name}: ${e.constructor.name} does not name chunk [${offset}]: ${e.message}`);
        if (allowed && !allowed.includes(e.constructor.name)) problems.push(`${what}: ${name}: expected ${allowed.join(' | ')}, got ${e.constructor.name}: ${e.message}`);
      }
    }
    await f.close().catch(() => undefined);
  }
  return problems;
}

/** `bytes` after `d.writeStructChunk(offset, sections, info)` on a copy. */
async function withStructChunk(bytes: Uint8Array, offset: number[], make: (orig: Uint8Array[]) => { sections: Uint8Array[]; info?: { unfilteredSizes?: number[]; filterMasks?: number[] } }): Promise<Uint8Array> {
  const store = new MemoryStore(bytes.slice());
  const f = await openFile(store, { mode: 'r+' });
  const d = (await f.get(PATH)) as Dataset;
  const { sections } = await d.readStructChunk(offset);
  const m = make(sections.map((s) => s.slice()));
  await d.writeStructChunk(offset, m.sections, m.info ?? {});
  await f.close();
  return store.toBytes();
}

const FORMAT = ['FormatError', 'TruncatedError', 'ChecksumError', 'SelectionError'];

describe('crafted corrupt sparse chunks give typed errors naming the dataset and the chunk', () => {
  let unfiltered: Uint8Array;
  let filtered: Uint8Array;
  let single: Uint8Array;
  beforeAll(async () => {
    unfiltered = await oneDataset(PATH, UNFILTERED);
    filtered = await oneDataset(PATH, FILTERED);
    single = await oneDataset(PATH, SINGLE);
  });

  it('the uncorrupted files read cleanly', async () => {
    for (const b of [unfiltered, filtered, single]) {
      const f = await openFile(b);
      expect(Array.from((await ((await f.get(PATH)) as Dataset).readDefined()).values as Int32Array)).toEqual([1, 2, 3]);
      await f.close();
    }
  });

  it('selection bytes changed, checksum not updated (writeStructChunk): ChecksumError', async () => {
    const bytes = await withStructChunk(unfiltered, [5], ([s0, s1]) => {
      s0![s0!.length - 10] ^= 0x01;
      return { sections: [s0!, s1!] };
    });
    expect(await expectTypedErrors(bytes, [5], [5], 'selection byte flipped', ['ChecksumError'])).toEqual([]);
  });

  it('selection bytes changed in the written file: ChecksumError', async () => {
    const f = await openFile(unfiltered);
    const c = (await ((await f.get(PATH)) as Dataset).structChunkInfoByCoord([10]))!;
    await f.close();
    const bytes = applyChunkedMutation(unfiltered, { kind: 'xor', offset: c.address + 40, mask: 0x10 });
    expect(await expectTypedErrors(bytes, [10], [5], 'selection byte flipped in the file', ['ChecksumError'])).toEqual([]);
  });

  it('stored checksum changed in the written file: ChecksumError', async () => {
    const f = await openFile(unfiltered);
    const c = (await ((await f.get(PATH)) as Dataset).structChunkInfoByCoord([5]))!;
    await f.close();
    const bytes = applyChunkedMutation(unfiltered, { kind: 'xor', offset: c.address + c.sectionSizes[0]! - 1, mask: 0x80 });
    expect(await expectTypedErrors(bytes, [5], [5], 'checksum flipped', ['ChecksumError'])).toEqual([]);
  });

  /** A valid encoded selection (no checksum) of a rank-2 extent [5, 5] selecting element (0, 0). */
  const rank2 = (): Uint8Array =>
    Uint8Array.from([
      ...[1, 0, 8], ...le(8 + 16 * 2, 4), // header: extent of 40 bytes
      1, 2, 1, 0, 0, 0, 0, 0, ...le(5, 8), ...le(5, 8), ...le(5, 8), ...le(5, 8), // dataspace v1, rank 2, dims + max
      ...[2, 1, 0, 8 + 16, 2, 1, 0, 0, 0, 0].flatMap((v) => le(v, 4)), // hyperslab v1, 1 block [0,0]..[0,0]
    ]);
  const cases: [string, (enc: Uint8Array) => Uint8Array][] = [
    // the prototype encoding of elements 6 and 8 ends with the blocks [1..1] and [3..3] (UINT32 start, end)
    ['a block beyond the chunk (extent = chunk dims)', (enc) => enc.map((v, i) => (i === enc.length - 4 || i === enc.length - 8 ? 7 : v))],
    ['an extent larger than the chunk (10 for a chunk of 5), block inside it', (enc) => enc.map((v, i) => (i === 15 ? 10 : i === enc.length - 4 || i === enc.length - 8 ? 8 : v))],
    ['an extent of rank 2 in a 1-D dataset', () => rank2()],
  ];
  for (const [label, fix] of cases) {
    it(`a selection outside the chunk — ${label}: typed error`, async () => {
      const bytes = await withStructChunk(unfiltered, [5], ([s0, s1]) => ({ sections: [withChecksum(fix(s0!.slice(0, s0!.length - 4))), s1!] }));
      expect(await expectTypedErrors(bytes, [5], [5], label, FORMAT)).toEqual([]);
    });
  }

  for (const [label, values] of [
    ['one value short', new Uint8Array(4)],
    ['one value too many', new Uint8Array(12)],
    ['not a whole number of values', new Uint8Array(9)],
    ['empty', new Uint8Array(0)],
  ] as const) {
    it(`values section of the wrong length (${label}), unfiltered: FormatError`, async () => {
      const bytes = await withStructChunk(unfiltered, [5], ([s0]) => ({ sections: [s0!, values] }));
      expect(await expectTypedErrors(bytes, [5], [5], `values ${label}`, FORMAT)).toEqual([]);
    });
  }

  it('values section of the wrong length behind a filter (deflated 3 values for 2 elements): typed error', async () => {
    const wrong = deflateSync(new Uint8Array(12));
    const bytes = await withStructChunk(filtered, [5], ([s0]) => ({ sections: [s0!, wrong], info: { unfilteredSizes: [0, 12] } }));
    // section 0's unfiltered size must be right for the record: read it from the original record
    const f = await openFile(filtered);
    const orig = (await ((await f.get(PATH)) as Dataset).structChunkInfoByCoord([5]))!;
    await f.close();
    const fixed = await withStructChunk(bytes, [5], ([s0, s1]) => ({ sections: [s0!, s1!], info: { unfilteredSizes: [orig.unfilteredSizes[0]!, 12] } }));
    expect(await expectTypedErrors(fixed, [5], [5], 'deflated values of the wrong length', [...FORMAT, 'FilterError'])).toEqual([]);
  });

  it('corrupt deflate stream in the selection section: FilterError', async () => {
    const bytes = await withStructChunk(filtered, [5], ([s0, s1]) => {
      s0!.fill(0x5a, 2);
      return { sections: [s0!, s1!] };
    });
    expect(await expectTypedErrors(bytes, [5], [5], 'corrupt deflate stream', ['FilterError', ...FORMAT])).toEqual([]);
  });

  it('bytes after the deflate stream of the selection section (section 1 offset too large): FilterError', async () => {
    const bytes = await withStructChunk(filtered, [5], ([s0, s1]) => {
      const padded = new Uint8Array(s0!.length + 3);
      padded.set(s0!);
      padded.set([1, 2, 3], s0!.length);
      return { sections: [padded, s1!], info: { unfilteredSizes: [inflateSync(s0!).length, inflateSync(s1!).length] } };
    });
    expect(await expectTypedErrors(bytes, [5], [5], 'bytes after the deflate stream', ['FilterError'])).toEqual([]);
  });

  /** Patches the section-1 offset in the index record of chunk [5] (fixed array data block, element 1). */
  const patchFaOffset = (bytes: Uint8Array, value: number): ChunkedMutation => {
    const fadb = findStructures(bytes).find((s) => s.sig === 'FADB')!;
    // element = address (8) | chunk size (L = 2) | offset of section 1 (8); elements start after 14 bytes
    return patchWithChecksum(bytes, fadb, 14 + 18 * 1 + 10, le(value, 8));
  };
  for (const [label, delta] of [['past the end of the chunk', 50], ['just past the end of the chunk', 1], ['2^40', 2 ** 40]] as const) {
    it(`section 1 offset ${label} (fixed array record, re-checksummed): FormatError`, async () => {
      const f = await openFile(unfiltered);
      const c = (await ((await f.get(PATH)) as Dataset).structChunkInfoByCoord([5]))!;
      await f.close();
      const bytes = applyChunkedMutation(unfiltered, patchFaOffset(unfiltered, delta > 1000 ? delta : c.size + delta));
      expect(await expectTypedErrors(bytes, [5], [5], `offset ${label}`, FORMAT)).toEqual([]);
    });
  }

  it('section 1 offset 0 (an empty selection section): FormatError', async () => {
    const bytes = applyChunkedMutation(unfiltered, patchFaOffset(unfiltered, 0));
    expect(await expectTypedErrors(bytes, [5], [5], 'offset 0', FORMAT)).toEqual([]);
  });

  it('section 1 offset past the chunk in the extensible array record of a filtered dataset: typed error', async () => {
    const eaib = findStructures(filtered).find((s) => s.sig === 'EAIB')!;
    // filtered element = address (8) | size (2) | offset (8) | unfiltered sizes (16) | masks (8) = 42 bytes
    const bytes = applyChunkedMutation(filtered, patchWithChecksum(filtered, eaib, 14 + 42 * 1 + 10, le(5000, 8)));
    expect(await expectTypedErrors(bytes, [5], [5], 'EA offset past the chunk', [...FORMAT, 'FilterError'])).toEqual([]);
  });

  it('section 1 offset past the chunk in the single-chunk layout message (object header re-checksummed): FormatError', async () => {
    const f = await openFile(single);
    const d = (await f.get(PATH)) as Dataset;
    const body = d.headerModel.find(8)!.body.slice();
    const c = (await d.structChunkInfo(0))!;
    await f.close();
    // locate the layout body in the file, patch the offset (after the 15 fixed bytes and L = 2 size bytes)
    const at = Buffer.from(single).indexOf(Buffer.from(body));
    expect(at).toBeGreaterThan(0);
    const patched = single.slice();
    patched.set(le(c.size + 40, 8), at + 15 + 2);
    const ohdr = Buffer.from(single.subarray(0, at)).lastIndexOf(Buffer.from('OHDR'));
    let k = at + body.length - ohdr;
    while (u32(single, ohdr + k) !== lookup3(single.subarray(ohdr, ohdr + k))) k++;
    patched.set(le(lookup3(patched.subarray(ohdr, ohdr + k)), 4), ohdr + k);
    expect(await expectTypedErrors(patched, [0], [20], 'single-chunk offset past the chunk', FORMAT)).toEqual([]);
  });
});

/** The sweep's file: sparse datasets of every index type, filtered and not, plus a dense one. */
async function sweepFile(): Promise<Uint8Array> {
  const store = new MemoryStore();
  const f = await createFile(store, { superblockVersion: 3 });
  const ea = await f.createDataset('s/ea', { layout: 'sparse', dtype: '<i4', shape: [20], maxShape: [null], chunks: [5], filters: { selection: [{ id: 1, clientData: [6] }], values: [{ id: 2 }, { id: 1, clientData: [6] }, { id: 3 }] } });
  await ea.write([1, 2, 3, 4, 5, 6], selectPoints([[1], [3], [6], [8], [12], [19]]));
  const fa = await f.createDataset('s/fa', { layout: 'sparse', dtype: '<u2', shape: [6, 6], chunks: [3, 3], selectionEncoding: 'prototype' });
  await fa.write([1, 2, 3, 4, 5], selectPoints([[0, 0], [1, 4], [4, 1], [5, 5], [2, 2]]));
  const bt = await f.createDataset('s/bt2', { layout: 'sparse', dtype: '<f8', shape: [4, 4], maxShape: [null, null], chunks: [2, 2], fletcher32: true, pipelineMessage: 'stc' });
  await bt.write([0.5, 1.5, 2.5], selectPoints([[0, 1], [3, 3], [2, 0]]));
  const single = await f.createDataset('s/single', { layout: 'sparse', dtype: '<i1', shape: [6], chunks: [6] });
  await single.write([-1, -2], selectPoints([[1], [4]]));
  await f.createDataset('dense', { dtype: '<i4', shape: [3], data: [7, 8, 9] });
  await f.close();
  return store.toBytes();
}

describe('byte-flip sweep over a small sparse file (child processes)', () => {
  let bytes: Uint8Array;
  let mutations: ChunkedMutation[];
  let outcomes: HarnessOutcome[];
  let ms = 0;
  /** Byte ranges [start, end, what] whose every change a checksum catches. */
  const checked: [number, number, string][] = [];
  beforeAll(async () => {
    bytes = await sweepFile();
    const f = await openFile(bytes);
    for (const [path, s0, s1] of [['s/ea', false, true], ['s/fa', true, false], ['s/bt2', true, true], ['s/single', true, false]] as const) {
      await ((await f.get(path)) as Dataset).iterateStructChunks((c) => {
        if (s0) checked.push([c.address, c.address + c.sectionSizes[0]!, `${path} chunk [${c.offset}] section 0`]);
        if (s1) checked.push([c.address + c.sectionSizes[0]!, c.address + c.size, `${path} chunk [${c.offset}] section 1`]);
      });
    }
    await f.close();
    const file = join(TMP, 'sweep.h5');
    writeFileSync(file, bytes);
    mutations = [{ kind: 'xor', offset: 0, mask: 0 }, ...mutationsFor('sparse-sweep', bytes.length, { exhaustiveBelow: 16384, samples: 0, truncations: 40 })];
    // two children, each taking every other mutation
    const t0 = Date.now();
    const halves = [0, 1].map((h) => mutations.filter((_, i) => i % 2 === h));
    const results = await Promise.all(halves.map((m) => runMutations(join(HERE, 'oracle', 'sparse-corrupt-worker.ts'), file, m)));
    outcomes = results.flatMap((r, h) => r.map((o) => ({ ...o, i: o.i * 2 + h })));
    ms = Date.now() - t0;
  }, 600_000);

  it('the unmodified file walks (and is modified in r+) without errors', () => {
    const base = outcomes.find((o) => o.i === 0);
    expect(base?.outcome, `${base?.message ?? ''} ${JSON.stringify(base?.errors ?? [])}`).toBe('ok');
  });

  it('every single-byte corruption and truncation gives success or an H5Error', () => {
    const counts: Record<string, number> = {};
    for (const o of outcomes) {
      const k = o.outcome === 'h5error' ? `H5Error:${o.errorName}` : o.outcome;
      counts[k] = (counts[k] ?? 0) + 1;
    }
    console.log(`sparse sweep: ${mutations.length - 1} mutations of ${bytes.length} bytes in ${ms} ms: ${JSON.stringify(counts)}`);
    expect(outcomes.length).toBe(mutations.length);
    const failures = outcomes
      .filter((o) => o.outcome === 'bad' || o.outcome === 'hang' || o.outcome === 'crash')
      .map((o) => {
        const m = mutations[o.i]!;
        const what = m.kind === 'patch' ? JSON.stringify(m) : describeMutation(bytes, m);
        const err = o.outcome === 'bad' ? `${o.errorName}: ${o.message}\n${o.stack ?? ''}` : `${o.outcome.toUpperCase()}: ${o.message ?? ''}`;
        return `${what}\n  ${err.replace(/\n/g, '\n  ')}`;
      });
    expect(failures.slice(0, 25), `${failures.length} corruptions gave a non-H5Error, a hang or a crash`).toEqual([]);
  });

  it('every change of a checksummed section (section 0 unfiltered; Fletcher-32-protected sections) is detected', () => {
    const missed: string[] = [];
    for (const o of outcomes) {
      const m = mutations[o.i]!;
      if (m.kind !== 'xor' && m.kind !== 'set') continue;
      const after = m.kind === 'xor' ? bytes[m.offset]! ^ m.mask : m.value;
      if (after === bytes[m.offset]) continue; // not a change
      const r = checked.find(([a, b]) => m.offset >= a && m.offset < b);
      if (r && o.outcome === 'ok') missed.push(`${describeMutation(bytes, m)} in ${r[2]}: read without an error`);
    }
    expect(checked.length).toBeGreaterThanOrEqual(8);
    expect(missed).toEqual([]);
  });
});

describe('size-field mutations of the small sparse file (checksums recomputed, child processes)', () => {
  let size: Map<string, SizeRun>;
  beforeAll(async () => {
    const file = join(TMP, 'size.h5');
    writeFileSync(file, await sweepFile());
    size = await runSizeSuite([{ name: 'sparse-size', file, worker: join(HERE, 'oracle', 'sparse-corrupt-worker.ts'), max: 120 }], 1);
  }, 300_000);

  it(`success or an H5Error (read-only walks and r+ edits), no hang, at most ${SIZE_PEAK_LIMIT_MB} MB`, () => {
    const run = size.get('sparse-size')!;
    const { failures, summary } = sizeFailures(run);
    console.log(summary);
    expect(run.mutations.filter((m) => m.name.includes('dataspace dim')).length).toBeGreaterThan(10);
    expect(failures.slice(0, 25), `${failures.length} size-field mutations failed`).toEqual([]);
  });
});
