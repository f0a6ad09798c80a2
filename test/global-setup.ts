/**
 * vitest globalSetup: generates the h5py oracle fixtures once before any test worker starts
 * (reference it from vitest.config.ts: `globalSetup: ['test/global-setup.ts']`). Test files also call
 * ensureFixtures() themselves, which is then a cheap up-to-date check.
 */
import { ensureFixtures } from './oracle/fixtures.js';

export default function setup(): void {
  ensureFixtures();
}
