/**
 * Worker-thread backend for the parallel bitshuffle+LZ4 encoder (selected by the `#threads` import
 * condition `node`; browsers get ./threads-none.ts): one Node worker thread running its own instance
 * of the same WebAssembly module, compressing the second half of a chunk's bitshuffle blocks while
 * the calling thread compresses the first half.
 * @module
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { BshufLz4Worker } from './threads-none.js';

export type { BshufLz4Worker } from './threads-none.js';

// The worker: instantiates the module it is given and runs bshufLz4Compress on each request (same
// memory layout as src/lz4.ts). CommonJS, evaluated from this string, so it needs no loader or file.
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ex = new WebAssembly.Instance(workerData.module, {}).exports;
const base = ex.heapBase();
const align = (n) => (n + 15) & ~15;
parentPort.on('message', ({ id, data, elemSize, blockSize }) => {
  try {
    const len = data.length;
    const size = len / elemSize;
    const bb = Math.min(blockSize, size) * elemSize;
    const table = base, block = table + 16384, tmp = align(block + bb + 64), inp = align(tmp + bb + 64), out = align(inp + len + 64);
    const end = out + len + Math.floor(len / 255) + 20 * Math.ceil(size / blockSize) + 96;
    const mem = ex.memory;
    if (end > mem.buffer.byteLength) mem.grow(Math.ceil((end - mem.buffer.byteLength) / 65536));
    new Uint8Array(mem.buffer, inp, len).set(data);
    const n = ex.bshufLz4Compress(inp, size, elemSize, blockSize, out, block, tmp, table);
    const r = new Uint8Array(mem.buffer, out, n).slice();
    parentPort.postMessage({ id, out: r }, [r.buffer]);
  } catch (e) {
    parentPort.postMessage({ id, error: String((e && e.message) || e) });
  }
});
`;

interface Reply {
  id: number;
  out?: Uint8Array;
  error?: string;
}

/**
 * Starts the worker for `module` (null when the machine has a single core or workers cannot be
 * created). The worker does not keep the process alive while idle.
 */
export function startBshufLz4Worker(module: WebAssembly.Module): BshufLz4Worker | null {
  if (availableParallelism() < 2) return null;
  let worker: Worker;
  try {
    worker = new Worker(SOURCE, { eval: true, workerData: { module } });
  } catch {
    return null;
  }
  worker.unref();
  let ready = false;
  let dead = false;
  let next = 0;
  const pending = new Map<number, { resolve(v: Uint8Array): void; reject(e: Error): void }>();
  const settleAll = (e: Error): void => {
    dead = true;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  worker.on('online', () => {
    ready = true;
  });
  worker.on('error', (e) => settleAll(e instanceof Error ? e : new Error(String(e))));
  worker.on('exit', () => settleAll(new Error('bitshuffle-wasm: the LZ4 worker exited')));
  worker.on('message', (m: Reply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (pending.size === 0) worker.unref();
    if (m.out) p.resolve(m.out);
    else p.reject(new Error(`bitshuffle-wasm: LZ4 worker failed: ${m.error}`));
  });
  return {
    get ready() {
      return ready && !dead;
    },
    compress(data, elemSize, blockSize) {
      const id = next++;
      if (pending.size === 0) worker.ref(); // keep the process alive until the reply arrives
      return new Promise<Uint8Array>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, data, elemSize, blockSize }, [data.buffer as ArrayBuffer]);
      });
    },
    terminate() {
      dead = true;
      void worker.terminate();
    },
  };
}
