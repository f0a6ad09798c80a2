/**
 * Oracle fixtures for the interop and corrupt-input suites: generates the h5py-written fixture files
 * (test/oracle/make_fixtures.py) into test/fixtures/generated/ once, and gives tests their companion
 * JSON (test/oracle/h5py_dump.py). Everything here is synchronous so tests can be generated from the
 * JSON at collection time.
 * @module
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Debian python with h5py (HDF5 1.10.8); NOT the first python3 on PATH. */
export const PYTHON = '/usr/bin/python3';
/** Directory of the oracle scripts. */
export const ORACLE_DIR = dirname(fileURLToPath(import.meta.url));
/** Where the fixtures are generated (gitignored). */
export const FIXTURE_DIR = resolve(ORACLE_DIR, '../fixtures/generated');

/** One fixture file in the manifest. */
export interface FixtureEntry {
  file: string;
  json: string;
  libver: 'earliest' | 'latest';
  family: string;
  corrupt: boolean;
  size: number;
}

/** manifest.json written by make_fixtures.py. */
export interface Manifest {
  stamp: string;
  h5py: string;
  hdf5: string;
  files: FixtureEntry[];
}

/** Datatype description in the dump (mirrors chunkform's Datatype). */
export interface DumpType {
  class: string;
  size?: number;
  signed?: boolean;
  order?: 'LE' | 'BE';
  length?: number | 'variable';
  charset?: 'ascii' | 'utf-8';
  padding?: string;
  base?: DumpType;
  dims?: number[];
  members?: { name: string; value?: number | string; offset?: number; type?: DumpType }[];
  tag?: string;
}

/** An attribute in the dump. */
export interface DumpAttr {
  dtype: DumpType;
  dtype_str: string;
  shape: number[] | null;
  value: unknown;
}

/** A link in the dump. */
export interface DumpLink {
  name: string;
  kind: 'hard' | 'soft' | 'external';
  target?: string;
  file?: string;
  path?: string;
  dangling?: boolean;
  target_kind?: string;
  target_address?: number;
}

/** One object (group, dataset, or a second hard link to an object already listed). */
export interface DumpObject {
  path: string;
  kind: 'group' | 'dataset' | 'datatype';
  address: number;
  alias_of?: string;
  links?: DumpLink[];
  attrs?: Record<string, DumpAttr>;
  attr_order?: string[];
  shape?: number[] | null;
  maxshape?: (number | null)[] | null;
  dtype?: DumpType;
  dtype_str?: string;
  layout?: string;
  chunked?: boolean;
  fill?: { defined: 'undefined' | 'default' | 'user'; value: unknown };
  values?: unknown[] | null;
  values_digest?: { sha256: string; count: number; dtype: string; head: unknown[] };
}

/** h5py_dump.py's document. */
export interface DumpDoc {
  format: number;
  file: string;
  libver?: string;
  objects: DumpObject[];
}

let checked: { h5py: string; hdf5: string } | undefined;

