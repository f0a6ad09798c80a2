"""Oracle helper for the zstd filter (32015) tests (Debian h5py, HDF5 1.10.8, no zstd plugin needed:
chunks move as raw bytes).

  dump FILE           print JSON {dataset: [{"offset": [...], "mask": int, "hex": str}]} with the stored
                      chunks of every dataset of FILE
  store FILE SPEC     SPEC (JSON file): [{"name", "dtype", "shape", "chunks", "level",
                      "chunks_data": [{"offset", "file"}]}]; create FILE with each dataset carrying
                      filter 32015 (optional, so HDF5 accepts it without the plugin) and cd_values
                      [level], and store the chunk files with write_direct_chunk
"""
import json
import sys

import h5py

from raw_chunks import store, stored_chunks


def dump(path):
    with h5py.File(path, "r") as f:
        print(json.dumps({name: stored_chunks(ds) for name, ds in f.items()}))


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2])
    else:
        store(sys.argv[2], sys.argv[3], 32015, lambda s: [s["level"]])
