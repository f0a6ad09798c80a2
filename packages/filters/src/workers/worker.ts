/**
 * A filter worker thread (started by ./threads-node.ts): runs whole chunk pipelines with this
 * package's filters through core's pure pipeline (the same code the calling thread runs, so the
 * bytes are the same) and sends the result back, its buffer transferred.
 * @module
 */
import { parentPort } from 'node:worker_threads';
import { decodeChunk, encodeChunk } from '@chunkform/core/plugin';
import { ALL_FILTERS } from '../builtin.js';
import { READY_ID, type FilterJob, type FilterReply } from './protocol.js';

const byId = new Map(ALL_FILTERS.map((f) => [f.id, f]));
const resolve = (id: number) => byId.get(id);

async function run(job: FilterJob): Promise<{ bytes: Uint8Array; filterMask: number }> {
  const where = { path: '', chunk: [] };
  if (job.direction === 'encode') return encodeChunk(job.bytes, job.pipeline, resolve, job.ctx, where);
  return { bytes: await decodeChunk(job.bytes, job.pipeline, job.filterMask, resolve, job.ctx, where), filterMask: job.filterMask };
}

parentPort!.on('message', (m: FilterJob & { id: number }) => {
  run(m).then(
    (r) => {
      // a result that is a view of a larger buffer (or the input itself) goes back as its own copy
      const whole = r.bytes.byteOffset === 0 && r.bytes.byteLength === r.bytes.buffer.byteLength;
      const bytes = whole ? r.bytes : r.bytes.slice();
      // the input's buffer goes back too, for the next job's copy (unless the result lives in it)
      const input = m.bytes.buffer !== bytes.buffer && m.bytes.buffer.byteLength > 0 ? m.bytes : undefined;
      const reply: FilterReply = { id: m.id, bytes, filterMask: r.filterMask, ...(input ? { input } : {}) };
      parentPort!.postMessage(reply, input ? [bytes.buffer as ArrayBuffer, input.buffer as ArrayBuffer] : [bytes.buffer as ArrayBuffer]);
    },
    (e: unknown) => {
      const reply: FilterReply = { id: m.id, error: e instanceof Error ? e.message : String(e) };
      parentPort!.postMessage(reply);
    },
  );
});

parentPort!.postMessage({ id: READY_ID } satisfies FilterReply);
