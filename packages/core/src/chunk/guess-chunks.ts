/**
 * Automatic chunk shapes, as h5py guesses them (`h5py._hl.filters.guess_chunk`): start from the
 * dataset shape and halve dimensions round-robin until a chunk is near a size target that grows
 * with the dataset (8 KiB … 1 MiB).
 * @module
 */

const CHUNK_BASE = 16 * 1024;
const CHUNK_MIN = 8 * 1024;
const CHUNK_MAX = 1024 * 1024;

/** A chunk shape for a dataset of `shape` (0 or unlimited-and-empty dims count as 1024) and `elementSize` bytes. */
export function guessChunks(shape: readonly number[], elementSize: number): number[] {
  const chunks = shape.map((d) => (d === 0 ? 1024 : d));
  const n = chunks.length;
  if (n === 0) return [];
  const product = () => chunks.reduce((a, b) => a * b, 1);
  const datasetBytes = product() * elementSize;
  let target = CHUNK_BASE * 2 ** Math.log10(datasetBytes / (1024 * 1024));
  target = Math.min(CHUNK_MAX, Math.max(CHUNK_MIN, target));
  for (let i = 0; ; i++) {
    const bytes = product() * elementSize;
    if ((bytes < target || Math.abs(bytes - target) / target < 0.5) && bytes < CHUNK_MAX) break;
    if (product() === 1) break;
    chunks[i % n] = Math.ceil(chunks[i % n]! / 2);
  }
  return chunks;
}
