/**
 * Child process of chunked-corrupt.test.ts (run with `node --import tsx`, protocol of
 * test/oracle/corrupt-harness.ts): applies each corruption to a chunked fixture and walks every
 * dataset — metadata, full read, a hyperslab read, the chunk list, chunk lookups by coordinate and raw
 * chunk reads — reporting every error (class, message, chunk, filter id). The child side of the
 * protocol is test/oracle/corrupt-worker-common.ts.
 */
import './setup-registrations.js';
import type { Dataset } from '../packages/core/src/index.js';
import { selectHyperslab } from '../packages/core/src/selection/index.js';
import { applyChunkedMutation, type ChunkedMutation } from './oracle/chunked-mutations.js';
import { serveMutations, walkFile, type Attempt } from './oracle/corrupt-worker-common.js';

const MAX_CHUNKS = 300;

async function walkDataset(d: Dataset, attempt: Attempt): Promise<void> {
  void d.shape;
  void d.layout;
  await attempt(() => d.read());
  const shape = d.shape;
  if (shape.length > 0 && shape.every((n) => n > 0)) {
    await attempt(() => d.read(selectHyperslab({ start: shape.map(() => 0), count: shape.map((n) => Math.min(n, 3)), stride: shape.map(() => 1), block: shape.map(() => 1) })));
  }
  const offsets: number[][] = [];
  await attempt(() =>
    d.iterateChunks((c) => {
      if (offsets.length < MAX_CHUNKS) offsets.push([...c.offset]);
    }),
  );
  await attempt(() => d.numChunks());
  await attempt(() => d.chunkInfo(0));
  for (const o of offsets) {
    await attempt(() => d.chunkInfoByCoord(o));
    await attempt(() => d.readChunk(o));
  }
  const chunks = d.chunks;
  if (chunks) await attempt(() => d.chunkInfoByCoord(chunks.map(() => 0)));
}

/** Opens `bytes` and walks every dataset of the root group; returns every error thrown. */
function walk(bytes: Uint8Array): Promise<unknown[]> {
  return walkFile(bytes, async (f, attempt) => {
    for (const name of (await attempt(() => f.keys())) ?? []) {
      const node = (await attempt(() => f.get(name))) as Dataset | undefined;
      if (node && typeof (node as { read?: unknown }).read === 'function') await walkDataset(node, attempt);
    }
  });
}

serveMutations<ChunkedMutation>({ name: 'chunked-corrupt-worker', apply: applyChunkedMutation, walk, listErrors: true });
