/**
 * Child process of chunked-corrupt.test.ts (run with `node --import tsx`, protocol of
 * test/oracle/corrupt-harness.ts): applies each corruption to a chunked fixture and walks every
 * dataset — metadata, full read, a hyperslab read, the chunk list, chunk lookups by coordinate and raw
 * chunk reads — reporting every error (class, message, chunk, filter id).
 */
import { readFileSync } from 'node:fs';
import './setup-registrations.js';
import { FilterError, H5Error, openFile, type Dataset, type H5File } from '../packages/core/src/index.js';
import { selectHyperslab } from '../packages/core/src/selection/index.js';
import { applyChunkedMutation, type ChunkedMutation } from './oracle/chunked-mutations.js';
import type { HarnessOutcome } from './oracle/corrupt-harness.js';

const TIMEOUT_MS = 5000;
const MAX_CHUNKS = 300;

async function walkDataset(d: Dataset, attempt: <T>(fn: () => Promise<T>) => Promise<T | undefined>): Promise<void> {
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
async function walk(bytes: Uint8Array): Promise<unknown[]> {
  const errors: unknown[] = [];
  const attempt = async <T>(fn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await fn();
    } catch (e) {
      errors.push(e);
      return undefined;
    }
  };
  const f = (await attempt(() => openFile(bytes))) as H5File | undefined;
  if (!f) return errors;
  for (const name of (await attempt(() => f.keys())) ?? []) {
    const node = (await attempt(() => f.get(name))) as Dataset | undefined;
    if (node && typeof (node as { read?: unknown }).read === 'function') await walkDataset(node, attempt);
  }
  await attempt(() => f.close());
  return errors;
}

function describe(e: unknown): NonNullable<HarnessOutcome['errors']>[number] {
  const err = e instanceof Error ? e : new Error(String(e));
  return {
    name: err.constructor.name,
    message: err.message.slice(0, 400),
    ...(e instanceof FilterError && e.chunk ? { chunk: [...e.chunk] } : {}),
    ...(e instanceof FilterError && e.filterId !== undefined ? { filterId: e.filterId } : {}),
  };
}

function classify(i: number, errors: unknown[]): HarnessOutcome {
  const bad = errors.find((e) => !(e instanceof H5Error));
  const e = bad ?? errors[0];
  if (e === undefined) return { i, outcome: 'ok' };
  const err = e instanceof Error ? e : new Error(String(e));
  return {
    i,
    outcome: bad !== undefined ? 'bad' : 'h5error',
    errorName: e instanceof Error ? e.constructor.name : typeof e,
    message: err.message.slice(0, 300),
    errors: errors.slice(0, 6).map(describe),
    ...(bad !== undefined ? { stack: (err.stack ?? '').split('\n').slice(0, 8).join('\n') } : {}),
  };
}

async function run(file: string, mutations: ChunkedMutation[], start: number): Promise<void> {
  const orig = new Uint8Array(readFileSync(file));
  const send = (msg: unknown): Promise<void> => new Promise((res) => process.send!(msg, () => res()));
  for (let i = start; i < mutations.length; i++) {
    await send({ type: 'start', i });
    const bytes = applyChunkedMutation(orig, mutations[i]!);
    let timer: NodeJS.Timeout | undefined;
    const hang = new Promise<'hang'>((res) => {
      timer = setTimeout(() => res('hang'), TIMEOUT_MS);
    });
    const r = await Promise.race([walk(bytes), hang]);
    clearTimeout(timer);
    await send({ type: 'result', ...(r === 'hang' ? { i, outcome: 'hang' } : classify(i, r)) });
  }
  await send({ type: 'done' });
}

process.on('message', (msg: { file: string; mutations: ChunkedMutation[]; start: number }) => {
  run(msg.file, msg.mutations, msg.start).then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`chunked-corrupt-worker failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
});
