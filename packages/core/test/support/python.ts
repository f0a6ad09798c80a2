/**
 * Debian's Python with h5py (HDF5 1.10.8), the oracle the core unit tests build real files with.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The interpreter that has Debian's h5py (not the `python3` first on PATH). */
export const PY = '/usr/bin/python3';

/** True when `PY` can import h5py (CI installs it through .ci/install-oracles). */
export const hasH5py: boolean =
  existsSync(PY) &&
  (() => {
    try {
      execFileSync(PY, ['-c', 'import h5py'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
