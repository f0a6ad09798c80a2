/**
 * Child process of test/sparse-corrupt.test.ts (run with `node --import tsx`, protocol of
 * test/oracle/corrupt-harness.ts): applies each corruption to a small file of sparse (and one dense)
 * datasets and walks it — every dataset's metadata, read, getDefined, readDefined, a hyperslab read,
 * the structured-chunk list, each chunk's direct read and info — then opens a copy in 'r+' mode and
 * writes, erases and closes (read-modify-write on corrupt chunks, index updates, flush). Every error is
 * reported (class, message). The child side of the protocol is test/oracle/corrupt-worker-common.ts.
 * @module
 */
import '../setup-registrations.js';
import { MemoryStore, openFile, selectHyperslab, selectPoints, type Dataset, type H5File } from '../../packages/core/src/index.js';
import { applyChunkedMutation, type ChunkedMutation } from './chunked-mutations.js';
import { serveMutations, walkFile, WALK_MAX_READ_BYTES, type Attempt } from './corrupt-worker-common.js';

const MAX_CHUNKS = 100;

function isDataset(n: unknown): n is Dataset {
  return typeof (n as { read?: unknown })?.read === 'function' && typeof (n as { getDefined?: unknown }).getDefined === 'function';
}

async function walkDataset(d: Dataset, attempt: Attempt): Promise<void> {
  const shape = d.shape;
  void d.layout;
  void d.sectionFilters;
  await attempt(() => d.read());
  await attempt(() => d.getDefined());
  await attempt(() => d.readDefined());
  if (shape.length > 0 && shape.every((n) => n > 0)) {
    await attempt(() => d.read(selectHyperslab({ start: shape.map(() => 0), count: shape.map((n) => Math.min(n, 3)) })));
  }
  if (d.layout.class !== 'structured') return;
  const offsets: number[][] = [];
  await attempt(() =>
    d.iterateStructChunks((c) => {
      if (offsets.length < MAX_CHUNKS) offsets.push([...c.offset]);
    }),
  );
  await attempt(() => d.numChunks());
  for (const o of offsets) {
    await attempt(() => d.readStructChunk(o));
    await attempt(() => d.structChunkInfoByCoord(o));
  }
}

/** Every dataset reachable from the root (one level of groups). */
async function datasets(f: H5File, attempt: Attempt): Promise<Dataset[]> {
  const out: Dataset[] = [];
  for (const name of (await attempt(() => f.keys())) ?? []) {
    const node = await attempt(() => f.get(name));
    if (isDataset(node)) out.push(node);
    else if (node && typeof (node as H5File).keys === 'function') {
      for (const child of (await attempt(() => (node as H5File).keys())) ?? []) {
        const c = await attempt(() => (node as H5File).get(child));
        if (isDataset(c)) out.push(c);
      }
    }
  }
  return out;
}

/** Walks every dataset of `bytes` read-only, then modifies a copy in 'r+' mode; returns every error thrown. */
async function walk(bytes: Uint8Array): Promise<unknown[]> {
  const errors = await walkFile(bytes, async (f, attempt) => {
    for (const d of await datasets(f, attempt)) await walkDataset(d, attempt);
  });
  const attempt: Attempt = async (fn) => {
    try {
      return await fn();
    } catch (e) {
      errors.push(e);
      return undefined;
    }
  };
  const g = await attempt(() => openFile(new MemoryStore(bytes.slice()), { mode: 'r+', maxReadBytes: WALK_MAX_READ_BYTES }));
  if (g) {
    for (const d of await datasets(g, attempt)) {
      if (d.layout.class !== 'structured' || d.shape.some((n) => n < 2)) continue;
      await attempt(() => d.write([3], selectPoints([d.shape.map((n) => n - 1)])));
      await attempt(() => d.erase(selectPoints([d.shape.map(() => 1)])));
      await attempt(() => d.getDefined());
    }
    await attempt(() => g.close());
  }
  return errors;
}

serveMutations<ChunkedMutation>({ name: 'sparse-corrupt-worker', apply: applyChunkedMutation, walk, listErrors: true });
