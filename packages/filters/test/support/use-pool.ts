/**
 * Test helper: the filter worker pool at `threads` workers, started before the tests of the enclosing
 * `describe` and stopped (and back at its default size) after them.
 * @module
 */
import { afterAll, beforeAll } from 'vitest';
import { configureWorkers, startWorkers, stopWorkers } from '../../src/index.js';

export function usePool(threads: number): void {
  beforeAll(async () => {
    configureWorkers({ threads });
    await startWorkers();
  });
  afterAll(() => {
    stopWorkers();
    configureWorkers();
  });
}
