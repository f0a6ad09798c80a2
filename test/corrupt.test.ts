/**
 * Corrupt input: single-byte corruptions and truncations of h5py-written files (libver earliest and
 * latest; dense groups, attributes, variable-length strings). Every mutated file is opened and fully
 * walked (groups, links, attributes, dataset values). Whatever happens must be either success or an
 * H5Error — never a TypeError/RangeError/plain Error, a hang (5 s) or a crash.
 *
 * Then size-field mutations (test/oracle/size-mutations.ts: dataspace dims and max dims, datatype and
 * layout sizes, continuation and heap lengths, checksums recomputed): the same criteria, plus a peak
 * memory per mutation of at most 256 MB over the walking child's baseline.
 *
 * The walks run in child processes (test/corrupt-worker.ts via test/oracle/corrupt-harness.ts), two at a
 * time, so that synchronous infinite loops and out-of-memory crashes are caught and attributed to a mutation.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureFixtures, fixturePath, type FixtureEntry } from './oracle/fixtures.js';
import { runMutations, type HarnessOutcome } from './oracle/corrupt-harness.js';
import { describeMutation, mutationsFor, type Mutation } from './oracle/mutations.js';
import { runSizeSuite, sizeFailures, SIZE_PEAK_LIMIT_MB, type SizeRun } from './oracle/size-mutations.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const WORKER = join(HERE, 'corrupt-worker.ts');
/** The child's own timer is 5 s (async hangs); this watchdog catches synchronous ones. */
const WATCHDOG_MS = 7000;
const CONCURRENCY = 2;
const PLAN = { exhaustiveBelow: 4096, samples: 2000, truncations: 150 };

const manifest = ensureFixtures();
const entries = manifest.files.filter((e) => e.corrupt);

interface FileRun {
  entry: FixtureEntry;
  orig: Uint8Array;
  mutations: Mutation[];
  outcomes: HarnessOutcome[];
  baseline: HarnessOutcome | undefined;
  ms: number;
}

const runs = new Map<string, FileRun>();

beforeAll(async () => {
  const queue = [...entries];
  const work = async (): Promise<void> => {
    for (let e = queue.shift(); e; e = queue.shift()) {
      const path = fixturePath(e.file);
      const orig = new Uint8Array(readFileSync(path));
      const mutations = mutationsFor(e.file, orig.length, PLAN);
      const t0 = Date.now();
      // index 0: the unmodified file (xor with 0 changes nothing) must walk cleanly
      const all: Mutation[] = [{ kind: 'xor', offset: 0, mask: 0 }, ...mutations];
      const outcomes = await runMutations(WORKER, path, all, { watchdogMs: WATCHDOG_MS });
      runs.set(e.file, {
        entry: e,
        orig,
        mutations,
        baseline: outcomes.find((o) => o.i === 0),
        outcomes: outcomes.filter((o) => o.i > 0).map((o) => ({ ...o, i: o.i - 1 })),
        ms: Date.now() - t0,
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, work));
}, 600_000);

describe('corrupt input', () => {
  it('found the corrupt-input fixtures', () => {
    expect(entries.map((e) => e.file).sort()).toEqual(
      ['small_attrs_earliest.h5', 'small_attrs_latest.h5', 'small_groups_earliest.h5', 'small_groups_latest.h5', 'small_vlen_earliest.h5', 'small_vlen_latest.h5'],
    );
  });

  for (const e of entries) {
    it(`${e.file}: every corruption gives success or an H5Error`, () => {
      const run = runs.get(e.file)!;
      expect(run, 'mutation run did not complete').toBeDefined();
      const counts: Record<string, number> = {};
      for (const o of run.outcomes) {
        const key = o.outcome === 'h5error' ? `H5Error:${o.errorName}` : o.outcome;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      console.log(`${e.file} (${run.orig.length} bytes, ${run.mutations.length} mutations, ${run.ms} ms): ${JSON.stringify(counts)}`);
      expect(run.baseline?.outcome, `unmodified ${e.file} must walk without errors: ${run.baseline?.message}`).toBe('ok');
      expect(run.outcomes.length).toBe(run.mutations.length);
      const failures = run.outcomes
        .filter((o) => o.outcome === 'bad' || o.outcome === 'hang' || o.outcome === 'crash')
        .map((o) => {
          const what = describeMutation(run.orig, run.mutations[o.i]!);
          const err = o.outcome === 'bad' ? `${o.errorName}: ${o.message}\n${o.stack ?? ''}` : `${o.outcome.toUpperCase()}: ${o.message ?? ''}`;
          return `${e.file} ${what}\n  ${err.replace(/\n/g, '\n  ')}`;
        });
      expect(failures.slice(0, 25), `${failures.length} corruptions of ${e.file} gave a non-H5Error, a hang or a crash`).toEqual([]);
    });
  }
});

describe('size-field mutations (checksums recomputed)', () => {
  let size: Map<string, SizeRun>;
  beforeAll(async () => {
    size = await runSizeSuite(entries.map((e) => ({ name: e.file, file: fixturePath(e.file), worker: WORKER, max: 60 })), CONCURRENCY);
  }, 300_000);

  for (const e of entries) {
    it(`${e.file}: success or an H5Error, no hang, at most ${SIZE_PEAK_LIMIT_MB} MB`, () => {
      const { failures, summary } = sizeFailures(size.get(e.file)!);
      console.log(summary);
      expect(size.get(e.file)!.mutations.length).toBeGreaterThan(20);
      expect(failures.slice(0, 25), `${failures.length} size-field mutations of ${e.file} failed`).toEqual([]);
    });
  }
});