/** Runs a Python script with Debian's h5py (`sys.argv[1:]` = `args`) and returns its standard output; a failing script throws with its stderr. */
export function runPython(script: string, ...args: string[]): string {
  requireH5py();
  const r = spawnSync(PYTHON, ['-c', script, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

/** Throws (never skips) when /usr/bin/python3 cannot import h5py: CI installs python3-h5py. */
export function requireH5py(): { h5py: string; hdf5: string } {
  if (checked) return checked;
  const r = spawnSync(PYTHON, ['-c', 'import h5py; print(h5py.__version__); print(h5py.version.hdf5_version)'], {
    encoding: 'utf8',
  });
  if (r.error || r.status !== 0) {
    throw new Error(
      `the interop oracle needs h5py: "${PYTHON} -c 'import h5py'" failed ` +
        `(${r.error ? r.error.message : `exit ${r.status}: ${r.stderr.trim()}`}). Install python3-h5py (apt).`,
    );
  }
  const [h5py, hdf5] = r.stdout.trim().split('\n');
  checked = { h5py: h5py!, hdf5: hdf5! };
  return checked;
}

/** A generated fixture set: a generator script writing files + manifest.json into a directory. */
interface FixtureSet {
  /** Generator script in ORACLE_DIR (run as `PYTHON script OUTDIR`). */
  script: string;
  /** Output directory. */
  dir: string;
}

const MAIN_SET: FixtureSet = { script: 'make_fixtures.py', dir: FIXTURE_DIR };

/** The stamp a generator writes: changes when it or h5py_dump.py or the h5py/HDF5 versions change. */
function expectedStamp(set: FixtureSet, v: { h5py: string; hdf5: string }): string {
  const h = createHash('sha256');
  for (const name of [set.script, 'h5py_dump.py', 'fixture_common.py']) h.update(readFileSync(join(ORACLE_DIR, name)));
  h.update(v.h5py);
  h.update(v.hdf5);
  return h.digest('hex');
}

function readManifest<M>(dir: string): M | undefined {
  const p = join(dir, 'manifest.json');
  if (!existsSync(p)) return undefined;
  try {
    return JSON.parse(readFileSync(p, 'utf8')) as M;
  } catch {
    return undefined;
  }
}

function upToDate<M extends { stamp: string; files: { file: string; json: string; size: number }[] }>(
  dir: string,
  stamp: string,
): M | undefined {
  const m = readManifest<M>(dir);
  if (!m || m.stamp !== stamp) return undefined;
  for (const e of m.files) {
    const p = join(dir, e.file);
    if (!existsSync(p) || statSync(p).size !== e.size || !existsSync(join(dir, e.json))) return undefined;
  }
  return m;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Generates `set` if missing or stale, under a lock (other processes generating it are waited for). */
function ensureSet<M extends { stamp: string; files: { file: string; json: string; size: number }[] }>(set: FixtureSet): M {
  const stamp = expectedStamp(set, requireH5py());
  let m = upToDate<M>(set.dir, stamp);
  if (m) return m;
  const lockDir = set.dir + '.lock';
  mkdirSync(dirname(set.dir), { recursive: true });
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch {
      // Someone else is generating; a lock older than 5 minutes is stale.
      try {
        if (Date.now() - statSync(lockDir).mtimeMs > 300_000) rmSync(lockDir, { recursive: true, force: true });
      } catch {
        /* gone meanwhile */
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockDir}`);
      sleep(200);
    }
  }
  try {
    m = upToDate<M>(set.dir, stamp);
    if (!m) {
      const tmp = `${set.dir}.tmp-${process.pid}`;
      rmSync(tmp, { recursive: true, force: true });
      execFileSync(PYTHON, [join(ORACLE_DIR, set.script), tmp], { stdio: ['ignore', 'inherit', 'inherit'] });
      rmSync(set.dir, { recursive: true, force: true });
      renameSync(tmp, set.dir);
      m = upToDate<M>(set.dir, stamp);
      if (!m) throw new Error(`${set.script} did not produce an up-to-date manifest (stamp mismatch)`);
    }
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
  return m;
}

let cached: Manifest | undefined;

/**
 * Generates the fixtures if they are missing or stale (another process generating them at the same
 * time is waited for) and returns the manifest. Throws if h5py is unavailable.
 */
export function ensureFixtures(): Manifest {
  cached ??= ensureSet<Manifest>(MAIN_SET);
  return cached;
}

// ---- chunked-storage fixtures (make_chunked_fixtures.py) -------------------------------------------

/**
 * Where the chunked fixtures are generated: inside the (gitignored) main fixture directory, so a
 * regeneration of the main set removes them too and they are regenerated on next use.
 */
export const CHUNKED_FIXTURE_DIR = join(FIXTURE_DIR, 'chunked');
const CHUNKED_SET: FixtureSet = { script: 'make_chunked_fixtures.py', dir: CHUNKED_FIXTURE_DIR };

/** One chunked fixture file in its manifest. */
export interface ChunkedFixtureEntry {
  file: string;
  json: string;
  extra: string;
  libver: 'earliest' | 'v108' | 'latest';
  /**
   * 'chunked' (interop), 'corrupt' (one dataset /d for the corrupt-input suite), 'lzf' (unregistered
   * filter) or 'btree1_v108' (v1 B-tree indexes in a superblock-2 file, for r+ writes).
   */
  family: 'chunked' | 'corrupt' | 'lzf' | 'btree1_v108';
  size: number;
}

/** manifest.json of the chunked fixtures. */
export interface ChunkedManifest {
  stamp: string;
  h5py: string;
  hdf5: string;
  files: ChunkedFixtureEntry[];
}

/** A selection read by HDF5 in a chunked fixture, with its result. */
export type ExtraSelection =
  | { kind: 'hyperslab'; start: number[]; stride: number[]; count: number[]; block: number[]; values: unknown[] }
  | { kind: 'union'; boxes: [number[], number[]][]; values: unknown[] }
  | { kind: 'points'; coords: number[][]; values: unknown[] }
  | { kind: 'slice'; slices: [number | null, number | null, number | null][]; shape: number[]; values: unknown[] };

/** Chunk details of one dataset (FILE.extra.json). */
export interface ExtraDataset {
  /** Index type HDF5 chose (read with h5debug), in chunkform's names ('btree1', 'single', 'fixed-array', ...). */
  index: string;
  chunks: number[];
  filters: { id: number; flags: number; cd: number[] }[];
  num_chunks: number;
  /** [...offset, filterMask, address, size] in index order; all chunks when `chunk_info_complete`. */
  chunk_info: number[][];
  chunk_info_complete: boolean;
  /** HDF5 1.10.8's H5Dget_chunk_info reports wrong offsets for this dataset (swizzled extensible array). */
  chunk_offsets_unreliable: boolean;
  /** H5Dread_chunk at sampled grid positions: [offset, filterMask, sha256 of the bytes] (nulls: no chunk). */
  direct: [number[], number | null, string | null][];
  selections?: ExtraSelection[];
}

let chunkedCached: ChunkedManifest | undefined;

/** Generates the chunked fixtures if missing or stale; returns their manifest. */
export function ensureChunkedFixtures(): ChunkedManifest {
  chunkedCached ??= ensureSet<ChunkedManifest>(CHUNKED_SET);
  return chunkedCached;
}

/** Absolute path of a chunked fixture file. */
export function chunkedFixturePath(file: string): string {
  return join(CHUNKED_FIXTURE_DIR, file);
}

/** The h5py dump and chunk details of a chunked fixture. */
export function loadChunkedExpected(entry: ChunkedFixtureEntry): { doc: DumpDoc; extra: Record<string, ExtraDataset> } {
  const doc = JSON.parse(readFileSync(join(CHUNKED_FIXTURE_DIR, entry.json), 'utf8')) as DumpDoc;
  const extra = (JSON.parse(readFileSync(join(CHUNKED_FIXTURE_DIR, entry.extra), 'utf8')) as { datasets: Record<string, ExtraDataset> }).datasets;
  return { doc, extra };
}

/** Absolute path of a fixture file. */
export function fixturePath(file: string): string {
  return join(FIXTURE_DIR, file);
}

/** The companion JSON of a fixture file. */
export function loadExpected(entry: FixtureEntry): DumpDoc {
  return JSON.parse(readFileSync(join(FIXTURE_DIR, entry.json), 'utf8')) as DumpDoc;
}

/** Runs h5py_dump.py on any file (e.g. one chunkform wrote). Throws with h5py's stderr if it fails. */
export function h5pyDump(file: string): DumpDoc {
  const r = spawnSync(PYTHON, [join(ORACLE_DIR, 'h5py_dump.py'), file], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`h5py could not read ${file}:\n${r.stderr}`);
  return JSON.parse(r.stdout) as DumpDoc;
}
