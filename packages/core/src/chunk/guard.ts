/**
 * The error context of one dataset's chunk steps: failures gain the dataset path and chunk
 * coordinates they lack. Also counts the changes made to the chunk index, so that readers can tell
 * whether records found earlier are still current. Read and write paths share it (./placement.ts).
 * @module
 */
import { H5Error } from '../errors.js';

/** Names the chunk in the errors of its steps; counts chunk index changes. */
export class ChunkGuard {
  /** Counts the changes made to the chunk index (records found before a change may be stale). */
  changes = 0;

  constructor(protected readonly path: string) {}

  /** {@link guard} for a step with a result. */
  async guardValue<T>(coords: readonly number[], fn: () => T | Promise<T>): Promise<T> {
    let v!: T;
    await this.guard(coords, async () => {
      v = await fn();
    });
    return v;
  }

  /** Adds the dataset path and chunk coordinates to errors that lack them. */
  async guard(coords: readonly number[], fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      throw this.named(coords, e);
    }
  }

  /**
   * `e` with the dataset path and chunk coordinates added when it lacks them: for loops over many
   * chunks that catch once instead of wrapping every step in {@link guard} (two async frames per step).
   */
  named(coords: readonly number[], e: unknown): unknown {
    if (e instanceof H5Error && (e.path === undefined || e.path === this.path)) return e.withPath(`${this.path} (chunk [${coords.join(', ')}])`, true);
    return e;
  }
}
