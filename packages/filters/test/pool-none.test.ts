/**
 * The worker pool of runtimes without worker threads (src/workers/pool-none.ts, the `#pool` import
 * of browser bundles): the same functions as the Node pool, validating their options the same way,
 * with no workers — the offload it installs declines every chunk, so filters run on the calling thread.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pipelineOffload, setPipelineOffload } from '@chunkform/core/plugin';
import * as none from '../src/workers/pool-none.js';
import * as node from '../src/workers/pool.js';

afterEach(() => setPipelineOffload(null));

describe('pool without worker threads', () => {
  it('has the API of the Node pool', () => {
    expect(Object.keys(none).sort()).toEqual(Object.keys(node).sort());
    expect(none.DEFAULT_WORKER_MIN_BYTES).toBe(node.DEFAULT_WORKER_MIN_BYTES);
  });

  it('checks options as the Node pool does, and runs every chunk on the calling thread', async () => {
    expect(() => none.configureWorkers({ threads: -1 })).toThrow(RangeError);
    expect(() => none.configureWorkers({ minBytes: 1.5 })).toThrow(/minBytes must be a whole number/);
    none.configureWorkers({ threads: 4 });
    const off = pipelineOffload()!;
    expect(off.threads).toBe(0);
    const bytes = new Uint8Array(1 << 20);
    const pipeline = { version: 2, filters: [{ id: 1, name: 'deflate', flags: 0, clientData: [6] }] } as never;
    expect(off.decode(bytes, pipeline, 0, [], { elementSize: 1 } as never)).toBeNull();
    expect(off.encode(bytes, pipeline, [], { elementSize: 1 } as never)).toBeNull();
    expect(none.workerPoolSize()).toBe(0);
    expect(await none.startWorkers()).toBe(0);
    expect(none.workerStats()).toEqual({ done: 0, failed: 0, read: 0, takenBack: 0 });
    none.stopWorkers();
    setPipelineOffload(null);
    none.installWorkerPool();
    expect(pipelineOffload()).toBe(off);
  });
});
