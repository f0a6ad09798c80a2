/** Test helper: the built-in filter pipelines as `createDataset` options (deflate, shuffle, LZ4, bitshuffle + LZ4, zstd, fletcher32). */
export const BUILTIN_PIPELINES: Record<string, Record<string, unknown>> = {
  gzip: { compression: 'gzip', compressionOpts: 1 },
  'shuffle + gzip': { shuffle: true, compression: 'gzip', compressionOpts: 1 },
  LZ4: { filters: [{ id: 32004 }] },
  'bitshuffle + LZ4': { filters: [{ id: 32008, clientData: [0, 2] }] },
  zstd: { filters: [{ id: 32015, clientData: [3] }] },
  'shuffle + fletcher32': { shuffle: true, fletcher32: true },
};
