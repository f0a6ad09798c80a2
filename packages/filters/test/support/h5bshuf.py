"""Oracle helper for the bitshuffle filter (32008) tests (Debian h5py, HDF5 1.10.8; no bitshuffle
plugin needed: chunks move as raw bytes).

  dump FILE           print JSON {dataset: {"cd": [...], "chunks": [{"offset", "mask", "hex"}]}}
  store FILE SPEC     SPEC (JSON file): [{"name", "dtype", "shape", "chunks", "cd",
                      "chunks_data": [{"offset", "file"}]}]; create FILE with each dataset carrying
                      filter 32008 (optional) with client data "cd", chunks stored by write_direct_chunk
"""
import json
import sys

import h5py

from raw_chunks import store, stored_chunks


def dump(path):
    out = {}
    with h5py.File(path, "r") as f:
        for name, ds in f.items():
            plist = ds.id.get_create_plist()
            cd = []
            for i in range(plist.get_nfilters()):
                code, flags, vals, _ = plist.get_filter(i)
                if code == 32008:
                    cd = list(vals)
            out[name] = {"cd": cd, "chunks": stored_chunks(ds)}
    print(json.dumps(out))


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2])
    else:
        store(sys.argv[2], sys.argv[3], 32008, lambda s: s["cd"])
