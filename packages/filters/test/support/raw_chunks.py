"""Shared by the oracle helpers of third-party filters HDF5 has no plugin for here (h5bshuf.py,
h5zstd.py; Debian h5py, HDF5 1.10.8): chunks move as raw bytes, read with read_direct_chunk and
written with write_direct_chunk, the filter declared optional so that HDF5 accepts it without the
plugin.
"""
import json

import h5py
import numpy as np
from h5py import h5d, h5p, h5s, h5t, h5z


def stored_chunks(ds):
    """The stored chunks of dataset `ds`: [{"offset", "mask", "hex"}] in HDF5's chunk order."""
    rows = []
    for k in range(ds.id.get_num_chunks()):
        info = ds.id.get_chunk_info(k)
        mask, raw = ds.id.read_direct_chunk(info.chunk_offset)
        rows.append({"offset": list(info.chunk_offset), "mask": mask, "hex": raw.hex()})
    return rows


def store(path, spec_path, filter_id, client_data):
    """Creates `path` with the datasets of the SPEC file `spec_path` ([{"name", "dtype", "shape",
    "chunks", "chunks_data": [{"offset", "file"}], ...}]), each with optional filter `filter_id`
    and client data `client_data(spec)` (unsigned 32-bit), its chunks stored by write_direct_chunk."""
    spec = json.load(open(spec_path))
    with h5py.File(path, "w") as f:
        for s in spec:
            dcpl = h5p.create(h5p.DATASET_CREATE)
            dcpl.set_chunk(tuple(s["chunks"]))
            dcpl.set_filter(filter_id, h5z.FLAG_OPTIONAL, tuple(v & 0xFFFFFFFF for v in client_data(s)))
            space = h5s.create_simple(tuple(s["shape"]))
            tid = h5t.py_create(np.dtype(s["dtype"]))
            dsid = h5d.create(f.id, s["name"].encode(), tid, space, dcpl=dcpl)
            for ch in s["chunks_data"]:
                dsid.write_direct_chunk(tuple(ch["offset"]), open(ch["file"], "rb").read(), 0)
