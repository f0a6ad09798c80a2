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
import numpy as np
from h5py import h5d, h5p, h5s, h5t, h5z


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
            rows = []
            for k in range(ds.id.get_num_chunks()):
                info = ds.id.get_chunk_info(k)
                mask, raw = ds.id.read_direct_chunk(info.chunk_offset)
                rows.append({"offset": list(info.chunk_offset), "mask": mask, "hex": raw.hex()})
            out[name] = {"cd": cd, "chunks": rows}
    print(json.dumps(out))


def store(path, spec_path):
    spec = json.load(open(spec_path))
    with h5py.File(path, "w") as f:
        for s in spec:
            dcpl = h5p.create(h5p.DATASET_CREATE)
            dcpl.set_chunk(tuple(s["chunks"]))
            dcpl.set_filter(32008, h5z.FLAG_OPTIONAL, tuple(v & 0xFFFFFFFF for v in s["cd"]))
            space = h5s.create_simple(tuple(s["shape"]))
            tid = h5t.py_create(np.dtype(s["dtype"]))
            dsid = h5d.create(f.id, s["name"].encode(), tid, space, dcpl=dcpl)
            for ch in s["chunks_data"]:
                dsid.write_direct_chunk(tuple(ch["offset"]), open(ch["file"], "rb").read(), 0)


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2])
    else:
        store(sys.argv[2], sys.argv[3])
