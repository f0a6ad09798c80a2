#!/usr/bin/python3
"""h5py (HDF5 C library) side of bench/threads.ts: LZ4 (filter 32004, Debian's hdf5-filter-plugin) write and
read of the same frames. Run with HDF5_PLUGIN_PATH set. Usage:

  threads_h5py.py write RAW H5 FRAMES H W   create, write all frames (chunks 1 x H x W, LZ4), close -> seconds
  threads_h5py.py read H5                   open, read the dataset whole, close -> seconds
"""
import sys
import time

import h5py
import numpy as np

cmd = sys.argv[1]
if cmd == "write":
    raw, path, frames, h, w = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
    data = np.fromfile(raw, dtype="<u2").reshape(frames, h, w)
    t = time.perf_counter()
    with h5py.File(path, "w") as f:
        f.create_dataset("d", data=data, chunks=(1, h, w), compression=32004)
    print(time.perf_counter() - t)
elif cmd == "read":
    t = time.perf_counter()
    with h5py.File(sys.argv[2], "r") as f:
        d = f["d"][()]
    s = time.perf_counter() - t
    print(s, int(d[-1].sum(dtype=np.int64)))
