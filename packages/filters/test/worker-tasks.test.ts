/**
 * Task jobs of the filter worker pool (core's `PipelineOffload.runTask`): a chunk format's own
 * function, imported by URL on a worker, gives its value back (buffers moved); the pool declines
 * work below its threshold or without threads, and a function that throws or does not exist there
 * resolves null (counted as failed), so the caller runs it itself; jobs waiting for a worker when
 * the pool is shrunk to none all settle, and the pool takes jobs again afterwards.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { threadId } from 'node:worker_threads';
import { pipelineOffload } from '@chunkform/core/plugin';
import { configureWorkers, workerStats } from '../src/index.js';

const MODULE = new URL('./support/task-module.ts', import.meta.url).href;

afterAll(() => configureWorkers());

describe('worker pool task jobs', () => {
  it("runs a module's function on a worker and gives its value back", async () => {
    configureWorkers({ threads: 2, minBytes: 16 });
    const bytes = Uint8Array.from({ length: 64 }, (_, i) => i);
    const r = (await pipelineOffload()!.runTask!({ module: MODULE, fn: 'doubled', args: { bytes }, bytes: bytes.length })) as { out: Uint8Array; thread: number };
    expect(r.thread).not.toBe(threadId);
    expect([...r.out]).toEqual([...bytes].map((b) => (b * 2) & 0xff));
    expect([...bytes].slice(0, 3)).toEqual([0, 1, 2]); // (the caller's arguments are its own)
  });

  it('declines work below the threshold and a pool of 0 threads', () => {
    configureWorkers({ threads: 2, minBytes: 1000 });
    const offload = pipelineOffload()!;
    expect(offload.minBytes).toBe(1000);
    expect(offload.runTask!({ module: MODULE, fn: 'doubled', args: { bytes: new Uint8Array(8) }, bytes: 999 })).toBeNull();
    configureWorkers({ threads: 0 });
    expect(pipelineOffload()!.runTask!({ module: MODULE, fn: 'doubled', args: { bytes: new Uint8Array(8) }, bytes: 1 << 20 })).toBeNull();
  });

  it('a function that throws there, or that the module does not have, resolves null and counts as failed', async () => {
    configureWorkers({ threads: 1, minBytes: 0 });
    const before = workerStats().failed;
    expect(await pipelineOffload()!.runTask!({ module: MODULE, fn: 'fails', args: null, bytes: 1 })).toBeNull();
    expect(await pipelineOffload()!.runTask!({ module: MODULE, fn: 'absent', args: null, bytes: 1 })).toBeNull();
    expect(workerStats().failed).toBe(before + 2);
  });

  it('jobs waiting for a worker when the pool is shrunk to none all settle; later jobs run', async () => {
    configureWorkers({ threads: 1, minBytes: 0 });
    const bytes = new Uint8Array(1 << 16);
    // (one worker holds two jobs: the rest wait on this thread)
    const jobs = Array.from({ length: 8 }, () => pipelineOffload()!.runTask!({ module: MODULE, fn: 'doubled', args: { bytes }, bytes: bytes.length }));
    configureWorkers({ threads: 0 });
    const settled = await Promise.race([Promise.allSettled(jobs), new Promise<'stuck'>((ok) => setTimeout(() => ok('stuck'), 10_000))]);
    expect(settled).not.toBe('stuck');
    configureWorkers({ threads: 1, minBytes: 0 });
    const r = (await pipelineOffload()!.runTask!({ module: MODULE, fn: 'doubled', args: { bytes: Uint8Array.of(3) }, bytes: 1 })) as { out: Uint8Array };
    expect([...r.out]).toEqual([6]);
  });
});
