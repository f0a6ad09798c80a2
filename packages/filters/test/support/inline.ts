/**
 * Test helper: runs `fn` with core's pipeline offload removed, so every filter pipeline it starts
 * runs on the calling thread (the reference the filter worker pool's bytes are compared with).
 * @module
 */
import { pipelineOffload, setPipelineOffload } from '@chunkform/core/plugin';

/** `fn`'s result with the pipeline run on the calling thread only. */
export async function inline<T>(fn: () => Promise<T>): Promise<T> {
  const saved = pipelineOffload();
  setPipelineOffload(null);
  try {
    return await fn();
  } finally {
    setPipelineOffload(saved);
  }
}
